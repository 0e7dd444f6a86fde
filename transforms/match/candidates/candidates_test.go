package candidates

import (
	"cmp"
	"math/rand/v2"
	"slices"
	"testing"

	"github.com/neardup/neardup/transforms/format/wire"
)

func entries(kd ...uint64) []wire.Entry {
	var es []wire.Entry
	for i := 0; i < len(kd); i += 2 {
		es = append(es, wire.Entry{Key: kd[i], Doc: kd[i+1]})
	}
	return es
}

func TestSort(t *testing.T) {
	tests := []struct {
		in, want []wire.Entry
	}{
		{nil, nil},
		{entries(1, 1), entries(1, 1)},
		{entries(2, 1, 1, 5, 1, 3, 2, 1, 1, 5, 0, 9), entries(0, 9, 1, 3, 1, 5, 2, 1)},
		{entries(7, 3, 7, 2, 7, 1, 7, 2), entries(7, 1, 7, 2, 7, 3)},
		{entries(^uint64(0), 0, 0, ^uint64(0)), entries(0, ^uint64(0), ^uint64(0), 0)},
	}
	for _, tt := range tests {
		in := slices.Clone(tt.in)
		if got := Sort(in); !slices.Equal(got, tt.want) {
			t.Errorf("Sort(%v) = %v, want %v", tt.in, got, tt.want)
		}
	}
}

func TestSortSim(t *testing.T) {
	sim := func(key, doc, fp uint64) wire.SimEntry { return wire.SimEntry{Key: key, Doc: doc, FP: fp} }
	in := []wire.SimEntry{sim(2, 1, 10), sim(1, 4, 11), sim(2, 1, 10), sim(1, 3, 12), sim(2, 0, 13)}
	want := []wire.SimEntry{sim(1, 3, 12), sim(1, 4, 11), sim(2, 0, 13), sim(2, 1, 10)}
	if got := SortSim(in); !slices.Equal(got, want) {
		t.Errorf("SortSim = %v, want %v", got, want)
	}
}

func pairs(ab ...uint64) []wire.Pair {
	var ps []wire.Pair
	for i := 0; i < len(ab); i += 2 {
		ps = append(ps, wire.Pair{A: ab[i], B: ab[i+1]})
	}
	return ps
}

func TestAppendSmallBuckets(t *testing.T) {
	lim := Limits{MaxBucket: 4, Window: 1}
	tests := []struct {
		name    string
		entries []wire.Entry
		want    []wire.Pair
		st      Stats
	}{
		{"empty", nil, nil, Stats{}},
		{"singletons", entries(1, 1, 2, 2, 3, 3), nil, Stats{}},
		{"one pair", entries(5, 10, 5, 20), pairs(10, 20), Stats{Buckets: 1, Pairs: 1}},
		{
			"buckets of 1, 2, 3 and 4 (= MaxBucket)",
			entries(1, 9, 2, 1, 2, 2, 3, 4, 3, 5, 3, 6, 4, 10, 4, 11, 4, 12, 4, 13),
			pairs(1, 2, 4, 5, 4, 6, 5, 6, 10, 11, 10, 12, 10, 13, 11, 12, 11, 13, 12, 13),
			Stats{Buckets: 3, Pairs: 10},
		},
		{
			"same pair from two keys",
			entries(1, 1, 1, 2, 2, 1, 2, 2, 2, 3),
			pairs(1, 2, 1, 2, 1, 3, 2, 3),
			Stats{Buckets: 2, Pairs: 4},
		},
	}
	for _, tt := range tests {
		var st Stats
		got := Append(nil, tt.entries, lim, &st)
		if !slices.Equal(got, tt.want) {
			t.Errorf("%s: Append = %v, want %v", tt.name, got, tt.want)
		}
		if st != tt.st {
			t.Errorf("%s: stats %+v, want %+v", tt.name, st, tt.st)
		}
		for _, p := range got {
			if p.A >= p.B {
				t.Errorf("%s: pair %v without A < B", tt.name, p)
			}
		}
	}
}

func TestAppendKeepsDst(t *testing.T) {
	var st Stats
	dst := pairs(100, 200)
	got := Append(dst, entries(1, 1, 1, 2), DefaultLimits, &st)
	if want := pairs(100, 200, 1, 2); !slices.Equal(got, want) {
		t.Errorf("Append = %v, want %v", got, want)
	}
	// Stats accumulate over calls.
	Append(nil, entries(1, 1, 1, 2, 1, 3), DefaultLimits, &st)
	if want := (Stats{Buckets: 2, Pairs: 4}); st != want {
		t.Errorf("stats after two calls %+v, want %+v", st, want)
	}
}

// hotRef lists by brute force the pairs of a bucket of docs (in document
// order) that Append compares when the bucket is hot: every document with the
// first one, and every pair at most w apart. It also counts the pairs left
// out.
func hotRef(docs []uint64, w int) (kept []wire.Pair, skipped int64) {
	for i := range docs {
		for j := i + 1; j < len(docs); j++ {
			if i == 0 || j-i <= w {
				kept = append(kept, wire.Pair{A: docs[i], B: docs[j]})
			} else {
				skipped++
			}
		}
	}
	return kept, skipped
}

// allRef lists all pairs of a bucket.
func allRef(docs []uint64) []wire.Pair {
	kept, _ := hotRef(docs, len(docs))
	return kept
}

func TestAppendHotBucket(t *testing.T) {
	tests := []struct {
		n, maxBucket, window int
		hot                  bool
	}{
		{n: 10, maxBucket: 10, window: 3, hot: false}, // exactly MaxBucket: all pairs
		{n: 11, maxBucket: 10, window: 3, hot: true},
		{n: 10, maxBucket: 4, window: 1, hot: true},
		{n: 10, maxBucket: 4, window: 8, hot: true},  // star + window n-2: nothing skipped
		{n: 10, maxBucket: 4, window: 50, hot: true}, // window beyond the bucket
		{n: 10, maxBucket: 4, window: 0, hot: true},  // the star alone
		{n: 2, maxBucket: 1, window: 1, hot: true},
		{n: 300, maxBucket: 256, window: 32, hot: true},
		{n: 1000, maxBucket: 0, window: 7, hot: true},
	}
	for _, tt := range tests {
		docs := make([]uint64, tt.n)
		var es []wire.Entry
		for i := range docs {
			docs[i] = uint64(3*i + 1)
			es = append(es, wire.Entry{Key: 42, Doc: docs[i]})
		}
		want, skipped := hotRef(docs, tt.window)
		if !tt.hot {
			want, skipped = allRef(docs), 0
		}
		var st Stats
		got := Append(nil, es, Limits{MaxBucket: tt.maxBucket, Window: tt.window}, &st)
		slices.SortFunc(got, cmpPair)
		slices.SortFunc(want, cmpPair)
		if !slices.Equal(got, want) {
			t.Errorf("n=%d %+v: Append gave %d pairs, want %d", tt.n, tt, len(got), len(want))
		}
		wantSt := Stats{Buckets: 1, Pairs: int64(len(want)), Skipped: skipped}
		if tt.hot {
			wantSt.HotBuckets = 1
		}
		if st != wantSt {
			t.Errorf("n=%d %+v: stats %+v, want %+v", tt.n, tt, st, wantSt)
		}
		if st.Pairs+st.Skipped != int64(tt.n*(tt.n-1)/2) {
			t.Errorf("n=%d: pairs %d + skipped %d != %d", tt.n, st.Pairs, st.Skipped, tt.n*(tt.n-1)/2)
		}
	}
}

func cmpPair(x, y wire.Pair) int {
	switch {
	case x.A < y.A:
		return -1
	case x.A > y.A:
		return 1
	case x.B < y.B:
		return -1
	case x.B > y.B:
		return 1
	}
	return 0
}

func TestAppendRandom(t *testing.T) {
	// Random partitions against a brute-force reference that groups by key
	// with a map.
	r := rand.New(rand.NewPCG(1, 2))
	for iter := 0; iter < 200; iter++ {
		lim := Limits{MaxBucket: 1 + r.IntN(8), Window: r.IntN(5)}
		var es []wire.Entry
		for i := r.IntN(60); i > 0; i-- {
			es = append(es, wire.Entry{Key: uint64(r.IntN(6)), Doc: uint64(r.IntN(30))})
		}
		es = Sort(es)

		byKey := map[uint64][]uint64{}
		for _, e := range es {
			byKey[e.Key] = append(byKey[e.Key], e.Doc)
		}
		var want []wire.Pair
		var wantSt Stats
		for _, docs := range byKey {
			slices.Sort(docs)
			if len(docs) < 2 {
				continue
			}
			wantSt.Buckets++
			kept, skipped := allRef(docs), int64(0)
			if len(docs) > lim.MaxBucket {
				wantSt.HotBuckets++
				kept, skipped = hotRef(docs, lim.Window)
			}
			want = append(want, kept...)
			wantSt.Skipped += skipped
		}
		wantSt.Pairs = int64(len(want))

		var st Stats
		got := Append(nil, es, lim, &st)
		slices.SortFunc(got, cmpPair)
		slices.SortFunc(want, cmpPair)
		if !slices.Equal(got, want) {
			t.Fatalf("iteration %d, %+v: Append = %v, want %v", iter, lim, got, want)
		}
		if st != wantSt {
			t.Fatalf("iteration %d, %+v: stats %+v, want %+v", iter, lim, st, wantSt)
		}
	}
}

func TestAppendNear(t *testing.T) {
	// Bucket 1: fingerprints 0, 0b111, 0b1111, 0xff00. Distances:
	// 1-2: 3, 1-3: 4, 1-4: 8, 2-3: 1, 2-4: 11, 3-4: 12.
	// Bucket 2: 0 and ^0: 64 bits apart. Bucket 3: a singleton.
	es := []wire.SimEntry{
		{Key: 1, Doc: 1, FP: 0},
		{Key: 1, Doc: 2, FP: 0b111},
		{Key: 1, Doc: 3, FP: 0b1111},
		{Key: 1, Doc: 4, FP: 0xff00},
		{Key: 2, Doc: 5, FP: 0},
		{Key: 2, Doc: 6, FP: ^uint64(0)},
		{Key: 3, Doc: 7, FP: 0},
	}
	tests := []struct {
		k    int
		lim  Limits
		want []wire.Pair
		st   Stats
	}{
		{0, DefaultLimits, nil, Stats{Buckets: 2, Far: 7}},
		{1, DefaultLimits, pairs(2, 3), Stats{Buckets: 2, Pairs: 1, Far: 6}},
		{3, DefaultLimits, pairs(1, 2, 2, 3), Stats{Buckets: 2, Pairs: 2, Far: 5}},
		{4, DefaultLimits, pairs(1, 2, 1, 3, 2, 3), Stats{Buckets: 2, Pairs: 3, Far: 4}},
		{11, DefaultLimits, pairs(1, 2, 1, 3, 1, 4, 2, 3, 2, 4), Stats{Buckets: 2, Pairs: 5, Far: 2}},
		{64, DefaultLimits, pairs(1, 2, 1, 3, 1, 4, 2, 3, 2, 4, 3, 4, 5, 6), Stats{Buckets: 2, Pairs: 7}},
		// Hot bucket 1 (4 > 3) with window 1 tests the star 1-2, 1-3, 1-4
		// and 2-3, 3-4, and skips 2-4; bucket 2 is small. Far: 1-3, 1-4,
		// 3-4, 5-6.
		{3, Limits{MaxBucket: 3, Window: 1}, pairs(1, 2, 2, 3), Stats{Buckets: 2, HotBuckets: 1, Pairs: 2, Skipped: 1, Far: 4}},
		{64, Limits{MaxBucket: 1, Window: 1}, pairs(1, 2, 1, 3, 1, 4, 2, 3, 3, 4, 5, 6), Stats{Buckets: 2, HotBuckets: 2, Pairs: 6, Skipped: 1}},
		// Window 0: the star alone, 2-3, 2-4 and 3-4 skipped.
		{64, Limits{MaxBucket: 3, Window: 0}, pairs(1, 2, 1, 3, 1, 4, 5, 6), Stats{Buckets: 2, HotBuckets: 1, Pairs: 4, Skipped: 3}},
	}
	for _, tt := range tests {
		var st Stats
		got := AppendNear(nil, es, tt.k, tt.lim, &st)
		if !slices.Equal(got, tt.want) {
			t.Errorf("k=%d %+v: AppendNear = %v, want %v", tt.k, tt.lim, got, tt.want)
		}
		if st != tt.st {
			t.Errorf("k=%d %+v: stats %+v, want %+v", tt.k, tt.lim, st, tt.st)
		}
	}
}

func TestAppendNearRandom(t *testing.T) {
	r := rand.New(rand.NewPCG(3, 4))
	for iter := 0; iter < 200; iter++ {
		lim := Limits{MaxBucket: 1 + r.IntN(8), Window: r.IntN(5)}
		k := r.IntN(6)
		var es []wire.SimEntry
		for i := r.IntN(50); i > 0; i-- {
			doc := uint64(r.IntN(30))
			// Fingerprints of 8 random bits: distances 0..8.
			es = append(es, wire.SimEntry{Key: uint64(r.IntN(5)), Doc: doc, FP: uint64(r.IntN(256)) << 20})
		}
		// One fingerprint per document, as in the pipeline.
		fp := map[uint64]uint64{}
		for i := range es {
			if v, ok := fp[es[i].Doc]; ok {
				es[i].FP = v
			} else {
				fp[es[i].Doc] = es[i].FP
			}
		}
		es = SortSim(es)

		byKey := map[uint64][]uint64{}
		for _, e := range es {
			byKey[e.Key] = append(byKey[e.Key], e.Doc)
		}
		var want []wire.Pair
		var wantSt Stats
		for _, docs := range byKey {
			slices.Sort(docs)
			if len(docs) < 2 {
				continue
			}
			wantSt.Buckets++
			kept, skipped := allRef(docs), int64(0)
			if len(docs) > lim.MaxBucket {
				wantSt.HotBuckets++
				kept, skipped = hotRef(docs, lim.Window)
			}
			wantSt.Skipped += skipped
			for _, p := range kept {
				d := 0
				for x := fp[p.A] ^ fp[p.B]; x != 0; x &= x - 1 {
					d++
				}
				if d > k {
					wantSt.Far++
				} else {
					want = append(want, p)
				}
			}
		}
		wantSt.Pairs = int64(len(want))

		var st Stats
		got := AppendNear(nil, es, k, lim, &st)
		slices.SortFunc(got, cmpPair)
		slices.SortFunc(want, cmpPair)
		if !slices.Equal(got, want) {
			t.Fatalf("iteration %d, k=%d %+v: AppendNear = %v, want %v", iter, k, lim, got, want)
		}
		if st != wantSt {
			t.Fatalf("iteration %d, k=%d %+v: stats %+v, want %+v", iter, k, lim, st, wantSt)
		}
	}
}

func TestUnique(t *testing.T) {
	tests := []struct {
		in, want []wire.Pair
	}{
		{nil, nil},
		{pairs(1, 2), pairs(1, 2)},
		{pairs(3, 4, 1, 2, 3, 4, 1, 3, 1, 2, 1, 2), pairs(1, 2, 1, 3, 3, 4)},
		{pairs(2, 9, 2, 5, 1, 9), pairs(1, 9, 2, 5, 2, 9)},
	}
	for _, tt := range tests {
		if got := Unique(slices.Clone(tt.in)); !slices.Equal(got, tt.want) {
			t.Errorf("Unique(%v) = %v, want %v", tt.in, got, tt.want)
		}
	}
}

// partition returns a sorted partition of n entries: Poisson-like buckets of
// mean 2.5 documents and one hot bucket of 5000.
func partition(n int) []wire.Entry {
	r := rand.New(rand.NewPCG(5, 6))
	es := make([]wire.Entry, 0, n)
	for i := 0; i < n-5000; i++ {
		es = append(es, wire.Entry{Key: r.Uint64N(uint64(n) * 2 / 5), Doc: r.Uint64N(1 << 30)})
	}
	for i := 0; i < 5000; i++ {
		es = append(es, wire.Entry{Key: 1 << 63, Doc: uint64(i)})
	}
	return Sort(es)
}

func TestAppendNoAllocs(t *testing.T) {
	es := partition(20000)
	var st Stats
	dst := Append(nil, es, DefaultLimits, &st)
	allocs := testing.AllocsPerRun(5, func() {
		dst = Append(dst[:0], es, DefaultLimits, &st)
	})
	if allocs != 0 {
		t.Errorf("Append into a large enough dst: %v allocations, want 0", allocs)
	}
}

func BenchmarkAppend(b *testing.B) {
	es := partition(1e6)
	var st Stats
	dst := Append(nil, es, DefaultLimits, &st)
	b.ReportAllocs()
	b.ResetTimer()
	for b.Loop() {
		dst = Append(dst[:0], es, DefaultLimits, &st)
	}
	b.ReportMetric(float64(len(dst)), "pairs/op")
}

func TestSortAllocs(t *testing.T) {
	entries := make([]wire.Entry, 4096)
	for i := range entries {
		entries[i] = wire.Entry{Key: uint64(i*7919) % 1000, Doc: uint64(i)}
	}
	work := make([]wire.Entry, len(entries))
	scratch := make([]wire.Entry, 0, len(entries))
	if n := testing.AllocsPerRun(10, func() { copy(work, entries); _, scratch = SortBuf(work, scratch) }); n != 0 {
		t.Errorf("SortBuf with a large enough buffer allocates %v times per call", n)
	}
}

// TestUniqueMatchesComparisonSort checks the radix path of Unique against
// a comparison sort, with documents of several files and repeated pairs.
func TestUniqueMatchesComparisonSort(t *testing.T) {
	r := rand.New(rand.NewPCG(11, 12))
	var scratch []wire.Pair
	for _, n := range []int{radixMin - 1, radixMin, 5000, 40000} {
		var ps []wire.Pair
		for range n {
			a := wire.DocNum(r.IntN(3), r.Int64N(int64(n)))
			b := wire.DocNum(r.IntN(5), r.Int64N(int64(n)))
			ps = append(ps, wire.Pair{A: min(a, b), B: max(a, b)})
		}
		ps = append(ps, ps[:n/3]...) // repeats
		want := slices.Clone(ps)
		slices.SortFunc(want, func(x, y wire.Pair) int { return cmp.Or(cmp.Compare(x.A, y.A), cmp.Compare(x.B, y.B)) })
		want = slices.Compact(want)
		var got []wire.Pair
		if got, scratch = UniqueBuf(slices.Clone(ps), scratch); !slices.Equal(got, want) {
			t.Errorf("%d pairs: UniqueBuf differs from a comparison sort", len(ps))
		}
		if got := Unique(slices.Clone(ps)); !slices.Equal(got, want) {
			t.Errorf("%d pairs: Unique differs from a comparison sort", len(ps))
		}
	}
}

// TestSortMatchesComparisonSort checks the radix path (from radixMin
// entries) against a comparison sort: keys of 40 and 64 bits, all equal, or
// few; documents shuffled, with repeats.
func TestSortMatchesComparisonSort(t *testing.T) {
	r := rand.New(rand.NewPCG(7, 8))
	keyGens := map[string]func() uint64{
		"40-bit":   func() uint64 { return r.Uint64() >> 24 },
		"64-bit":   r.Uint64,
		"one key":  func() uint64 { return 0xabcdef },
		"few keys": func() uint64 { return r.Uint64N(5) << 33 },
	}
	var scratch []wire.Entry
	var simScratch []wire.SimEntry
	for name, key := range keyGens {
		for _, n := range []int{0, 1, radixMin - 1, radixMin, 1000, 30000} {
			var es []wire.Entry
			var ss []wire.SimEntry
			for range n {
				e := wire.Entry{Key: key(), Doc: r.Uint64N(uint64(n)/2 + 1)}
				es = append(es, e)
				ss = append(ss, wire.SimEntry{Key: e.Key, Doc: e.Doc, FP: e.Key ^ e.Doc})
			}
			want := slices.Clone(es)
			slices.SortFunc(want, func(a, b wire.Entry) int { return cmp.Or(cmp.Compare(a.Key, b.Key), cmp.Compare(a.Doc, b.Doc)) })
			want = slices.Compact(want)
			var got []wire.Entry
			got, scratch = SortBuf(slices.Clone(es), scratch)
			if !slices.Equal(got, want) {
				t.Errorf("%s, %d entries: SortBuf differs from a comparison sort", name, n)
			}
			if got := Sort(slices.Clone(es)); !slices.Equal(got, want) {
				t.Errorf("%s, %d entries: Sort differs from a comparison sort", name, n)
			}
			var gotSim []wire.SimEntry
			gotSim, simScratch = SortSimBuf(ss, simScratch)
			if len(gotSim) != len(want) {
				t.Fatalf("%s, %d entries: SortSimBuf kept %d, want %d", name, n, len(gotSim), len(want))
			}
			for i, s := range gotSim {
				if s.Key != want[i].Key || s.Doc != want[i].Doc || s.FP != s.Key^s.Doc {
					t.Fatalf("%s, %d entries: SortSimBuf[%d] = %+v, want key %d doc %d", name, n, i, s, want[i].Key, want[i].Doc)
				}
			}
		}
	}
}

// BenchmarkSort sorts a partition of 80,000 entries with 40-bit keys, the
// size of a band partition of the full SCALE corpus.
func BenchmarkSort(b *testing.B) {
	r := rand.New(rand.NewPCG(9, 10))
	in := make([]wire.Entry, 80000)
	for i := range in {
		in[i] = wire.Entry{Key: r.Uint64() >> 24, Doc: uint64(i)}
	}
	work := make([]wire.Entry, len(in))
	b.Run("radix", func(b *testing.B) {
		scratch := make([]wire.Entry, 0, len(in))
		for b.Loop() {
			copy(work, in)
			_, scratch = SortBuf(work, scratch)
		}
	})
	b.Run("comparison", func(b *testing.B) {
		for b.Loop() {
			copy(work, in)
			slices.SortFunc(work, func(a, b wire.Entry) int { return cmp.Or(cmp.Compare(a.Key, b.Key), cmp.Compare(a.Doc, b.Doc)) })
		}
	})
}

// BenchmarkUnique sorts and deduplicates 1,000,000 candidate pairs of a
// containment partition: 5,000 queries of 200 candidates each, in bucket
// order, a tenth of them repeated.
func BenchmarkUnique(b *testing.B) {
	r := rand.New(rand.NewPCG(13, 14))
	in := make([]wire.Pair, 0, 1000000)
	for len(in) < cap(in) {
		a := wire.DocNum(r.IntN(14), r.Int64N(100000))
		for range 200 {
			in = append(in, wire.Pair{A: a, B: wire.DocNum(r.IntN(14), r.Int64N(100000))})
		}
	}
	for i := range len(in) / 10 {
		in[i*10] = in[r.IntN(len(in))]
	}
	r.Shuffle(len(in), func(i, j int) { in[i], in[j] = in[j], in[i] })
	work := make([]wire.Pair, len(in))
	scratch := make([]wire.Pair, 0, len(in))
	for b.Loop() {
		copy(work, in)
		_, scratch = UniqueBuf(work, scratch)
	}
}
