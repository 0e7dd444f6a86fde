// Package greedy decides which documents of one component of the
// near-duplicate graph are kept and which are removed, so that removals
// cannot chain: a document is removed only for a verified pair with a
// document that is kept.
//
// The documents are decided one by one in priority order (Compare): a
// document is kept unless a higher-priority document that is kept is its
// near-duplicate through a link that may remove it. Without containment
// links the kept documents are the lexicographically first maximal
// independent set of the graph under that order: no two kept documents
// form a pair, and every removed document has a pair with a kept document
// of higher priority, the highest-priority one of which it is removed for.
//
// A containment link (Link.Removes OnlyA or OnlyB: the smaller document's
// shingles mostly inside the larger's) is directed: it may remove its
// contained end, for its container, and never the container. It counts, as any link,
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
// Package graph/external decides the components of a partition with
// Decide while they fit a memory budget, and beyond it on disk, with the
// same decisions.
package greedy

import (
	"cmp"
	"slices"

	"github.com/neardup/neardup/transforms/format/rank"
)

// Node is a document: its number, its rank (a keep order's key for it, from
// a field's value: package rank; the zero Key without one) and its text's
// length. Removed marks a document removed beforehand for a document outside the
// graph that is kept (an audit's indexed document): it is not kept, and it
// keeps nothing from being kept.
type Node struct {
	Doc     uint64
	Rank    rank.Key
	Len     int64
	Removed bool
}

// Link is a verified pair between Nodes A and B (indices into the nodes
// passed to Decide); Exact marks a pair of exact duplicates. Removes is the
// end it may remove, for the other: Either for an undirected link, OnlyA or
// OnlyB for a containment link's contained end. An exact link ignores it.
type Link struct {
	A, B    int32
	Exact   bool
	Removes End
}

// End names the ends of a Link that it may remove.
type End uint8

const (
	Either End = iota // an undirected link
	OnlyA             // a containment link whose A is inside its B
	OnlyB             // a containment link whose B is inside its A
)

// Counts reports whether a near link whose ends have the ranks ra (its A's)
// and rb (its B's) in priority order may remove its lower-priority end: an
// undirected link always; a containment link only when that end is its
// contained end, the container coming first.
func (e End) Counts(ra, rb uint32) bool {
	switch e {
	case OnlyA:
		return ra > rb
	case OnlyB:
		return rb > ra
	}
	return true
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

// Compare orders a before b when a has the higher priority: the larger
// rank first (rank.Compare); then with longest the longer text first;
// ties and otherwise in document order.
func Compare(a, b Node, longest bool) int {
	if c := rank.Compare(a.Rank, b.Rank); c != 0 {
		return c
	}
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
	slices.SortFunc(order, func(x, y int32) int { return Compare(nodes[x], nodes[y], longest) })
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
		if !l.Removes.Counts(uint32(ra), uint32(rb)) {
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
		if Compare(nodes[b], nodes[a], longest) < 0 {
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

// Clusters calls fn with each node of dec kept that others are removed
// for, and those nodes with it in the order of dec (members, valid during
// the call), in the order of the kept nodes. It returns the nodes removed
// for no node of dec: removed beforehand (Node.Removed), or with an exact
// duplicate that was.
func Clusters(dec []Decision, fn func(kept int32, members []int32) error) (outside []int32, err error) {
	group := func(i int32) int32 { // the kept node of i's cluster
		if dec[i].Kept {
			return i
		}
		return dec[i].For
	}
	idx := make([]int32, 0, len(dec))
	for i, d := range dec {
		if d.Kept || d.For >= 0 {
			idx = append(idx, int32(i))
		} else {
			outside = append(outside, int32(i))
		}
	}
	slices.SortFunc(idx, func(a, b int32) int {
		if c := cmp.Compare(group(a), group(b)); c != 0 {
			return c
		}
		return cmp.Compare(a, b)
	})
	for i, j := 0, 0; i < len(idx); i = j {
		for j = i + 1; j < len(idx) && group(idx[j]) == group(idx[i]); j++ {
		}
		if j-i == 1 {
			continue // a kept node alone
		}
		if err := fn(group(idx[i]), idx[i:j]); err != nil {
			return outside, err
		}
	}
	return outside, nil
}
