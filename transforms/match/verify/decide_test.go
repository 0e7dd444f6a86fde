package verify

import (
	"math"
	"testing"
)

func TestPasses(t *testing.T) {
	for _, tc := range []struct {
		threshold, jaccard float64
		want               bool
	}{
		{0.8, 0.8, true},
		{0.8, 0.81, true},
		{0.8, 0.7999, false},
		{0.8, 1, true},
		{0.8, 0, false},
		{1, 1, true},
		{1, 0.9999, false},
		{0.5, float64(float32(0.5)), true},
		{0.8, math.NaN(), false},
	} {
		c := Config{Threshold: tc.threshold}
		if got := c.Passes(tc.jaccard); got != tc.want {
			t.Errorf("Config{Threshold: %v}.Passes(%v) = %v, want %v", tc.threshold, tc.jaccard, got, tc.want)
		}
	}
}
