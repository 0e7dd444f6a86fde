package cluster

import (
	"context"
	"fmt"

	"github.com/apache/beam/sdks/v2/go/pkg/beam"
	"github.com/apache/beam/sdks/v2/go/pkg/beam/register"

	"github.com/neardup/neardup/transforms/format/rank"
	"github.com/neardup/neardup/transforms/format/summary"
	"github.com/neardup/neardup/transforms/format/wire"
	"github.com/neardup/neardup/transforms/graph/components"
	"github.com/neardup/neardup/transforms/internal/tally"
	"github.com/neardup/neardup/transforms/jobfiles"
	"github.com/neardup/neardup/transforms/jobfiles/spilled"
	"github.com/neardup/neardup/transforms/jobstate"
)

func init() {
	register.DoFn7x1[context.Context, int64, func(*[]byte) bool, func(int64, []byte), func(int64, []byte), func(int64, []byte), func(string, int64), error](&EdgesFn{})
	register.DoFn5x1[context.Context, int64, func(*[]byte) bool, func(int64, []byte), func(string, int64), error](&StarFn{})
	register.DoFn7x1[context.Context, int64, func(*[]byte) bool, func(int64, []byte), func(int64, []byte), func(int64, []byte), func(string, int64), error](&SettleFn{})
	register.DoFn7x1[context.Context, int64, func(*[]byte) bool, func(*[]byte) bool, func(int64, []byte), func(int64, []byte), func(string, int64), error](&ResolveFn{})
	register.DoFn5x1[context.Context, int64, func(*[]byte) bool, func(int64, []byte), func(string, int64), error](&RemainderFn{})
	register.Function3x1(outsideMarksFn)
	register.Emitter2[int64, []byte]()
	register.DoFn8x1[context.Context, int64, func(*[]byte) bool, func(*[]byte) bool, func(*[]byte) bool, func(int64, []byte), func(int64, []byte), func(string, int64), error](&MembersFn{})
	register.DoFn8x1[context.Context, int64, func(*[]byte) bool, func(*[]byte) bool, func(int64, []byte), func(int64, []byte), func(int64, []byte), func(string, int64), error](&ClusterFn{})
}

// Clusters decides which documents the matches remove. It finds the
// connected components of all matches: rounds of large-star and small-star
// steps over partitions of the documents, then settleFn/resolveFn assign
// the components that have become stars, and the edges of any other
// component go to a union-find on one worker (see package components). Each
// match then goes, as a link, to the partition of its component, where the
// component is decided: by default a document is removed only for a match
// with a document that is kept (package greedy), and each cluster is a kept
// document and the documents removed for it; with cfg.Clusters set to
// Components each component is one cluster that keeps one document. Cluster
// lines are written per partition of the components' smallest documents.
//
// In: matches grouped by any key (GroupMatches). Out: cluster lines (file
// index, chunk), documents to remove (file index, chunk), with
// o.Lines.Fates the fates of the clustered documents (file index,
// wire.OutLine chunks: ClusterFn), stats. With o.Work.Spill its shuffles
// go through spill files (spilled.Group).
func Clusters(s beam.Scope, o Options, matches beam.PCollection) (clusters, removes, fates, st beam.PCollection) {
	s = s.Scope("Clusters")
	var sts []beam.PCollection // every step's stats (the shuffle tallies)
	counted := func(step []beam.PCollection) []beam.PCollection {
		sts = append(sts, step[len(step)-1])
		return step[:len(step)-1]
	}
	spilledCol := func(kind string, cols ...beam.PCollection) beam.PCollection {
		return spilled.Col(s, o.Work, kind, cols...)
	}
	w, p := o.Work, o.Partitions
	out := counted(beam.ParDoN(s, &EdgesFn{Work: w, Partitions: p, Links: o.Links}, matches))
	edges, members, links := out[0], out[1], out[2]
	for range o.Rounds {
		edges = counted(beam.ParDoN(s, &StarFn{Work: w, Partitions: p, Large: true}, spilled.Group(s, w, "edges", edges)))[0]
		edges = counted(beam.ParDoN(s, &StarFn{Work: w, Partitions: p}, spilled.Group(s, w, "edges", edges)))[0]
	}
	out = counted(beam.ParDoN(s, &SettleFn{Work: w, Partitions: p}, spilled.Group(s, w, "edges", edges)))
	stars, leaves, rest := out[0], out[1], out[2]
	out = counted(beam.ParDoN(s, &ResolveFn{Work: w, Partitions: p}, beam.CoGroupByKey(s, spilledCol("edges", stars), spilledCol("edges", leaves))))
	settled, rest2 := out[0], out[1]
	unsettled := counted(beam.ParDoN(s, &RemainderFn{Work: w, Partitions: p}, spilled.Group(s, w, "edges", rest, rest2)))[0]
	out = counted(beam.ParDoN(s, &MembersFn{Work: w, Partitions: p}, beam.CoGroupByKey(s, spilledCol("members", members), spilledCol("edges", settled, unsettled), spilledCol("links", links))))
	rooted, links := out[0], out[1]
	out = counted(beam.ParDoN(s, &ClusterFn{Work: w, Partitions: p, Lines: o.Lines}, beam.CoGroupByKey(s, spilledCol("members", rooted), spilledCol("links", links))))
	return out[0], out[1], out[2], beam.Flatten(s, sts...)
}

// OutsideMarks turns an audit's (new, indexed) matches into matches of
// each new document with itself, which Clusters reads as "removed
// beforehand, for a kept document outside the batch": such a document is
// not kept and keeps nothing from being kept (greedy.Node.Removed), and its
// removal is the audit's (WriteAudit), not Clusters'.
//
// In: (file index, wire.Match chunks, A the new document). Out: the same
// keys, wire.Match chunks with B = A.
func OutsideMarks(s beam.Scope, idxMatches beam.PCollection) beam.PCollection {
	s = s.Scope("OutsideMarks")
	return beam.ParDo(s, outsideMarksFn, idxMatches)
}

// Removes reports whether (new, indexed) match m removes its new document
// m.A: every match does but a containment match whose contained document
// is the indexed one (the new document holds it, and is kept).
func Removes(m *wire.Match) bool { return m.Method != wire.Containment || m.Inside != wire.SideB }

func outsideMarksFn(key int64, chunk []byte, emit func(int64, []byte)) error {
	var out []byte
	err := wire.EachMatch(chunk, func(m *wire.Match, _ []byte) error {
		if !Removes(m) {
			return nil
		}
		mark := wire.Match{A: m.A, B: m.A, IDA: m.IDA, IDB: m.IDA, LenA: m.LenA, LenB: m.LenA, RankA: m.RankA, RankB: m.RankA, Jaccard: 1, Method: m.Method}
		out = wire.AppendMatch(out, &mark)
		return nil
	})
	if err != nil {
		return err
	}
	if len(out) > 0 {
		emit(key, out)
	}
	return nil
}

// The connected components of the matches are found in rounds over
// Config.CCPartitions partitions of the documents (package components): no
// worker holds more than one partition's edges, except the final union-find
// over the edges of the components the rounds did not finish (counted in
// summary.StatRemainder). The DoFns below are the steps; Clusters chains
// them. Each holds the work directory (for spilled groups) and the number
// of partitions. Every step sends the tallies of what it shuffles (tally.Shuffle) as
// stats.

// EdgesFn starts the components: every match becomes an edge, sent to the
// partitions of both documents, and each document's id and length go to its
// partition for the cluster lines. With Links, every match also goes, as a
// link (the match without ids and lengths), to the partition of its first
// document, where membersFn sends it on to its component's.
//
// In: (any key, wire.Match chunks). Out: wire.Pair chunks (partition),
// wire.Member chunks (partition of the document, Root unset), links
// (wire.Match chunks, partition of A), stats.
type EdgesFn struct {
	Work       jobfiles.WorkDir
	Partitions int  // Config.CCPartitions
	Links      bool // Config.Clusters is ClustersKept
	spilled.GroupReader
}

func (fn *EdgesFn) ProcessElement(ctx context.Context, key int64, chunks func(*[]byte) bool, emitEdge, emitMember, emitLink func(int64, []byte), emitStat func(string, int64)) error {
	defer jobstate.Busy(ctx, "Clusters", jobstate.Begin())
	emitEdge, reportEdges := tally.CountShuffle(tally.ShuffleEdges, emitEdge, emitStat)
	emitMember, reportMembers := tally.CountShuffle(tally.ShuffleMembers, emitMember, emitStat)
	emitLink, reportLinks := tally.CountShuffle(tally.ShuffleLinks, emitLink, emitStat)
	edges := newEdgeSender(fn.Partitions, emitEdge)
	members, links := wire.NewBatcher(0), wire.NewBatcher(0)
	seen := make(map[wire.Doc]bool)
	member := func(d wire.Doc, id string, n int64, r rank.Key) {
		if !seen[d] {
			seen[d] = true
			m := wire.Member{Doc: d, ID: id, Len: n, Rank: r}
			members.Add(components.Owner(d, fn.Partitions), func(c []byte) []byte { return wire.AppendMember(c, &m) }, emitMember)
		}
	}
	err := fn.In.Each(fn.Work, int(key), chunks, func(c []byte) error {
		return wire.EachMatch(c, func(m *wire.Match, _ []byte) error {
			if m.A != m.B {
				edges.send(components.NewEdge(m.A, m.B), components.Both)
				member(m.A, m.IDA, m.LenA, m.RankA)
				member(m.B, m.IDB, m.LenB, m.RankB)
			}
			if fn.Links { // a link of A with itself: A is removed beforehand (OutsideMarks)
				l := link(*m)
				links.Add(components.Owner(l.A, fn.Partitions), func(c []byte) []byte { return wire.AppendMatch(c, &l) }, emitLink)
			}
			return nil
		})
	})
	if err != nil {
		return err
	}
	edges.flush()
	members.Flush(emitMember)
	links.Flush(emitLink)
	reportEdges()
	reportMembers()
	reportLinks()
	return nil
}

// link is m as a link: its documents, similarity and method, without the
// ids, lengths and ranks that the members carry. A link of a document with itself
// marks it removed beforehand (OutsideMarks).
func link(m wire.Match) wire.Match {
	m.IDA, m.IDB, m.LenA, m.LenB, m.RankA, m.RankB = "", "", 0, 0, rank.Key{}, rank.Key{}
	return m
}

// StarFn is one large-star (Large) or small-star step over one partition.
//
// In: (partition, wire.Pair chunks). Out: wire.Pair chunks for the next
// step (partition), stats.
type StarFn struct {
	Work       jobfiles.WorkDir
	Partitions int // Config.CCPartitions
	spilled.GroupReader
	Large bool
}

func (fn *StarFn) ProcessElement(ctx context.Context, k int64, chunks func(*[]byte) bool, emit func(int64, []byte), emitStat func(string, int64)) error {
	part := int(k)
	defer jobstate.Busy(ctx, "Clusters", jobstate.Begin())
	emit, report := tally.CountShuffle(tally.ShuffleEdges, emit, emitStat)
	edges, err := decodeEdges(&fn.In, fn.Work, part, chunks)
	if err != nil {
		return err
	}
	out := newEdgeSender(fn.Partitions, emit)
	if fn.Large {
		arcs := components.Arcs(nil, edges, part, fn.Partitions)
		components.LargeStar(arcs, func(e components.Edge) { out.send(e, components.Up) })
	} else {
		arcs := components.UpArcs(nil, edges, part, fn.Partitions)
		components.SmallStar(arcs, func(e components.Edge) { out.send(e, components.Both) })
	}
	out.flush()
	report()
	return nil
}

// SettleFn classifies the nodes of one partition after the last round
// (components.Settle).
//
// In: (partition, wire.Pair chunks). Out: star edges and leaf edges
// (partition of the centre), remainder edges (key 0), stats.
type SettleFn struct {
	Work       jobfiles.WorkDir
	Partitions int // Config.CCPartitions
	spilled.GroupReader
}

func (fn *SettleFn) ProcessElement(ctx context.Context, k int64, chunks func(*[]byte) bool, emitStar, emitLeaf, emitRest func(int64, []byte), emitStat func(string, int64)) error {
	part := int(k)
	defer jobstate.Busy(ctx, "Clusters", jobstate.Begin())
	var edgeBytes tally.Shuffle // stars, leaves and the rest: all edges
	emitStar, emitLeaf, emitRest = edgeBytes.Count(emitStar), edgeBytes.Count(emitLeaf), edgeBytes.Count(emitRest)
	edges, err := decodeEdges(&fn.In, fn.Work, part, chunks)
	if err != nil {
		return err
	}
	p := fn.Partitions
	stars, leaves, rest := wire.NewBatcher(0), wire.NewBatcher(0), wire.NewBatcher(0)
	add := func(b *wire.Batcher, part int, e components.Edge, emit func(int64, []byte)) {
		b.Add(part, func(c []byte) []byte { return wire.AppendPair(c, e) }, emit)
	}
	components.Settle(components.Arcs(nil, edges, part, p),
		func(e components.Edge) { add(stars, components.Owner(e.A, p), e, emitStar) },
		func(e components.Edge) { add(leaves, components.Owner(e.A, p), e, emitLeaf) },
		func(e components.Edge) { add(rest, 0, e, emitRest) })
	stars.Flush(emitStar)
	leaves.Flush(emitLeaf)
	rest.Flush(emitRest)
	edgeBytes.Report(tally.ShuffleEdges, emitStat)
	return nil
}

// ResolveFn assigns the members of finished stars to their centre
// (components.Resolve).
//
// In: (partition, star edge chunks, leaf edge chunks). Out: assignments as
// wire.Pair{A: node, B: root} chunks (partition of the node), remainder
// edges (key 0), stats.
type ResolveFn struct {
	Work       jobfiles.WorkDir
	Partitions int // Config.CCPartitions
	spilled.GroupReader
}

func (fn *ResolveFn) ProcessElement(ctx context.Context, k int64, starChunks, leafChunks func(*[]byte) bool, emitAssign, emitRest func(int64, []byte), emitStat func(string, int64)) error {
	part := int(k)
	defer jobstate.Busy(ctx, "Clusters", jobstate.Begin())
	emitAssign, reportAssign := tally.CountShuffle(tally.ShuffleAssignments, emitAssign, emitStat)
	emitRest, reportRest := tally.CountShuffle(tally.ShuffleEdges, emitRest, emitStat)
	stars, err := decodeEdges(&fn.In, fn.Work, part, starChunks)
	if err != nil {
		return err
	}
	leaves, err := decodeEdges(&fn.In, fn.Work, part, leafChunks)
	if err != nil {
		return err
	}
	assign, rest := newAssigner(fn.Partitions, emitAssign), wire.NewBatcher(0)
	components.Resolve(components.SortEdges(stars), components.SortEdges(leaves), assign.add,
		func(e components.Edge) { rest.Add(0, func(c []byte) []byte { return wire.AppendPair(c, e) }, emitRest) })
	assign.b.Flush(emitAssign)
	rest.Flush(emitRest)
	reportAssign()
	reportRest()
	return nil
}

// RemainderFn joins the edges of the components the rounds did not finish
// with union-find, on one worker (components.Remainder).
//
// In: (0, wire.Pair chunks). Out: assignments as in resolveFn, stats.
type RemainderFn struct {
	Work       jobfiles.WorkDir
	Partitions int // Config.CCPartitions
	spilled.GroupReader
}

func (fn *RemainderFn) ProcessElement(ctx context.Context, k int64, chunks func(*[]byte) bool, emitAssign func(int64, []byte), emitStat func(string, int64)) error {
	part := int(k)
	defer jobstate.Busy(ctx, "Clusters", jobstate.Begin())
	edges, err := decodeEdges(&fn.In, fn.Work, part, chunks)
	if err != nil {
		return err
	}
	edges = components.SortEdges(edges)
	emitAssign, report := tally.CountShuffle(tally.ShuffleAssignments, emitAssign, emitStat)
	assign := newAssigner(fn.Partitions, emitAssign)
	components.Remainder(edges, assign.add)
	assign.b.Flush(emitAssign)
	report()
	emitStat(summary.StatRemainder, int64(len(edges)))
	return nil
}

// MembersFn gives every clustered document its root, and sends every link
// of the partition's documents to the partition of its component's root.
//
// In: (partition, wire.Member chunks, assignment chunks, link chunks). Out:
// wire.Member chunks with Root set (partition of the root), links
// (partition of the root of A), stats.
type MembersFn struct {
	Work       jobfiles.WorkDir
	Partitions int // Config.CCPartitions
	spilled.GroupReader
}

func (fn *MembersFn) ProcessElement(ctx context.Context, k int64, memberChunks, assignChunks, linkChunks func(*[]byte) bool, emit, emitLink func(int64, []byte), emitStat func(string, int64)) error {
	part := int(k)
	defer jobstate.Busy(ctx, "Clusters", jobstate.Begin())
	emit, report := tally.CountShuffle(tally.ShuffleMembers, emit, emitStat)
	emitLink, reportLinks := tally.CountShuffle(tally.ShuffleLinks, emitLink, emitStat)
	members := make(map[wire.Doc]wire.Member)
	err := decodeMembers(&fn.In, fn.Work, part, memberChunks, func(m wire.Member) error { members[m.Doc] = m; return nil })
	if err != nil {
		return err
	}
	assigns, err := decodeEdges(&fn.In, fn.Work, part, assignChunks)
	if err != nil {
		return err
	}
	out := wire.NewBatcher(0)
	roots := make(map[wire.Doc]wire.Doc, len(members))
	for _, a := range assigns {
		m, ok := members[a.A]
		if !ok {
			return fmt.Errorf("components partition %d: document %d assigned to %d has no id", part, a.A, a.B)
		}
		m.Root = a.B
		roots[a.A] = a.B
		out.Add(components.Owner(m.Root, fn.Partitions), func(c []byte) []byte { return wire.AppendMember(c, &m) }, emit)
		delete(members, a.A)
	}
	if len(members) > 0 {
		return fmt.Errorf("components partition %d: %d documents were assigned to no component", part, len(members))
	}
	out.Flush(emit)
	if err := fn.sendLinks(part, roots, linkChunks, emitLink); err != nil {
		return err
	}
	report()
	reportLinks()
	return nil
}

// sendLinks sends each link of linkChunks to the partition of the root of
// its first document (roots); a mark of a document in no component
// (OutsideMarks) is dropped.
func (fn *MembersFn) sendLinks(part int, roots map[wire.Doc]wire.Doc, linkChunks func(*[]byte) bool, emitLink func(int64, []byte)) error {
	links := wire.NewBatcher(0)
	err := fn.In.Each(fn.Work, part, linkChunks, func(c []byte) error {
		return wire.EachMatch(c, func(l *wire.Match, rec []byte) error {
			root, ok := roots[l.A]
			switch {
			case !ok && l.A == l.B:
				return nil // removed beforehand, and in no match of the batch
			case !ok:
				return fmt.Errorf("components partition %d: a match of document %d, which has no component", part, l.A)
			}
			links.Add(components.Owner(root, fn.Partitions), func(c []byte) []byte { return append(c, rec...) }, emitLink)
			return nil
		})
	})
	if err != nil {
		return err
	}
	links.Flush(emitLink)
	return nil
}

// GroupMatches groups the matches of cols (file index, wire.Match chunks)
// by file, for Clusters and the pairs output; with w.Spill through spill
// files (spilled.Group).
func GroupMatches(s beam.Scope, w jobfiles.WorkDir, cols ...beam.PCollection) beam.PCollection {
	return spilled.Group(s.Scope("Matches"), w, "matches", cols...)
}
