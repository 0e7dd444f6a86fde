package external

import (
	"cmp"
	"fmt"
	"slices"

	"github.com/neardup/neardup/transforms/format/output"
	"github.com/neardup/neardup/transforms/format/rank"
	"github.com/neardup/neardup/transforms/format/wire"
	"github.com/neardup/neardup/transforms/graph/greedy"
)

// Out receives the decision of a partition, component by component in the
// order of their roots: Component for each; then Cluster with each of its
// clusters (a kept member and the members removed for it, when there are
// any) in the order of their kept documents; then Outside with each member
// removed for none that was not removed beforehand (an exact duplicate of
// a member that was), in document order, with via, the highest-priority
// member of its exact group, which it follows (greedy.Decision.Via; none,
// the largest uint64, when it is that member). A Cluster is valid during
// the call only.
type Out interface {
	Component() error
	Cluster(c *Cluster) error
	Outside(doc, via uint64) error
}

// Cluster is a cluster of a decided partition: its members in document
// order, Kept the index of the kept one, the kept one's length and rank
// (what decided it: greedy.Compare), and its component's first document's
// ID and size.
type Cluster struct {
	Members       []Member
	Kept          int
	KeptLen       int64
	KeptRank      rank.Key
	Component     string
	ComponentSize int
}

// Member is a member of a Cluster: its document and ID and, when it is
// removed, the match that removes it and the ID of its Via ("" for none:
// greedy.Decision.Via).
type Member struct {
	Doc         uint64
	ID          string
	Method      wire.Method
	Jaccard     float32
	Containment float32 // the match's wire.Match.Containment
	Estimated   bool    // the match's wire.Match.Estimated
	Hamming     uint8
	Via         string
}

// Line is the cluster's line, without locations: the one function that
// makes the cluster lines of both the in-memory and the spilled decision.
func (c *Cluster) Line() output.ClusterLine {
	cl := output.ClusterLine{Cluster: c.Members[0].ID, Size: len(c.Members), Representative: c.Members[c.Kept].ID,
		Members: make([]string, len(c.Members)), Removed: make([]output.RemovedMember, 0, len(c.Members)-1),
		Component: c.Component, ComponentSize: c.ComponentSize}
	for k, m := range c.Members {
		cl.Members[k] = m.ID
		if k == c.Kept {
			continue
		}
		r := output.RemovedMember{ID: m.ID, Method: m.Method.String(), Jaccard: output.RoundJaccard(m.Jaccard), Estimated: m.Estimated, Hamming: int(m.Hamming), Via: m.Via}
		if m.Method == wire.Containment {
			r.Containment = output.RoundJaccard(m.Containment)
		}
		cl.Removed = append(cl.Removed, r)
	}
	return cl
}

// decideInMemory sorts members by root then document and links by the
// root of their first document, decides each component (greedy.Decide)
// and gives it to out. A link of a document with itself marks it removed
// beforehand (greedy.Node.Removed); a containment match's link may remove
// its contained end only (greedy.Link.Removes).
func decideInMemory(members []wire.Member, links []wire.Match, longest bool, out Out) error {
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
			return fmt.Errorf("external: a match of documents %d and %d, not both members", l.A, l.B)
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
	var cl Cluster
	var nodes []greedy.Node
	var glinks []greedy.Link
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
			nodes = append(nodes, greedy.Node{Doc: m.Doc, Rank: m.Rank, Len: m.Len})
		}
		for x, l := range links[k:n] {
			a, b := order[k+x].a-int32(i), order[k+x].b-int32(i)
			if a < 0 || b < 0 || int(b) >= len(comp) {
				return fmt.Errorf("external: a match of documents %d and %d across components", l.A, l.B)
			}
			if a == b {
				nodes[a].Removed = true
				// A near link of a node with itself, which Decide ignores,
				// keeps glinks[k] the link of links[k]: Decision.Link
				// indexes both.
				glinks = append(glinks, greedy.Link{A: a, B: b})
				continue
			}
			glinks = append(glinks, greedy.Link{A: a, B: b, Exact: l.Method == wire.Exact, Removes: removes(l.Inside)})
		}
		if err := emitDecided(comp, nodes, links[k:n], greedy.Decide(nodes, glinks, longest), &cl, out); err != nil {
			return err
		}
		i, k = j, n
	}
	return nil
}

// emitDecided gives out the decision dec of component comp, whose nodes
// are nodes and links links (greedy.Decision.Link indexes them), in cl.
func emitDecided(comp []wire.Member, nodes []greedy.Node, links []wire.Match, dec []greedy.Decision, cl *Cluster, out Out) error {
	if err := out.Component(); err != nil {
		return err
	}
	cl.Component, cl.ComponentSize = comp[0].ID, len(comp)
	outside, err := greedy.Clusters(dec, func(kept int32, idx []int32) error {
		cl.Members = cl.Members[:0]
		for k, i := range idx {
			m := Member{Doc: comp[i].Doc, ID: comp[i].ID}
			if d := dec[i]; i == kept {
				cl.Kept, cl.KeptLen, cl.KeptRank = k, comp[i].Len, comp[i].Rank
			} else {
				l := &links[d.Link]
				m.Method, m.Jaccard, m.Containment, m.Estimated, m.Hamming = l.Method, l.Jaccard, l.Containment, l.Estimated, l.Hamming
				if d.Via >= 0 {
					m.Via = comp[d.Via].ID
				}
			}
			cl.Members = append(cl.Members, m)
		}
		return out.Cluster(cl)
	})
	for _, i := range outside {
		if err == nil && !nodes[i].Removed {
			via := none
			if v := dec[i].Via; v >= 0 {
				via = comp[v].Doc
			}
			err = out.Outside(comp[i].Doc, via)
		}
	}
	return err
}
