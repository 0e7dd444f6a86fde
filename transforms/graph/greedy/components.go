package greedy

import (
	"cmp"
	"fmt"
	"slices"

	"github.com/neardup/neardup/transforms/format/wire"
)

// DecideComponents sorts members by root then document and links by the
// root of their first document, and calls fn with each component's
// members, their nodes (the order of members: which are removed
// beforehand), the links of their matches (Decision.Link indexes them;
// a containment match's link is directed by its Inside: Link.Inside)
// and the decision of every member (greedy.Decide). A link of a document
// with itself marks it removed beforehand (OutsideMarks).
func DecideComponents(members []wire.Member, links []wire.Match, longest bool, fn func(comp []wire.Member, nodes []Node, links []wire.Match, dec []Decision) error) error {
	slices.SortFunc(members, func(a, b wire.Member) int {
		if c := cmp.Compare(a.Root, b.Root); c != 0 {
			return c
		}
		return cmp.Compare(a.Doc, b.Doc)
	})
	at := make(map[wire.Doc]int32, len(members)) // member index in members
	for i, m := range members {
		at[m.Doc] = int32(i)
	}
	// The links sorted by their documents' indices in members.
	type linkAt struct{ a, b, k int32 }
	order := make([]linkAt, len(links))
	for k, l := range links {
		a, okA := at[l.A]
		b, okB := at[l.B]
		if !okA || !okB {
			return fmt.Errorf("a match of documents %d and %d, not both members", l.A, l.B)
		}
		order[k] = linkAt{a, b, int32(k)}
	}
	slices.SortFunc(order, func(x, y linkAt) int {
		if c := cmp.Compare(x.a, y.a); c != 0 {
			return c
		}
		if c := cmp.Compare(x.b, y.b); c != 0 {
			return c
		}
		return cmp.Compare(x.k, y.k)
	})
	sorted := make([]wire.Match, len(links))
	for i, o := range order {
		sorted[i] = links[o.k]
	}
	links = sorted
	var nodes []Node
	var glinks []Link
	for i, k := 0, 0; i < len(members); {
		j := i + 1
		for j < len(members) && members[j].Root == members[i].Root {
			j++
		}
		comp := members[i:j]
		// The component's links: those whose first document is a member
		// (links are sorted by their first document's index).
		n := k
		for n < len(order) && order[n].a < int32(j) {
			n++
		}
		nodes, glinks = nodes[:0], glinks[:0]
		for _, m := range comp {
			nodes = append(nodes, Node{Doc: m.Doc, Len: m.Len})
		}
		for x, l := range links[k:n] {
			a, b := order[k+x].a-int32(i), order[k+x].b-int32(i)
			if a < 0 || b < 0 || int(b) >= len(comp) {
				return fmt.Errorf("a match of documents %d and %d across components", l.A, l.B)
			}
			if a == b {
				nodes[a].Removed = true // OutsideMarks
				// A near link of a node with itself, which Decide ignores,
				// keeps glinks[k] the link of links[k]: Decision.Link
				// indexes both.
				glinks = append(glinks, Link{A: a, B: b})
				continue
			}
			glinks = append(glinks, Link{A: a, B: b, Exact: l.Method == wire.Exact, Inside: l.Inside})
		}
		if err := fn(comp, nodes, links[k:n], Decide(nodes, glinks, longest)); err != nil {
			return err
		}
		i, k = j, n
	}
	return nil
}

// Clusters calls fn with each node of dec kept that others are removed
// for, and those nodes with it in the order of dec, in the order of the
// kept nodes. It returns the nodes removed for no node of dec: removed
// beforehand (nodes[i].Removed), or with an exact duplicate that was.
func Clusters(dec []Decision, nodes []Node, fn func(kept int32, members []int32) error) (outside []int32, err error) {
	removedFor := make(map[int32][]int32)
	for i, d := range dec {
		switch {
		case d.Kept:
		case d.For < 0:
			outside = append(outside, int32(i))
		default:
			removedFor[d.For] = append(removedFor[d.For], int32(i))
		}
	}
	kept := make([]int32, 0, len(removedFor))
	for k := range removedFor {
		kept = append(kept, k)
	}
	slices.Sort(kept)
	for _, k := range kept {
		members := append(removedFor[k], k)
		slices.Sort(members)
		if err := fn(k, members); err != nil {
			return outside, err
		}
	}
	return outside, nil
}
