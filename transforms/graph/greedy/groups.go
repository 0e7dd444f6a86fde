package greedy

import (
	"slices"

	"github.com/neardup/neardup/transforms/internal/extsort"
)

// groups is the exact groups of a spilled component: a union-find over the
// ranks of the documents that have an exact link, in memory (4 + 4 + 8
// bytes and two bits a document with an exact link; none for the others).
// A set's root is its lowest index, so its highest-priority member: the
// group's leader.
type groups struct {
	ranks   []uint32 // ascending
	parent  []uint32 // indices into ranks
	docs    []uint64 // the document of each rank
	removed []uint64 // bitset by index: removed beforehand
	outside []uint64 // bitset by root: a member removed beforehand
}

// buildGroups reads the ends of the exact links (sorted by rank) and the
// exact links, and joins the groups.
func buildGroups(sp *extsort.Dir, endsFile, exactFile string) (*groups, error) {
	ends, err := extsort.Open(sp, exactEndCodec, endsFile, false)
	if err != nil {
		return nil, err
	}
	defer ends.Close()
	g := &groups{}
	var x exactEnd
	for {
		ok, err := ends.Next(&x)
		if err != nil {
			return nil, err
		}
		if !ok {
			break
		}
		if n := len(g.ranks); n == 0 || g.ranks[n-1] != x.rank {
			g.parent = append(g.parent, uint32(n))
			g.ranks = append(g.ranks, x.rank)
			g.docs = append(g.docs, x.doc)
			if n%64 == 0 {
				g.removed = append(g.removed, 0)
			}
		}
		if x.removed {
			setBit(g.removed, len(g.ranks)-1)
		}
	}
	links, err := extsort.Open(sp, edgeByA, exactFile, true)
	if err != nil {
		return nil, err
	}
	defer links.Close()
	var e edge
	for {
		ok, err := links.Next(&e)
		if err != nil {
			return nil, err
		}
		if !ok {
			break
		}
		i, _ := g.slot(e.ra)
		j, _ := g.slot(e.rb)
		g.union(i, j)
	}
	g.outside = make([]uint64, len(g.removed))
	for i := range g.ranks {
		if bit(g.removed, i) {
			setBit(g.outside, int(g.find(uint32(i))))
		}
	}
	return g, nil
}

func setBit(b []uint64, i int)         { b[i/64] |= 1 << (i % 64) }
func bit(b []uint64, i int) bool       { return b[i/64]&(1<<(i%64)) != 0 }
func (g *groups) isOutside(i int) bool { return bit(g.outside, int(g.find(uint32(i)))) }

// slot returns the index of rank r, if it has an exact link.
func (g *groups) slot(r uint32) (uint32, bool) {
	i, ok := slices.BinarySearch(g.ranks, r)
	return uint32(i), ok
}

func (g *groups) find(i uint32) uint32 {
	for g.parent[i] != i {
		g.parent[i] = g.parent[g.parent[i]]
		i = g.parent[i]
	}
	return i
}

func (g *groups) union(i, j uint32) {
	a, b := g.find(i), g.find(j)
	if a == b {
		return
	}
	if b < a {
		a, b = b, a
	}
	g.parent[b] = a
}

// lead returns the rank and document of the leader of rank r, whose
// document is doc.
func (g *groups) lead(r uint32, doc uint64) (uint32, uint64) {
	i, ok := g.slot(r)
	if !ok {
		return r, doc
	}
	root := g.find(i)
	return g.ranks[root], g.docs[root]
}
