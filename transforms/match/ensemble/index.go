package ensemble

import (
	"cmp"
	"slices"
)

// Doc is one set to index and query: its MinHash signature and its number
// of distinct elements.
type Doc struct {
	Sig  []uint64
	Size int
}

// Limits bound the pairs of one bucket (the sets and queries of one key).
// A bucket of up to MaxBucket sets pairs each query with every set at least
// as large as it (in size order, ties by document number). A bigger (hot)
// bucket pairs each query with only the next Window sets in that order: the
// smallest sets that can hold it, whose containment model (Jaccard near the
// containment) is the most confident. So a bucket costs at most
// queries*max(MaxBucket, Window) pairs, whatever its size.
type Limits struct {
	MaxBucket int
	Window    int
}

// DefaultLimits pairs every query of a bucket of up to 256 sets with all
// of them, and in bigger buckets with the next 16.
var DefaultLimits = Limits{MaxBucket: 256, Window: 16}

// Stats count what Candidates did.
type Stats struct {
	IndexKeys  int64 // keys of sets
	QueryKeys  int64 // keys of queries
	Buckets    int64 // keys with a query and a set
	HotBuckets int64 // of those, with more than MaxBucket sets
	Skipped    int64 // (query, set) pairs of hot buckets left out, repeats included
	Pairs      int64 // distinct candidate pairs
}

// Pair is a candidate: Query (the smaller document, or the lower number
// for equal sizes) may be contained in Set. Both are indexes into docs.
type Pair struct{ Query, Set int32 }

// Keyer gives the shuffle keys of a document as an indexed set and as a
// query; Plan is one.
type Keyer interface {
	AppendIndexKeys(dst, sig []uint64, size int) []uint64
	AppendQueryKeys(dst, sig []uint64, size int) []uint64
}

// entry is one key of one document.
type entry struct {
	key   uint64
	doc   int32
	query bool
}

// Candidates returns the distinct candidate pairs of docs under the keys of
// p (a Plan),
// sorted, and what it counted: the documents that share a key, one as a
// query and the other as an indexed set at least as large, with hot
// buckets bounded by lim. The result depends only on the input.
func Candidates(p Keyer, docs []Doc, lim Limits) ([]Pair, Stats) {
	var st Stats
	var entries []entry
	var keys []uint64
	for i, d := range docs {
		keys = p.AppendIndexKeys(keys[:0], d.Sig, d.Size)
		st.IndexKeys += int64(len(keys))
		for _, k := range keys {
			entries = append(entries, entry{k, int32(i), false})
		}
		keys = p.AppendQueryKeys(keys[:0], d.Sig, d.Size)
		st.QueryKeys += int64(len(keys))
		for _, k := range keys {
			entries = append(entries, entry{k, int32(i), true})
		}
	}
	// By key; in a key the sets first, in (size, number) order, then the
	// queries.
	less := func(a, b int32) int {
		return cmp.Or(cmp.Compare(docs[a].Size, docs[b].Size), cmp.Compare(a, b))
	}
	slices.SortFunc(entries, func(a, b entry) int {
		if c := cmp.Compare(a.key, b.key); c != 0 {
			return c
		}
		if a.query != b.query {
			if a.query {
				return 1
			}
			return -1
		}
		return less(a.doc, b.doc)
	})
	var pairs []Pair
	for i := 0; i < len(entries); {
		j := i
		for j < len(entries) && entries[j].key == entries[i].key {
			j++
		}
		pairs = bucketPairs(pairs, entries[i:j], less, lim, &st)
		i = j
	}
	slices.SortFunc(pairs, func(a, b Pair) int {
		return cmp.Or(cmp.Compare(a.Query, b.Query), cmp.Compare(a.Set, b.Set))
	})
	pairs = slices.Compact(pairs)
	st.Pairs = int64(len(pairs))
	return pairs, st
}

// bucketPairs appends the pairs of one bucket: sets (sorted by less) then
// queries.
func bucketPairs(pairs []Pair, bucket []entry, less func(a, b int32) int, lim Limits, st *Stats) []Pair {
	n := 0
	for n < len(bucket) && !bucket[n].query {
		n++
	}
	sets, queries := bucket[:n], bucket[n:]
	if len(sets) == 0 || len(queries) == 0 {
		return pairs
	}
	st.Buckets++
	hot := len(sets) > lim.MaxBucket
	if hot {
		st.HotBuckets++
	}
	for _, q := range queries {
		// The first set after q in (size, number) order.
		from, _ := slices.BinarySearchFunc(sets, q.doc, func(e entry, d int32) int {
			if e.doc == d {
				return -1 // q itself comes before what follows it
			}
			return less(e.doc, d)
		})
		for from < len(sets) && sets[from].doc == q.doc {
			from++
		}
		to := len(sets)
		if hot && to-from > lim.Window {
			st.Skipped += int64(to - from - lim.Window)
			to = from + lim.Window
		}
		for _, s := range sets[from:to] {
			pairs = append(pairs, Pair{q.doc, s.doc})
		}
	}
	return pairs
}
