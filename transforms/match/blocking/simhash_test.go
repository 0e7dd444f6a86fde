package blocking

import (
	"fmt"
	"math"
	"math/bits"
	"math/rand/v2"
	"slices"
	"testing"
)

// pigeonholeDesigns are the designs the guarantee is tested on.
var pigeonholeDesigns = []Design{
	{0, 1}, {1, 2}, {2, 3}, {3, 4}, {4, 5}, {5, 6}, {6, 7},
	{3, 5}, {3, 6}, {3, 7},
	{4, 6}, {4, 8},
	{0, 4}, {1, 20}, {2, 32}, // xxhash keys for the last two
}

func newTables(t testing.TB, d Design) *Tables {
	t.Helper()
	tb, err := NewTables(d)
	if err != nil {
		t.Fatal(err)
	}
	return tb
}

// flip returns fp with d distinct random bits flipped.
func flip(rng *rand.Rand, fp uint64, d int) uint64 {
	for _, i := range rng.Perm(64)[:d] {
		fp ^= 1 << i
	}
	return fp
}

func shareKey(a, b []uint64) bool {
	for i := range a {
		if a[i] == b[i] {
			return true
		}
	}
	return false
}

func TestPigeonhole(t *testing.T) {
	rng := rand.New(rand.NewPCG(1, 2))
	for _, d := range pigeonholeDesigns {
		tb := newTables(t, d)
		var ka, kb []uint64
		for dist := 0; dist <= d.K; dist++ {
			for range 2000 {
				a := rng.Uint64()
				b := flip(rng, a, dist)
				ka = tb.AppendKeys(ka[:0], a)
				kb = tb.AppendKeys(kb[:0], b)
				if !shareKey(ka, kb) {
					t.Fatalf("%v: %016x and %016x at distance %d share no key", d, a, b, dist)
				}
			}
		}
	}
}

// TestPigeonholeWorstCase flips one bit in each of K blocks, for every
// choice of K blocks: exactly one table keeps all its blocks intact.
func TestPigeonholeWorstCase(t *testing.T) {
	rng := rand.New(rand.NewPCG(3, 4))
	for _, d := range pigeonholeDesigns {
		tb := newTables(t, d)
		off, _ := d.blocks()
		flipped := make([]int, d.K)
		for i := range flipped {
			flipped[i] = i
		}
		var ka, kb []uint64
		for {
			a := rng.Uint64()
			b := a
			for _, j := range flipped {
				b ^= 1 << off[j]
			}
			ka = tb.AppendKeys(ka[:0], a)
			kb = tb.AppendKeys(kb[:0], b)
			shared := 0
			for i := range ka {
				if ka[i] == kb[i] {
					shared++
				}
			}
			if shared != 1 {
				t.Fatalf("%v: flipping blocks %v shares %d keys, want 1", d, flipped, shared)
			}
			if !nextCombination(flipped, d.Blocks) {
				break
			}
		}
	}
}

// TestKeysDifferAcrossTables also checks that Key gives AppendKeys' keys.
func TestKeysDifferAcrossTables(t *testing.T) {
	rng := rand.New(rand.NewPCG(5, 6))
	for _, d := range pigeonholeDesigns {
		tb := newTables(t, d)
		seen := make(map[uint64]int) // key -> table
		var keys []uint64
		fps := []uint64{0, math.MaxUint64, 0x5555555555555555}
		for range 500 {
			fps = append(fps, rng.Uint64())
		}
		for _, fp := range fps {
			keys = tb.AppendKeys(keys[:0], fp)
			for i, k := range keys {
				// The shuffle ships the table index, and the receiver
				// derives the key with Key.
				if got := tb.Key(i, fp); got != k {
					t.Fatalf("%v: Key(%d, %016x) = %016x, AppendKeys gave %016x", d, i, fp, got, k)
				}
				if j, ok := seen[k]; ok && j != i {
					t.Fatalf("%v: key %016x from tables %d and %d", d, k, j, i)
				}
				seen[k] = i
			}
		}
	}
}

// TestFarPairsRarelyShare checks that pairs at distance 20 share a key no
// more often than the union bound over tables allows: a table's key survives
// when all flipped bits fall outside its blocks.
func TestFarPairsRarelyShare(t *testing.T) {
	const dist, trials = 20, 4000
	rng := rand.New(rand.NewPCG(7, 8))
	for _, d := range pigeonholeDesigns {
		if d.K == 0 {
			continue
		}
		tb := newTables(t, d)
		var bound float64
		for _, r := range tableKeyBits(tb) {
			bound += binomialF(64-r, dist) / binomialF(64, dist)
		}
		var ka, kb []uint64
		shared := 0
		for range trials {
			a := rng.Uint64()
			ka = tb.AppendKeys(ka[:0], a)
			kb = tb.AppendKeys(kb[:0], flip(rng, a, dist))
			if shareKey(ka, kb) {
				shared++
			}
		}
		rate := float64(shared) / trials
		se := math.Sqrt(bound * (1 - min(bound, 1)) / trials)
		if rate > bound+3*se+1.0/trials || rate > 0.25 {
			t.Errorf("%v: %.4f of pairs at distance %d share a key, union bound %.4f", d, rate, dist, bound)
		}
	}
}

func tableKeyBits(tb *Tables) []int {
	var out []int
	for i := range tb.Len() {
		n := 0
		for _, r := range tb.runs[tb.start[i]:tb.start[i+1]] {
			n += bits.OnesCount64(r.mask)
		}
		out = append(out, n)
	}
	return out
}

func binomialF(n, k int) float64 {
	if k < 0 || k > n {
		return 0
	}
	return math.Round(math.Exp(lgamma(n+1) - lgamma(k+1) - lgamma(n-k+1)))
}

func lgamma(x int) float64 { v, _ := math.Lgamma(float64(x)); return v }

func TestDesignTables(t *testing.T) {
	tests := []struct {
		d          Design
		tables     int
		minKeyBits int
	}{
		{Design{0, 1}, 1, 64},
		{Design{0, 7}, 1, 64},
		{Design{1, 2}, 2, 32},
		{Design{3, 4}, 4, 16},
		{Design{3, 5}, 10, 25}, // 13+13+13+13+12
		{Design{3, 6}, 20, 31}, // 11+11+11+11+10+10
		{Design{3, 7}, 35, 36}, // 10+9+9+9+9+9+9
		{Design{4, 6}, 15, 20},
		{Design{4, 8}, 70, 32},
		{Design{6, 7}, 7, 9},
		{Design{2, 32}, 496, 60},
		{Design{5, 20}, 15504, 45},
		{Design{63, 64}, 64, 1},
		{Design{32, 64}, 1832624140942590534, 32},
		{Design{-1, 3}, 0, 0},
		{Design{3, 3}, 0, 0},
		{Design{3, 65}, 0, 0},
	}
	for _, tt := range tests {
		if got := tt.d.Tables(); got != tt.tables {
			t.Errorf("%v.Tables() = %d, want %d", tt.d, got, tt.tables)
		}
		if got := tt.d.MinKeyBits(); got != tt.minKeyBits {
			t.Errorf("%v.MinKeyBits() = %d, want %d", tt.d, got, tt.minKeyBits)
		}
	}
	// Against Pascal's triangle, and MinKeyBits against the built tables.
	var pascal [65][65]int
	for m := range 65 {
		pascal[m][0] = 1
		for k := 1; k <= m; k++ {
			pascal[m][k] = pascal[m-1][k-1] + pascal[m-1][k]
		}
	}
	for m := 1; m <= 64; m++ {
		for k := 0; k < m; k++ {
			d := Design{k, m}
			if got := d.Tables(); got != pascal[m][k] {
				t.Fatalf("%v.Tables() = %d, want %d", d, got, pascal[m][k])
			}
			if d.Tables() > MaxTables {
				if _, err := NewTables(d); err == nil {
					t.Fatalf("NewTables(%v) accepted %d tables", d, d.Tables())
				}
				continue
			}
			tb := newTables(t, d)
			if tb.Len() != d.Tables() {
				t.Fatalf("%v: Len() = %d, want %d", d, tb.Len(), d.Tables())
			}
			if got := slices.Min(tableKeyBits(tb)); got != d.MinKeyBits() {
				t.Fatalf("%v: shortest key has %d bits, MinKeyBits() = %d", d, got, d.MinKeyBits())
			}
		}
	}
}

func TestNewTablesErrors(t *testing.T) {
	for _, d := range []Design{{-1, 2}, {2, 2}, {3, 2}, {0, 0}, {1, 65}, {5, 20}} {
		if _, err := NewTables(d); err == nil {
			t.Errorf("NewTables(%v) succeeded, want error", d)
		}
	}
}

// TestSingleBit checks that flipping one bit changes the key of exactly the
// tables that include its block: the C(m-1, k-1) tables dropping the block
// keep their keys.
func TestSingleBit(t *testing.T) {
	for _, d := range pigeonholeDesigns {
		if d.K == 0 {
			continue
		}
		tb := newTables(t, d)
		want := binomial(d.Blocks-1, d.K-1)
		keys0 := tb.AppendKeys(nil, 0)
		var keys []uint64
		for bit := range 64 {
			keys = tb.AppendKeys(keys[:0], 1<<bit)
			unchanged := 0
			for i := range keys {
				if keys[i] == keys0[i] {
					unchanged++
				}
			}
			if unchanged != want {
				t.Errorf("%v: flipping bit %d leaves %d keys unchanged, want %d", d, bit, unchanged, want)
			}
		}
	}
}

func TestChooseDesign(t *testing.T) {
	for k := 0; k <= 8; k++ {
		for _, n := range []int64{0, 1, 2, 100, 1000} {
			if got := ChooseDesign(k, n); got != (Design{k, k + 1}) {
				t.Errorf("ChooseDesign(%d, %d) = %v, want m = %d", k, n, got, k+1)
			}
		}
		if k >= 2 {
			if got := ChooseDesign(k, 1e9); got.Blocks <= k+1 {
				t.Errorf("ChooseDesign(%d, 1e9) = %v, want m > %d", k, got, k+1)
			}
		}
		prev := 0
		for n := 1.0; n <= 1e13; n *= 1.25 {
			d := ChooseDesign(k, int64(n))
			if d.Blocks < prev {
				t.Fatalf("ChooseDesign(%d, %g) = %v, fewer blocks than for a smaller n (%d)", k, n, d, prev)
			}
			prev = d.Blocks
			if _, err := NewTables(d); err != nil {
				t.Fatalf("ChooseDesign(%d, %g): %v", k, n, err)
			}
		}
	}
	// The transitions documented at DefaultPairCost.
	for _, tc := range []struct {
		n      int64
		blocks int
	}{{3.0e6, 4}, {3.3e6, 5}, {1.5e9, 5}, {1.7e9, 6}} {
		if got := ChooseDesign(3, tc.n); got.Blocks != tc.blocks {
			t.Errorf("ChooseDesign(3, %.2g) = %v, want m = %d", float64(tc.n), got, tc.blocks)
		}
	}
	// A higher pair cost moves to longer keys sooner.
	if a, b := ChooseDesignCost(3, 1e6, 1), ChooseDesignCost(3, 1e6, DefaultPairCost/4); a.Blocks <= b.Blocks {
		t.Errorf("pair cost 1 chose %v, pair cost %g chose %v; want more blocks for the former", a, DefaultPairCost/4, b)
	}
	for _, k := range []int{-1, 64} {
		if _, err := NewTables(ChooseDesign(k, 1e6)); err == nil {
			t.Errorf("ChooseDesign(%d, 1e6) made a valid design", k)
		}
	}
	for _, n := range []int64{1e4, 1e6, 1.4e6, 1e8, 1e9} {
		d := ChooseDesign(3, n)
		t.Logf("ChooseDesign(3, %.2g) = %v: %d tables, keys of >= %d bits", float64(n), d, d.Tables(), d.MinKeyBits())
	}
}

func TestAppendKeysAllocs(t *testing.T) {
	for _, d := range []Design{{3, 4}, {2, 32}} {
		tb := newTables(t, d)
		dst := make([]uint64, 0, tb.Len())
		if n := testing.AllocsPerRun(100, func() { dst = tb.AppendKeys(dst[:0], 0x0123456789abcdef) }); n != 0 {
			t.Errorf("%v: AppendKeys allocates %v times", d, n)
		}
	}
}

func BenchmarkTablesAppendKeys(b *testing.B) {
	for _, d := range []Design{{3, 4}, {3, 5}, {3, 6}, {6, 7}, {4, 8}, {2, 32}} {
		b.Run(fmt.Sprintf("k=%d/m=%d", d.K, d.Blocks), func(b *testing.B) {
			tb := newTables(b, d)
			dst := make([]uint64, 0, tb.Len())
			fp := uint64(0x0123456789abcdef)
			b.ReportAllocs()
			for b.Loop() {
				dst = tb.AppendKeys(dst[:0], fp)
				fp += 0x9e3779b97f4a7c15
			}
		})
	}
}
