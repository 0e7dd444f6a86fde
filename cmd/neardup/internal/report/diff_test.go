package report

import (
	"fmt"
	"math/rand/v2"
	"strings"
	"testing"
	"time"
	"unicode/utf8"

	"github.com/neardup/neardup/transforms/format/output"
)

// words returns n pseudo-random words from a vocabulary of 2,000, seeded.
func randomWords(seed uint64, n int) []string {
	rng := rand.New(rand.NewPCG(seed, 1))
	out := make([]string, n)
	for i := range out {
		out[i] = fmt.Sprintf("w%d", rng.IntN(2000))
	}
	return out
}

// edited returns a copy of ws with every step-th word replaced by a word
// not in the vocabulary, and how many it replaced.
func edited(ws []string, step int) ([]string, int) {
	out := append([]string(nil), ws...)
	n := 0
	for i := step / 2; i < len(out); i += step {
		out[i] = fmt.Sprintf("new%d", i)
		n++
	}
	return out, n
}

// sides joins the a parts and the b parts of chunks, and counts the
// changed words of each side.
func sides(chunks []chunk) (a, b string, changedA, changedB int) {
	var ba, bb strings.Builder
	for _, c := range chunks {
		for _, s := range c.a {
			ba.WriteString(s)
		}
		for _, s := range c.b {
			bb.WriteString(s)
		}
		if c.changed {
			changedA += words(c.a)
			changedB += words(c.b)
		} else if strings.Join(c.a, "") != strings.Join(c.b, "") && !sameButSpace(c.a, c.b) {
			panic(fmt.Sprintf("common chunk differs: %q / %q", c.a, c.b))
		}
	}
	return ba.String(), bb.String(), changedA, changedB
}

func sameButSpace(a, b []string) bool {
	if len(a) != len(b) {
		return false
	}
	for i := range a {
		if a[i] != b[i] && !(isSpace(a[i]) && isSpace(b[i])) {
			return false
		}
	}
	return true
}

// TestDiffLong: two 50 kB near duplicates, a word in 50 replaced, with the
// first and last words changed too, so that the differing middle is the
// whole text: the diff rebuilds both sides (common and deleted parts give
// A, common and inserted parts B), finds exactly the replaced words, and
// takes well under a second. The old diff compared at most 3,000
// characters and marked the whole middle as changed beyond that.
func TestDiffLong(t *testing.T) {
	ws := randomWords(1, 9500)
	ws2, n := edited(ws, 50)
	ws[0], ws[len(ws)-1] = "first", "last"
	a, b := strings.Join(ws, " "), strings.Join(ws2, " ")
	if len(a) < 50_000 {
		t.Fatalf("text of %d bytes, want 50 kB", len(a))
	}
	start := time.Now()
	chunks, timedOut := align(a, b)
	took := time.Since(start)
	t.Logf("%d + %d bytes, %d words replaced: diff in %v", len(a), len(b), n, took)
	if timedOut || took > 500*time.Millisecond {
		t.Errorf("diff took %v (timed out: %v), want well under a second", took, timedOut)
	}
	gotA, gotB, changedA, changedB := sides(chunks)
	if gotA != a || gotB != b {
		t.Fatal("the chunks do not rebuild both texts")
	}
	// Every replaced word, plus "first" and "last" on A and the two words
	// they replaced on B, and nothing else (the replaced words are far
	// apart, so no change joins another).
	if changedA != n+2 || changedB != n+2 {
		t.Errorf("%d words of A and %d of B changed, want %d each", changedA, changedB, n+2)
	}
}

// TestDiffCJKHalf: 6,000 CJK characters (twice the old cap), every other
// one different: the diff finds the common half.
func TestDiffCJKHalf(t *testing.T) {
	a := strings.Repeat("甲乙", 3000)
	b := strings.Repeat("甲丙", 3000)
	sa, sb := diff(a, b)
	if joined(sa) != a || joined(sb) != b {
		t.Fatal("spans do not give back the texts")
	}
	if n := changedRunes(sa); n != 3000 {
		t.Errorf("%d runes of A changed, want 3000", n)
	}
}

// TestSegmentRunes: distinct segments get distinct valid runes, past the
// surrogate range too, and white space runs share one.
func TestSegmentRunes(t *testing.T) {
	var ta []string
	for i := range 0xD800 + 10 {
		ta = append(ta, fmt.Sprintf("w%d", i))
	}
	ta = append(ta, " ", "\n\t")
	ra, _ := segmentRunes(ta, nil)
	seen := map[rune]bool{}
	for i, r := range ra[:len(ra)-2] {
		if !utf8.ValidRune(r) || seen[r] {
			t.Fatalf("segment %d: rune %U invalid or repeated", i, r)
		}
		seen[r] = true
	}
	if ra[len(ra)-1] != ra[len(ra)-2] {
		t.Error("two white space runs map to different runes")
	}
}

// rowsMarked renders one side of rows: [changed], {n} for left-out common
// text, <n> for left-out changed text, |rest n| for the rest, and / between
// rows.
func rowsMarked(rows []row, left bool) string {
	var parts []string
	for _, r := range rows {
		n, ss := r.SkipB, r.B
		if left {
			n, ss = r.SkipA, r.A
		}
		switch {
		case r.Skip:
			parts = append(parts, fmt.Sprintf("{%d}", n))
		case r.Rest:
			parts = append(parts, fmt.Sprintf("|rest %d|", n))
		default:
			var b strings.Builder
			for _, s := range ss {
				switch {
				case s.Elided > 0:
					fmt.Fprintf(&b, "<%d>", s.Elided)
				case s.Changed:
					b.WriteString("[" + s.Text + "]")
				default:
					b.WriteString(s.Text)
				}
			}
			parts = append(parts, b.String())
		}
	}
	return strings.Join(parts, "/")
}

func TestSideBySide(t *testing.T) {
	long := strings.Repeat("word ", 200) // 1000 runes
	tests := []struct {
		name, a, b   string
		wantA, wantB string
	}{
		{"short", "a b c", "a x c", "a [b] c", "a [x] c"},
		{"only common", long, long, strings.Repeat("word ", 96) + "/{520}", strings.Repeat("word ", 96) + "/{520}"},
		{"before a change", long + "x", long + "y",
			strings.Repeat("word ", 16) + "/{760}/" + strings.Repeat("word ", 32) + "[x]",
			strings.Repeat("word ", 16) + "/{760}/" + strings.Repeat("word ", 32) + "[y]"},
		{"after a change", "x " + long, "y " + long, "[x] " + strings.Repeat("word ", 31) + "/{845}", "[y] " + strings.Repeat("word ", 31) + "/{845}"},
		// The left side's white space is doubled: both sides are shortened
		// at the same words, and the rows say how much each leaves out.
		{"white space differs", strings.ReplaceAll(long, " ", "  ") + "x", long + "y",
			strings.Repeat("word  ", 13) + "/{966}/" + strings.Repeat("word  ", 26) + "[x]",
			strings.Repeat("word ", 13) + "/{805}/" + strings.Repeat("word ", 26) + "[y]"},
		{"long change keeps its ends", "a", "a " + strings.Repeat("new ", 500),
			"a", "a [" + strings.Repeat("new ", 79) + "new]<1521>[" + strings.Repeat("new ", 39) + "new] "},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			chunks, _ := align(tt.a, tt.b)
			rows := sideBySide(chunks)
			if got := rowsMarked(rows, true); got != tt.wantA {
				t.Errorf("A = %q\nwant %q", got, tt.wantA)
			}
			if got := rowsMarked(rows, false); got != tt.wantB {
				t.Errorf("B = %q\nwant %q", got, tt.wantB)
			}
		})
	}
}

// TestSideBySideAligned: on near duplicates with white space changed and
// words replaced here and there, every row stands for the same stretch of
// both texts: a text row shows the same common words on both sides, a skip
// row leaves out the same words, and each side's shown and left-out runes
// add up to its text.
func TestSideBySideAligned(t *testing.T) {
	ws := randomWords(2, 3000)
	ws2, _ := edited(ws, 400)
	a := strings.Join(ws, " ")
	b := strings.Join(ws2, " ")
	b = strings.Replace(b, " ", "\n", 500) // re-wrapped at the start
	chunks, _ := align(a, b)
	rows := sideBySide(chunks)
	skips := 0
	shownA, shownB, leftA, leftB := 0, 0, 0, 0
	for i, r := range rows {
		switch {
		case r.Skip || r.Rest:
			skips++
			leftA += r.SkipA
			leftB += r.SkipB
		default:
			ca, cb := commonWords(r.A), commonWords(r.B)
			if ca != cb {
				t.Errorf("row %d: common words differ:\n%q\n%q", i, ca, cb)
			}
			shownA += spanRunes(r.A)
			shownB += spanRunes(r.B)
		}
	}
	if skips < 3 {
		t.Errorf("%d rows left text out, want several", skips)
	}
	if na, nb := utf8.RuneCountInString(a), utf8.RuneCountInString(b); shownA+leftA != na || shownB+leftB != nb {
		t.Errorf("shown + left out = %d and %d runes, want %d and %d", shownA+leftA, shownB+leftB, na, nb)
	}
	if shownA > MaxShownRunes || shownB > MaxShownRunes {
		t.Errorf("%d and %d runes shown, want at most %d", shownA, shownB, MaxShownRunes)
	}
}

// commonWords is the common text of spans with white space collapsed.
func commonWords(ss []span) string {
	var b strings.Builder
	for _, s := range ss {
		if !s.Changed {
			b.WriteString(s.Text)
		} else {
			b.WriteString(" # ")
		}
	}
	return strings.Join(strings.Fields(b.String()), " ")
}

func spanRunes(ss []span) int {
	n := 0
	for _, s := range ss {
		n += utf8.RuneCountInString(s.Text) + s.Elided
	}
	return n
}

// TestSideBySideBound: a pair changed every 20 words over 50 kB shows at
// most MaxShownRunes of each side and counts the rest.
func TestSideBySideBound(t *testing.T) {
	ws := randomWords(3, 8000)
	ws2, _ := edited(ws, 20)
	a, b := strings.Join(ws, " "), strings.Join(ws2, " ")
	chunks, _ := align(a, b)
	rows := sideBySide(chunks)
	last := rows[len(rows)-1]
	if !last.Rest || last.SkipA < 40_000 || last.SkipB < 40_000 {
		t.Fatalf("last row %+v, want the rest of both sides (over 40,000 runes each)", last)
	}
	shownA, shownB := 0, 0
	for _, r := range rows {
		shownA += spanRunes(r.A)
		shownB += spanRunes(r.B)
	}
	if shownA > MaxShownRunes || shownB > MaxShownRunes || shownA < MaxShownRunes-100 {
		t.Errorf("%d and %d runes shown, want at most (and about) %d", shownA, shownB, MaxShownRunes)
	}
}

func BenchmarkDiff50k(b *testing.B) {
	ws := randomWords(1, 8000)
	ws2, _ := edited(ws, 50)
	x, y := strings.Join(ws, " "), strings.Join(ws2, " ")
	b.SetBytes(int64(len(x) + len(y)))
	for b.Loop() {
		sideBySide(func() []chunk { c, _ := align(x, y); return c }())
	}
}

// TestDiffTimeout: a diff that reaches its time bound still rebuilds both
// texts, and the pair says so.
func TestDiffTimeout(t *testing.T) {
	defer func(d time.Duration) { diffTimeout = d }(diffTimeout)
	diffTimeout = time.Nanosecond
	ws := randomWords(4, 2000)
	ws2, _ := edited(ws, 10)
	a, b := strings.Join(ws, " "), strings.Join(ws2, " ")
	chunks, timedOut := align(a, b)
	gotA, gotB, _, _ := sides(chunks)
	if !timedOut || gotA != a || gotB != b {
		t.Errorf("timed out %v, texts rebuilt %v", timedOut, gotA == a && gotB == b)
	}
	pv := pairViews([]output.PairLine{{A: "x", B: "y"}}, nil, map[string]text{"x": {Text: a}, "y": {Text: b}}, true)
	if !strings.Contains(pv[0].DiffNote, "time bound") {
		t.Errorf("pair note %q, want one about the time bound", pv[0].DiffNote)
	}
}
