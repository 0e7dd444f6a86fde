package tune

import (
	"math"
	"testing"

	"github.com/neardup/neardup/transforms/match/blocking"
)

func TestLengthClass(t *testing.T) {
	for _, tt := range []struct {
		shingles, class int
		name            string
	}{
		{0, 0, "< 50"}, {49, 0, "< 50"}, {50, 1, "50-199"}, {199, 1, "50-199"},
		{200, 2, "200-999"}, {999, 2, "200-999"}, {1000, 3, ">= 1000"}, {1 << 20, 3, ">= 1000"},
	} {
		c := lengthClass(tt.shingles)
		if c != tt.class || lengthClassName(c) != tt.name {
			t.Errorf("lengthClass(%d) = %d %q, want %d %q", tt.shingles, c, lengthClassName(c), tt.class, tt.name)
		}
	}
}

// TestLengthRows: the pairs at or above the threshold are split by the
// shorter document's class, none lost; the expected recall is the banding's
// probability averaged over the class's pairs, and the measured recall
// counts the pairs whose sketches share a band.
func TestLengthRows(t *testing.T) {
	o := DefaultOptions(0.8)
	bd := blocking.ChooseBands(0.8, 128, blocking.DefaultWeights)
	same := make([]uint64, 256)
	other := make([]uint64, 256)
	for i := range other {
		other[i] = uint64(i + 1)
	}
	sigs := [][]uint64{same, same, other, same}
	sizes := []int{10, 500, 2000, 30}
	pairs := []pair{
		{0, 1, 0.9},  // shorter 10 shingles: "< 50", shares every band
		{1, 2, 0.85}, // shorter 500: "200-999", shares none
		{1, 3, 0.7},  // below the threshold: not counted
		{2, 2, 1.0},  // ">= 1000"
	}
	rows := lengthRows(pairs, sigs, sizes, o)
	want := []struct {
		pairs              int
		expected, measured float64
	}{
		{1, bd.Prob(0.9), 1}, {0, 0, 0}, {1, bd.Prob(0.85), 0}, {1, bd.Prob(1), 1},
	}
	if len(rows) != len(want) {
		t.Fatalf("%d rows, want %d", len(rows), len(want))
	}
	for i, w := range want {
		r := rows[i]
		if r.Pairs != w.pairs || math.Abs(r.ExpectedRecall-w.expected) > 1e-12 || r.MeasuredRecall != w.measured {
			t.Errorf("class %s: %+v, want pairs %d, expected %v, measured %v", r.Class, r, w.pairs, w.expected, w.measured)
		}
	}
}
