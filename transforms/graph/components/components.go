// Package components finds the connected components of a graph whose edges
// are spread over partitions, in rounds that each see one partition's edges
// at a time, so that no worker needs the whole graph:
//
//  1. alternating large-star and small-star rounds (Kiveris et al.,
//     "Connected Components in MapReduce and Beyond", SoCC 2014) contract
//     every component towards a star around its smallest node;
//  2. Settle and Resolve find the components that have become such stars:
//     their members are assigned to the centre at once;
//  3. the edges of the other components (the remainder: long paths need more
//     rounds than were run) are joined with union-find on one worker.
//
// Nodes are uint64 values; an Edge always has A < B. Each step is a plain
// function over the edges one partition received; a node's partition is
// Owner(node, p). Run chains the steps in memory; the Beam pipeline runs the
// same steps with a shuffle between each.
package components

import (
	"cmp"
	"slices"

	"github.com/neardup/neardup/transforms/format/rank"
	"github.com/neardup/neardup/transforms/format/wire"
	"github.com/neardup/neardup/transforms/graph/unionfind"
)

// Edge is an undirected edge with A < B.
type Edge = wire.Pair

// NewEdge returns the edge between a and b, smaller node first.
func NewEdge(a, b uint64) Edge {
	if a > b {
		a, b = b, a
	}
	return Edge{A: a, B: b}
}

// Assignment says that Node belongs to the component whose smallest node is
// Root.
type Assignment struct{ Node, Root uint64 }

// Owner returns the partition of node among p.
func Owner(node uint64, p int) int { return wire.Partition(node, p) }

// Arc is an edge seen from its endpoint U.
type Arc struct{ U, V uint64 }

// Arcs appends to dst an arc for every endpoint of every edge that part
// owns, sorted and without repeats, so that each owned node's neighbours
// are consecutive and in increasing order.
func Arcs(dst []Arc, edges []Edge, part, p int) []Arc {
	for _, e := range edges {
		if e.A == e.B {
			continue
		}
		if Owner(e.A, p) == part {
			dst = append(dst, Arc{e.A, e.B})
		}
		if Owner(e.B, p) == part {
			dst = append(dst, Arc{e.B, e.A})
		}
	}
	return sortArcs(dst)
}

// UpArcs appends to dst the arc (B, A) of every edge whose larger endpoint
// part owns: what SmallStar needs.
func UpArcs(dst []Arc, edges []Edge, part, p int) []Arc {
	for _, e := range edges {
		if e.A != e.B && Owner(e.B, p) == part {
			dst = append(dst, Arc{e.B, e.A})
		}
	}
	return sortArcs(dst)
}

func sortArcs(a []Arc) []Arc {
	slices.SortFunc(a, func(x, y Arc) int {
		if x.U != y.U {
			return cmp.Compare(x.U, y.U)
		}
		return cmp.Compare(x.V, y.V)
	})
	return slices.Compact(a)
}

// eachNode calls fn with every node of sorted arcs and its arcs.
func eachNode(arcs []Arc, fn func(u uint64, nbrs []Arc)) {
	for i := 0; i < len(arcs); {
		j := i + 1
		for j < len(arcs) && arcs[j].U == arcs[i].U {
			j++
		}
		fn(arcs[i].U, arcs[i:j])
		i = j
	}
}

// EdgeTargets says where an emitted edge must go next: to the partitions of
// both endpoints (Both) or of the larger one only (Up).
type EdgeTargets int

const (
	Both EdgeTargets = iota
	Up
)

// LargeStar connects every neighbour larger than a node to the smallest node
// of the node's closed neighbourhood. In: the Arcs of one partition. The
// emitted edges go to SmallStar (Up).
func LargeStar(arcs []Arc, emit func(Edge)) {
	eachNode(arcs, func(u uint64, nbrs []Arc) {
		m := min(u, nbrs[0].V)
		for _, a := range nbrs {
			if a.V > u {
				emit(Edge{A: m, B: a.V})
			}
		}
	})
}

// SmallStar connects a node and its smaller neighbours to the smallest of
// them. In: the UpArcs of one partition. The emitted edges go to LargeStar
// or Settle (Both).
func SmallStar(arcs []Arc, emit func(Edge)) {
	eachNode(arcs, func(u uint64, nbrs []Arc) {
		m := nbrs[0].V // every neighbour is smaller than u
		for _, a := range nbrs[1:] {
			emit(Edge{A: m, B: a.V})
		}
		emit(Edge{A: m, B: u})
	})
}

// Settle classifies the nodes of one partition after the last round. In: the
// Arcs of the partition. A node smaller than all its neighbours may be the
// centre of a finished star: it sends its edges as star edges (to the
// partition of the centre, A). A node with a single, smaller neighbour is a
// leaf of it and says so (leaf edge (centre, leaf), to the partition of the
// centre). Any other node sends its edges to larger neighbours to the
// remainder. Every edge is thus decided by its smaller endpoint.
func Settle(arcs []Arc, star, leaf, remainder func(Edge)) {
	eachNode(arcs, func(u uint64, nbrs []Arc) {
		switch {
		case nbrs[0].V > u:
			for _, a := range nbrs {
				star(Edge{A: u, B: a.V})
			}
		case len(nbrs) == 1:
			leaf(Edge{A: nbrs[0].V, B: u})
		default:
			for _, a := range nbrs {
				if a.V > u {
					remainder(Edge{A: u, B: a.V})
				}
			}
		}
	})
}

// Resolve finishes the stars of one partition. In: the star edges and leaf
// edges Settle sent to it, both sorted by (A, B) without repeats. A centre
// whose every neighbour is its leaf is a whole component: its members are
// assigned to it. Otherwise its edges go to the remainder.
func Resolve(stars, leaves []Edge, assign func(Assignment), remainder func(Edge)) {
	j := 0
	for i := 0; i < len(stars); {
		c := stars[i].A
		k := i
		for k < len(stars) && stars[k].A == c {
			k++
		}
		for j < len(leaves) && leaves[j].A < c {
			j++
		}
		l := j
		for l < len(leaves) && leaves[l].A == c {
			l++
		}
		if slices.Equal(stars[i:k], leaves[j:l]) {
			assign(Assignment{Node: c, Root: c})
			for _, e := range stars[i:k] {
				assign(Assignment{Node: e.B, Root: c})
			}
		} else {
			for _, e := range stars[i:k] {
				remainder(e)
			}
		}
		i, j = k, l
	}
}

// SortEdges sorts edges by (A, B) and drops repeats.
func SortEdges(e []Edge) []Edge {
	slices.SortFunc(e, func(x, y Edge) int {
		if x.A != y.A {
			return cmp.Compare(x.A, y.A)
		}
		return cmp.Compare(x.B, y.B)
	})
	return slices.Compact(e)
}

// Remainder joins the remaining edges with union-find and assigns every node
// to the smallest node of its component.
func Remainder(edges []Edge, assign func(Assignment)) {
	uf := unionfind.NewSparse()
	for _, e := range edges {
		uf.Union(e.A, e.B)
	}
	for _, comp := range uf.Components() { // sorted: comp[0] is the smallest
		for _, n := range comp {
			assign(Assignment{Node: n, Root: comp[0]})
		}
	}
}

// Stats counts what Run did.
type Stats struct {
	Rounds    int // large-star + small-star rounds run
	Settled   int // nodes assigned by Resolve
	Remainder int // edges left for union-find
}

// Run finds the components of edges with rounds of the steps above over p
// partitions, as the pipeline does, and returns every node's assignment
// sorted by node. It exists to test the steps and to measure how many
// edges a number of rounds leaves.
func Run(edges []Edge, p, rounds int) ([]Assignment, Stats) {
	var st Stats
	parts := make([][]Edge, p)
	send := func(to [][]Edge, e Edge, t EdgeTargets) {
		if t == Both {
			to[Owner(e.A, p)] = append(to[Owner(e.A, p)], e)
		}
		if ob := Owner(e.B, p); t == Up || ob != Owner(e.A, p) {
			to[ob] = append(to[ob], e)
		}
	}
	for _, e := range edges {
		if e.A != e.B {
			send(parts, NewEdge(e.A, e.B), Both)
		}
	}
	var arcs []Arc
	for range rounds {
		st.Rounds++
		next := make([][]Edge, p)
		for q := range parts {
			arcs = Arcs(arcs[:0], parts[q], q, p)
			LargeStar(arcs, func(e Edge) { send(next, e, Up) })
		}
		parts, next = next, make([][]Edge, p)
		for q := range parts {
			arcs = UpArcs(arcs[:0], parts[q], q, p)
			SmallStar(arcs, func(e Edge) { send(next, e, Both) })
		}
		parts = next
	}
	stars, leaves := make([][]Edge, p), make([][]Edge, p)
	var rest []Edge
	for q := range parts {
		arcs = Arcs(arcs[:0], parts[q], q, p)
		Settle(arcs,
			func(e Edge) { stars[Owner(e.A, p)] = append(stars[Owner(e.A, p)], e) },
			func(e Edge) { leaves[Owner(e.A, p)] = append(leaves[Owner(e.A, p)], e) },
			func(e Edge) { rest = append(rest, e) })
	}
	var out []Assignment
	for q := range stars {
		Resolve(SortEdges(stars[q]), SortEdges(leaves[q]),
			func(a Assignment) { out = append(out, a); st.Settled++ },
			func(e Edge) { rest = append(rest, e) })
	}
	rest = SortEdges(rest)
	st.Remainder = len(rest)
	Remainder(rest, func(a Assignment) { out = append(out, a) })
	slices.SortFunc(out, func(x, y Assignment) int { return cmp.Compare(x.Node, y.Node) })
	return out, st
}

// Clusters sorts members, documents with the root of their component, by
// root then document, and calls fn with each component (its members in
// document order; comp[0] is the root) and the index in comp of the member
// to keep: the largest rank (wire.Member.Rank), then with longest the
// longest, then the first.
func Clusters(members []wire.Member, longest bool, fn func(comp []wire.Member, rep int) error) error {
	slices.SortFunc(members, func(a, b wire.Member) int {
		if a.Root != b.Root {
			return cmp.Compare(a.Root, b.Root)
		}
		return cmp.Compare(a.Doc, b.Doc)
	})
	for i := 0; i < len(members); {
		j := i + 1
		for j < len(members) && members[j].Root == members[i].Root {
			j++
		}
		comp := members[i:j]
		i = j
		rep := 0
		for k := range comp {
			if c := rank.Compare(comp[k].Rank, comp[rep].Rank); c < 0 || c == 0 && longest && comp[k].Len > comp[rep].Len {
				rep = k
			}
		}
		if err := fn(comp, rep); err != nil {
			return err
		}
	}
	return nil
}
