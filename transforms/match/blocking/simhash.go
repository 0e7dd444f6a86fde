package blocking

import (
	"encoding/binary"
	"fmt"
	"math"
	"math/bits"
	"slices"

	"github.com/cespare/xxhash/v2"

	"github.com/neardup/neardup/transforms/mix"
)

// MaxTables is the largest number of tables NewTables accepts.
const MaxTables = 1024

// Design is a pigeonhole table design for 64-bit fingerprints.
//
// The 64 bits are split into Blocks contiguous blocks whose sizes differ by
// at most one (64 = 16+16+16+16, 64 = 13+13+13+13+12, ...). Two fingerprints
// within Hamming distance K differ in at most K blocks, so they agree on at
// least Blocks-K of them. There is one table for every choice of Blocks-K
// blocks, keyed by the bits of the chosen blocks; every pair within distance
// K therefore shares the key of at least one table.
//
// Blocks = K+1 gives the fewest tables (K+1) with the shortest keys (about
// 64/(K+1) bits); more blocks give more tables with longer keys, hence
// smaller buckets. A valid design has 0 <= K < Blocks <= 64.
type Design struct {
	K      int // largest Hamming distance guaranteed to share a key
	Blocks int // number of blocks the fingerprint is split into
}

func (d Design) valid() bool { return d.K >= 0 && d.K < d.Blocks && d.Blocks <= 64 }

// Tables returns the number of tables, C(Blocks, K), or 0 if d is invalid.
func (d Design) Tables() int {
	if !d.valid() {
		return 0
	}
	return binomial(d.Blocks, d.K)
}

// MinKeyBits returns the length in bits of the shortest table key, or 0 if d
// is invalid.
func (d Design) MinKeyBits() int {
	if !d.valid() {
		return 0
	}
	q, r := 64/d.Blocks, 64%d.Blocks // r blocks of q+1 bits, the rest of q bits
	return (d.Blocks-d.K)*q + max(0, r-d.K)
}

// String returns "k=K m=Blocks".
func (d Design) String() string { return fmt.Sprintf("k=%d m=%d", d.K, d.Blocks) }

// binomial returns C(n, k) for 0 <= k <= n <= 64, which fits in 63 bits.
func binomial(n, k int) int {
	k = min(k, n-k)
	c := uint64(1)
	for i := 0; i < k; i++ {
		// c*(n-i)/(i+1) = C(n, i+1) is exact; the product may need 128 bits.
		hi, lo := bits.Mul64(c, uint64(n-i))
		c, _ = bits.Div64(hi, lo, uint64(i+1))
	}
	return int(c)
}

// blocks returns the offset and width of each block, block 0 holding the
// least significant bits.
func (d Design) blocks() (off, width []uint) {
	q, r := 64/d.Blocks, 64%d.Blocks
	var o uint
	for j := range d.Blocks {
		w := uint(q)
		if j < r {
			w++
		}
		off, width = append(off, o), append(width, w)
		o += w
	}
	return off, width
}

// Tables holds the precomputed bit extraction of every table of a Design.
// It is immutable, so safe for concurrent use.
type Tables struct {
	design Design
	runs   []run   // runs of table i are runs[start[i]:start[i+1]]
	start  []int32 // len = number of tables + 1
	exact  bool    // whether key bits and table index fit in 64 bits together
	shift  uint    // position of the table index when exact
}

// run copies mask bits of the fingerprint starting at bit from to the key
// starting at bit to. Adjacent chosen blocks form a single run.
type run struct {
	mask     uint64
	from, to uint8
}

// NewTables precomputes the tables of d. It returns an error if d is invalid
// or has more than MaxTables tables.
func NewTables(d Design) (*Tables, error) {
	if !d.valid() {
		return nil, fmt.Errorf("blocking: invalid design %v: need 0 <= k < m <= 64", d)
	}
	n := d.Tables()
	if n > MaxTables {
		return nil, fmt.Errorf("blocking: design %v has %d tables, more than %d", d, n, MaxTables)
	}
	off, width := d.blocks()
	t := &Tables{design: d, start: make([]int32, 0, n+1)}
	maxBits := 0
	chosen := make([]int, d.Blocks-d.K) // block numbers, increasing
	for i := range chosen {
		chosen[i] = i
	}
	for {
		t.start = append(t.start, int32(len(t.runs)))
		var to uint
		for i := 0; i < len(chosen); {
			j := i
			var w uint
			for ; j < len(chosen) && chosen[j] == chosen[i]+(j-i); j++ {
				w += width[chosen[j]]
			}
			t.runs = append(t.runs, run{mask: lowMask(w), from: uint8(off[chosen[i]]), to: uint8(to)})
			to += w
			i = j
		}
		maxBits = max(maxBits, int(to))
		if !nextCombination(chosen, d.Blocks) {
			break
		}
	}
	t.start = append(t.start, int32(len(t.runs)))
	t.shift = uint(maxBits)
	t.exact = maxBits+bits.Len(uint(n-1)) <= 64
	return t, nil
}

func lowMask(w uint) uint64 {
	if w >= 64 {
		return math.MaxUint64
	}
	return 1<<w - 1
}

// nextCombination advances c, an increasing k-subset of [0, n), to the next
// one in lexicographic order, reporting false after the last one.
func nextCombination(c []int, n int) bool {
	k := len(c)
	i := k - 1
	for i >= 0 && c[i] == n-k+i {
		i--
	}
	if i < 0 {
		return false
	}
	c[i]++
	for j := i + 1; j < k; j++ {
		c[j] = c[j-1] + 1
	}
	return true
}

// Design returns the design t was built from.
func (t *Tables) Design() Design { return t.design }

// Len returns the number of tables, which is the number of keys AppendKeys
// appends per fingerprint.
func (t *Tables) Len() int { return len(t.start) - 1 }

// AppendKeys appends to dst one key per table for the fingerprint fp, in
// table order, and returns the extended slice. Two fingerprints within
// Hamming distance K of each other get the same key from at least one table.
//
// A key is derived from the table index and the bits of the table's blocks.
// When the longest table key plus the bits needed for the table index fit in
// 64 bits, the two are packed side by side and passed through a bijective
// mixer, so distinct (table, key bits) never collide; this holds for every
// design with Blocks <= 16 or with K = 0 or K >= 4. Otherwise (K from 1 to 3
// with more than 16 blocks) the pair is hashed with xxhash, and two distinct
// pairs collide with probability about 2^-64, which only adds a spurious
// candidate. Keys depend only on the design and fp, so they are the same
// across runs and machines.
func (t *Tables) AppendKeys(dst []uint64, fp uint64) []uint64 {
	dst = slices.Grow(dst, t.Len())
	for i := range t.Len() {
		dst = append(dst, t.Key(i, fp))
	}
	return dst
}

// Key returns the key of table i, 0 <= i < Len(), for the fingerprint fp:
// the i-th key that AppendKeys appends.
func (t *Tables) Key(i int, fp uint64) uint64 {
	var v uint64
	for _, r := range t.runs[t.start[i]:t.start[i+1]] {
		v |= (fp >> r.from & r.mask) << r.to
	}
	if t.exact {
		return mix.Fmix64(v | uint64(i)<<t.shift)
	}
	return hashPair(uint64(i), v)
}

func hashPair(a, b uint64) uint64 {
	var buf [16]byte
	binary.LittleEndian.PutUint64(buf[:8], a)
	binary.LittleEndian.PutUint64(buf[8:], b)
	return xxhash.Sum64(buf[:])
}

// DefaultPairCost is the cost of one candidate comparison relative to the
// cost of emitting one key, used by ChooseDesign.
//
// Emitting a key means shuffling a record (key, document, fingerprint);
// comparing a candidate pair is a popcount inside a group already in memory,
// far cheaper in CPU. But all comparisons of a group run on one worker, and
// real fingerprints cluster more than random ones, so a pair is charged 1/16
// of a key rather than the raw CPU ratio. With it, k = 3 moves from 4 to 5
// blocks at about 3.2 million fingerprints and to 6 blocks at about 1.6
// billion.
const DefaultPairCost = 1.0 / 16

// ChooseDesign returns the design for distance k that has the least expected
// cost on a corpus of n fingerprints, with candidate comparisons weighted by
// DefaultPairCost. See ChooseDesignCost.
func ChooseDesign(k int, n int64) Design { return ChooseDesignCost(k, n, DefaultPairCost) }

// ChooseDesignCost returns the design for distance k whose expected cost on a
// corpus of n fingerprints is least, among designs with at most MaxTables
// tables. The cost model is
//
//	cost = tables*n + pairCost * sum over tables of n*(n-1)/2 * 2^-keyBits
//
// the first term counting emitted keys (the shuffle size), the second the
// expected number of candidate pairs from random collisions, assuming
// uniformly random fingerprints; true near-duplicates add the same number of
// pairs to every design and are left out. Real fingerprints are not uniform,
// so real buckets are somewhat bigger; a larger pairCost compensates.
// Ties go to fewer blocks.
//
// Small corpora get Blocks = k+1; the chosen number of blocks grows with n.
// If k is outside [0, 63] the result is Design{k, k+1}, which NewTables
// rejects.
func ChooseDesignCost(k int, n int64, pairCost float64) Design {
	best := Design{K: k, Blocks: k + 1}
	if k < 0 || k >= 64 {
		return best
	}
	bestCost := math.Inf(1)
	for m := k + 1; m <= 64; m++ {
		d := Design{K: k, Blocks: m}
		if d.Tables() > MaxTables {
			break // C(m, k) grows with m
		}
		if c := d.cost(float64(n), pairCost); c < bestCost {
			best, bestCost = d, c
		}
	}
	return best
}

// cost is the expected cost of d on n random fingerprints; see ChooseDesignCost.
func (d Design) cost(n, pairCost float64) float64 {
	// Tables draw m-k of the m blocks; count the tables whose key has
	// j blocks of q+1 bits and m-k-j blocks of q bits.
	q, r := 64/d.Blocks, 64%d.Blocks
	pairs := n * (n - 1) / 2
	var collisions float64
	for j := 0; j <= r && j <= d.Blocks-d.K; j++ {
		rest := d.Blocks - d.K - j
		if rest > d.Blocks-r {
			continue
		}
		count := float64(binomial(r, j)) * float64(binomial(d.Blocks-r, rest))
		keyBits := j*(q+1) + rest*q
		collisions += count * math.Ldexp(pairs, -keyBits)
	}
	return float64(d.Tables())*n + pairCost*collisions
}
