package report

import (
	"strings"
	"unicode"
	"unicode/utf8"

	"github.com/neardup/neardup/transforms/text/tokenize"
)

// span is a piece of a text, either common to both texts of a pair or
// changed (only in this one), or a note standing for Elided common runes
// left out.
type span struct {
	Text    string
	Changed bool
	Elided  int
}

// ElidedText is the number of runes left out, for the page.
func (s span) ElidedText() string { return commas(int64(s.Elided)) }

// contextRunes is how much common text elide keeps on each side of a change.
const contextRunes = 160

// maxDiffCells bounds the table of the longest-common-subsequence diff; two
// texts of MaxTextRunes runes need at most MaxTextRunes² cells.
const maxDiffCells = (MaxTextRunes + 1) * (MaxTextRunes + 1)

// diff splits texts a and b into spans, marking as changed the words (and
// the CJK characters, punctuation and spaces) outside their longest common
// subsequence. Runs of white space compare equal whatever they hold, so
// line breaks moved by a re-wrap are not differences. Concatenating the
// spans of a side gives back its text.
func diff(a, b string) (sa, sb []span) {
	ta, tb := segments(a), segments(b)
	ca, cb := common(ta, tb)
	return spans(ta, ca), spans(tb, cb)
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

// same compares two segments; any two runs of white space are equal.
func same(x, y string) bool {
	if x == y {
		return true
	}
	return isSpace(x) && isSpace(y)
}

func isSpace(seg string) bool {
	r, _ := utf8.DecodeRuneInString(seg)
	return seg != "" && unicode.IsSpace(r)
}

// common marks the segments of a and b that belong to a longest common
// subsequence. The common prefix and suffix are taken first; the rest is
// solved with the classic table when it fits maxDiffCells, else left all
// changed.
func common(a, b []string) (ca, cb []bool) {
	ca, cb = make([]bool, len(a)), make([]bool, len(b))
	pre := 0
	for pre < len(a) && pre < len(b) && same(a[pre], b[pre]) {
		ca[pre], cb[pre] = true, true
		pre++
	}
	suf := 0
	for suf < len(a)-pre && suf < len(b)-pre && same(a[len(a)-1-suf], b[len(b)-1-suf]) {
		ca[len(a)-1-suf], cb[len(b)-1-suf] = true, true
		suf++
	}
	ma, mb := a[pre:len(a)-suf], b[pre:len(b)-suf]
	if (len(ma)+1)*(len(mb)+1) <= maxDiffCells {
		lcs(ma, mb, ca[pre:], cb[pre:])
	}
	return ca, cb
}

// lcs sets ca[i] and cb[j] for the segments of one longest common
// subsequence of a and b.
func lcs(a, b []string, ca, cb []bool) {
	n, m := len(a), len(b)
	w := m + 1
	// t[i*w+j] is the LCS length of a[i:] and b[j:].
	t := make([]uint16, (n+1)*w)
	for i := n - 1; i >= 0; i-- {
		for j := m - 1; j >= 0; j-- {
			switch {
			case same(a[i], b[j]):
				t[i*w+j] = t[(i+1)*w+j+1] + 1
			case t[(i+1)*w+j] >= t[i*w+j+1]:
				t[i*w+j] = t[(i+1)*w+j]
			default:
				t[i*w+j] = t[i*w+j+1]
			}
		}
	}
	for i, j := 0, 0; i < n && j < m; {
		switch {
		case same(a[i], b[j]):
			ca[i], cb[j] = true, true
			i++
			j++
		case t[(i+1)*w+j] >= t[i*w+j+1]:
			i++
		default:
			j++
		}
	}
}

// spans joins consecutive segments of the same kind. White space is shown
// as changed only between two changes, so that a changed phrase is one
// highlight and no highlight is white space alone.
func spans(segs []string, kept []bool) []span {
	var out []span
	var cur strings.Builder
	changed := false
	for i, s := range segs {
		c := !kept[i]
		if isSpace(s) {
			c = i > 0 && i+1 < len(segs) && !kept[i-1] && !kept[i+1]
		}
		if cur.Len() > 0 && c != changed {
			out = append(out, span{Text: cur.String(), Changed: changed})
			cur.Reset()
		}
		changed = c
		cur.WriteString(s)
	}
	if cur.Len() > 0 {
		out = append(out, span{Text: cur.String(), Changed: changed})
	}
	return out
}

// elide shortens the long common spans of ss to the text next to the
// changes: contextRunes after the change before them and before the change
// after them (more at the start of a text with no change at all), cut at
// white space where there is some nearby. The left-out middle becomes one
// span with Elided set.
func elide(ss []span) []span {
	var out []span
	for i, s := range ss {
		if s.Changed {
			out = append(out, s)
			continue
		}
		head, tail := contextRunes, contextRunes
		switch {
		case len(ss) == 1:
			head, tail = 3*contextRunes, 0
		case i == 0:
			head = contextRunes / 2
		case i == len(ss)-1:
			tail = 0
		}
		out = append(out, elideSpan(s.Text, head, tail)...)
	}
	return out
}

// elideSpan keeps the first head and last tail runes of common text t and
// replaces the middle with an Elided span when that saves enough to matter.
func elideSpan(t string, head, tail int) []span {
	n := utf8.RuneCountInString(t)
	if n <= head+tail+contextRunes/2 {
		return []span{{Text: t}}
	}
	h := byteOffset(t, head)
	if k := strings.LastIndexAny(t[:h], " \n\t"); k >= 0 && h-k < 40 {
		h = k + 1
	}
	tl := byteOffset(t, n-tail)
	if k := strings.IndexAny(t[tl:], " \n\t"); tail > 0 && !strings.ContainsAny(t[tl-1:tl], " \n\t") && k >= 0 && k < 40 {
		tl += k + 1
	}
	out := []span{{Text: t[:h]}, {Elided: utf8.RuneCountInString(t[h:tl])}}
	if tl < len(t) {
		out = append(out, span{Text: t[tl:]})
	}
	return out
}

// byteOffset returns the byte offset of the rune with index i in s.
func byteOffset(s string, i int) int {
	for off := range s {
		if i == 0 {
			return off
		}
		i--
	}
	return len(s)
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
