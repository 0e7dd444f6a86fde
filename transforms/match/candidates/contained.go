package candidates

import (
	"cmp"
	"math"
	"slices"

	"github.com/neardup/neardup/transforms/format/wire"
)

// SizeRule is the size-ratio rule of the containment buckets (one per key
// and band id); ensemble.Levels is one.
type SizeRule interface {
	// Pairs reports whether documents of q <= u elements that share band
	// are a candidate pair: the smaller may be contained in the larger.
	Pairs(band uint8, q, u int) bool
	// SizeRange returns the sizes u >= q for which Pairs(band, q, u)
	// holds: exactly lo <= u <= hi (none when lo > hi; hi may be
	// math.MaxInt).
	SizeRange(band uint8, q int) (lo, hi int)
}

// SortSizedBuf orders containment entries by key, band, size and
// document, and drops exact repeats, with scratch as its working buffer
// like SortBuf (radix sort on the key, then each run of a key by the
// rest). It returns the buffer, empty, for reuse.
func SortSizedBuf(entries, scratch []wire.SizedEntry) (sorted, buf []wire.SizedEntry) {
	scratch = sortByKey(entries, scratch, sizedKey, sizedOrder)
	return slices.Compact(entries), scratch
}

// AppendContained appends to dst the containment candidate pairs of
// sorted (SortSizedBuf). A bucket is the entries of one (Key, Band); in
// it, in (size, document) order, each entry is the query and pairs with
// every later entry whose size rule.SizeRange(band, its size) admits
// (rule.Pairs holds). A bucket of more than lim.MaxBucket entries (hot)
// pairs each query with only its next lim.Window admitted entries, the
// smallest that can contain it, and counts the others in st.Skipped.
// Pairs have A < B (document numbers), as Append's, so UniqueBuf merges
// them with the Jaccard candidates; the same pair may come from several
// buckets. Buckets cost a binary search per query beyond their pairs.
func AppendContained(dst []wire.Pair, sorted []wire.SizedEntry, rule SizeRule, lim Limits, st *Stats) []wire.Pair {
	for i := 0; i < len(sorted); {
		j := i + 1
		for j < len(sorted) && sorted[j].Key == sorted[i].Key && sorted[j].Band == sorted[i].Band {
			j++
		}
		bucket := sorted[i:j]
		i = j
		if len(bucket) < 2 {
			continue
		}
		st.Buckets++
		window := len(bucket)
		if len(bucket) > lim.MaxBucket {
			st.HotBuckets++
			window = lim.Window
		}
		dst = containedPairs(dst, bucket, rule, window, st)
	}
	return dst
}

// containedPairs appends the pairs of one bucket, each query with at most
// window of the entries its size range admits.
func containedPairs(dst []wire.Pair, bucket []wire.SizedEntry, rule SizeRule, window int, st *Stats) []wire.Pair {
	band := bucket[0].Band
	for a := range bucket {
		q := &bucket[a]
		lo, hi := rule.SizeRange(band, int(q.Size))
		if lo > hi {
			continue
		}
		rest := bucket[a+1:]
		from := firstSize(rest, lo)
		to := len(rest)
		if hi < math.MaxUint32 {
			to = from + firstSize(rest[from:], hi+1)
		}
		if to-from > window {
			st.Skipped += int64(to - from - window)
			to = from + window
		}
		for _, b := range rest[from:to] {
			dst = append(dst, wire.Pair{A: min(q.Doc, b.Doc), B: max(q.Doc, b.Doc)})
		}
		st.Pairs += int64(to - from)
	}
	return dst
}

// firstSize returns the index of the first entry of es (sorted by size)
// of at least size elements, or len(es).
func firstSize(es []wire.SizedEntry, size int) int {
	lo, hi := 0, len(es)
	for lo < hi {
		m := int(uint(lo+hi) >> 1)
		if int(es[m].Size) < size {
			lo = m + 1
		} else {
			hi = m
		}
	}
	return lo
}

func sizedKey(e *wire.SizedEntry) uint64 { return e.Key }
func sizedOrder(a, b wire.SizedEntry) int {
	return cmp.Or(cmp.Compare(a.Band, b.Band), cmp.Compare(a.Size, b.Size), cmp.Compare(a.Doc, b.Doc))
}
