// Package containjoin finds, exactly, every pair of documents where the one
// with fewer shingles lies inside the other at or above a containment
// threshold (similarity.Containment of its shingle set in the other's): the
// ground truth of containment, as dev_pairs.tsv is the ground truth of
// Jaccard.
//
// Join is a prefix-filtering join over an inverted index of shingles.
// Shingles are put in one global order, rarest first (fewest documents,
// then hash). A document A whose containment in B reaches t shares at least
// m = MinOverlap(|A|, t) shingles with B, so it shares one of the first
// |A| - m + 1 shingles of A in that order: only those are looked up. The
// documents are put in order from the largest down (ties in input order),
// and a lookup reads only the documents before it, so it finds only
// documents at least as large, and a pair is met once, from its smaller
// document. Every candidate is then counted exactly: the prefix shingles it
// was found by, plus A's other shingles searched in its set (until the
// count cannot reach m). The postings of a shingle in thousands of
// documents are thus read only by the documents with at most |A| - m
// rarer shingles (tiny ones, or ones made mostly of common text), and
// nothing that could reach t is skipped.
//
// In: documents as ids and shingle sets (similarity.Set). Out: the pairs,
// sorted, each with both sizes and the intersection, from which both
// containments and the Jaccard follow (see Pair). WriteTSV and ReadTSV
// write and read them as a truth file.
package containjoin

import (
	"cmp"
	"fmt"
	"slices"
	"sort"
)

// Doc is one document: its id and its sorted set of shingle hashes without
// repeats. A document without shingles is in no pair.
type Doc struct {
	ID  string
	Set []uint64
}

// Pair is a document A contained in document B: A has no more shingles
// than B (with as many, A's id is the smaller), and they share Inter.
type Pair struct {
	A, B         string
	SizeA, SizeB int // distinct shingles
	Inter        int // shared shingles
}

// ContainA is the containment of A in B, Inter / SizeA.
func (p Pair) ContainA() float64 { return float64(p.Inter) / float64(p.SizeA) }

// ContainB is the containment of B in A, Inter / SizeB.
func (p Pair) ContainB() float64 { return float64(p.Inter) / float64(p.SizeB) }

// Union is the number of distinct shingles of A and B together.
func (p Pair) Union() int { return p.SizeA + p.SizeB - p.Inter }

// Jaccard is Inter / Union.
func (p Pair) Jaccard() float64 { return float64(p.Inter) / float64(p.Union()) }

// MinOverlap returns the fewest shared shingles k with which a set of size
// shingles reaches containment t: the smallest k with float64(k) /
// float64(size) >= t, the comparison similarity.Containment's value takes.
// It is size + 1 when no k does (t above 1).
func MinOverlap(size int, t float64) int {
	k := max(0, int(t*float64(size))-1)
	for k <= size && float64(k)/float64(size) < t {
		k++
	}
	return k
}

// Join returns every pair of docs whose smaller document (fewer shingles)
// has containment at least t in the larger, sorted by A then B. t must be
// in (0, 1]. Two documents with the same id are an error, as the pairs
// could not tell them apart, and so is a set that is not sorted without
// repeats.
func Join(docs []Doc, t float64) ([]Pair, error) {
	if !(t > 0 && t <= 1) {
		return nil, fmt.Errorf("containjoin: threshold %v out of (0, 1]", t)
	}
	if err := checkDocs(docs); err != nil {
		return nil, err
	}
	ranks, distinct := rankSets(docs)
	order := make([]int, 0, len(docs))
	for i := range docs {
		if len(ranks[i]) > 0 {
			order = append(order, i)
		}
	}
	// Largest first; equal sizes in input order.
	slices.SortStableFunc(order, func(i, j int) int { return cmp.Compare(len(ranks[j]), len(ranks[i])) })
	j := newJoiner(docs, ranks, order, distinct, t)
	for p := range order {
		j.probe(p)
	}
	slices.SortFunc(j.out, func(x, y Pair) int { return cmp.Or(cmp.Compare(x.A, y.A), cmp.Compare(x.B, y.B)) })
	return j.out, nil
}

// checkDocs fails on the first id that two documents share, or the first
// set that is not sorted without repeats.
func checkDocs(docs []Doc) error {
	seen := make(map[string]int, len(docs))
	for i, d := range docs {
		if first, ok := seen[d.ID]; ok {
			return fmt.Errorf("containjoin: documents %d and %d have the same id %q", first, i, d.ID)
		}
		seen[d.ID] = i
		for k := 1; k < len(d.Set); k++ {
			if d.Set[k] <= d.Set[k-1] {
				return fmt.Errorf("containjoin: document %q: set not sorted without repeats at %d", d.ID, k)
			}
		}
	}
	return nil
}

// rankSets returns each document's set as ranks in the global order (rarest
// shingle first, then by hash), each sorted: the shingles of a document in
// that order. distinct is the number of ranks.
func rankSets(docs []Doc) (ranks [][]uint32, distinct int) {
	total := 0
	for _, d := range docs {
		total += len(d.Set)
	}
	all := make([]uint64, 0, total)
	for _, d := range docs {
		all = append(all, d.Set...)
	}
	slices.Sort(all)
	// distinct hashes (sorted) and their document frequencies
	var hashes []uint64
	var df []int32
	for i := 0; i < len(all); {
		k := i + 1
		for k < len(all) && all[k] == all[i] {
			k++
		}
		hashes, df = append(hashes, all[i]), append(df, int32(k-i))
		i = k
	}
	all = nil
	byOrder := make([]int32, len(hashes)) // indexes into hashes, rarest first
	for i := range byOrder {
		byOrder[i] = int32(i)
	}
	slices.SortFunc(byOrder, func(x, y int32) int { return cmp.Or(cmp.Compare(df[x], df[y]), cmp.Compare(x, y)) })
	rank := make([]uint32, len(hashes))
	for r, i := range byOrder {
		rank[i] = uint32(r)
	}
	out := make([][]uint32, len(docs))
	for d, doc := range docs {
		rs := make([]uint32, len(doc.Set))
		for i, h := range doc.Set {
			rs[i] = rank[sort.Search(len(hashes), func(k int) bool { return hashes[k] >= h })]
		}
		slices.Sort(rs)
		out[d] = rs
	}
	return out, len(hashes)
}

// joiner holds the inverted index and the overlap counts of one lookup.
// Documents are known by their position in the indexing order (largest
// first), and the postings of a shingle list positions in increasing order,
// so the documents indexed before position p are a prefix of each list: the
// index is built whole once, and a lookup reads only that prefix.
type joiner struct {
	docs    []Doc
	ranks   [][]uint32 // by document
	order   []int      // document at each position
	t       float64
	offsets []int32 // postings of rank r: entries[offsets[r]:offsets[r+1]]
	entries []int32 // positions
	count   []int32 // prefix shingles shared with the document looked up, by position
	touched []int32 // positions whose count is not 0
	out     []Pair
}

func newJoiner(docs []Doc, ranks [][]uint32, order []int, distinct int, t float64) *joiner {
	j := &joiner{docs: docs, ranks: ranks, order: order, t: t, offsets: make([]int32, distinct+1), count: make([]int32, len(order))}
	for _, d := range order {
		for _, r := range ranks[d] {
			j.offsets[r+1]++
		}
	}
	for r := range distinct {
		j.offsets[r+1] += j.offsets[r]
	}
	j.entries = make([]int32, j.offsets[distinct])
	next := slices.Clone(j.offsets[:distinct])
	for p, d := range order {
		for _, r := range ranks[d] {
			j.entries[next[r]] = int32(p)
			next[r]++
		}
	}
	return j
}

// probe finds the pairs of the document at position p with the documents
// before it.
func (j *joiner) probe(p int) {
	a := j.order[p]
	ra := j.ranks[a]
	m := MinOverlap(len(ra), j.t)
	if m > len(ra) {
		return
	}
	prefix := len(ra) - m + 1
	for _, r := range ra[:prefix] {
		for _, q := range j.entries[j.offsets[r]:j.offsets[r+1]] {
			if int(q) >= p {
				break
			}
			if j.count[q] == 0 {
				j.touched = append(j.touched, q)
			}
			j.count[q]++
		}
	}
	for _, q := range j.touched {
		b := j.order[q]
		c := int(j.count[q])
		inter := c + overlapIn(ra[prefix:], j.ranks[b], m-c)
		j.count[q] = 0
		if inter >= m {
			j.out = append(j.out, j.pair(a, b, inter))
		}
	}
	j.touched = j.touched[:0]
}

// pair is the Pair of documents x and y sharing inter shingles, the one
// with fewer shingles (or, as many, the smaller id) as A.
func (j *joiner) pair(x, y, inter int) Pair {
	dx, dy := &j.docs[x], &j.docs[y]
	if len(dy.Set) < len(dx.Set) || (len(dy.Set) == len(dx.Set) && dy.ID < dx.ID) {
		dx, dy = dy, dx
	}
	return Pair{A: dx.ID, B: dy.ID, SizeA: len(dx.Set), SizeB: len(dy.Set), Inter: inter}
}

// overlapIn counts the members of sorted small found in sorted large, by
// binary search from where the last one was found. It stops early, with a
// count below need, once need can no longer be reached.
func overlapIn(small, large []uint32, need int) int {
	n := 0
	for k, v := range small {
		if n+len(small)-k < need {
			break
		}
		i, found := slices.BinarySearch(large, v)
		if found {
			n++
			i++
		}
		large = large[i:]
		if len(large) == 0 {
			break
		}
	}
	return n
}
