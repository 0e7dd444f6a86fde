package simhash

import (
	"math/rand/v2"
	"testing"
)

func randHashes(r *rand.Rand, n int) []uint64 {
	h := make([]uint64, n)
	for i := range h {
		h[i] = r.Uint64()
	}
	return h
}

func TestSumMatchesWeighted(t *testing.T) {
	r := rand.New(rand.NewPCG(1, 2))
	for _, n := range []int{0, 1, 2, 3, 254, 255, 256, 511, 1000, 5000} {
		h := randHashes(r, n)
		w := make([]float64, n)
		for i := range w {
			w[i] = 1
		}
		if got, want := Sum(h), Weighted(h, w); got != want {
			t.Errorf("n=%d: Sum = %016x, Weighted = %016x", n, got, want)
		}
	}
}

func TestKnownValues(t *testing.T) {
	tests := []struct {
		name    string
		hashes  []uint64
		weights []float64
		want    uint64
	}{
		{"empty", nil, nil, 0},
		{"one feature is itself", []uint64{0xDEADBEEF12345678}, []float64{1}, 0xDEADBEEF12345678},
		{"heavier feature wins", []uint64{0xFFFF0000, 0x0000FFFF}, []float64{3, 1}, 0xFFFF0000},
		{"tie is zero", []uint64{0xF0, 0x0F}, []float64{1, 1}, 0},
		{"non-positive weights ignored", []uint64{0xAB, 0xFF}, []float64{1, 0}, 0xAB},
		{"majority", []uint64{0b110, 0b011, 0b010}, []float64{1, 1, 1}, 0b010},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if got := Weighted(tt.hashes, tt.weights); got != tt.want {
				t.Errorf("Weighted = %b, want %b", got, tt.want)
			}
		})
	}
	if got := Sum([]uint64{0b110, 0b011, 0b010}); got != 0b010 {
		t.Errorf("Sum majority = %b", got)
	}
}

func TestSimilarSetsAreClose(t *testing.T) {
	r := rand.New(rand.NewPCG(3, 4))
	base := randHashes(r, 2000)
	near := append([]uint64(nil), base...)
	for i := 0; i < 20; i++ { // change 1% of the features
		near[r.IntN(len(near))] = r.Uint64()
	}
	far := randHashes(r, 2000)
	dNear, dFar := Distance(Sum(base), Sum(near)), Distance(Sum(base), Sum(far))
	if dNear > 6 {
		t.Errorf("1%% change moved the fingerprint %d bits", dNear)
	}
	if dFar < 16 {
		t.Errorf("unrelated sets only %d bits apart", dFar)
	}
}

func TestDistance(t *testing.T) {
	if d := Distance(0, ^uint64(0)); d != 64 {
		t.Errorf("Distance = %d", d)
	}
	if d := Distance(0b1011, 0b0001); d != 2 {
		t.Errorf("Distance = %d", d)
	}
}

func BenchmarkSum(b *testing.B) {
	h := randHashes(rand.New(rand.NewPCG(5, 6)), 4096)
	b.ReportAllocs()
	for b.Loop() {
		Sum(h)
	}
	b.ReportMetric(float64(b.Elapsed().Nanoseconds())/float64(b.N*len(h)), "ns/feature")
}

func BenchmarkWeighted(b *testing.B) {
	h := randHashes(rand.New(rand.NewPCG(5, 6)), 4096)
	w := make([]float64, len(h))
	for i := range w {
		w[i] = float64(i%7 + 1)
	}
	b.ReportAllocs()
	for b.Loop() {
		Weighted(h, w)
	}
	b.ReportMetric(float64(b.Elapsed().Nanoseconds())/float64(b.N*len(h)), "ns/feature")
}
