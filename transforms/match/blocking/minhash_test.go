package blocking

import (
	"encoding/binary"
	"math"
	"math/rand/v2"
	"testing"

	"github.com/cespare/xxhash/v2"
)

func TestProb(t *testing.T) {
	tests := []struct {
		bands Bands
		s     float64
		want  float64
	}{
		{Bands{1, 1}, 0.37, 0.37},
		{Bands{16, 8}, 0, 0},
		{Bands{16, 8}, 1, 1},
		{Bands{16, 8}, -0.5, 0},
		{Bands{16, 8}, 1.5, 1},
		// Exact values (30 digits, rounded).
		{Bands{16, 8}, 0.8, 0.947048796168214850},
		{Bands{20, 5}, 0.5, 0.470050715316876532},
		{Bands{9, 13}, 0.8, 0.398843878240163957},
		{Bands{13, 9}, 0.8, 0.846427676580771829},
		{Bands{32, 4}, 0.3, 0.229145364472078293},
		{Bands{1, 128}, 0.99, 0.276251667699208286},
		{Bands{128, 1}, 0.01, 0.723748332300791404},
	}
	for _, tt := range tests {
		if got := tt.bands.Prob(tt.s); math.Abs(got-tt.want) > 1e-14 {
			t.Errorf("%v.Prob(%v) = %.17g, want %.17g", tt.bands, tt.s, got, tt.want)
		}
	}
}

// simpson integrates f over [a, b] with n (even) intervals.
func simpson(f func(float64) float64, a, b float64, n int) float64 {
	h := (b - a) / float64(n)
	sum := f(a) + f(b)
	for i := 1; i < n; i++ {
		w := 2.0
		if i%2 == 1 {
			w = 4
		}
		sum += w * f(a+float64(i)*h)
	}
	return sum * h / 3
}

func TestFalsePositiveNegative(t *testing.T) {
	// Closed forms: for one band of r rows, P(s) = s^r.
	closed := []struct {
		bands  Bands
		t      float64
		fp, fn float64
	}{
		{Bands{1, 1}, 0.5, 0.125, 0.125},
		{Bands{1, 1}, 0.8, 0.32, 0.02},
		{Bands{1, 4}, 0.8, math.Pow(0.8, 5) / 5, 0.2 - (1-math.Pow(0.8, 5))/5},
		{Bands{1, 1}, 0, 0, 0.5},
		{Bands{1, 1}, 1, 0.5, 0},
	}
	for _, tt := range closed {
		if got := tt.bands.FalsePositive(tt.t); math.Abs(got-tt.fp) > 1e-14 {
			t.Errorf("%v.FalsePositive(%v) = %v, want %v", tt.bands, tt.t, got, tt.fp)
		}
		if got := tt.bands.FalseNegative(tt.t); math.Abs(got-tt.fn) > 1e-14 {
			t.Errorf("%v.FalseNegative(%v) = %v, want %v", tt.bands, tt.t, got, tt.fn)
		}
	}
	// Against Simpson's rule at high resolution with the textbook formula.
	for _, b := range []Bands{{16, 8}, {9, 13}, {20, 6}, {1, 128}, {128, 1}, {64, 4}, {32, 32}, {2, 512}, {512, 2}, {1, 1024}, {1024, 1}, {3, 100}} {
		p := func(s float64) float64 { return 1 - math.Pow(1-math.Pow(s, float64(b.R)), float64(b.B)) }
		for _, th := range []float64{0.1, 0.5, 0.7, 0.8, 0.9, 0.95} {
			fp := simpson(p, 0, th, 1<<16)
			fn := simpson(func(s float64) float64 { return 1 - p(s) }, th, 1, 1<<16)
			if got := b.FalsePositive(th); math.Abs(got-fp) > 1e-11 {
				t.Errorf("%v.FalsePositive(%v) = %.15g, want %.15g", b, th, got, fp)
			}
			if got := b.FalseNegative(th); math.Abs(got-fn) > 1e-11 {
				t.Errorf("%v.FalseNegative(%v) = %.15g, want %.15g", b, th, got, fn)
			}
		}
	}
}

func TestDefaultWeights(t *testing.T) {
	b := ChooseBands(0.8, 128, DefaultWeights)
	t.Logf("ChooseBands(0.8, 128, DefaultWeights) = %v, Prob(0.8) = %.4f, Prob(0.9) = %.6f", b, b.Prob(0.8), b.Prob(0.9))
	if b != (Bands{18, 7}) {
		t.Errorf("ChooseBands(0.8, 128, DefaultWeights) = %v, want 18x7 (as documented)", b)
	}
	for _, tt := range []struct{ j, min float64 }{{0.8, 0.985}, {0.82, 0.994}, {0.9, 0.99997}} {
		if p := b.Prob(tt.j); p < tt.min {
			t.Errorf("%v.Prob(%v) = %v, want >= %v (as documented)", b, tt.j, p, tt.min)
		}
	}
	eq := ChooseBands(0.8, 128, Weights{1, 1})
	t.Logf("ChooseBands(0.8, 128, {1, 1}) = %v, Prob(0.8) = %.4f", eq, eq.Prob(0.8))
	if eq != (Bands{9, 13}) || math.Abs(eq.Prob(0.8)-0.399) > 0.001 {
		t.Errorf("equal weights chose %v with Prob(0.8) = %v, want 9x13 with 0.399 (as documented)", eq, eq.Prob(0.8))
	}
	if eq.Prob(0.8) >= b.Prob(0.8) {
		t.Errorf("equal weights recall %v at 0.8, not below DefaultWeights' %v", eq.Prob(0.8), b.Prob(0.8))
	}
	if got := ChooseBands(0.8, 128, Weights{1, 19}); got != (Bands{16, 8}) || math.Abs(got.Prob(0.8)-0.947) > 0.001 {
		t.Errorf("weights 1:19 chose %v with Prob(0.8) = %v, want 16x8 with 0.947 (as documented)", got, got.Prob(0.8))
	}
}

func TestChooseBands(t *testing.T) {
	for _, numPerm := range []int{1, 16, 128, 256} {
		for _, th := range []float64{0.5, 0.7, 0.8, 0.9} {
			for _, w := range []Weights{DefaultWeights, {1, 1}, {1, 0}, {0, 1}} {
				b := ChooseBands(th, numPerm, w)
				if b.B < 1 || b.R < 1 || b.B*b.R > numPerm {
					t.Errorf("ChooseBands(%v, %d, %v) = %v: need 1 <= B*R <= %d", th, numPerm, w, b, numPerm)
				}
				if w == DefaultWeights {
					t.Logf("ChooseBands(%v, %d) = %v, Prob(t) = %.4f", th, numPerm, b, b.Prob(th))
				}
			}
		}
	}
	// More weight on false negatives never lowers recall at the threshold.
	prev := 0.0
	for _, fn := range []float64{0.1, 0.5, 1, 2, 5, 10, 20, 50, 100} {
		b := ChooseBands(0.8, 128, Weights{1, fn})
		if p := b.Prob(0.8); p < prev {
			t.Errorf("weights 1:%v chose %v with Prob(0.8) = %v, below %v for a smaller weight", fn, b, p, prev)
		} else {
			prev = p
		}
	}
}

func TestChooseBandsPanics(t *testing.T) {
	for _, tc := range []struct {
		t       float64
		numPerm int
	}{{0.8, 0}, {-0.1, 128}, {1.1, 128}, {math.NaN(), 128}} {
		func() {
			defer func() {
				if recover() == nil {
					t.Errorf("ChooseBands(%v, %d) did not panic", tc.t, tc.numPerm)
				}
			}()
			ChooseBands(tc.t, tc.numPerm, DefaultWeights)
		}()
	}
}

func randomSig(rng *rand.Rand, n int) []uint64 {
	sig := make([]uint64, n)
	for i := range sig {
		sig[i] = rng.Uint64()
	}
	return sig
}

// TestBandKeyDefinition pins the key of band i to the xxhash of i and the
// band's values as little-endian bytes, on both the stack and the streaming
// path.
func TestBandKeyDefinition(t *testing.T) {
	rng := rand.New(rand.NewPCG(1, 2))
	for _, b := range []Bands{{1, 1}, {16, 8}, {2, 63}, {2, 64}, {3, 65}, {1, 128}, {2, 200}} {
		sig := randomSig(rng, b.B*b.R+3)
		keys := b.AppendKeys([]uint64{42}, sig)
		if len(keys) != 1+b.B || keys[0] != 42 {
			t.Fatalf("%v: AppendKeys returned %d keys after the prefix", b, len(keys)-1)
		}
		for i := range b.B {
			buf := binary.LittleEndian.AppendUint64(nil, uint64(i))
			for _, v := range sig[i*b.R : (i+1)*b.R] {
				buf = binary.LittleEndian.AppendUint64(buf, v)
			}
			if want := xxhash.Sum64(buf); keys[1+i] != want {
				t.Errorf("%v: band %d key %016x, want %016x", b, i, keys[1+i], want)
			}
		}
	}
}

func TestBandKeys(t *testing.T) {
	rng := rand.New(rand.NewPCG(3, 4))
	for _, b := range []Bands{{16, 8}, {9, 13}, {32, 4}, {2, 64}, {1, 128}} {
		sig := randomSig(rng, 128)
		keys := b.AppendKeys(nil, sig)
		if again := b.AppendKeys(nil, append([]uint64(nil), sig...)); !equal(keys, again) {
			t.Fatalf("%v: identical signatures give different keys", b)
		}
		for pos := range b.B * b.R {
			other := append([]uint64(nil), sig...)
			other[pos] ^= 1 << rng.IntN(64)
			okeys := b.AppendKeys(nil, other)
			for i := range keys {
				if changed, inBand := keys[i] != okeys[i], pos/b.R == i; changed != inBand {
					t.Fatalf("%v: changing value %d: band %d changed = %v", b, pos, i, changed)
				}
			}
		}
		// Values beyond B*R do not matter.
		if b.B*b.R < len(sig) {
			other := append([]uint64(nil), sig...)
			other[len(other)-1]++
			if !equal(keys, b.AppendKeys(nil, other)) {
				t.Errorf("%v: a value past the bands changed a key", b)
			}
		}
	}
	// The same values in different bands give different keys.
	b := Bands{16, 8}
	sig := make([]uint64, 128)
	for i := range sig {
		sig[i] = uint64(i % 8)
	}
	keys := b.AppendKeys(nil, sig)
	seen := make(map[uint64]bool)
	for i, k := range keys {
		if seen[k] {
			t.Errorf("band %d repeats a key of another band with the same values", i)
		}
		seen[k] = true
	}
}

func equal(a, b []uint64) bool {
	if len(a) != len(b) {
		return false
	}
	for i := range a {
		if a[i] != b[i] {
			return false
		}
	}
	return true
}

func TestAppendKeysShortSignaturePanics(t *testing.T) {
	for _, b := range []Bands{{16, 8}, {0, 8}, {8, 0}} {
		func() {
			defer func() {
				if recover() == nil {
					t.Errorf("%v.AppendKeys of 127 values did not panic", b)
				}
			}()
			b.AppendKeys(nil, make([]uint64, 127))
		}()
	}
}

// TestBandsMonteCarlo draws signature pairs agreeing at each position with
// probability s, as MinHash signatures of documents with Jaccard similarity
// s do, and compares the fraction sharing a band key with Prob(s).
func TestBandsMonteCarlo(t *testing.T) {
	const trials = 20000
	rng := rand.New(rand.NewPCG(5, 6))
	for _, tc := range []struct {
		b Bands
		s float64
	}{{Bands{16, 8}, 0.8}, {Bands{9, 13}, 0.8}, {Bands{20, 5}, 0.5}} {
		a, c := make([]uint64, 128), make([]uint64, 128)
		var ka, kc []uint64
		shared := 0
		for range trials {
			for i := range a {
				a[i] = rng.Uint64()
				c[i] = a[i]
				if rng.Float64() >= tc.s {
					c[i] = rng.Uint64()
				}
			}
			ka = tc.b.AppendKeys(ka[:0], a)
			kc = tc.b.AppendKeys(kc[:0], c)
			if intersects(ka, kc) {
				shared++
			}
		}
		p := tc.b.Prob(tc.s)
		got := float64(shared) / trials
		se := math.Sqrt(p * (1 - p) / trials)
		if math.Abs(got-p) > 3*se {
			t.Errorf("%v at s = %v: %.4f of pairs share a key, want %.4f ± %.4f", tc.b, tc.s, got, p, 3*se)
		}
	}
}

func intersects(a, b []uint64) bool {
	for _, x := range a {
		for _, y := range b {
			if x == y {
				return true
			}
		}
	}
	return false
}

func TestBandsAppendKeysAllocs(t *testing.T) {
	sig := randomSig(rand.New(rand.NewPCG(7, 8)), 256)
	for _, b := range []Bands{{16, 8}, {2, 100}} {
		dst := make([]uint64, 0, b.B)
		if n := testing.AllocsPerRun(100, func() { dst = b.AppendKeys(dst[:0], sig) }); n != 0 {
			t.Errorf("%v: AppendKeys allocates %v times", b, n)
		}
	}
}

func BenchmarkBandsAppendKeys(b *testing.B) {
	sig := randomSig(rand.New(rand.NewPCG(9, 10)), 128)
	for _, bands := range []Bands{{16, 8}, {9, 13}, {1, 128}} {
		b.Run(bands.String(), func(b *testing.B) {
			dst := make([]uint64, 0, bands.B)
			b.ReportAllocs()
			b.SetBytes(int64(8 * bands.B * bands.R))
			for b.Loop() {
				dst = bands.AppendKeys(dst[:0], sig)
			}
		})
	}
}

func BenchmarkChooseBands(b *testing.B) {
	for b.Loop() {
		ChooseBands(0.8, 128, DefaultWeights)
	}
}
