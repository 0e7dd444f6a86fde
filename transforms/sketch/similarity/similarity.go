// Package similarity measures how alike two documents are from their hashed
// features: exact Jaccard of shingle sets, the containment of one set in
// another (Containment, on the same sets) and cosine of weighted feature
// vectors. The other two measures neardup uses live with their sketches:
// simhash.Distance (Hamming distance of fingerprints) and minhash.Estimate
// (estimated Jaccard).
package similarity

import (
	"math"
	"slices"
)

// Hash is the type of a hashed feature: full 64-bit hashes, or 32-bit ones
// where half the bytes matter more than rare collisions.
type Hash interface{ ~uint32 | ~uint64 }

// Set sorts hashes in place, removes repeats and returns the shortened slice:
// the set form that Jaccard takes.
func Set[H Hash](hashes []H) []H {
	slices.Sort(hashes)
	return slices.Compact(hashes)
}

// Jaccard returns |a ∩ b| / |a ∪ b| for sorted sets without repeats (see
// Set). Two empty sets have similarity 0: an empty document is never a
// near-duplicate.
func Jaccard[H Hash](a, b []H) float64 {
	inter, union := Overlap(a, b)
	if union == 0 {
		return 0
	}
	return float64(inter) / float64(union)
}

// Overlap returns the sizes of the intersection and the union of sorted sets
// a and b.
func Overlap[H Hash](a, b []H) (inter, union int) {
	i, j := 0, 0
	for i < len(a) && j < len(b) {
		switch {
		case a[i] == b[j]:
			inter++
			i++
			j++
		case a[i] < b[j]:
			i++
		default:
			j++
		}
	}
	return inter, len(a) + len(b) - inter
}

// Feature is one dimension of a weighted feature vector.
type Feature struct {
	Hash   uint64
	Weight float64
}

// Vector is a sparse feature vector sorted by Hash with distinct hashes.
type Vector []Feature

// Counts builds the term-frequency vector of hashes (each occurrence counts
// 1). It sorts a copy of hashes; the input is not changed.
func Counts(hashes []uint64) Vector {
	s := slices.Clone(hashes)
	slices.Sort(s)
	var v Vector
	for i := 0; i < len(s); {
		j := i + 1
		for j < len(s) && s[j] == s[i] {
			j++
		}
		v = append(v, Feature{Hash: s[i], Weight: float64(j - i)})
		i = j
	}
	return v
}

// Cosine returns the cosine similarity of two vectors sorted by hash, 0 when
// either has no positive weight.
func Cosine(a, b Vector) float64 {
	var dot, na, nb float64
	i, j := 0, 0
	for i < len(a) && j < len(b) {
		switch {
		case a[i].Hash == b[j].Hash:
			dot += a[i].Weight * b[j].Weight
			i++
			j++
		case a[i].Hash < b[j].Hash:
			i++
		default:
			j++
		}
	}
	for _, f := range a {
		na += f.Weight * f.Weight
	}
	for _, f := range b {
		nb += f.Weight * f.Weight
	}
	if na == 0 || nb == 0 {
		return 0
	}
	return dot / math.Sqrt(na*nb)
}

// Sorter turns 32-bit hashes into sets (as Set) with a radix sort and a
// buffer it keeps between calls, for the hundreds of thousands of sets of
// the exact checks (BenchmarkSet32 compares it with slices.Sort). Below
// radixMin hashes it uses slices.Sort, which is faster there. The zero
// Sorter is ready to use; it is not safe for concurrent use.
type Sorter struct {
	tmp []uint32
}

// radixMin is the size from which Sorter.Set uses the radix sort.
const radixMin = 256

// Set sorts hashes in place, removes repeats and returns the shortened
// slice, like Set.
func (s *Sorter) Set(hashes []uint32) []uint32 {
	if len(hashes) < radixMin {
		slices.Sort(hashes)
		return slices.Compact(hashes)
	}
	if cap(s.tmp) < len(hashes) {
		s.tmp = make([]uint32, len(hashes))
	}
	tmp := s.tmp[:len(hashes)]
	// Least significant byte first; the four counts come from one pass.
	var count [4][256]int
	for _, v := range hashes {
		count[0][v&0xff]++
		count[1][v>>8&0xff]++
		count[2][v>>16&0xff]++
		count[3][v>>24]++
	}
	src, dst := hashes, tmp
	for d := range 4 {
		c := &count[d]
		if c[src[0]>>(8*d)&0xff] == len(src) {
			continue // every value has this byte: the pass would not move anything
		}
		sum := 0
		for i := range c {
			c[i], sum = sum, sum+c[i]
		}
		shift := 8 * d
		for _, v := range src {
			b := v >> shift & 0xff
			dst[c[b]] = v
			c[b]++
		}
		src, dst = dst, src
	}
	if &src[0] != &hashes[0] {
		copy(hashes, src)
	}
	return slices.Compact(hashes)
}
