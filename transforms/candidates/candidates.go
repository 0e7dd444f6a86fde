// Package candidates turns one partition of the blocking shuffle, (block
// key, document) entries, into candidate pairs of documents that share a key.
//
// A bucket (the documents of one key) of n documents holds n(n-1)/2 pairs; a
// key shared by 100k documents would cost 5*10^9 comparisons. So buckets of
// up to MaxBucket documents give all their pairs, and bigger buckets pair each
// document only with the next Window documents in document order, which
// still connects every document of the bucket to its neighbours. The pairs
// left out are counted and reported.
package candidates

import (
	"slices"

	"github.com/neardup/neardup/transforms/wire"
)

// Limits bound the pairs of one bucket.
type Limits struct {
	MaxBucket int // buckets up to this size give all pairs
	Window    int // bigger buckets: each document with its next Window
}

// DefaultLimits compares all pairs of buckets up to 256 documents and each
// document with its 32 successors in bigger ones.
var DefaultLimits = Limits{MaxBucket: 256, Window: 32}

// Sort orders entries by key, then document, and drops repeats.
func Sort(entries []wire.Entry) []wire.Entry {
	slices.SortFunc(entries, func(a, b wire.Entry) int {
		if a.Key != b.Key {
			if a.Key < b.Key {
				return -1
			}
			return 1
		}
		if a.Doc != b.Doc {
			if a.Doc < b.Doc {
				return -1
			}
			return 1
		}
		return 0
	})
	return slices.Compact(entries)
}

// Stats counts what Append did.
type Stats struct {
	Buckets    int64 // keys with two or more documents
	HotBuckets int64 // of those, larger than MaxBucket
	Pairs      int64 // pairs appended
	Skipped    int64 // pairs of hot buckets left out
}

// Append appends the candidate pairs of entries, which must be sorted by
// Sort, to dst. Pairs have A < B; the same pair may come from several keys.
func Append(dst []wire.Pair, entries []wire.Entry, lim Limits, st *Stats) []wire.Pair {
	for i := 0; i < len(entries); {
		j := i + 1
		for j < len(entries) && entries[j].Key == entries[i].Key {
			j++
		}
		bucket := entries[i:j]
		i = j
		n := len(bucket)
		if n < 2 {
			continue
		}
		st.Buckets++
		w := n - 1
		if n > lim.MaxBucket {
			st.HotBuckets++
			w = min(lim.Window, n-1)
			all := int64(n) * int64(n-1) / 2
			kept := int64(n-1)*int64(w) - int64(w)*int64(w-1)/2
			st.Skipped += all - kept
		}
		for a := 0; a < n; a++ {
			for b := a + 1; b <= a+w && b < n; b++ {
				dst = append(dst, wire.Pair{A: bucket[a].Doc, B: bucket[b].Doc})
				st.Pairs++
			}
		}
	}
	return dst
}

// Unique sorts pairs and drops repeats.
func Unique(pairs []wire.Pair) []wire.Pair {
	slices.SortFunc(pairs, func(x, y wire.Pair) int {
		if x.A != y.A {
			if x.A < y.A {
				return -1
			}
			return 1
		}
		if x.B != y.B {
			if x.B < y.B {
				return -1
			}
			return 1
		}
		return 0
	})
	return slices.Compact(pairs)
}
