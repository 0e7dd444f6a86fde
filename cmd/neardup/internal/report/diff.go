package report

import (
	"strings"
	"time"
	"unicode"
	"unicode/utf8"

	"github.com/sergi/go-diff/diffmatchpatch"

	"github.com/neardup/neardup/transforms/text/tokenize"
)

// span is a piece of one side of a pair: text common to both texts or
// changed (only in this one), or a note standing for Elided runes left out
// (common text, or changed text when Changed is set too).
type span struct {
	Text    string
	Changed bool
	Elided  int
}

// ElidedText is the number of runes left out, for the page.
func (s span) ElidedText() string { return commas(int64(s.Elided)) }

// contextRunes is how much common text the pair view keeps on each side of
// a change.
const contextRunes = 160

// MaxShownRunes bounds the text shown of each side of a pair, so that the
// page stays small whatever the texts: the rest is counted, not shown.
const MaxShownRunes = 3000

// diffTimeout bounds the time of one pair's diff. A diff that reaches it
// is still a correct diff (each side is rebuilt from it) but may mark more
// than it needs to; the page says so. Near duplicates of 50 kB take a few
// milliseconds (TestDiffLong), so the bound is only met by large texts that
// differ throughout. A variable for the tests.
var diffTimeout = time.Second

// chunk is a run of segments common to both texts of a pair (a and b hold
// the same segments but for white space, which compares equal whatever it
// holds) or a change: a are segments only in the first text, b only in the
// second.
type chunk struct {
	a, b    []string
	changed bool
}

// align diffs the segments (words, CJK characters, white space,
// punctuation) of a and b with Myers' algorithm (diffmatchpatch, on one
// rune per distinct segment) and returns the chunks that make up both
// texts, in order, and whether the diff may have stopped at diffTimeout.
// The a parts of the chunks joined give back a, the b parts b.
func align(a, b string) (chunks []chunk, timedOut bool) {
	ta, tb := segments(a), segments(b)
	ra, rb := segmentRunes(ta, tb)
	dmp := diffmatchpatch.New()
	dmp.DiffTimeout = diffTimeout
	start := time.Now()
	diffs := dmp.DiffMainRunes(ra, rb, false)
	timedOut = time.Since(start) >= diffTimeout
	i, j := 0, 0
	for _, d := range diffs {
		n := utf8.RuneCountInString(d.Text)
		switch d.Type {
		case diffmatchpatch.DiffEqual:
			if i+n > len(ta) || j+n > len(tb) {
				return wholeChange(ta, tb), timedOut
			}
			chunks = append(chunks, chunk{a: ta[i : i+n], b: tb[j : j+n]})
			i, j = i+n, j+n
		case diffmatchpatch.DiffDelete:
			if i+n > len(ta) {
				return wholeChange(ta, tb), timedOut
			}
			chunks = addChange(chunks, ta[i:i+n], nil)
			i += n
		case diffmatchpatch.DiffInsert:
			if j+n > len(tb) {
				return wholeChange(ta, tb), timedOut
			}
			chunks = addChange(chunks, nil, tb[j:j+n])
			j += n
		}
	}
	if i != len(ta) || j != len(tb) {
		// The diff does not cover both texts, which a correct diff always
		// does: show them as one change rather than lose text.
		return wholeChange(ta, tb), timedOut
	}
	return joinChanges(chunks), timedOut
}

func wholeChange(ta, tb []string) []chunk {
	if len(ta) == 0 && len(tb) == 0 {
		return nil
	}
	return []chunk{{a: ta, b: tb, changed: true}}
}

// addChange appends a change to chunks, joined with the change before it.
func addChange(chunks []chunk, a, b []string) []chunk {
	if k := len(chunks); k >= 1 && chunks[k-1].changed {
		prev := &chunks[k-1]
		prev.a = append(prev.a[:len(prev.a):len(prev.a)], a...)
		prev.b = append(prev.b[:len(prev.b):len(prev.b)], b...)
		return chunks
	}
	return append(chunks, chunk{a: a, b: b, changed: true})
}

// joinChanges joins two changes and the common text between them when
// that is only white space or a few words (at most half as many as either
// change has on its larger side): a changed phrase is one change, and a
// comma common to two different sentences does not split them. A joined
// change can let another join: it makes passes until nothing more joins,
// at most maxJoinPasses (a pass is linear; the bound keeps texts made to
// join one change per pass from taking quadratic time).
func joinChanges(chunks []chunk) []chunk {
	for range maxJoinPasses {
		n := len(chunks)
		if chunks = joinPass(chunks); len(chunks) == n {
			break
		}
	}
	return chunks
}

const maxJoinPasses = 8

func joinPass(chunks []chunk) []chunk {
	var out []chunk
	for _, c := range chunks {
		if k := len(out); c.changed && k >= 2 && !out[k-1].changed && out[k-2].changed && smallCommon(out[k-1].a, out[k-2], c.a, c.b) {
			prev := &out[k-2]
			prev.a = append(append(prev.a[:len(prev.a):len(prev.a)], out[k-1].a...), c.a...)
			prev.b = append(append(prev.b[:len(prev.b):len(prev.b)], out[k-1].b...), c.b...)
			out = out[:k-1]
			continue
		}
		out = append(out, c)
	}
	return out
}

// smallCommon reports whether the common segments between change prev and
// the change (a, b) are few enough to be shown as part of the change.
func smallCommon(common []string, prev chunk, a, b []string) bool {
	return 2*words(common) <= min(max(words(prev.a), words(prev.b)), max(words(a), words(b)))
}

// words counts the segments that are not white space.
func words(segs []string) int {
	n := 0
	for _, s := range segs {
		if !isSpace(s) {
			n++
		}
	}
	return n
}

// segmentRunes maps each distinct segment of ta and tb to a rune (every
// run of white space to the same one) and returns the two texts as runes,
// for diffmatchpatch. The runes skip the surrogate range, so they stay
// valid through the library's conversions to strings; two texts of
// MaxTextRunes runes have fewer distinct segments than there are runes.
func segmentRunes(ta, tb []string) (ra, rb []rune) {
	ids := map[string]rune{}
	conv := func(segs []string) []rune {
		out := make([]rune, len(segs))
		for i, s := range segs {
			if isSpace(s) {
				s = " "
			}
			r, ok := ids[s]
			if !ok {
				r = rune(len(ids))
				if r >= 0xD800 {
					r += 0x800
				}
				ids[s] = r
			}
			out[i] = r
		}
		return out
	}
	return conv(ta), conv(tb)
}

// segments cuts s into words (runs of letters, digits and marks), single CJK
// characters, runs of white space, and single other characters.
func segments(s string) []string {
	var out []string
	for i := 0; i < len(s); {
		r, n := utf8.DecodeRuneInString(s[i:])
		j := i + n
		switch {
		case tokenize.IsCJK(r):
		case isWordRune(r):
			j = scan(s, j, func(r rune) bool { return isWordRune(r) && !tokenize.IsCJK(r) })
		case unicode.IsSpace(r):
			j = scan(s, j, unicode.IsSpace)
		}
		out = append(out, s[i:j])
		i = j
	}
	return out
}

func isWordRune(r rune) bool { return unicode.In(r, unicode.L, unicode.N, unicode.M) }

// scan returns the end of the run of runes satisfying ok that starts at i.
func scan(s string, i int, ok func(rune) bool) int {
	for i < len(s) {
		r, n := utf8.DecodeRuneInString(s[i:])
		if !ok(r) {
			break
		}
		i += n
	}
	return i
}

func isSpace(seg string) bool {
	r, _ := utf8.DecodeRuneInString(seg)
	return seg != "" && unicode.IsSpace(r)
}

// diff splits texts a and b into spans, marking as changed what only one of
// them holds. Concatenating the spans of a side gives back its text.
func diff(a, b string) (sa, sb []span) {
	chunks, _ := align(a, b)
	var ba, bb spanBuilder
	for _, c := range chunks {
		ba.add(c.a, c.changed)
		bb.add(c.b, c.changed)
	}
	return ba.spans, bb.spans
}

// spanBuilder joins segments into spans, a span per run of the same kind.
// The white space at either end of a change, and any with a line break, is
// shown as common, so that a highlight never starts or ends with white
// space nor runs from one line to the next.
type spanBuilder struct {
	spans []span
}

func (sb *spanBuilder) add(segs []string, changed bool) {
	lo, hi := 0, len(segs)
	if changed {
		for lo < hi && isSpace(segs[lo]) {
			lo++
		}
		for hi > lo && isSpace(segs[hi-1]) {
			hi--
		}
	}
	for i, seg := range segs {
		sb.text(seg, changed && i >= lo && i < hi && !(isSpace(seg) && strings.ContainsRune(seg, '\n')))
	}
}

func (sb *spanBuilder) text(t string, changed bool) {
	if t == "" {
		return
	}
	if k := len(sb.spans) - 1; k >= 0 && sb.spans[k].Elided == 0 && sb.spans[k].Changed == changed {
		sb.spans[k].Text += t
		return
	}
	sb.spans = append(sb.spans, span{Text: t, Changed: changed})
}

func (sb *spanBuilder) elided(n int, changed bool) {
	if n > 0 {
		sb.spans = append(sb.spans, span{Elided: n, Changed: changed})
	}
}

func (sb *spanBuilder) flush() []span {
	out := sb.spans
	sb.spans = nil
	return out
}

func runes(segs []string) int {
	n := 0
	for _, s := range segs {
		n += utf8.RuneCountInString(s)
	}
	return n
}

// changedRunes counts the runes of the changed spans.
func changedRunes(ss []span) int {
	n := 0
	for _, s := range ss {
		if s.Changed {
			n += utf8.RuneCountInString(strings.TrimSpace(s.Text))
		}
	}
	return n
}
