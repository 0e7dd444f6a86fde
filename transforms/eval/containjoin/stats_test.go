package containjoin

import (
	"bytes"
	"slices"
	"strings"
	"testing"
)

func TestSummarize(t *testing.T) {
	pairs := []Pair{
		{A: "e1", B: "e2", SizeA: 5, SizeB: 5, Inter: 5},         // en, 1.0, J 1: not new
		{A: "e3", B: "e2", SizeA: 30, SizeB: 100, Inter: 27},     // en, 0.9, J 0.26: new
		{A: "z1", B: "z2", SizeA: 1000, SizeB: 1500, Inter: 600}, // zh, 0.6: new
		{A: "z1", B: "e2", SizeA: 8, SizeB: 10, Inter: 8},        // cross, 1.0, J 0.8: not new
	}
	langs := map[string]string{"e1": "en", "e2": "en", "e3": "en", "z1": "zh", "z2": "zh"}
	got := Summarize(pairs, langs, []float64{0.5, 0.9}, 0.8)
	type row struct {
		lang       string
		t          float64
		pairs, new int
		small      []int
		smallNew   []int
		median     int
	}
	want := []row{
		{"all", 0.5, 4, 2, []int{2, 2, 3}, []int{0, 0, 1}, 1000},
		{"cross", 0.5, 1, 0, []int{1, 1, 1}, []int{0, 0, 0}, 0},
		{"en", 0.5, 2, 1, []int{1, 1, 2}, []int{0, 0, 1}, 30},
		{"zh", 0.5, 1, 1, []int{0, 0, 0}, []int{0, 0, 0}, 1000},
		{"all", 0.9, 3, 1, []int{2, 2, 3}, []int{0, 0, 1}, 30},
		{"cross", 0.9, 1, 0, []int{1, 1, 1}, []int{0, 0, 0}, 0},
		{"en", 0.9, 2, 1, []int{1, 1, 2}, []int{0, 0, 1}, 30},
		{"zh", 0.9, 0, 0, []int{0, 0, 0}, []int{0, 0, 0}, 0},
	}
	if len(got) != len(want) {
		t.Fatalf("Summarize gave %d rows, want %d: %+v", len(got), len(want), got)
	}
	for i, w := range want {
		g := got[i]
		if g.Lang != w.lang || g.Threshold != w.t || g.Pairs != w.pairs || g.New != w.new ||
			!slices.Equal(g.Small, w.small) || !slices.Equal(g.SmallNew, w.smallNew) || g.MedianNew != w.median {
			t.Errorf("row %d = %+v, want %+v", i, g, w)
		}
	}
	// The histograms: sizes 5, 30, 1000, 8 at 0.5.
	if h := got[0].Sizes; !slices.Equal(h, []int{0, 0, 2, 0, 1, 0, 0, 0, 0, 1}) {
		t.Errorf("Sizes = %v", h)
	}
	var buf bytes.Buffer
	if err := PrintStats(&buf, got, 0.8); err != nil {
		t.Fatal(err)
	}
	for _, s := range []string{"new (J < 0.80)", "A < 50", "1000+", "5-9", ">= 0.90 new"} {
		if !strings.Contains(buf.String(), s) {
			t.Errorf("PrintStats lacks %q:\n%s", s, buf.String())
		}
	}
}
