package cluster

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"strings"
	"syscall"

	"github.com/neardup/neardup/transforms/format/output"
	"github.com/neardup/neardup/transforms/format/summary"
	"github.com/neardup/neardup/transforms/format/wire"
	"github.com/neardup/neardup/transforms/graph/components"
	"github.com/neardup/neardup/transforms/graph/greedy"
	"github.com/neardup/neardup/transforms/internal/tally"
	"github.com/neardup/neardup/transforms/internal/workfiles"
	"github.com/neardup/neardup/transforms/jobfiles"
	"github.com/neardup/neardup/transforms/jobfiles/spilled"
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
	Lines      ClusterLines
	spilled.GroupReader
}

// ClusterLines says how a component is decided and what its lines hold.
type ClusterLines struct {
	KeepLongest bool  // the longest member has the priority, else the first (Config.Keep)
	Components  bool  // one cluster a component (Config.Clusters is ClustersComponents)
	Locations   bool  // the members' locations (Config.Locations)
	DecideBytes int64 // a partition decided in memory within it, else spilled (Config.DecideBytes; 0: defaultDecideBytes)
}

// defaultDecideBytes is ClusterLines.DecideBytes when Config.DecideBytes is
// 0.
const defaultDecideBytes = 256 << 20

func (fn *ClusterFn) ProcessElement(ctx context.Context, k int64, memberChunks, linkChunks func(*[]byte) bool, emitCluster, emitRemove func(int64, []byte), emitStat func(string, int64)) error {
	part := int(k)
	defer jobstate.Busy(ctx, "Clusters", jobstate.Begin())
	emitCluster, reportLines := tally.CountShuffle(tally.ShuffleOutLines, emitCluster, emitStat)
	emitRemove, reportRemoved := tally.CountShuffle(tally.ShuffleRemoved, emitRemove, emitStat)
	w := clusterWriter{lines: wire.NewBatcher(0), removes: wire.NewBatcher(0), emitCluster: emitCluster, emitRemove: emitRemove, locations: fn.Lines.Locations}
	var err error
	if fn.Lines.Components {
		err = fn.components(part, memberChunks, &w)
	} else {
		err = fn.decide(part, memberChunks, linkChunks, &w)
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

// components writes the clusters of partition part, one a component.
func (fn *ClusterFn) components(part int, memberChunks func(*[]byte) bool, w *clusterWriter) error {
	var all []wire.Member
	err := decodeMembers(&fn.In, fn.Work, part, memberChunks, func(m wire.Member) error { all = append(all, m); return nil })
	if err != nil {
		return err
	}
	return components.Clusters(all, fn.Lines.KeepLongest, w.addComponent)
}

// decide decides the components of partition part and writes their
// clusters: in memory while its members and links fit
// fn.Lines.DecideBytes, else spilled to a temporary directory in the work
// directory (greedy.Partition), with the same lines in the same order. A
// work directory on an object store (gs://, s3://) is not a local path:
// the worker's own temporary directory holds the spill then.
func (fn *ClusterFn) decide(part int, memberChunks, linkChunks func(*[]byte) bool, w *clusterWriter) error {
	scratch := fn.Work.Dir
	if strings.Contains(scratch, "://") {
		scratch = os.TempDir()
	}
	p := greedy.NewPartition(fn.Lines.KeepLongest, fn.Lines.DecideBytes, scratch)
	defer func() {
		p.Close()
		workfiles.Count(workfiles.KindDecide, greedy.TakeSpilledBytes())
	}()
	// A spilled write that finds no room fails the decision once the rest
	// of the partition is counted, for the space it needs.
	var size greedy.SpillSize
	var full error
	add := func(err error) error {
		if noRoom(err) {
			full = err
			return nil
		}
		return err
	}
	err := decodeMembers(&fn.In, fn.Work, part, memberChunks, func(m wire.Member) error {
		size.Members++
		size.IDBytes += int64(len(m.ID))
		if full != nil {
			return nil
		}
		return add(p.AddMember(m))
	})
	if err != nil {
		return err
	}
	err = fn.In.Each(fn.Work, part, linkChunks, func(c []byte) error {
		return wire.EachMatch(c, func(l *wire.Match, _ []byte) error {
			size.Links++
			if full != nil {
				return nil
			}
			return add(p.AddLink(l))
		})
	})
	if err != nil {
		return err
	}
	if full == nil {
		if err := add(p.Decide(w.addDecided, w.spilled())); err != nil {
			return err
		}
	}
	if full != nil {
		var errno syscall.Errno
		errors.As(full, &errno)
		return jobfiles.WorkFileError("the decision spilled to disk", scratch, errno, size.Bytes())
	}
	return p.Close()
}

// noRoom reports whether err is a write's that found no room on its disk
// (or quota).
func noRoom(err error) bool {
	return errors.Is(err, syscall.ENOSPC) || errors.Is(err, syscall.EDQUOT)
}

// clusterWriter batches the cluster lines and removals of a partition.
type clusterWriter struct {
	lines, removes          *wire.Batcher
	emitCluster, emitRemove func(int64, []byte)
	locations               bool // the members' locations (Config.Locations)

	clusters, clustered, removed, components int64
	removedContainment                       int64 // of removed, for a containment match
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
				w.countMethod(links[dec[i].Link].Method)
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

// spilled is how w takes the decision of a spilled partition: the same
// lines and removals as addDecided's.
func (w *clusterWriter) spilled() greedy.ClusterOut {
	var first string
	var size int
	var cluster []wire.Member
	return greedy.ClusterOut{
		Component: func(f string, n int) error {
			w.components++
			first, size = f, n
			return nil
		},
		Cluster: func(members []greedy.ClusterMember, kept int) error {
			cluster = cluster[:0]
			for k, m := range members {
				cluster = append(cluster, wire.Member{Doc: m.Doc, ID: m.ID})
				if k != kept {
					w.remove(m.Doc)
					w.countMethod(m.Method)
				}
			}
			cl := output.SpilledClusterLine(members, kept, first, size)
			return w.add(cluster[0].Doc, cluster, &cl)
		},
		Outside: func(doc uint64) error { w.remove(doc); return nil },
	}
}

// remove adds the removal of document d.
func (w *clusterWriter) remove(d wire.Doc) {
	line := wire.Line(d)
	w.removes.Add(wire.File(d), func(c []byte) []byte { return wire.AppendLineNum(c, line) }, w.emitRemove)
	w.removed++
}

// countMethod counts a member of a cluster removed for a match of method.
func (w *clusterWriter) countMethod(method wire.Method) {
	if method == wire.Containment {
		w.removedContainment++
	}
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
		{Name: summary.StatClusters, N: w.clusters},
		{Name: summary.StatClustered, N: w.clustered},
		{Name: summary.StatRemoved, N: w.removed},
		{Name: summary.StatComponents, N: w.components},
		{Name: summary.StatRemovedContainment, N: w.removedContainment},
	}
}
