package unionfind

import (
	"cmp"
	"slices"
)

// Sparse is a disjoint-set forest over arbitrary uint64 ids. An id not yet
// passed to Union is in a set of its own. Ids are numbered densely in order
// of first appearance, so memory grows with the number of distinct ids seen.
// The zero value is an empty forest. As with UF, no method may run
// concurrently with another.
type Sparse struct {
	dense map[uint64]int32
	ids   []uint64 // dense number -> id
	min   []uint64 // smallest id of the set, meaningful at roots only
	uf    UF
}

// NewSparse returns an empty forest.
func NewSparse() *Sparse { return &Sparse{} }

// Len returns the number of distinct ids passed to Union.
func (s *Sparse) Len() int { return len(s.ids) }

func (s *Sparse) number(id uint64) int32 {
	if x, ok := s.dense[id]; ok {
		return x
	}
	if s.dense == nil {
		s.dense = make(map[uint64]int32)
	}
	x := s.uf.Add()
	s.dense[id] = x
	s.ids = append(s.ids, id)
	s.min = append(s.min, id)
	return x
}

// Union merges the sets containing a and b and reports whether they were
// different.
func (s *Sparse) Union(a, b uint64) bool {
	x, y := s.uf.Find(s.number(a)), s.uf.Find(s.number(b))
	if !s.uf.Union(x, y) {
		return false
	}
	root := s.uf.Find(x)
	s.min[root] = min(s.min[x], s.min[y])
	return true
}

// Find returns the smallest id in the set containing a, which is a itself
// if a was never passed to Union. The result depends only on the sets, not
// on the order of the unions that formed them.
func (s *Sparse) Find(a uint64) uint64 {
	x, ok := s.dense[a]
	if !ok {
		return a
	}
	return s.min[s.uf.Find(x)]
}

// Components returns every set with at least two members, each as a sorted
// slice, the sets ordered by their smallest member. The result depends only
// on the sets, not on the order of the unions that formed them.
func (s *Sparse) Components() [][]uint64 {
	n := int32(len(s.ids))
	// Lay the members of each set out contiguously in one backing array.
	start := make([]int32, n) // at roots: offset of the set in all
	total, sets := 0, 0
	for x := range n {
		if s.uf.parent[x] == x && s.uf.size[x] >= 2 {
			start[x] = int32(total)
			total += int(s.uf.size[x])
			sets++
		}
	}
	out := make([][]uint64, 0, sets)
	all := make([]uint64, total)
	fill := make([]int32, n) // at roots: members placed so far
	for x := range n {
		r := s.uf.Find(x)
		if s.uf.size[r] < 2 {
			continue
		}
		all[start[r]+fill[r]] = s.ids[x]
		fill[r]++
	}
	for x := range n {
		if s.uf.parent[x] == x && s.uf.size[x] >= 2 {
			set := all[start[x] : start[x]+s.uf.size[x] : start[x]+s.uf.size[x]]
			slices.Sort(set)
			out = append(out, set)
		}
	}
	slices.SortFunc(out, func(a, b []uint64) int { return cmp.Compare(a[0], b[0]) })
	return out
}
