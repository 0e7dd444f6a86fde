package report

import (
	"unicode/utf8"
)

// row is one row of a pair's side-by-side view, so that what is shown on
// the left lines up with what stands for it on the right. A text row holds
// the spans of both sides for the same stretch of the pair; a Skip row
// stands for common text left out of both sides at the same place (SkipA
// and SkipB runes, which differ only where the white space does); a Rest
// row for what the page's bound leaves out at the end.
type row struct {
	A, B         []span
	Skip, Rest   bool
	SkipA, SkipB int
}

// SkipAText and SkipBText are the left-out runes, for the page.
func (r row) SkipAText() string { return commas(int64(r.SkipA)) }
func (r row) SkipBText() string { return commas(int64(r.SkipB)) }

// changeRunes is how long a changed stretch of one side may be before its
// middle is left out: the page shows its first 2·contextRunes runes and
// its last contextRunes.
const changeRunes = 4 * contextRunes

// sideBySide lays out the chunks of a pair as rows. Long common text is
// shortened identically on both sides, to contextRunes before and after
// each change (contextRunes/2 at the start of the texts, 3·contextRunes of
// texts without changes), cut at white space where there is some nearby;
// long changes keep their ends; and each side shows at most MaxShownRunes,
// the rest of both sides standing as one Rest row.
func sideBySide(chunks []chunk) []row {
	s := &shortener{}
	for _, c := range chunks {
		s.totalA += runes(c.a)
		s.totalB += runes(c.b)
	}
	for k, c := range chunks {
		var ok bool
		if c.changed {
			ok = s.change(c.a, c.b)
		} else {
			head, tail := contextRunes, contextRunes
			switch {
			case len(chunks) == 1:
				head, tail = 3*contextRunes, 0
			case k == 0:
				head = contextRunes / 2
			case k == len(chunks)-1:
				tail = 0
			}
			ok = s.common(c.a, c.b, head, tail)
		}
		if !ok {
			s.rest()
			return s.rows
		}
	}
	s.flush()
	return s.rows
}

// shortener builds the rows of a pair.
type shortener struct {
	rows             []row
	a, b             spanBuilder // the text row under way
	shownA, shownB   int         // runes shown
	doneA, doneB     int         // runes shown or left out
	totalA, totalB   int
	budgetA, budgetB bool // a side reached MaxShownRunes
}

// flush ends the text row under way.
func (s *shortener) flush() {
	a, b := s.a.flush(), s.b.flush()
	if len(a) > 0 || len(b) > 0 {
		s.rows = append(s.rows, row{A: a, B: b})
	}
}

func (s *shortener) skip(na, nb int) {
	if na == 0 && nb == 0 {
		return
	}
	s.flush()
	s.rows = append(s.rows, row{Skip: true, SkipA: na, SkipB: nb})
	s.doneA += na
	s.doneB += nb
}

func (s *shortener) rest() {
	s.flush()
	if na, nb := s.totalA-s.doneA, s.totalB-s.doneB; na > 0 || nb > 0 {
		s.rows = append(s.rows, row{Rest: true, SkipA: na, SkipB: nb})
	}
}

// common adds common text, its middle left out when it is longer than
// head+tail by enough to matter. It returns false when the page's bound
// was reached.
func (s *shortener) common(a, b []string, head, tail int) bool {
	width := func(i int) int { return max(utf8.RuneCountInString(a[i]), utf8.RuneCountInString(b[i])) }
	total := 0
	for i := range a {
		total += width(i)
	}
	if total <= head+tail+contextRunes/2 {
		return s.show(a, b)
	}
	h, w := 0, 0
	for h < len(a) && w+width(h) <= head {
		w += width(h)
		h++
	}
	for k, back := h-1, 0; k > 0 && back < 40; k-- {
		if isSpace(a[k]) {
			h = k + 1
			break
		}
		back += width(k)
	}
	t, w := len(a), 0
	for t > h && w+width(t-1) <= tail {
		w += width(t - 1)
		t--
	}
	if tail > 0 && t > h && !isSpace(a[t-1]) {
		for k, fwd := t, 0; k < len(a) && fwd < 40; k++ {
			if isSpace(a[k]) {
				t = k + 1
				break
			}
			fwd += width(k)
		}
	}
	if !s.show(a[:h], b[:h]) {
		return false
	}
	s.skip(runes(a[h:t]), runes(b[h:t]))
	return s.show(a[t:], b[t:])
}

// show adds common segments to the text row, as many as the bound allows
// on both sides.
func (s *shortener) show(a, b []string) bool {
	m, ua, ub := 0, 0, 0
	for ; m < len(a); m++ {
		x, y := utf8.RuneCountInString(a[m]), utf8.RuneCountInString(b[m])
		if s.shownA+ua+x > MaxShownRunes || s.shownB+ub+y > MaxShownRunes {
			break
		}
		ua, ub = ua+x, ub+y
	}
	s.addCommon(a[:m], b[:m])
	if m == len(a) {
		return true
	}
	if !isSpace(a[m]) { // the same word on both sides: show its start
		p := prefix(a[m], min(MaxShownRunes-s.shownA, MaxShownRunes-s.shownB))
		s.addCommon([]string{p}, []string{p})
	}
	return false
}

func (s *shortener) addCommon(a, b []string) {
	s.a.add(a, false)
	s.b.add(b, false)
	na, nb := runes(a), runes(b)
	s.shownA, s.doneA = s.shownA+na, s.doneA+na
	s.shownB, s.doneB = s.shownB+nb, s.doneB+nb
}

// change adds a change; each side's middle is left out when long.
func (s *shortener) change(a, b []string) bool {
	okA := s.changeSide(&s.a, a, &s.shownA, &s.doneA)
	okB := s.changeSide(&s.b, b, &s.shownB, &s.doneB)
	return okA && okB
}

func (s *shortener) changeSide(sb *spanBuilder, segs []string, shown, done *int) bool {
	n := runes(segs)
	head, tail := segs, []string(nil)
	if n > changeRunes+contextRunes/2 {
		h, w := 0, 0
		for h < len(segs) && w+utf8.RuneCountInString(segs[h]) <= 2*contextRunes {
			w += utf8.RuneCountInString(segs[h])
			h++
		}
		t, w := len(segs), 0
		for t > h && w+utf8.RuneCountInString(segs[t-1]) <= contextRunes {
			w += utf8.RuneCountInString(segs[t-1])
			t--
		}
		head, tail = segs[:h], segs[t:]
	}
	nh, nt := runes(head), runes(tail)
	if left := MaxShownRunes - *shown; nh+nt > left {
		p := prefixSegs(head, left)
		sb.add(p, true)
		*shown += runes(p)
		*done += runes(p)
		return false
	}
	sb.add(head, true)
	sb.elided(n-nh-nt, true)
	sb.add(tail, true)
	*shown += nh + nt
	*done += n
	return true
}

// prefixSegs returns the segments of segs that fit in n runes, the last
// one cut when it is not white space.
func prefixSegs(segs []string, n int) []string {
	var out []string
	for _, s := range segs {
		c := utf8.RuneCountInString(s)
		if c > n {
			if !isSpace(s) && n > 0 {
				out = append(out, prefix(s, n))
			}
			break
		}
		out = append(out, s)
		n -= c
	}
	return out
}

// prefix returns the first n runes of s.
func prefix(s string, n int) string {
	for i := range s {
		if n == 0 {
			return s[:i]
		}
		n--
	}
	return s
}
