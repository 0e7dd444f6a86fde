package audit

import (
	"context"
	"fmt"
	"slices"

	"github.com/apache/beam/sdks/v2/go/pkg/beam"
	"github.com/apache/beam/sdks/v2/go/pkg/beam/register"

	"github.com/neardup/neardup/transforms/exact"
	"github.com/neardup/neardup/transforms/format/wire"
	"github.com/neardup/neardup/transforms/job"
	"github.com/neardup/neardup/transforms/jobfiles"
	"github.com/neardup/neardup/transforms/jobfiles/spilled"
	"github.com/neardup/neardup/transforms/jobstate"
	"github.com/neardup/neardup/transforms/match/blocking"
	"github.com/neardup/neardup/transforms/match/candidates"
	"github.com/neardup/neardup/transforms/match/ensemble"
	"github.com/neardup/neardup/transforms/match/exactdup"
	"github.com/neardup/neardup/transforms/match/verify"
	"github.com/neardup/neardup/transforms/near"
)

func init() {
	register.DoFn5x1[context.Context, int64, func(*[]byte) bool, func(int64, []byte), func(string, int64), error](&auditExactFn{})
	register.DoFn5x1[context.Context, int64, func(*[]byte) bool, func(int64, []byte), func(string, int64), error](&auditCandidatesFn{})
	register.DoFn4x1[int64, []byte, func(int64, []byte), func(int64, []byte), error](&splitMatchesFn{})
	register.DoFn6x1[context.Context, int64, func(*[]byte) bool, func(*[]byte) bool, func(int64, []byte), func(string, int64), error](&halfJoinFn{})
	register.DoFn7x1[context.Context, int64, func(*[]byte) bool, func(*[]byte) bool, func(int64, []byte), func(int64, []byte), func(string, int64), error](&verifyFn{})
	register.Function3x0(passOn)
}

// AuditExact finds the new documents identical to an indexed one.
//
// In: the batch's and the index scan's exact-key records (partition,
// chunk). Out: (new, indexed) exact matches (file of the new document,
// chunk), stats.
//
// The batch's records reach the Flatten through passOn: a Flatten that
// reads a collection a GroupByKey reads too (ExactDuplicates reads keys)
// gets two producers of its output in the fused graph of Beam's portable
// job servers (GreedyPipelineFuser), and Flink and Spark refuse the job.
func AuditExact(s beam.Scope, o Options, keys, idxKeys beam.PCollection) (matches, st beam.PCollection) {
	s = s.Scope("AuditExact")
	return beam.ParDo2(s, &auditExactFn{Work: o.Near.Work}, beam.GroupByKey(s, beam.Flatten(s, beam.ParDo(s, passOn, keys), idxKeys)))
}

// passOn emits what it reads.
func passOn(k int64, v []byte, emit func(int64, []byte)) { emit(k, v) }

// AuditCandidates is Candidates over the block entries of the new batch
// and of the index scan, without pairs of two indexed documents.
//
// Out: candidate pairs (partition of the first document, chunk), stats.
func AuditCandidates(s beam.Scope, o Options, entries, idxEntries beam.PCollection) (pairs, st beam.PCollection) {
	s = s.Scope("Candidates")
	return beam.ParDo2(s, &auditCandidatesFn{Blocking: o.Near.Blocking}, beam.GroupByKey(s, beam.Flatten(s, entries, idxEntries)))
}

// AuditVerify is Verify for an audit, with the infos shuffled. Pairs are
// (new, new) or (new, indexed); the ones the estimate cannot decide are
// checked exactly from the documents' files (checkManifest: a file manifest
// of the new files and, to read indexed documents, their sources), or, with
// checkManifest "",
// (new, indexed) ones by the estimate against the threshold.
//
// In: infos (partition of the document, chunk), candidate pairs (partition
// of the first document, chunk). Out: matches within the batch and (new,
// indexed) matches, both keyed by the new document's file, and stats.
func AuditVerify(s beam.Scope, o Options, newFiles jobfiles.Files, checkManifest string, infos, pairs beam.PCollection) (batch, idx, st beam.PCollection) {
	s = s.Scope("Verify")
	halves, st1 := beam.ParDo2(s, &halfJoinFn{Partitions: o.Near.Blocking.Partitions}, beam.CoGroupByKey(s, infos, pairs))
	accepted, unsure, st2 := beam.ParDo3(s, &verifyFn{Verify: o.Near.Verify, SegmentBits: o.Near.Work.SegmentBits}, beam.CoGroupByKey(s, infos, halves))
	manifest := newFiles.Manifest
	if checkManifest != "" {
		manifest = checkManifest
	} else {
		var byEstimate beam.PCollection
		unsure, byEstimate = beam.ParDo2(s, &splitMatchesFn{Verify: o.Near.Verify, Decide: true}, unsure)
		accepted = beam.Flatten(s, accepted, byEstimate)
	}
	exact, st3 := near.ExactChecks(s, o.Near, manifest, unsure, st2)
	batch, idx = beam.ParDo2(s, &splitMatchesFn{Verify: o.Near.Verify}, beam.Flatten(s, accepted, exact))
	return batch, idx, beam.Flatten(s, st1, st2, st3)
}

// auditExactFn finds the new documents identical to an indexed one.
//
// In: (partition, wire.Info chunks with Exact set: of the new batch and of
// the indexed documents the scan passed on). Out: for each new document
// whose exact key an indexed document has, an exact match (A: the new
// document, B: the first such indexed document) as wire.Match chunks keyed
// by the new document's file.
type auditExactFn struct {
	Work jobfiles.WorkDir
	spilled.GroupReader
}

func (fn *auditExactFn) ProcessElement(ctx context.Context, k int64, chunks func(*[]byte) bool, emit func(int64, []byte), emitStat func(string, int64)) error {
	part := int(k)
	defer jobstate.Busy(ctx, "AuditExact", jobstate.Begin())
	infos, err := exact.ByExactKey(&fn.In, fn.Work, part, chunks)
	if err != nil {
		return err
	}
	b := wire.NewBatcher(0)
	exactdup.Groups(infos, func(group []wire.Info) {
		// New documents sort first; the first indexed one is the match.
		k := slices.IndexFunc(group, func(in wire.Info) bool { return jobfiles.IsIndexed(in.Doc) })
		for i := range max(k, 0) {
			m := exactdup.Match(&group[i], &group[k])
			b.Add(wire.File(m.A), func(c []byte) []byte { return wire.AppendMatch(c, &m) }, emit)
		}
	})
	b.Flush(emit)
	return nil
}

// auditCandidatesFn is candidatesFn for an audit: the buckets hold new and
// indexed documents, and pairs of two indexed documents are dropped (the
// index was deduplicated when it was built).
type auditCandidatesFn struct {
	Blocking near.BlockingConfig

	tables *blocking.Tables
	levels *ensemble.Levels // nil: no containment
}

func (fn *auditCandidatesFn) Setup() (err error) {
	if fn.Blocking.Contain.Threshold > 0 {
		if fn.levels, err = ensemble.NewLevels(fn.Blocking.Contain); err != nil {
			return err
		}
	}
	fn.tables, err = job.NewTables(fn.Blocking.Tables)
	return err
}

func (fn *auditCandidatesFn) ProcessElement(ctx context.Context, k int64, chunks func(*[]byte) bool, emit func(int64, []byte), emitStat func(string, int64)) error {
	part := int(k)
	defer jobstate.Busy(ctx, "Candidates", jobstate.Begin())
	var st candidates.Stats
	pairs, err := fn.pairs(part, chunks, &st)
	if err != nil {
		return err
	}
	pairs = slices.DeleteFunc(pairs, func(p wire.Pair) bool { return jobfiles.IsIndexed(p.A) })
	pairs = candidates.Unique(pairs)
	P := fn.Blocking.Partitions
	near.EmitCandidates(pairs, func(d wire.Doc) int { return wire.Partition(d, P) }, emit)
	near.BucketStats(st).Emit(emitStat)
	return nil
}

// pairs returns the candidate pairs of the entries of partition part:
// band entries in [0, P), SimHash table entries in [P, 2P), containment
// entries in [2P, 3P).
func (fn *auditCandidatesFn) pairs(part int, chunks func(*[]byte) bool, st *candidates.Stats) ([]wire.Pair, error) {
	var chunk []byte
	var err error
	if part >= 2*fn.Blocking.Partitions {
		return fn.contained(part, chunks, st)
	}
	if part < fn.Blocking.Partitions {
		var entries []wire.Entry
		for chunks(&chunk) {
			if entries, err = wire.AppendEntries(entries, chunk); err != nil {
				return nil, err
			}
		}
		return candidates.Append(nil, candidates.Sort(entries), fn.Blocking.Limits, st), nil
	}
	var entries []wire.SimEntry
	for chunks(&chunk) {
		if entries, err = job.SimEntries(entries, chunk, fn.tables); err != nil {
			return nil, err
		}
	}
	return candidates.AppendNear(nil, candidates.SortSim(entries), fn.Blocking.Hamming, fn.Blocking.Limits, st), nil
}

// contained returns the containment candidate pairs of the entries of
// partition part.
func (fn *auditCandidatesFn) contained(part int, chunks func(*[]byte) bool, st *candidates.Stats) ([]wire.Pair, error) {
	if fn.levels == nil {
		return nil, fmt.Errorf("candidates: containment entries in partition %d of an audit without containment", part)
	}
	var entries []wire.SizedEntry
	var chunk []byte
	var err error
	for chunks(&chunk) {
		if entries, err = wire.AppendSizedEntries(entries, chunk); err != nil {
			return nil, err
		}
	}
	sorted, _ := candidates.SortSizedBuf(entries, nil)
	return candidates.AppendContained(nil, sorted, fn.levels, fn.Blocking.ContainLimits, st), nil
}

// halfJoinFn is the first half of the join of candidate pairs with document
// infos.
//
// In: (partition p, infos of the documents in p, candidate pairs whose first
// document is in p, from every block partition). Out: half-join records
// (see halfJoin) keyed by the partition of the second documents: each
// first document's info once per partition of its partners. A pair met in
// several blocks is passed on once. An audit uses it; a run uses
// halfJoinFileFn.
type halfJoinFn struct {
	Partitions int // of the infos
}

func (fn *halfJoinFn) ProcessElement(ctx context.Context, k int64, infoChunks, pairChunks func(*[]byte) bool, emit func(int64, []byte), emitStat func(string, int64)) error {
	part := int(k)
	defer jobstate.Busy(ctx, "JoinFirst", jobstate.Begin())
	infos, err := decodeInfos(infoChunks)
	if err != nil {
		return err
	}
	pairs, err := near.UniquePairs(pairChunks)
	if err != nil {
		return err
	}
	P := fn.Partitions
	return near.HalfJoin(pairs, func(d wire.Doc) *wire.Info { return infos[d] },
		func(d wire.Doc) int { return wire.Partition(d, P) }, fmt.Sprintf("partition %d", part), emit, emitStat)
}

// verifyFn is the second half of the join, and the verification.
//
// In: (partition p, infos of the documents in p, half-join records whose
// second documents are in p). Out: the accepted matches and the pairs whose
// estimate cannot decide (both as wire.Match chunks keyed by the file of
// their first document).
type verifyFn struct {
	Verify      verify.Config
	SegmentBits int // of the exact checks' keys
}

func (fn *verifyFn) ProcessElement(ctx context.Context, k int64, infoChunks, halfChunks func(*[]byte) bool, emit, emitUnsure func(int64, []byte), emitStat func(string, int64)) error {
	part := int(k)
	defer jobstate.Busy(ctx, "Verify", jobstate.Begin())
	infos, err := decodeInfos(infoChunks)
	if err != nil {
		return err
	}
	return near.VerifyHalves(fn.Verify, fn.SegmentBits, halfChunks, func(d wire.Doc) *wire.Info { return infos[d] }, fmt.Sprintf("partition %d", part), emit, emitUnsure, emitStat)
}

// decodeInfos reads every wire.Info chunk of iter into a map by document.
func decodeInfos(iter func(*[]byte) bool) (map[wire.Doc]*wire.Info, error) {
	m := make(map[wire.Doc]*wire.Info)
	var chunk []byte
	for iter(&chunk) {
		for c := chunk; len(c) > 0; {
			in := new(wire.Info)
			var err error
			if c, err = wire.DecodeInfo(c, in); err != nil {
				return nil, err
			}
			m[in.Doc] = in
		}
	}
	return m, nil
}

// splitMatchesFn splits matches into those within the new batch and those
// of a new document with an indexed one. With Decide, the (new, indexed)
// matches are pairs the estimate could not decide and whose indexed text
// is not read: they are accepted when the estimate passes Verify
// (verify.Config.Passes), or its estimated containment does
// (verify.Config.PassesContained).
//
// In: (file, wire.Match chunk). Out: batch matches, index matches, both
// keyed by the file of A (the new document).
type splitMatchesFn struct {
	Verify verify.Config
	Decide bool
}

func (fn *splitMatchesFn) ProcessElement(file int64, chunk []byte, emitBatch, emitIndex func(int64, []byte)) error {
	var batch, idx []byte
	err := wire.EachMatch(chunk, func(m *wire.Match, rec []byte) error {
		switch {
		case !jobfiles.IsIndexed(m.B):
			batch = append(batch, rec...)
		case !fn.Decide || fn.Verify.Passes(float64(m.Jaccard)):
			idx = append(idx, rec...)
		case fn.Verify.PassesContained(m):
			idx = wire.AppendMatch(idx, m)
		}
		return nil
	})
	if err != nil {
		return err
	}
	if len(batch) > 0 {
		emitBatch(file, batch)
	}
	if len(idx) > 0 {
		emitIndex(file, idx)
	}
	return nil
}
