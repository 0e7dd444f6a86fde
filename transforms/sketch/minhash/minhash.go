// Package minhash computes MinHash sketches of sets of 64-bit element hashes
// (shingle hashes) and estimates Jaccard similarity from them.
//
// Classic MinHash applies K fixed permutations of uint64 to every element and
// keeps the K minima; two sets agree in each position with probability equal
// to their Jaccard similarity. The permutations are affine maps
// x -> a*x + b (mod 2^64) with odd a, which are bijections; the element hashes
// are already uniform xxhash outputs, so the minima behave like those of random
// permutations. The multipliers and offsets come from a fixed seed: sketches are
// identical across runs, machines and processes.
//
// One-permutation hashing (OPH, Li, Owen and Zhang 2012) with optimal
// densification (Shrivastava 2017) hashes every element once, keeps the
// minimum per bin, and fills empty bins from other bins. It is several times
// faster and estimates Jaccard with about the same error for sets that are
// not tiny.
//
// Sketches from different Hashers are only comparable when K, the mode and the
// seed are equal.
//
// Classic sketching is the package's hot loop: one 64-bit multiply per
// position per element. The Go compiler does not vectorize loops, so on amd64
// CPUs with AVX-512F and AVX-512DQ a hand-written assembly kernel
// (minhash_amd64.s) computes it eight positions to a 512-bit register, one
// VPMULLQ, VPADDQ and VPMINUQ per element; the multiply and the minimum are
// exact, so its sketches equal those of the Go kernel bit for bit. The Go
// kernel serves other CPUs and architectures and builds with the purego tag,
// and takes the last len%8 positions of a sketch. BenchmarkClassic128
// compares the two (docs/BENCHMARKS.md, MinHash and tokenizer).
package minhash

import (
	"fmt"
	"math"
	"math/bits"

	"github.com/neardup/neardup/transforms/mix"

	"github.com/neardup/neardup/transforms/choice"
)

// Mode selects the sketching scheme.
type Mode int

const (
	// Classic uses K independent permutations.
	Classic Mode = iota
	// OnePermutation uses one hash, K bins and optimal densification.
	OnePermutation
)

// modeNames are the names of the minhash modes.
var modeNames = choice.Names[Mode]{{Value: Classic, Name: "classic"}, {Value: OnePermutation, Name: "oph"}}

// String returns the name of m.
func (m Mode) String() string {
	if name, ok := modeNames.Name(m); ok {
		return name
	}
	return fmt.Sprintf("Mode(%d)", int(m))
}

// MarshalText returns the name of m.
func (m Mode) MarshalText() ([]byte, error) { return modeNames.Marshal("minhash mode", m) }

// UnmarshalText sets m to the minhash mode text names: classic or oph.
func (m *Mode) UnmarshalText(text []byte) (err error) {
	*m, err = modeNames.Parse(string(text))
	return err
}

// ParseMode returns the minhash mode s names (Mode.UnmarshalText); its error quotes s.
func ParseMode(s string) (Mode, error) {
	v, err := modeNames.Parse(s)
	if err != nil {
		return v, fmt.Errorf("minhash mode %q: %w", s, err)
	}
	return v, nil
}

// DefaultSeed seeds the permutations when none is given.
const DefaultSeed = 0x6E6561726475700A // "neardup\n"

// Empty is the value of every position of the sketch of an empty set.
const Empty = math.MaxUint64

// Hasher computes sketches of one shape. It is safe for concurrent use.
type Hasher struct {
	k    int
	mode Mode
	a, b []uint64 // classic: one affine permutation per position
	seed uint64
}

// New returns a Hasher with k positions (k >= 1) in the given mode, seeded
// with seed.
func New(k int, mode Mode, seed uint64) (*Hasher, error) {
	if k < 1 || k > 1<<16 {
		return nil, fmt.Errorf("minhash: %d permutations out of range [1, 65536]", k)
	}
	h := &Hasher{k: k, mode: mode, seed: seed}
	switch mode {
	case Classic:
		h.a = make([]uint64, k)
		h.b = make([]uint64, k)
		s := seed
		for i := 0; i < k; i++ {
			h.a[i] = splitmix(&s) | 1
			h.b[i] = splitmix(&s)
		}
	case OnePermutation:
	default:
		return nil, fmt.Errorf("minhash: unknown mode %d", int(mode))
	}
	return h, nil
}

// K returns the number of positions of a sketch.
func (h *Hasher) K() int { return h.k }

// Mode returns the sketching scheme.
func (h *Hasher) Mode() Mode { return h.mode }

// Sketch writes the sketch of the set of element hashes elems into dst, which
// must have length K, and returns it. Repeated elements do not change the
// result. An empty set gives a sketch of Empty values. Sketch allocates
// nothing.
func (h *Hasher) Sketch(dst []uint64, elems []uint64) []uint64 {
	if len(dst) != h.k {
		panic(fmt.Sprintf("minhash: sketch length %d, want %d", len(dst), h.k))
	}
	for i := range dst {
		dst[i] = Empty
	}
	if len(elems) == 0 {
		return dst
	}
	if h.mode == OnePermutation {
		h.oph(dst, elems)
		return dst
	}
	sketchClassic(dst, h.a[:len(dst)], h.b[:len(dst)], elems, haveAVX512)
	return dst
}

// oph fills dst by one-permutation hashing: element x goes to bin
// floor(p(x)*K / 2^64) and the bin keeps the least p(x). Empty bins are then
// filled by optimal densification: bin i takes the value of the first
// non-empty bin along its own seeded probe sequence, so two sets fill an
// empty bin from the same source bin whenever that bin is non-empty in both.
func (h *Hasher) oph(dst []uint64, elems []uint64) {
	k := uint64(len(dst))
	seed := h.seed
	for _, x := range elems {
		v := mix.Fmix64(x ^ seed)
		bin, _ := bits.Mul64(v, k)
		dst[bin] = min(dst[bin], v)
	}
	var small [16]uint64
	var filled []uint64 // bit i: bin i was non-empty before densification
	if words := (len(dst) + 63) / 64; words <= len(small) {
		filled = small[:words]
	} else {
		filled = make([]uint64, words)
	}
	empty := 0
	for i, v := range dst {
		if v != Empty {
			filled[i/64] |= 1 << (i % 64)
		} else {
			empty++
		}
	}
	if empty == 0 || empty == len(dst) {
		return
	}
	for i := range dst {
		if filled[i/64]>>(i%64)&1 == 1 {
			continue
		}
		for attempt := uint64(1); ; attempt++ {
			r := mix.Fmix64(seed ^ (uint64(i)<<32 | attempt))
			j, _ := bits.Mul64(r, k)
			if filled[j/64]>>(j%64)&1 == 1 {
				dst[i] = dst[j]
				break
			}
		}
	}
}

// sketchClassic lowers each dst[i] to the least a[i]*x+b[i] over the
// elements x. With simd, the AVX-512 kernel takes the positions in multiples
// of eight and the Go kernel the rest; the results are identical.
func sketchClassic(dst, a, b, elems []uint64, simd bool) {
	n := 0
	if simd {
		n = len(dst) &^ 7
		if n > 0 {
			sketchAVX512(dst[:n], a[:n], b[:n], elems)
		}
	}
	classicGo(dst[n:], a[n:len(dst)], b[n:len(dst)], elems)
}

// classicGo is the portable kernel of sketchClassic.
func classicGo(dst, a, b, elems []uint64) {
	a, b = a[:len(dst)], b[:len(dst)]
	// Eight elements, then four, per pass over the positions: each
	// position's a, b and minimum are loaded and stored once for all of
	// them, and the minima are taken pairwise rather than in a chain, which
	// leaves the multiplier as the limit (BenchmarkClassic128;
	// docs/BENCHMARKS.md).
	for len(elems) >= 8 {
		x0, x1, x2, x3, x4, x5, x6, x7 := elems[0], elems[1], elems[2], elems[3], elems[4], elems[5], elems[6], elems[7]
		for i := range dst {
			ai, bi := a[i], b[i]
			m0 := min(ai*x0+bi, ai*x1+bi)
			m1 := min(ai*x2+bi, ai*x3+bi)
			m2 := min(ai*x4+bi, ai*x5+bi)
			m3 := min(ai*x6+bi, ai*x7+bi)
			dst[i] = min(dst[i], min(m0, m1), min(m2, m3))
		}
		elems = elems[8:]
	}
	for len(elems) >= 4 {
		x0, x1, x2, x3 := elems[0], elems[1], elems[2], elems[3]
		for i := range dst {
			ai, bi := a[i], b[i]
			dst[i] = min(dst[i], min(ai*x0+bi, ai*x1+bi), min(ai*x2+bi, ai*x3+bi))
		}
		elems = elems[4:]
	}
	for _, x := range elems {
		// Four positions per step keep the multiplier busy.
		i := 0
		for ; i+4 <= len(dst); i += 4 {
			v0 := a[i]*x + b[i]
			v1 := a[i+1]*x + b[i+1]
			v2 := a[i+2]*x + b[i+2]
			v3 := a[i+3]*x + b[i+3]
			dst[i] = min(dst[i], v0)
			dst[i+1] = min(dst[i+1], v1)
			dst[i+2] = min(dst[i+2], v2)
			dst[i+3] = min(dst[i+3], v3)
		}
		for ; i < len(dst); i++ {
			dst[i] = min(dst[i], a[i]*x+b[i])
		}
	}
}

// splitmix is SplitMix64; it generates the fixed permutation parameters.
func splitmix(s *uint64) uint64 {
	*s += 0x9E3779B97F4A7C15
	z := *s
	z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9
	z = (z ^ (z >> 27)) * 0x94D049BB133111EB
	return z ^ (z >> 31)
}

// Estimate returns the fraction of positions where two sketches of equal
// length agree: the MinHash estimate of their Jaccard similarity. Positions
// that are Empty in both (empty sets) do not count as agreement.
func Estimate(a, b []uint64) float64 {
	if len(a) != len(b) || len(a) == 0 {
		return 0
	}
	eq := 0
	for i, v := range a {
		if v == b[i] && v != Empty {
			eq++
		}
	}
	return float64(eq) / float64(len(a))
}
