// Package greedy decides which documents of one component of the
// near-duplicate graph are kept and which are removed, so that removals
// cannot chain: a document is removed only for a verified pair with a
// document that is kept.
//
// The documents are decided one by one in priority order (Before): a
// document is kept unless a higher-priority document that is kept is its
// near-duplicate through a link that may remove it. Without containment
// links the kept documents are the lexicographically first maximal
// independent set of the graph under that order: no two kept documents
// form a pair, and every removed document has a pair with a kept document
// of higher priority, the highest-priority one of which it is removed for.
//
// A containment link (Link.Inside set: the smaller document's shingles
// mostly inside the larger's) is directed: it may remove its contained
// end, for its container, and never the container. It counts, as any link,
// when the contained end comes after the container in priority order (the
// container kept, the contained end is removed for it); when the contained
// end comes first (possible with --keep first, or a container with fewer
// bytes) it removes nothing, and both may be kept unless other links
// decide otherwise: the one pair two kept documents may form. With --keep
// longest the container is almost always the longer document, so first.
//
// Exact duplicates (Link.Exact) have the same normalized text, so each is a
// near-duplicate of every partner of the others: Decide contracts each group
// of exact duplicates to its highest-priority member, decides the contracted
// graph, and removes the other members for that member when it is kept, or
// for the document that removed it (through it: Decision.Via) when it is
// not. That is the order's greedy set on the graph in which every exact
// group is a clique sharing its members' partners. A containment link
// between members of two groups acts between their leaders with the same
// rule: the contained member's group can be removed for the container's
// group only, when the container's leader comes first.
//
// In: the component's documents and its verified pairs. Out: a Decision per
// document. Memory: a few words per document and per pair.
//
// Stream decides a component too large for that: in, its documents
// (Node) and its pairs by document number (AddLink), in any order; out,
// a DocDecision per document, in document order, the same as Decide's.
// Memory: while the component's in-memory cost fits the budget it is
// decided by Decide; beyond, its records go to sorted runs in a temporary
// directory (external sorts, each buffering a quarter of the budget), and
// what the spilled pass holds besides is one bit per document (the kept
// set, N/8 bytes: 125 KB for 1,000,000 documents) and, for the documents
// with an exact link only, a union-find over their ranks (16 bytes each).
//
// Partition decides a partition of components (DecideComponents' input)
// for the clusters stage: in memory by DecideComponents while its members
// and links fit a budget, beyond by ClusterSpill, which streams them to
// disk, decides them with one Stream (the greedy decision of disjoint
// components is each one's) and sorts the decisions by component, kept
// document and document, to give the same clusters in the same order
// (ClusterOut) while holding one cluster at a time.
package greedy

import (
	"cmp"
	"slices"

	"github.com/neardup/neardup/transforms/format/wire"
)

// Node is a document: its number (wire.Doc) and its text's length.
// Removed marks a document removed beforehand for a document outside the
// graph that is kept (an audit's indexed document): it is not kept, and it
// keeps nothing from being kept.
type Node struct {
	Doc     uint64
	Len     int64
	Removed bool
}

// Link is a verified pair between Nodes A and B (indices into the nodes
// passed to Decide); Exact marks a pair of exact duplicates. Inside, for a
// containment link (wire.Containment), is its contained end (wire.SideA or
// wire.SideB), which it alone may remove, for the other; wire.NoSide for an
// undirected link. An exact link ignores it.
type Link struct {
	A, B   int32
	Exact  bool
	Inside wire.Side
}

// Decision is what Decide says of one node.
type Decision struct {
	Kept bool
	// For the removed: the kept node it is removed for; Link, the index of
	// the verified pair that removes it, between a member of the node's
	// exact group and a member of For's (the same texts as the node's and
	// For's); Via, the member of the node's exact group that For removed
	// first, when it is not the node itself (the node follows it). All
	// three are -1 for a kept node; Via is -1 when the node is removed for
	// its own pair or for its exact group's kept member.
	For, Via, Link int32
}

// Before reports whether a has a higher priority than b: with longest the
// longer text first, ties and otherwise in document order.
func Before(a, b Node, longest bool) bool { return compare(a, b, longest) < 0 }

func compare(a, b Node, longest bool) int {
	if longest && a.Len != b.Len {
		return cmp.Compare(b.Len, a.Len)
	}
	return cmp.Compare(a.Doc, b.Doc)
}

// Decide decides every node of nodes under links (see the package doc) and
// returns the decisions in the order of nodes. Links between a node and
// itself, or within one exact group once contracted, are ignored. A node
// removed beforehand (Node.Removed) has For -1; so has every member of its
// exact group, with Via the group's highest-priority member (or -1 for a
// member removed beforehand itself).
func Decide(nodes []Node, links []Link, longest bool) []Decision {
	dec := make([]Decision, len(nodes))
	lead := leaders(nodes, links, longest)
	order := ranked(nodes, lead, longest)
	ups, start := upLinks(links, lead, order)
	outside := make([]bool, len(nodes)) // per leader: a member of its group is Removed
	for i, nd := range nodes {
		if nd.Removed {
			outside[lead[i]] = true
		}
	}
	// Greedy in rank order: a leader is removed for its first (highest
	// priority) kept higher neighbour, else kept, unless its group is
	// removed beforehand.
	kept := make([]bool, len(order))
	for r, i := range order {
		d := Decision{Kept: !outside[i], For: -1, Via: -1, Link: -1}
		if d.Kept {
			for _, u := range ups[start[r]:start[r+1]] {
				if kept[u.hi] {
					d = Decision{For: order[u.hi], Via: -1, Link: u.link}
					break
				}
			}
		}
		kept[r] = d.Kept
		dec[i] = d
	}
	follow(dec, nodes, links, lead, outside)
	return dec
}

// ranked returns the leaders (lead[i] == i) in priority order.
func ranked(nodes []Node, lead []int32, longest bool) []int32 {
	order := make([]int32, 0, len(nodes))
	for i := range nodes {
		if lead[i] == int32(i) {
			order = append(order, int32(i))
		}
	}
	slices.SortFunc(order, func(x, y int32) int { return compare(nodes[x], nodes[y], longest) })
	return order
}

// upLinks returns, for each leader, its near links to higher-priority
// leaders that may remove it (counts), sorted by (its rank, the other's
// rank, link): the links of the leader of rank r are
// ups[start[r]:start[r+1]], in priority order of the other end.
func upLinks(links []Link, lead, order []int32) (ups []upLink, start []int32) {
	rank := make([]int32, len(lead))
	for r, i := range order {
		rank[i] = int32(r)
	}
	for k, l := range links {
		a, b := lead[l.A], lead[l.B]
		if l.Exact || a == b {
			continue
		}
		ra, rb := rank[a], rank[b]
		if !counts(l.Inside, ra, rb) {
			continue
		}
		ups = append(ups, upLink{lo: max(ra, rb), hi: min(ra, rb), link: int32(k)})
	}
	slices.SortFunc(ups, func(x, y upLink) int {
		if c := cmp.Compare(x.lo, y.lo); c != 0 {
			return c
		}
		if c := cmp.Compare(x.hi, y.hi); c != 0 {
			return c
		}
		return cmp.Compare(x.link, y.link)
	})
	start = make([]int32, len(order)+1)
	for _, u := range ups {
		start[u.lo+1]++
	}
	for r := range order {
		start[r+1] += start[r]
	}
	return ups, start
}

// follow decides the members of exact groups other than their leaders:
// each follows its leader (see Decide).
func follow(dec []Decision, nodes []Node, links []Link, lead []int32, outside []bool) {
	exactLink := make([]int32, len(nodes)) // a member's exact link (to any member of its group)
	for i := range exactLink {
		exactLink[i] = -1
	}
	for k, l := range links {
		if l.Exact {
			for _, x := range [2]int32{l.A, l.B} {
				if lead[x] != x && exactLink[x] < 0 {
					exactLink[x] = int32(k)
				}
			}
		}
	}
	for i := range nodes {
		l := lead[i]
		switch {
		case l == int32(i):
		case nodes[i].Removed:
			dec[i] = Decision{For: -1, Via: -1, Link: -1}
		case outside[l]:
			dec[i] = Decision{For: -1, Via: l, Link: -1}
		case dec[l].Kept:
			dec[i] = Decision{For: l, Via: -1, Link: exactLink[i]}
		default:
			dec[i] = Decision{For: dec[l].For, Via: l, Link: dec[l].Link}
		}
	}
}

// counts reports whether a near link between leaders of ranks ra (its A's)
// and rb (its B's) may remove its lower-priority end: an undirected link
// always; a containment link (inside SideA or SideB) only when that end is
// its contained end, the container coming first.
func counts[R int32 | uint32](inside wire.Side, ra, rb R) bool {
	switch inside {
	case wire.SideA:
		return ra > rb
	case wire.SideB:
		return rb > ra
	}
	return true
}

// upLink is a near link seen from its lower-priority end: the ranks of
// both ends and the link's index.
type upLink struct{ lo, hi, link int32 }

// leaders returns, for every node, the highest-priority member of its exact
// group (itself when it has no exact link).
func leaders(nodes []Node, links []Link, longest bool) []int32 {
	parent := make([]int32, len(nodes))
	for i := range parent {
		parent[i] = int32(i)
	}
	var find func(x int32) int32
	find = func(x int32) int32 {
		for parent[x] != x {
			parent[x] = parent[parent[x]]
			x = parent[x]
		}
		return x
	}
	for _, l := range links {
		if !l.Exact {
			continue
		}
		a, b := find(l.A), find(l.B)
		if a == b {
			continue
		}
		if compare(nodes[b], nodes[a], longest) < 0 {
			a, b = b, a
		}
		parent[b] = a // the root is the group's highest-priority member
	}
	lead := make([]int32, len(nodes))
	for i := range lead {
		lead[i] = find(int32(i))
	}
	return lead
}
