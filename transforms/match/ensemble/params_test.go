package ensemble

import (
	"math"
	"testing"

	"github.com/neardup/neardup/transforms/match/blocking"
)

func TestJaccard(t *testing.T) {
	for _, c := range []struct{ t, ratio, want float64 }{
		{1, 1, 1},
		{0.8, 1, 0.8 / 1.2},
		{1, 4, 0.25},
		{0.5, 10, 0.5 / 10.5},
		{0, 3, 0},
	} {
		if got := Jaccard(c.t, c.ratio); math.Abs(got-c.want) > 1e-12 {
			t.Errorf("Jaccard(%v, %v) = %v, want %v", c.t, c.ratio, got, c.want)
		}
	}
}

func TestIntegrate(t *testing.T) {
	for _, c := range []struct {
		name string
		f    func(float64) float64
		a, b float64
		want float64
	}{
		{"constant", func(float64) float64 { return 2 }, 0, 1, 2},
		{"cube", func(x float64) float64 { return x * x * x }, 0, 2, 4},
		{"empty", func(float64) float64 { return 1 }, 1, 1, 0},
		{"exp", math.Exp, 0, 1, math.E - 1},
	} {
		if got := integrate(c.f, c.a, c.b); math.Abs(got-c.want) > 1e-9 {
			t.Errorf("%s: integrate = %v, want %v", c.name, got, c.want)
		}
	}
}

// TestChoose pins the bandings of the default weights, and checks that up
// to a size ratio of 8 they find at least 98% of the pairs 0.05 above the
// threshold (when the larger set is as large as the partition allows).
func TestChoose(t *testing.T) {
	w := blocking.DefaultWeights
	for _, c := range []struct {
		t     float64
		ratio float64
		want  blocking.Bands
	}{
		{0.8, 1, blocking.Bands{B: 25, R: 5}},
		{0.8, 2, blocking.Bands{B: 37, R: 2}},
		{0.8, 8, blocking.Bands{B: 60, R: 1}},
		{0.8, 64, blocking.Bands{B: 128, R: 1}},
		{0.9, 1, blocking.Bands{B: 16, R: 8}},
		{0.9, 2, blocking.Bands{B: 42, R: 3}},
	} {
		got := Choose(c.t, 128, c.ratio, w)
		if got != c.want {
			t.Errorf("Choose(%v, 128, %v) = %v, want %v", c.t, c.ratio, got, c.want)
		}
		if got.B*got.R > 128 {
			t.Errorf("Choose(%v, 128, %v) = %v: more than 128 values", c.t, c.ratio, got)
		}
		if p := Prob(got, c.t+0.05, c.ratio); c.ratio <= 8 && p < 0.98 {
			t.Errorf("Choose(%v, 128, %v) = %v finds %.4f of the pairs at %v", c.t, c.ratio, got, p, c.t+0.05)
		}
	}
}

func TestChoosePanics(t *testing.T) {
	for _, c := range []struct {
		t, ratio float64
		perm     int
	}{{0, 1, 128}, {1.1, 1, 128}, {0.8, 0.5, 128}, {0.8, 1, 0}, {math.NaN(), 1, 128}} {
		func() {
			defer func() {
				if recover() == nil {
					t.Errorf("Choose(%v, %d, %v) did not panic", c.t, c.perm, c.ratio)
				}
			}()
			Choose(c.t, c.perm, c.ratio, blocking.DefaultWeights)
		}()
	}
}
