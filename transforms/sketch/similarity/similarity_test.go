package similarity

import (
	"fmt"
	"math"
	"math/rand/v2"
	"slices"
	"testing"
)

func TestSet(t *testing.T) {
	tests := []struct {
		in, want []uint64
	}{
		{nil, nil},
		{[]uint64{5}, []uint64{5}},
		{[]uint64{3, 1, 2}, []uint64{1, 2, 3}},
		{[]uint64{7, 7, 7}, []uint64{7}},
		{[]uint64{9, 1, 9, math.MaxUint64, 0, 1}, []uint64{0, 1, 9, math.MaxUint64}},
	}
	for _, tt := range tests {
		if got := Set(slices.Clone(tt.in)); !slices.Equal(got, tt.want) {
			t.Errorf("Set(%v) = %v, want %v", tt.in, got, tt.want)
		}
	}
}

func TestJaccard(t *testing.T) {
	tests := []struct {
		a, b         []uint64
		inter, union int
		want         float64
	}{
		{nil, nil, 0, 0, 0},
		{[]uint64{1, 2}, nil, 0, 2, 0},
		{nil, []uint64{1}, 0, 1, 0},
		{[]uint64{1, 2, 3}, []uint64{1, 2, 3}, 3, 3, 1},
		{[]uint64{1, 2, 3}, []uint64{2, 3, 4}, 2, 4, 0.5},
		{[]uint64{1, 3, 5}, []uint64{2, 4, 6}, 0, 6, 0},
		{[]uint64{1, 2, 3, 4, 5}, []uint64{2, 4}, 2, 5, 0.4},
		{[]uint64{0, 10, 20, 30}, []uint64{10, 30, 40}, 2, 5, 0.4},
		{[]uint64{math.MaxUint64}, []uint64{0, math.MaxUint64}, 1, 2, 0.5},
	}
	for _, tt := range tests {
		inter, union := Overlap(tt.a, tt.b)
		if inter != tt.inter || union != tt.union {
			t.Errorf("Overlap(%v, %v) = %d, %d; want %d, %d", tt.a, tt.b, inter, union, tt.inter, tt.union)
		}
		if got := Jaccard(tt.a, tt.b); got != tt.want {
			t.Errorf("Jaccard(%v, %v) = %v, want %v", tt.a, tt.b, got, tt.want)
		}
		if got := Jaccard(tt.b, tt.a); got != tt.want {
			t.Errorf("Jaccard(%v, %v) = %v, want %v", tt.b, tt.a, got, tt.want)
		}
	}
}

// randomSet returns up to n random values from [0, universe) as a map and
// as a sorted set without repeats, built without Set.
func randomSet(r *rand.Rand, n, universe int) (map[uint64]bool, []uint64) {
	m := map[uint64]bool{}
	for i := r.IntN(n + 1); i > 0; i-- {
		m[uint64(r.IntN(universe))] = true
	}
	var s []uint64
	for v := range universe {
		if m[uint64(v)] {
			s = append(s, uint64(v))
		}
	}
	return m, s
}

func TestJaccardBruteForce(t *testing.T) {
	r := rand.New(rand.NewPCG(1, 1))
	for iter := 0; iter < 1000; iter++ {
		universe := 1 + r.IntN(40)
		ma, a := randomSet(r, 30, universe)
		mb, b := randomSet(r, 30, universe)
		inter, union := 0, 0
		for v := range universe {
			x, y := ma[uint64(v)], mb[uint64(v)]
			if x && y {
				inter++
			}
			if x || y {
				union++
			}
		}
		gi, gu := Overlap(a, b)
		if gi != inter || gu != union {
			t.Fatalf("Overlap(%v, %v) = %d, %d; want %d, %d", a, b, gi, gu, inter, union)
		}
		want := 0.0
		if union > 0 {
			want = float64(inter) / float64(union)
		}
		if got := Jaccard(a, b); got != want {
			t.Fatalf("Jaccard(%v, %v) = %v, want %v", a, b, got, want)
		}
	}
}

func TestSetMatchesReference(t *testing.T) {
	r := rand.New(rand.NewPCG(2, 2))
	for iter := 0; iter < 200; iter++ {
		var in []uint64
		m := map[uint64]bool{}
		for i := r.IntN(50); i > 0; i-- {
			v := uint64(r.IntN(20))
			in = append(in, v)
			m[v] = true
		}
		var want []uint64
		for v := range uint64(20) {
			if m[v] {
				want = append(want, v)
			}
		}
		if got := Set(slices.Clone(in)); !slices.Equal(got, want) {
			t.Fatalf("Set(%v) = %v, want %v", in, got, want)
		}
	}
}

func TestCounts(t *testing.T) {
	tests := []struct {
		in   []uint64
		want Vector
	}{
		{nil, nil},
		{[]uint64{4}, Vector{{4, 1}}},
		{[]uint64{5, 3, 5, 5, 7, 3}, Vector{{3, 2}, {5, 3}, {7, 1}}},
		{[]uint64{math.MaxUint64, 0, math.MaxUint64}, Vector{{0, 1}, {math.MaxUint64, 2}}},
	}
	for _, tt := range tests {
		in := slices.Clone(tt.in)
		got := Counts(in)
		if !slices.Equal(got, tt.want) {
			t.Errorf("Counts(%v) = %v, want %v", tt.in, got, tt.want)
		}
		if !slices.Equal(in, tt.in) {
			t.Errorf("Counts changed its input to %v", in)
		}
	}
}

func TestCosine(t *testing.T) {
	tests := []struct {
		name string
		a, b Vector
		want float64
	}{
		{"both empty", nil, nil, 0},
		{"one empty", Vector{{1, 1}}, nil, 0},
		{"zero weights", Vector{{1, 0}, {2, 0}}, Vector{{1, 3}}, 0},
		{"identical", Vector{{1, 2}, {5, 3}}, Vector{{1, 2}, {5, 3}}, 1},
		{"parallel", Vector{{1, 1}, {5, 2}}, Vector{{1, 3}, {5, 6}}, 1},
		{"disjoint", Vector{{1, 1}}, Vector{{2, 1}}, 0},
		// dot 2*2 = 4, |a|² = 1+4 = 5, |b|² = 4+1 = 5: 4/5.
		{"overlap", Vector{{1, 1}, {2, 2}}, Vector{{2, 2}, {3, 1}}, 0.8},
		// a = (3, 4, 0), b = (4, 0, 3): dot 12, |a|² = |b|² = 25.
		{"3-4-5", Vector{{10, 3}, {20, 4}}, Vector{{10, 4}, {30, 3}}, 12.0 / 25},
	}
	for _, tt := range tests {
		if got := Cosine(tt.a, tt.b); math.Abs(got-tt.want) > 1e-12 {
			t.Errorf("%s: Cosine = %v, want %v", tt.name, got, tt.want)
		}
		if got := Cosine(tt.b, tt.a); math.Abs(got-tt.want) > 1e-12 {
			t.Errorf("%s: Cosine reversed = %v, want %v", tt.name, got, tt.want)
		}
	}
}

func TestCosineBruteForce(t *testing.T) {
	// Sparse vectors against dense arrays over a small universe.
	const universe = 16
	r := rand.New(rand.NewPCG(3, 3))
	vec := func() (Vector, [universe]float64) {
		var dense [universe]float64
		var v Vector
		for h := range universe {
			if r.IntN(2) == 0 {
				w := float64(1 + r.IntN(5))
				dense[h] = w
				v = append(v, Feature{Hash: uint64(h), Weight: w})
			}
		}
		return v, dense
	}
	for iter := 0; iter < 1000; iter++ {
		a, da := vec()
		b, db := vec()
		var dot, na, nb float64
		for h := range universe {
			dot += da[h] * db[h]
			na += da[h] * da[h]
			nb += db[h] * db[h]
		}
		want := 0.0
		if na > 0 && nb > 0 {
			want = dot / (math.Sqrt(na) * math.Sqrt(nb))
		}
		if got := Cosine(a, b); math.Abs(got-want) > 1e-12 {
			t.Fatalf("Cosine(%v, %v) = %v, want %v", a, b, got, want)
		}
	}
}

func TestCosineOfCounts(t *testing.T) {
	// Term-frequency cosine of two token lists, by hand: a = {1:2, 2:1},
	// b = {1:1, 3:1}: dot 2, |a|² 5, |b|² 2, cosine 2/sqrt(10).
	got := Cosine(Counts([]uint64{1, 2, 1}), Counts([]uint64{3, 1}))
	if want := 2 / math.Sqrt(10); math.Abs(got-want) > 1e-12 {
		t.Errorf("Cosine of counts = %v, want %v", got, want)
	}
}

// TestSorterSet: Sorter.Set gives what Set gives, for sizes on both sides
// of the radix threshold, sets with repeats, and values that share bytes.
func TestSorterSet(t *testing.T) {
	rng := rand.New(rand.NewPCG(3, 4))
	var s Sorter
	for _, n := range []int{0, 1, 2, 255, 256, 257, 300, 1000, 20000} {
		for _, gen := range []func() uint32{
			rng.Uint32,
			func() uint32 { return rng.Uint32N(50) }, // many repeats
			func() uint32 { return 0xabcd0000 | rng.Uint32N(1<<16) }, // high bytes shared
			func() uint32 { return rng.Uint32() &^ 0xff00 },          // a middle byte shared
		} {
			in := make([]uint32, n)
			for i := range in {
				in[i] = gen()
			}
			want := Set(slices.Clone(in))
			got := s.Set(slices.Clone(in))
			if !slices.Equal(got, want) {
				t.Fatalf("n=%d: Sorter.Set differs from Set (%d vs %d values)", n, len(got), len(want))
			}
		}
	}
}

func BenchmarkSet32(b *testing.B) {
	rng := rand.New(rand.NewPCG(5, 6))
	for _, n := range []int{100, 300, 1000, 5000} {
		in := make([]uint32, n)
		for i := range in {
			in[i] = rng.Uint32()
		}
		work := make([]uint32, len(in))
		b.Run(fmt.Sprintf("n=%d/slices.Sort", n), func(b *testing.B) {
			b.ReportAllocs()
			for b.Loop() {
				copy(work, in)
				Set(work)
			}
		})
		b.Run(fmt.Sprintf("n=%d/Sorter", n), func(b *testing.B) {
			b.ReportAllocs()
			var s Sorter
			for b.Loop() {
				copy(work, in)
				s.Set(work)
			}
		})
	}
}
