package candidates

import (
	"cmp"
	"math"
	"math/rand/v2"
	"slices"
	"testing"

	"github.com/neardup/neardup/transforms/format/wire"
)

// refRule is a size-ratio rule written from its definition: band b is used
// by levels levels[b][0]..levels[b][1]; a pair of q <= u (q >= minSize)
// has level k, the least with q*q*2^k >= u*u, capped at maxLevel. Its
// SizeRange scans every u up to maxU (sizes stay below it).
type refRule struct {
	levels   [][2]int
	maxLevel int
	minSize  int
	maxU     int
}

func (r refRule) Pairs(band uint8, q, u int) bool {
	if q < r.minSize || u < q {
		return false
	}
	k := 0
	for float64(q)*float64(q)*math.Exp2(float64(k)) < float64(u)*float64(u) {
		k++
	}
	k = min(k, r.maxLevel)
	return r.levels[band][0] <= k && k <= r.levels[band][1]
}

func (r refRule) SizeRange(band uint8, q int) (lo, hi int) {
	lo, hi = 1, 0
	for u := q; u <= r.maxU; u++ {
		if r.Pairs(band, q, u) {
			if lo > hi {
				lo = u
			}
			hi = u
		}
	}
	if lo <= hi && r.levels[band][1] == r.maxLevel {
		hi = math.MaxInt
	}
	return lo, hi
}

// testRule has four bands: levels 0-1, 0-3, 2-3 and 3 only (the last).
var testRule = refRule{levels: [][2]int{{0, 1}, {0, 3}, {2, 3}, {3, 3}}, maxLevel: 3, minSize: 10, maxU: 1000}

// refContained is AppendContained by brute force: every ordered pair of a
// bucket in comparison-sorted order, tested with Pairs.
func refContained(entries []wire.SizedEntry, rule SizeRule, lim Limits) (pairs []wire.Pair, st Stats) {
	es := slices.Clone(entries)
	slices.SortFunc(es, func(a, b wire.SizedEntry) int {
		return cmp.Or(cmp.Compare(a.Key, b.Key), cmp.Compare(a.Band, b.Band), cmp.Compare(a.Size, b.Size), cmp.Compare(a.Doc, b.Doc))
	})
	es = slices.Compact(es)
	buckets := map[[2]uint64][]wire.SizedEntry{}
	for _, e := range es {
		k := [2]uint64{e.Key, uint64(e.Band)}
		buckets[k] = append(buckets[k], e)
	}
	for _, b := range buckets {
		if len(b) < 2 {
			continue
		}
		st.Buckets++
		hot := len(b) > lim.MaxBucket
		if hot {
			st.HotBuckets++
		}
		for i, q := range b {
			n := 0
			for _, s := range b[i+1:] {
				if !rule.Pairs(q.Band, int(q.Size), int(s.Size)) {
					continue
				}
				if n++; hot && n > lim.Window {
					st.Skipped++
					continue
				}
				pairs = append(pairs, wire.Pair{A: min(q.Doc, s.Doc), B: max(q.Doc, s.Doc)})
				st.Pairs++
			}
		}
	}
	slices.SortFunc(pairs, cmpPair)
	return pairs, st
}

// randomSized returns n entries over keys keys and the four bands of
// testRule, sizes 1 to 700, documents of up to docs numbers, with
// repeats.
func randomSized(r *rand.Rand, n, keys, docs int) []wire.SizedEntry {
	var es []wire.SizedEntry
	for range n {
		d := r.Uint64N(uint64(docs))
		es = append(es, wire.SizedEntry{Key: r.Uint64N(uint64(keys)) << 30, Doc: d, Size: uint32(1 + (d*7919)%700), Band: uint8(r.IntN(4))})
	}
	return append(es, es[:n/10]...)
}

func TestAppendContainedRandom(t *testing.T) {
	r := rand.New(rand.NewPCG(3, 4))
	var scratch []wire.SizedEntry
	for _, c := range []struct {
		name          string
		n, keys, docs int
		lim           Limits
	}{
		{"small buckets", 2000, 400, 5000, Limits{MaxBucket: 256, Window: 2}},
		{"hot buckets", 3000, 3, 2000, Limits{MaxBucket: 40, Window: 3}},
		{"all hot, window 0", 500, 2, 400, Limits{MaxBucket: 1, Window: 0}},
		{"pdqsort path", radixMin - 10, 5, 300, Limits{MaxBucket: 10, Window: 4}},
		{"one entry", 1, 1, 1, DefaultLimits},
	} {
		es := randomSized(r, c.n, c.keys, c.docs)
		want, wantSt := refContained(es, testRule, c.lim)
		var sorted []wire.SizedEntry
		sorted, scratch = SortSizedBuf(slices.Clone(es), scratch)
		var st Stats
		got := AppendContained(nil, sorted, testRule, c.lim, &st)
		slices.SortFunc(got, cmpPair)
		if !slices.Equal(got, want) {
			t.Errorf("%s: %d pairs, want %d", c.name, len(got), len(want))
		}
		if st != wantSt {
			t.Errorf("%s: stats %+v, want %+v", c.name, st, wantSt)
		}
		if c.n > 1000 && (len(got) == 0 || (c.lim.MaxBucket < 256 && st.Skipped == 0)) {
			t.Errorf("%s: %d pairs, %d skipped: the case does not test what it says", c.name, len(got), st.Skipped)
		}
	}
}

// TestAppendContainedBucket checks one bucket by hand: sizes 10, 10, 14,
// 15, 30 and 90 under band 0 (levels 0-1: u <= 1.41q) and band 3 (level 3
// and above: u > 2q).
func TestAppendContainedBucket(t *testing.T) {
	var es []wire.SizedEntry
	for i, s := range []uint32{90, 30, 15, 14, 10, 10} {
		for _, band := range []uint8{0, 3} {
			es = append(es, wire.SizedEntry{Key: 1, Doc: wire.Doc(i), Size: s, Band: band})
		}
	}
	sorted, _ := SortSizedBuf(es, nil)
	var st Stats
	got := AppendContained(nil, sorted, testRule, DefaultLimits, &st)
	slices.SortFunc(got, cmpPair)
	// Band 0: 10 with 10, 14 over both 10s, 15 over 14 (15 over 10 is
	// level 2). Band 3: 30 and 90 over both 10s and over 14 (30 > 2*14),
	// 90 over 15 (30 over 15 is level 2), 90 over 30 (level 4, capped).
	want := pairs(0, 1, 0, 2, 0, 3, 0, 4, 0, 5, 1, 3, 1, 4, 1, 5, 2, 3, 3, 4, 3, 5, 4, 5)
	if !slices.Equal(got, want) {
		t.Errorf("pairs %v, want %v", got, want)
	}
	if st.Buckets != 2 || st.Pairs != int64(len(want)) {
		t.Errorf("stats %+v", st)
	}
}

func TestSortSizedBuf(t *testing.T) {
	r := rand.New(rand.NewPCG(5, 6))
	var scratch []wire.SizedEntry
	for _, n := range []int{0, 1, radixMin - 1, radixMin, 5000} {
		es := randomSized(r, n, 50, 1000)
		want := slices.Clone(es)
		slices.SortFunc(want, func(a, b wire.SizedEntry) int {
			return cmp.Or(cmp.Compare(a.Key, b.Key), cmp.Compare(a.Band, b.Band), cmp.Compare(a.Size, b.Size), cmp.Compare(a.Doc, b.Doc))
		})
		want = slices.Compact(want)
		var got []wire.SizedEntry
		if got, scratch = SortSizedBuf(slices.Clone(es), scratch); !slices.Equal(got, want) {
			t.Errorf("%d entries: SortSizedBuf differs from a comparison sort", n)
		}
	}
}

// doubleRule pairs q with every u <= 2q, under every band.
type doubleRule struct{}

func (doubleRule) Pairs(_ uint8, q, u int) bool          { return q <= u && u <= 2*q }
func (doubleRule) SizeRange(_ uint8, q int) (lo, hi int) { return q, 2 * q }

// sizedPartition returns a sorted containment partition of n entries:
// buckets of mean 2.5 documents with sizes of 10 to 1000, 4 bands, and
// one hot bucket of 5000.
func sizedPartition(n int) []wire.SizedEntry {
	r := rand.New(rand.NewPCG(7, 8))
	es := make([]wire.SizedEntry, 0, n)
	for i := 0; i < n-5000; i++ {
		es = append(es, wire.SizedEntry{Key: r.Uint64N(uint64(n) * 2 / 5), Doc: r.Uint64N(1 << 30), Size: uint32(10 + r.IntN(990)), Band: uint8(r.IntN(4))})
	}
	for i := range 5000 {
		es = append(es, wire.SizedEntry{Key: 1 << 39, Doc: uint64(i), Size: uint32(10 + i/5), Band: 1})
	}
	sorted, _ := SortSizedBuf(es, nil)
	return sorted
}

func TestAppendContainedNoAllocs(t *testing.T) {
	es := sizedPartition(20000)
	var st Stats
	lim := Limits{MaxBucket: 256, Window: 16}
	var rule SizeRule = doubleRule{}
	dst := AppendContained(nil, es, rule, lim, &st)
	allocs := testing.AllocsPerRun(5, func() {
		dst = AppendContained(dst[:0], es, rule, lim, &st)
	})
	if allocs != 0 {
		t.Errorf("AppendContained into a large enough dst: %v allocations, want 0", allocs)
	}
	if st.HotBuckets == 0 || st.Skipped == 0 {
		t.Errorf("no hot bucket: %+v", st)
	}
}
