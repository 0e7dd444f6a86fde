// Package unionfind maintains disjoint sets: UF over dense element numbers
// 0..n-1, and Sparse over arbitrary uint64 ids.
//
// Both use union by size with path halving, so any sequence of m operations
// on n elements takes O(m α(n)) time. The package does not depend on Beam.
package unionfind

import "math"

// UF is a disjoint-set forest over the elements 0, 1, ..., Len()-1, each
// starting in a set of its own. The zero value is an empty forest, ready for
// Add. It holds at most math.MaxInt32 elements; methods panic on elements
// out of range. Find shortens paths as it goes, so no method may run
// concurrently with another.
type UF struct {
	parent []int32
	size   []int32 // meaningful at roots only
}

// New returns a forest of n singleton sets. It panics if n is negative or
// above math.MaxInt32.
func New(n int) *UF {
	if n < 0 || n > math.MaxInt32 {
		panic("unionfind: New: size out of range")
	}
	u := &UF{parent: make([]int32, n), size: make([]int32, n)}
	for i := range u.parent {
		u.parent[i] = int32(i)
		u.size[i] = 1
	}
	return u
}

// Len returns the number of elements.
func (u *UF) Len() int { return len(u.parent) }

// Add adds a new element in a set of its own and returns its number, the
// previous Len().
func (u *UF) Add() int32 {
	if len(u.parent) == math.MaxInt32 {
		panic("unionfind: Add: too many elements")
	}
	x := int32(len(u.parent))
	u.parent = append(u.parent, x)
	u.size = append(u.size, 1)
	return x
}

// Find returns the representative of the set containing x. The
// representative changes only when its set is merged with another.
func (u *UF) Find(x int32) int32 {
	p := u.parent
	for p[x] != x {
		p[x] = p[p[x]] // path halving
		x = p[x]
	}
	return x
}

// Union merges the sets containing a and b and reports whether they were
// different. The root of the larger set becomes the root of the merged one;
// on equal sizes, the root of a's set.
func (u *UF) Union(a, b int32) bool {
	a, b = u.Find(a), u.Find(b)
	if a == b {
		return false
	}
	if u.size[a] < u.size[b] {
		a, b = b, a
	}
	u.parent[b] = a
	u.size[a] += u.size[b]
	return true
}

// Size returns the number of elements in the set containing x.
func (u *UF) Size(x int32) int32 { return u.size[u.Find(x)] }
