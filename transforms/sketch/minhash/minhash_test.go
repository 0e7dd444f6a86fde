package minhash

import (
	"math"
	"math/rand/v2"
	"slices"
	"testing"
)

// pairWithJaccard returns two sets of random hashes with |A∩B| = inter and
// |A∪B| = union.
func pairWithJaccard(r *rand.Rand, inter, union int) (a, b []uint64) {
	only := union - inter
	for i := 0; i < inter; i++ {
		x := r.Uint64()
		a, b = append(a, x), append(b, x)
	}
	for i := 0; i < only; i++ {
		if i%2 == 0 {
			a = append(a, r.Uint64())
		} else {
			b = append(b, r.Uint64())
		}
	}
	return a, b
}

func TestEstimateWithinThreeSE(t *testing.T) {
	r := rand.New(rand.NewPCG(7, 8))
	for _, mode := range []Mode{Classic, OnePermutation} {
		h, err := New(256, mode, DefaultSeed)
		if err != nil {
			t.Fatal(err)
		}
		for _, tc := range []struct{ inter, union int }{
			{0, 400}, {100, 400}, {200, 400}, {320, 400}, {380, 400}, {400, 400}, {900, 1000}, {4000, 5000},
		} {
			a, b := pairWithJaccard(r, tc.inter, tc.union)
			j := float64(tc.inter) / float64(tc.union)
			sa := h.Sketch(make([]uint64, h.K()), a)
			sb := h.Sketch(make([]uint64, h.K()), b)
			est := Estimate(sa, sb)
			se := math.Sqrt(j * (1 - j) / float64(h.K()))
			if math.Abs(est-j) > 3*se+1e-9 {
				t.Errorf("%v J=%.3f: estimate %.3f outside 3 SE (%.3f)", mode, j, est, se)
			}
		}
	}
}

// TestOPHErrorComparable measures the mean absolute error of both schemes
// over many random pairs: one-permutation hashing with densification must
// not be much worse than classic MinHash.
func TestOPHErrorComparable(t *testing.T) {
	r := rand.New(rand.NewPCG(9, 10))
	classic, _ := New(128, Classic, DefaultSeed)
	oph, _ := New(128, OnePermutation, DefaultSeed)
	var errC, errO float64
	const trials = 300
	for i := 0; i < trials; i++ {
		union := 50 + r.IntN(2000)
		inter := r.IntN(union + 1)
		a, b := pairWithJaccard(r, inter, union)
		j := float64(inter) / float64(union)
		errC += math.Abs(Estimate(classic.Sketch(make([]uint64, 128), a), classic.Sketch(make([]uint64, 128), b)) - j)
		errO += math.Abs(Estimate(oph.Sketch(make([]uint64, 128), a), oph.Sketch(make([]uint64, 128), b)) - j)
	}
	errC /= trials
	errO /= trials
	t.Logf("mean absolute error over %d random pairs, K=128: classic %.4f, one-permutation %.4f", trials, errC, errO)
	if errO > 1.25*errC {
		t.Errorf("one-permutation error %.4f more than 1.25x classic %.4f", errO, errC)
	}
}

func TestSketchProperties(t *testing.T) {
	r := rand.New(rand.NewPCG(11, 12))
	a := make([]uint64, 300)
	for i := range a {
		a[i] = r.Uint64()
	}
	for _, mode := range []Mode{Classic, OnePermutation} {
		h1, _ := New(128, mode, DefaultSeed)
		h2, _ := New(128, mode, DefaultSeed)
		s1 := h1.Sketch(make([]uint64, 128), a)
		// Same seed, different Hasher, permuted and repeated input: same sketch.
		b := append(slices.Clone(a), a[:50]...)
		r.Shuffle(len(b), func(i, j int) { b[i], b[j] = b[j], b[i] })
		if s2 := h2.Sketch(make([]uint64, 128), b); !slices.Equal(s1, s2) {
			t.Errorf("%v: sketch depends on element order or repeats", mode)
		}
		if Estimate(s1, s1) != 1 {
			t.Errorf("%v: self estimate != 1", mode)
		}
		other, _ := New(128, mode, DefaultSeed+1)
		if slices.Equal(s1, other.Sketch(make([]uint64, 128), a)) {
			t.Errorf("%v: seed has no effect", mode)
		}
		empty := h1.Sketch(make([]uint64, 128), nil)
		if Estimate(empty, empty) != 0 {
			t.Errorf("%v: empty sets estimated similar", mode)
		}
		// A single element fills every bin (densification) and matches itself.
		one := h1.Sketch(make([]uint64, 128), a[:1])
		for i, v := range one {
			if v == Empty {
				t.Fatalf("%v: single-element sketch has empty position %d", mode, i)
			}
		}
	}
}

func TestNewErrors(t *testing.T) {
	if _, err := New(0, Classic, 1); err == nil {
		t.Error("k=0 accepted")
	}
	if _, err := New(8, Mode(9), 1); err == nil {
		t.Error("unknown mode accepted")
	}
	for _, m := range []Mode{Classic, OnePermutation} {
		if got, err := ParseMode(m.String()); err != nil || got != m {
			t.Errorf("ParseMode(%v) = %v, %v", m, got, err)
		}
	}
}

func TestNoAllocs(t *testing.T) {
	a := make([]uint64, 500)
	for i := range a {
		a[i] = uint64(i) * 0x9E3779B97F4A7C15
	}
	for _, mode := range []Mode{Classic, OnePermutation} {
		h, _ := New(128, mode, DefaultSeed)
		dst := make([]uint64, 128)
		if n := testing.AllocsPerRun(50, func() { h.Sketch(dst, a[:40]) }); n != 0 {
			t.Errorf("%v: Sketch allocates %v times", mode, n)
		}
	}
}

func benchSketch(b *testing.B, mode Mode) {
	r := rand.New(rand.NewPCG(1, 1))
	a := make([]uint64, 4096)
	for i := range a {
		a[i] = r.Uint64()
	}
	h, _ := New(128, mode, DefaultSeed)
	dst := make([]uint64, 128)
	b.ReportAllocs()
	for b.Loop() {
		h.Sketch(dst, a)
	}
	b.ReportMetric(float64(b.Elapsed().Nanoseconds())/float64(b.N*len(a)), "ns/shingle")
}

func BenchmarkClassic128(b *testing.B) { benchSketch(b, Classic) }
func BenchmarkOPH128(b *testing.B)     { benchSketch(b, OnePermutation) }

// TestClassicMatchesNaive checks the blocked loops of Sketch (eight, four,
// then single elements per pass) against the definition, for every
// remainder and several sketch lengths.
func TestClassicMatchesNaive(t *testing.T) {
	r := rand.New(rand.NewPCG(3, 4))
	for _, k := range []int{1, 3, 4, 128, 130} {
		h, err := New(k, Classic, DefaultSeed)
		if err != nil {
			t.Fatal(err)
		}
		for n := 0; n <= 27; n++ {
			elems := make([]uint64, n)
			for i := range elems {
				elems[i] = r.Uint64()
			}
			got := h.Sketch(make([]uint64, k), elems)
			for i := range k {
				want := uint64(Empty)
				for _, x := range elems {
					want = min(want, h.a[i]*x+h.b[i])
				}
				if got[i] != want {
					t.Fatalf("k=%d, %d elements: position %d = %x, want %x", k, n, i, got[i], want)
				}
			}
		}
	}
}
