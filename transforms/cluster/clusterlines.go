package cluster

import (
	"context"
	"encoding/json"
	"fmt"

	"github.com/neardup/neardup/transforms/format/output"
	"github.com/neardup/neardup/transforms/format/wire"
	"github.com/neardup/neardup/transforms/graph/components"
	"github.com/neardup/neardup/transforms/graph/greedy"
	"github.com/neardup/neardup/transforms/internal/tally"
	"github.com/neardup/neardup/transforms/job"
	"github.com/neardup/neardup/transforms/jobfiles"
	"github.com/neardup/neardup/transforms/jobstate"
)

// ClusterFn decides the components of one partition of roots and writes
// their clusters.
//
// In: (partition, wire.Member chunks with their roots, links of the
// components). Out: cluster lines (wire.OutLine chunks keyed by the file of
// the cluster's first document, sorted by that document), the documents to
// remove (uvarint line numbers keyed by file index), stats.
type ClusterFn struct {
	Work       jobfiles.WorkDir
	Partitions int // Config.CCPartitions
	Lines      clusterLines
	jobfiles.GroupReader
}

// clusterLines says how a component is decided and what its lines hold.
type clusterLines struct {
	KeepLongest bool // the longest member has the priority, else the first (Config.Keep)
	Components  bool // one cluster a component (Config.Clusters is ClustersComponents)
	Locations   bool // the members' locations (Config.Locations)
}

func ClusterLinesOf(c job.Config) clusterLines {
	return clusterLines{KeepLongest: c.Keep == job.KeepLongest, Components: c.Clusters == job.ClustersComponents, Locations: c.Locations}
}

func (fn *ClusterFn) ProcessElement(ctx context.Context, part int, memberChunks, linkChunks func(*[]byte) bool, emitCluster, emitRemove func(int, []byte), emitStat func(string, int64)) error {
	defer jobstate.Busy(ctx, "Clusters", jobstate.Begin())
	emitCluster, reportLines := tally.CountShuffle(output.ShuffleOutLines, emitCluster, emitStat)
	emitRemove, reportRemoved := tally.CountShuffle(output.ShuffleRemoved, emitRemove, emitStat)
	var all []wire.Member
	err := decodeMembers(&fn.In, fn.Work, part, memberChunks, func(m wire.Member) { all = append(all, m) })
	if err != nil {
		return err
	}
	var links []wire.Match
	err = fn.In.Each(fn.Work, part, linkChunks, func(c []byte) error {
		return wire.EachMatch(c, func(l *wire.Match, _ []byte) error { links = append(links, *l); return nil })
	})
	if err != nil {
		return err
	}
	w := clusterWriter{lines: wire.NewBatcher(0), removes: wire.NewBatcher(0), emitCluster: emitCluster, emitRemove: emitRemove, locations: fn.Lines.Locations}
	if fn.Lines.Components {
		err = components.Clusters(all, fn.Lines.KeepLongest, w.addComponent)
	} else {
		err = greedy.DecideComponents(all, links, fn.Lines.KeepLongest, w.addDecided)
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
	var cluster []wire.Member
	outside, err := greedy.Clusters(dec, nodes, func(kept int32, members []int32) error {
		cluster = cluster[:0]
		for _, i := range members {
			cluster = append(cluster, comp[i])
			if i != kept {
				w.remove(comp[i].Doc)
			}
		}
		cl := output.DecidedClusterLine(comp, members, kept, links, dec)
		return w.add(cluster[0].Doc, cluster, &cl)
	})
	for _, i := range outside {
		if !nodes[i].Removed {
			w.remove(comp[i].Doc)
		}
	}
	return err
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
