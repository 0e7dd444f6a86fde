package cluster

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"math"
	"os"
	"strings"
	"syscall"

	"github.com/neardup/neardup/transforms/format/output"
	"github.com/neardup/neardup/transforms/format/rank"
	"github.com/neardup/neardup/transforms/format/summary"
	"github.com/neardup/neardup/transforms/format/wire"
	"github.com/neardup/neardup/transforms/graph/components"
	"github.com/neardup/neardup/transforms/graph/external"
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
// remove (uvarint line numbers keyed by file index), with Lines.Fates the
// fates of the clustered documents (wire.OutLine chunks keyed by file
// index: see clusterWriter.fate), stats.
type ClusterFn struct {
	Work       jobfiles.WorkDir
	Partitions int // Config.CCPartitions
	Lines      ClusterLines
	spilled.GroupReader
}

// ClusterLines says how a component is decided and what its lines hold.
type ClusterLines struct {
	KeepLongest bool       // the longest member has the priority, else the first (Config.Keep)
	Keep        string     // the order's name (Config.Keep), which each line gives
	KeyField    rank.Field // the field of a field order, whose value each line gives
	Components  bool       // one cluster a component (Config.Clusters is ClustersComponents)
	Locations   bool       // the members' locations (Config.Locations)
	DecideBytes int64      // a partition decided in memory within it, else spilled (Config.DecideBytes; 0: defaultDecideBytes)
	Fates       bool       // the clustered documents' fates (Config.Fates)
}

// defaultDecideBytes is ClusterLines.DecideBytes when Config.DecideBytes is
// 0.
const defaultDecideBytes = 256 << 20

func (fn *ClusterFn) ProcessElement(ctx context.Context, k int64, memberChunks, linkChunks func(*[]byte) bool, emitCluster, emitRemove, emitFate func(int64, []byte), emitStat func(string, int64)) error {
	part := int(k)
	defer jobstate.Busy(ctx, "Clusters", jobstate.Begin())
	emitCluster, reportLines := tally.CountShuffle(tally.ShuffleOutLines, emitCluster, emitStat)
	emitRemove, reportRemoved := tally.CountShuffle(tally.ShuffleRemoved, emitRemove, emitStat)
	w := clusterWriter{lines: wire.NewBatcher(0), removes: wire.NewBatcher(0), emitCluster: emitCluster, emitRemove: emitRemove, locations: fn.Lines.Locations, order: fn.Lines}
	if fn.Lines.Fates {
		w.fates, w.emitFate = wire.NewBatcher(0), emitFate
	}
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
	if w.fates != nil {
		w.fates.Flush(emitFate)
	}
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
// directory (external.Partition), with the same lines in the same order.
// A work directory on an object store (gs://, s3://) is not a local path:
// the worker's own temporary directory holds the spill then.
func (fn *ClusterFn) decide(part int, memberChunks, linkChunks func(*[]byte) bool, w *clusterWriter) error {
	scratch := fn.Work.Dir
	if strings.Contains(scratch, "://") {
		scratch = os.TempDir()
	}
	p := external.NewPartition(fn.Lines.KeepLongest, fn.Lines.DecideBytes, scratch)
	defer func() {
		p.Close()
		workfiles.Count(workfiles.KindDecide, p.Written())
	}()
	// A spilled write that finds no room fails the decision once the rest
	// of the partition is counted, for the space it needs.
	var full error
	add := func(err error) error {
		if noRoom(err) {
			full = err
			return nil
		}
		return err
	}
	err := decodeMembers(&fn.In, fn.Work, part, memberChunks, func(m wire.Member) error { return add(p.AddMember(m)) })
	if err != nil {
		return err
	}
	err = fn.In.Each(fn.Work, part, linkChunks, func(c []byte) error {
		return wire.EachMatch(c, func(l *wire.Match, _ []byte) error { return add(p.AddLink(l)) })
	})
	if err != nil {
		return err
	}
	if full == nil {
		if err := add(p.Decide(w)); err != nil {
			return err
		}
	}
	if full != nil {
		var errno syscall.Errno
		errors.As(full, &errno)
		return jobfiles.WorkFileError("the decision spilled to disk", scratch, errno, p.SpillBytes())
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
	locations               bool         // the members' locations (Config.Locations)
	order                   ClusterLines // the order the lines name
	docs                    []wire.Doc
	fates                   *wire.Batcher // the members' fates (ClusterLines.Fates), else nil
	emitFate                func(int64, []byte)

	clusters, clustered, removed, components int64
	removedContainment                       int64 // of removed, for a containment match
}

// addComponent adds the line of component comp as one cluster, whose member
// rep is kept, and the removal of its other members.
func (w *clusterWriter) addComponent(comp []wire.Member, rep int) error {
	w.components++
	cl := output.ClusterLine{Cluster: comp[0].ID, Size: len(comp), Representative: comp[rep].ID, Members: make([]string, len(comp))}
	w.name(&cl, comp[rep].Len, comp[rep].Rank)
	w.docs = w.docs[:0]
	for k, m := range comp {
		cl.Members[k] = m.ID
		w.docs = append(w.docs, m.Doc)
		f := output.Fate{Fate: output.FateKept, Cluster: cl.Cluster}
		if k != rep {
			w.remove(m.Doc)
			f = output.Fate{Fate: output.FateRemoved, Kept: cl.Representative, Cluster: cl.Cluster}
		}
		if err := w.fate(m.Doc, 0, &f); err != nil {
			return err
		}
	}
	return w.add(w.docs, &cl)
}

// Component, Cluster and Outside take the decision of a partition
// (external.Out): each cluster's line, with the match that removes each
// member but the kept one, and the removals.
//
// A member removed beforehand (an audit's document with an indexed
// duplicate) is removed by the audit, not here; a member removed with it,
// its exact duplicate, is removed here (Outside), in no cluster.
func (w *clusterWriter) Component() error { w.components++; return nil }

func (w *clusterWriter) Cluster(c *external.Cluster) error {
	w.docs = w.docs[:0]
	for k, m := range c.Members {
		w.docs = append(w.docs, m.Doc)
		if k != c.Kept {
			w.remove(m.Doc)
			w.countMethod(m.Method)
		}
	}
	cl := c.Line()
	w.name(&cl, c.KeptLen, c.KeptRank)
	removed := cl.Removed // in the order of the members but the kept one
	for k, m := range c.Members {
		f := output.Fate{Fate: output.FateKept, Cluster: cl.Cluster}
		if k != c.Kept {
			f = output.Fate{Fate: output.FateRemoved, Kept: cl.Representative, Cluster: cl.Cluster, Match: &removed[0]}
			removed = removed[1:]
		}
		if err := w.fate(m.Doc, 0, &f); err != nil {
			return err
		}
	}
	return w.add(w.docs, &cl)
}

// name sets the order of cl and its kept member's key, of length n and
// rank r, in it.
func (w *clusterWriter) name(cl *output.ClusterLine, n int64, r rank.Key) {
	cl.Keep = w.order.Keep
	switch {
	case w.order.KeyField.Name != "":
		if v, ok := w.order.KeyField.Value(r); ok {
			cl.KeptKey = v
		}
	case w.order.KeepLongest:
		cl.KeptKey = n
	}
}

// Outside removes doc; its fate, an empty text with via, goes to the file of
// via, where an audit names the indexed document via duplicates
// (WriteAudit).
func (w *clusterWriter) Outside(doc, via uint64) error {
	w.remove(doc)
	return w.fate(doc, via, nil)
}

// fate adds, with ClusterLines.Fates, the fate f of document d as a
// wire.OutLine (K1 d, K2 0, Text f's JSON) keyed by d's file; f nil: the
// fate of a member removed for none, an OutLine with K2 via and no text
// keyed by via's file (d's if via is none), for WriteAudit to complete.
func (w *clusterWriter) fate(d wire.Doc, via uint64, f *output.Fate) error {
	if w.fates == nil {
		return nil
	}
	var text []byte
	key := wire.File(d)
	if f != nil {
		var err error
		if text, err = json.Marshal(f); err != nil {
			return err
		}
	} else if via != math.MaxUint64 {
		key = wire.File(via)
	}
	w.fates.Add(key, func(c []byte) []byte { return wire.AppendLine(c, d, via, text) }, w.emitFate)
	return nil
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

// add adds cluster line cl of the documents docs (in the order of
// cl.Members), with their locations if w.locations, keyed by its first
// document.
func (w *clusterWriter) add(docs []wire.Doc, cl *output.ClusterLine) error {
	if w.locations {
		cl.Locations = make([]output.Location, len(docs))
		for k, d := range docs {
			cl.Locations[k] = output.LocationOf(wire.File(d), wire.Line(d))
		}
	}
	first := docs[0]
	text, err := json.Marshal(cl)
	if err != nil {
		return err
	}
	w.lines.Add(wire.File(first), func(c []byte) []byte { return wire.AppendLine(c, first, 0, text) }, w.emitCluster)
	w.clusters++
	w.clustered += int64(len(docs))
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
