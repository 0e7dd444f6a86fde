package transforms

import (
	"cmp"
	"context"
	"encoding/json"
	"fmt"
	"maps"
	"slices"

	"github.com/neardup/neardup/transforms/format/output"
	"github.com/neardup/neardup/transforms/format/wire"
	"github.com/neardup/neardup/transforms/graph/components"
	"github.com/neardup/neardup/transforms/graph/greedy"
	"github.com/neardup/neardup/transforms/internal/tally"
)

// ClusterRule says which documents the matches remove and what a cluster
// of the outputs is.
type ClusterRule int

const (
	// ClustersKept removes a document only for a match with a document that
	// is kept: documents are decided in --keep order, and a document is kept
	// unless a kept document before it is its match. A cluster is a kept
	// document and the documents removed for it.
	ClustersKept ClusterRule = iota
	// ClustersComponents keeps one document of each connected component of
	// the matches, which is one cluster: removals chain (A ~ B ~ C removes C
	// for A, although they may not be alike).
	ClustersComponents
)

// ParseClusterRule parses the name of a ClusterRule: kept or components.
func ParseClusterRule(name string) (ClusterRule, error) {
	switch name {
	case "kept":
		return ClustersKept, nil
	case "components":
		return ClustersComponents, nil
	}
	return 0, fmt.Errorf("clusters %q: want kept or components", name)
}

func (r ClusterRule) String() string {
	if r == ClustersComponents {
		return "components"
	}
	return "kept"
}

// clusterFn decides the components of one partition of roots and writes
// their clusters.
//
// In: (partition, wire.Member chunks with their roots, links of the
// components). Out: cluster lines (wire.OutLine chunks keyed by the file of
// the cluster's first document, sorted by that document), the documents to
// remove (uvarint line numbers keyed by file index), stats.
type clusterFn struct {
	Work       workDir
	Partitions int // Config.CCPartitions
	Lines      clusterLines
	groupReader
}

// clusterLines says how a component is decided and what its lines hold.
type clusterLines struct {
	KeepLongest bool // the longest member has the priority, else the first (Config.Keep)
	Components  bool // one cluster a component (Config.Clusters is ClustersComponents)
	Locations   bool // the members' locations (Config.Locations)
}

func (c Config) clusterLines() clusterLines {
	return clusterLines{KeepLongest: c.Keep == "longest", Components: c.Clusters == ClustersComponents, Locations: c.Locations}
}

func (fn *clusterFn) ProcessElement(ctx context.Context, part int, memberChunks, linkChunks func(*[]byte) bool, emitCluster, emitRemove func(int, []byte), emitStat func(string, int64)) error {
	defer busy(ctx, "Clusters", begin())
	emitCluster, reportLines := tally.CountShuffle(output.ShuffleOutLines, emitCluster, emitStat)
	emitRemove, reportRemoved := tally.CountShuffle(output.ShuffleRemoved, emitRemove, emitStat)
	var all []wire.Member
	err := decodeMembers(&fn.in, fn.Work, part, memberChunks, func(m wire.Member) { all = append(all, m) })
	if err != nil {
		return err
	}
	var links []wire.Match
	err = fn.in.each(fn.Work, part, linkChunks, func(c []byte) error {
		return wire.EachMatch(c, func(l *wire.Match, _ []byte) error { links = append(links, *l); return nil })
	})
	if err != nil {
		return err
	}
	w := clusterWriter{lines: wire.NewBatcher(0), removes: wire.NewBatcher(0), emitCluster: emitCluster, emitRemove: emitRemove, locations: fn.Lines.Locations}
	if fn.Lines.Components {
		err = components.Clusters(all, fn.Lines.KeepLongest, w.addComponent)
	} else {
		err = decideComponents(all, links, fn.Lines.KeepLongest, w.addDecided)
	}
	if err != nil {
		return fmt.Errorf("clusters of components partition %d: %w", part, err)
	}
	w.lines.Flush(emitCluster)
	w.removes.Flush(emitRemove)
	w.stats().Emit(emitStat)
	reportLines()
	reportRemoved()
	return nil
}

// decideComponents sorts members by root then document and links by the
// root of their first document, and calls fn with each component's
// members, their nodes (the order of members: which are removed
// beforehand), the links of their matches (greedy.Link.Link indexes them)
// and the decision of every member (greedy.Decide). A link of a document
// with itself marks it removed beforehand (OutsideMarks).
func decideComponents(members []wire.Member, links []wire.Match, longest bool, fn func(comp []wire.Member, nodes []greedy.Node, links []wire.Match, dec []greedy.Decision) error) error {
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
			nodes = append(nodes, greedy.Node{Doc: m.Doc, Len: m.Len})
		}
		for x, l := range links[k:n] {
			a, b := order[k+x].a-int32(i), order[k+x].b-int32(i)
			if a < 0 || b < 0 || int(b) >= len(comp) {
				return fmt.Errorf("a match of documents %d and %d across components", l.A, l.B)
			}
			if a == b {
				nodes[a].Removed = true // OutsideMarks
				continue
			}
			glinks = append(glinks, greedy.Link{A: a, B: b, Exact: l.Method == wire.Exact})
		}
		if err := fn(comp, nodes, links[k:n], greedy.Decide(nodes, glinks, longest)); err != nil {
			return err
		}
		i, k = j, n
	}
	return nil
}

// clusterWriter batches the cluster lines and removals of a partition.
type clusterWriter struct {
	lines, removes          *wire.Batcher
	emitCluster, emitRemove func(int, []byte)
	locations               bool // the members' locations (Config.Locations)

	clusters, clustered, removed, components int64
}

// addComponent adds the line of component comp as one cluster, whose member
// rep is kept, and the removal of its other members.
func (w *clusterWriter) addComponent(comp []wire.Member, rep int) error {
	w.components++
	cl := output.ClusterLine{Cluster: comp[0].ID, Size: len(comp), Representative: comp[rep].ID, Members: make([]string, len(comp))}
	for k, m := range comp {
		cl.Members[k] = m.ID
		if k != rep {
			w.remove(m.Doc)
		}
	}
	return w.add(comp[0].Doc, comp, &cl)
}

// addDecided adds the clusters of the decided component comp: one for each
// kept member that others are removed for, with those members, in document
// order, and the match that removes each.
//
// A member removed beforehand (an audit's document with an indexed
// duplicate) is removed by the audit, not here; a member removed with it,
// its exact duplicate, is removed here, in no cluster.
func (w *clusterWriter) addDecided(comp []wire.Member, nodes []greedy.Node, links []wire.Match, dec []greedy.Decision) error {
	w.components++
	removedFor := make(map[int32][]int32) // kept member -> the members removed for it
	for i, d := range dec {
		switch {
		case d.Kept || nodes[i].Removed:
		case d.For < 0:
			w.remove(comp[i].Doc)
		default:
			removedFor[d.For] = append(removedFor[d.For], int32(i))
			w.remove(comp[i].Doc)
		}
	}
	var cluster []wire.Member
	for _, kept := range slices.Sorted(maps.Keys(removedFor)) {
		idx := append(removedFor[kept], kept)
		slices.Sort(idx)
		cluster = cluster[:0]
		for _, i := range idx {
			cluster = append(cluster, comp[i])
		}
		cl := output.ClusterLine{Cluster: comp[idx[0]].ID, Size: len(idx), Representative: comp[kept].ID,
			Members: make([]string, len(idx)), Removed: make([]output.RemovedMember, 0, len(idx)-1),
			Component: comp[0].ID, ComponentSize: len(comp)}
		for k, i := range idx {
			cl.Members[k] = comp[i].ID
			if i == kept {
				continue
			}
			d, l := dec[i], links[dec[i].Link]
			r := output.RemovedMember{ID: comp[i].ID, Method: l.Method.String(), Jaccard: output.RoundJaccard(l.Jaccard), Hamming: int(l.Hamming)}
			if d.Via >= 0 {
				r.Via = comp[d.Via].ID
			}
			cl.Removed = append(cl.Removed, r)
		}
		if err := w.add(comp[idx[0]].Doc, cluster, &cl); err != nil {
			return err
		}
	}
	return nil
}

// remove adds the removal of document d.
func (w *clusterWriter) remove(d wire.Doc) {
	line := wire.Line(d)
	w.removes.Add(wire.File(d), func(c []byte) []byte { return wire.AppendLineNum(c, line) }, w.emitRemove)
	w.removed++
}

// add adds cluster line cl of members (in the order of cl.Members), with
// their locations if w.locations, keyed by its first document.
func (w *clusterWriter) add(first wire.Doc, members []wire.Member, cl *output.ClusterLine) error {
	if w.locations {
		cl.Locations = make([]output.Location, len(members))
		for k, m := range members {
			cl.Locations[k] = output.LocationOf(wire.File(m.Doc), wire.Line(m.Doc))
		}
	}
	text, err := json.Marshal(cl)
	if err != nil {
		return err
	}
	w.lines.Add(wire.File(first), func(c []byte) []byte { return wire.AppendLine(c, first, 0, text) }, w.emitCluster)
	w.clusters++
	w.clustered += int64(len(members))
	return nil
}

// stats is what the partition's clusters counted.
func (w *clusterWriter) stats() tally.Counts {
	return tally.Counts{
		{Name: output.StatClusters, N: w.clusters},
		{Name: output.StatClustered, N: w.clustered},
		{Name: output.StatRemoved, N: w.removed},
		{Name: output.StatComponents, N: w.components},
	}
}
