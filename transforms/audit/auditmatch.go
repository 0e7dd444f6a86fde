package audit

import (
	"context"
	"slices"

	"github.com/apache/beam/sdks/v2/go/pkg/beam"
	"github.com/apache/beam/sdks/v2/go/pkg/beam/register"

	"github.com/neardup/neardup/transforms/exact"
	"github.com/neardup/neardup/transforms/format/wire"
	"github.com/neardup/neardup/transforms/jobfiles"
	"github.com/neardup/neardup/transforms/jobfiles/filelist"
	"github.com/neardup/neardup/transforms/jobfiles/spilled"
	"github.com/neardup/neardup/transforms/jobstate"
	"github.com/neardup/neardup/transforms/match/exactdup"
	"github.com/neardup/neardup/transforms/match/verify"
	"github.com/neardup/neardup/transforms/near"
)

func init() {
	register.DoFn5x1[context.Context, int64, func(*[]byte) bool, func(int64, []byte), func(string, int64), error](&auditExactFn{})
	register.DoFn4x1[int64, []byte, func(int64, []byte), func(int64, []byte), error](&splitMatchesFn{})
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
// and of the index scan, without pairs of two indexed documents (see
// near.AuditCandidates).
//
// Out: candidate pairs (partition of the first document, chunk), stats.
func AuditCandidates(s beam.Scope, o Options, entries, idxEntries beam.PCollection) (pairs, st beam.PCollection) {
	s = s.Scope("Candidates")
	return near.AuditCandidates(s, o.Near, beam.GroupByKey(s, beam.Flatten(s, entries, idxEntries)))
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
func AuditVerify(s beam.Scope, o Options, newFiles filelist.Files, checkManifest string, infos, pairs beam.PCollection) (batch, idx, st beam.PCollection) {
	s = s.Scope("Verify")
	accepted, unsure, st1, st2 := near.VerifyGrouped(s, o.Near, infos, pairs)
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
		k := slices.IndexFunc(group, func(in wire.Info) bool { return filelist.IsIndexed(in.Doc) })
		for i := range max(k, 0) {
			m := exactdup.Match(&group[i], &group[k])
			b.Add(wire.File(m.A), func(c []byte) []byte { return wire.AppendMatch(c, &m) }, emit)
		}
	})
	b.Flush(emit)
	return nil
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
		case !filelist.IsIndexed(m.B):
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
