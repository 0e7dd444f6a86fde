package candidates

import (
	"cmp"
	"slices"

	"github.com/neardup/neardup/transforms/format/wire"
)

// radixMin is the size from which the sorts below use radixSort; smaller
// inputs use pdqsort.
const radixMin = 256

// radixSort sorts es by key, stably, with a least-significant-digit radix
// sort over the key bytes that vary between elements, using tmp (which must
// have es's length) as the other buffer. It returns whichever of the two
// holds the result. Block keys are uniform hashes, so a partition of n
// entries costs two passes per varying key byte instead of the n log n
// calls of a comparison sort: 40-bit band keys take five.
func radixSort[E any](es, tmp []E, key func(*E) uint64) []E {
	var counts [8][256]int
	or, and := uint64(0), ^uint64(0)
	for i := range es {
		k := key(&es[i])
		or, and = or|k, and&k
		for d := range 8 {
			counts[d][byte(k>>(8*d))]++
		}
	}
	src, dst := es, tmp
	for d := range 8 {
		shift := 8 * uint(d)
		if byte(or>>shift) == byte(and>>shift) {
			continue // every key has the same byte here
		}
		var offs [256]int
		sum := 0
		for b, c := range counts[d] {
			offs[b] = sum
			sum += c
		}
		for i := range src {
			b := byte(key(&src[i]) >> shift)
			dst[offs[b]] = src[i]
			offs[b]++
		}
		src, dst = dst, src
	}
	return src
}

// sortRuns sorts each run of elements with equal keys by compare, which
// only breaks ties (runs are short: most keys are held by one document).
func sortRuns[E any](es []E, key func(*E) uint64, compare func(a, b E) int) {
	for i := 0; i < len(es); {
		j := i + 1
		for j < len(es) && key(&es[j]) == key(&es[i]) {
			j++
		}
		if run := es[i:j]; len(run) > 1 && !slices.IsSortedFunc(run, compare) {
			slices.SortFunc(run, compare)
		}
		i = j
	}
}

// sortByKey sorts es by key, then by compare, into es, using scratch as the
// radix sort's second buffer if it is large enough; it returns the buffer
// for reuse.
func sortByKey[E any](es, scratch []E, key func(*E) uint64, compare func(a, b E) int) []E {
	if len(es) < radixMin {
		slices.SortFunc(es, func(a, b E) int { return cmp.Or(cmp.Compare(key(&a), key(&b)), compare(a, b)) })
		return scratch
	}
	if cap(scratch) < len(es) {
		scratch = make([]E, len(es))
	}
	scratch = scratch[:len(es)]
	if out := radixSort(es, scratch, key); &out[0] != &es[0] {
		copy(es, out)
	}
	sortRuns(es, key, compare)
	return scratch[:0]
}

func entryKey(e *wire.Entry) uint64  { return e.Key }
func entryDoc(a, b wire.Entry) int   { return cmp.Compare(a.Doc, b.Doc) }
func simKey(e *wire.SimEntry) uint64 { return e.Key }
func simDoc(a, b wire.SimEntry) int  { return cmp.Compare(a.Doc, b.Doc) }
func pairA(p *wire.Pair) uint64      { return p.A }
func pairB(a, b wire.Pair) int       { return cmp.Compare(a.B, b.B) }
func pairBKey(p *wire.Pair) uint64   { return p.B }
