// Package candidates turns one partition of the blocking shuffle, (block
// key, document) entries, into candidate pairs of documents that share a key.
//
// A bucket (the documents of one key) of n documents holds n(n-1)/2 pairs; a
// key shared by 100k documents would cost 5*10^9 comparisons. So buckets of
// up to MaxBucket documents give all their pairs, and a bigger (hot) bucket
// pairs every document with the bucket's first document (a star, which
// connects the whole bucket when its members are near-duplicates of each
// other, the usual reason for a hot key) and with its next Window documents
// in document order (which still connects runs of members that are not like
// the first). The pairs left out are counted and reported.
package candidates

import (
	"math/bits"
	"slices"

	"github.com/neardup/neardup/transforms/format/wire"
)

// Limits bound the pairs of one bucket.
type Limits struct {
	MaxBucket int // buckets up to this size give all pairs
	Window    int // bigger buckets: each document with its next Window
}

// DefaultLimits compares all pairs of buckets up to 256 documents, and in
// bigger ones each document with the first and its 2 successors.
var DefaultLimits = Limits{MaxBucket: 256, Window: 2}

// hotPairs calls pair for the pairs compared in a hot bucket of n members
// (indexes) and returns how many of all n(n-1)/2 it left out.
func hotPairs(n, window int, pair func(a, b int)) (skipped int64) {
	var kept int64
	for b := 1; b < n; b++ { // the star around member 0
		pair(0, b)
		kept++
	}
	for a := 1; a < n; a++ {
		for b := a + 1; b <= a+window && b < n; b++ {
			pair(a, b)
			kept++
		}
	}
	return int64(n)*int64(n-1)/2 - kept
}

// Sort orders entries by key, then document, and drops repeats.
func Sort(entries []wire.Entry) []wire.Entry {
	sorted, _ := SortBuf(entries, nil)
	return sorted
}

// SortBuf is Sort with scratch as its working buffer (radix sort, for
// partitions of radixMin entries or more), allocated if it is too small,
// and returned empty for reuse.
func SortBuf(entries, scratch []wire.Entry) (sorted, buf []wire.Entry) {
	scratch = sortByKey(entries, scratch, entryKey, entryDoc)
	return slices.Compact(entries), scratch
}

// SortSim orders SimHash entries by key, then document, and drops repeats.
func SortSim(entries []wire.SimEntry) []wire.SimEntry {
	sorted, _ := SortSimBuf(entries, nil)
	return sorted
}

// SortSimBuf is SortSim with a working buffer, like SortBuf.
func SortSimBuf(entries, scratch []wire.SimEntry) (sorted, buf []wire.SimEntry) {
	scratch = sortByKey(entries, scratch, simKey, simDoc)
	return slices.CompactFunc(entries, func(a, b wire.SimEntry) bool { return a.Key == b.Key && a.Doc == b.Doc }), scratch
}

// Stats counts what Append did.
type Stats struct {
	Buckets    int64 // keys with two or more documents
	HotBuckets int64 // of those, larger than MaxBucket
	Pairs      int64 // pairs appended
	Skipped    int64 // pairs of hot buckets left out
	Far        int64 // SimHash pairs tested and farther than k bits
}

// eachBucket calls pair for every pair of entries to compare in each bucket
// of sorted entries (all pairs, or a hot bucket's star and window), counting
// buckets and skipped pairs in st.
func eachBucket[E any](entries []E, key func(*E) uint64, lim Limits, st *Stats, pair func(a, b *E)) {
	for i := 0; i < len(entries); {
		j := i + 1
		for j < len(entries) && key(&entries[j]) == key(&entries[i]) {
			j++
		}
		bucket := entries[i:j]
		i = j
		n := len(bucket)
		if n < 2 {
			continue
		}
		st.Buckets++
		if n > lim.MaxBucket {
			st.HotBuckets++
			st.Skipped += hotPairs(n, lim.Window, func(a, b int) { pair(&bucket[a], &bucket[b]) })
			continue
		}
		for a := 0; a < n; a++ {
			for b := a + 1; b < n; b++ {
				pair(&bucket[a], &bucket[b])
			}
		}
	}
}

// Append appends the candidate pairs of entries, which must be sorted by
// Sort, to dst. Pairs have A < B; the same pair may come from several keys.
func Append(dst []wire.Pair, entries []wire.Entry, lim Limits, st *Stats) []wire.Pair {
	eachBucket(entries, func(e *wire.Entry) uint64 { return e.Key }, lim, st, func(a, b *wire.Entry) {
		dst = append(dst, wire.Pair{A: a.Doc, B: b.Doc})
		st.Pairs++
	})
	return dst
}

// AppendNear is Append for SimHash table buckets: it appends only the pairs
// whose fingerprints are within k bits, so that documents that share a table
// key by chance cost a comparison here and nothing later. Pairs tested and
// dropped count in st.Far.
func AppendNear(dst []wire.Pair, entries []wire.SimEntry, k int, lim Limits, st *Stats) []wire.Pair {
	eachBucket(entries, func(e *wire.SimEntry) uint64 { return e.Key }, lim, st, func(a, b *wire.SimEntry) {
		if bits.OnesCount64(a.FP^b.FP) > k {
			st.Far++
			return
		}
		dst = append(dst, wire.Pair{A: a.Doc, B: b.Doc})
		st.Pairs++
	})
	return dst
}

// Unique sorts pairs and drops repeats.
func Unique(pairs []wire.Pair) []wire.Pair {
	unique, _ := UniqueBuf(pairs, nil)
	return unique
}

// UniqueBuf is Unique with a working buffer, like SortBuf: from radixMin
// pairs it radix-sorts by second document, then, the sort being stable, by
// first: the runs of one first document (a containment query's hundreds
// of candidates) need no comparison sort.
func UniqueBuf(pairs, scratch []wire.Pair) (unique, buf []wire.Pair) {
	if len(pairs) < radixMin {
		scratch = sortByKey(pairs, scratch, pairA, pairB)
		return slices.Compact(pairs), scratch
	}
	if cap(scratch) < len(pairs) {
		scratch = make([]wire.Pair, len(pairs))
	}
	scratch = scratch[:len(pairs)]
	byB := radixSort(pairs, scratch, pairBKey)
	other := scratch
	if &byB[0] == &scratch[0] {
		other = pairs
	}
	if out := radixSort(byB, other, pairA); &out[0] != &pairs[0] {
		copy(pairs, out)
	}
	return slices.Compact(pairs), scratch[:0]
}
