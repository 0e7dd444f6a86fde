package near

import (
	"cmp"
	"context"
	"fmt"
	"runtime"
	"slices"
	"sync"
	"time"

	"github.com/apache/beam/sdks/v2/go/pkg/beam"
	"github.com/apache/beam/sdks/v2/go/pkg/beam/register"

	"github.com/neardup/neardup/transforms/format/summary"
	"github.com/neardup/neardup/transforms/format/wire"
	"github.com/neardup/neardup/transforms/internal/docpool"
	"github.com/neardup/neardup/transforms/internal/rounds"
	"github.com/neardup/neardup/transforms/internal/tally"
	"github.com/neardup/neardup/transforms/jobfiles"
	"github.com/neardup/neardup/transforms/jobfiles/spilled"
	"github.com/neardup/neardup/transforms/jobstate"
	"github.com/neardup/neardup/transforms/match/candidates"
	"github.com/neardup/neardup/transforms/match/verify"
)

func init() {
	register.DoFn5x1[context.Context, int64, func(*[]byte) bool, func(int64, []byte), func(string, int64), error](&halfJoinFileFn{})
	register.DoFn6x1[context.Context, int64, func(*[]byte) bool, func(int64, []byte), func(int64, []byte), func(string, int64), error](&verifyFileFn{})
}

// Verify joins candidate pairs with both documents' infos, in two steps
// keyed by segment (Config.SegmentBits: lines of one input file), each
// reading the segment's info shard, and keeps the pairs that pass the test.
// The second step (Check) runs in o.Rounds rounds by the segment
// of the second document (see rounds.Run, rounds.SplitSegments). Pairs whose
// MinHash estimate cannot decide go to an exact check of their shingle sets
// (ExactChecks).
//
// In: files (index, path), pairs (segment of A, chunk). Out: verified
// matches (file index of A, chunk), stats.
func Verify(s beam.Scope, o Options, files jobfiles.Files, pairs beam.PCollection) (matches, st beam.PCollection) {
	s = s.Scope("Verify")
	halves := jobfiles.ByFile(s.Scope("JoinFirst"), &halfJoinFileFn{Work: o.Work}, pairs)
	byRound := rounds.SplitSegments(s, o.Rounds, o.Work.SegmentBits, halves[0])
	checked := rounds.Run(s.Scope("Check"), 3, &verifyFileFn{Work: o.Work, Verify: o.Verify}, byRound)
	accepted, unsure, st1, st2 := checked[0], checked[1], halves[1], checked[2]
	exact, st3 := ExactChecks(s, o, files.Manifest, unsure, st2)
	return beam.Flatten(s, accepted, exact), beam.Flatten(s, st1, st2, st3)
}

// halfJoinFileFn is halfJoinFn with the infos read from the segment's
// info shard (see workfiles.go) instead of a shuffle.
//
// In: (segment, candidate pairs whose first document is in the segment).
// Out: like halfJoinFn, keyed by the segment of the second document. The
// segment's pairs are sorted within pairRunBytes (sortPairs, spilling
// sorted runs beyond) and joined in batches of about joinBatchPairs, each
// on another goroutine while the next is read (see docpool.AheadEmits),
// at most GOMAXPROCS in progress: the records of each destination come out
// in the same order as from one HalfJoin of the whole segment.
type halfJoinFileFn struct {
	Work jobfiles.WorkDir

	ahead   docpool.AheadEmits
	spilled spilled.In   // candidate pairs
	halves  *spilled.Out // see spilled.go
}

func (fn *halfJoinFileFn) Setup() { fn.halves = spilled.To(fn.Work, "halves") }

func (fn *halfJoinFileFn) ProcessElement(ctx context.Context, k int64, pairChunks func(*[]byte) bool, emit func(int64, []byte), emitStat func(string, int64)) error {
	seg := int(k)
	start := time.Now()
	pairChunks, failed := fn.spilled.Iter(fn.Work, seg, pairChunks)
	pairs, err := sortPairs(pairChunks, fn.Work.Dir)
	if err != nil {
		return err
	}
	defer pairs.close()
	if err := failed(); err != nil {
		return err
	}
	jobstate.AddBusy(ctx, "JoinFirst", time.Since(start), start)
	find := segmentInfos(ctx, fn.Work, seg)
	emits := []func(int64, []byte){fn.halves.Wrap(emit)}
	for {
		start := time.Now()
		batch, err := pairs.batch(joinBatchPairs)
		if err != nil || len(batch) == 0 {
			return err
		}
		jobstate.AddBusy(ctx, "JoinFirst", time.Since(start), start)
		fn.ahead.Start(1, func(emits []func(int64, []byte), emitStat func(string, int64)) error {
			info, err := find()
			if err != nil {
				return err
			}
			return HalfJoin(batch, info, fn.Work.Segment, fn.Work.SegmentShardName(seg), emits[0], emitStat)
		})
		if err := fn.ahead.Drain(runtime.GOMAXPROCS(0), emits, emitStat, jobstate.BusyIn(ctx, "JoinFirst")); err != nil {
			return err
		}
	}
}

// segmentInfos returns what reads the info shard of segment seg once, for
// the batches of the segment's work on other goroutines, and then gives
// its lookup.
func segmentInfos(ctx context.Context, w jobfiles.WorkDir, seg int) func() (func(wire.Doc) *wire.Info, error) {
	return sync.OnceValues(func() (func(wire.Doc) *wire.Info, error) {
		infos, err := w.ReadInfoShard(ctx, seg)
		if err != nil {
			return nil, err
		}
		return infos.Find, nil
	})
}

// FinishBundle emits the output of the segments still being worked on.
func (fn *halfJoinFileFn) FinishBundle(ctx context.Context, emit func(int64, []byte), emitStat func(string, int64)) error {
	defer fn.spilled.Close()
	return spilled.Finish(fn.ahead.Drain(0, []func(int64, []byte){fn.halves.Wrap(emit)}, emitStat, jobstate.BusyIn(ctx, "JoinFirst")), emit, fn.halves)
}

// verifyFileFn is verifyFn with the infos read from the segment's info
// shard (see workfiles.go) instead of a shuffle.
//
// In: (segment, half-join records whose second documents are in the
// segment). Out: like verifyFn (keyed by the file of the first document),
// and a count of the segments (summary.StatSegments). The records are
// verified in batches of about verifyBatchBytes (collectBatch), each on
// another goroutine while the next is read (see docpool.AheadEmits), at
// most GOMAXPROCS in progress, all reading the segment's info shard once
// (segmentInfos).
type verifyFileFn struct {
	Work   jobfiles.WorkDir
	Verify verify.Config

	ahead   docpool.AheadEmits
	spilled spilled.In   // half-join records
	unsure  *spilled.Out // see spilled.go
}

func (fn *verifyFileFn) Setup() { fn.unsure = spilled.To(fn.Work, "unsure") }

func (fn *verifyFileFn) ProcessElement(ctx context.Context, k int64, halfChunks func(*[]byte) bool, emit, emitUnsure func(int64, []byte), emitStat func(string, int64)) error {
	seg := int(k)
	halfChunks, failed := fn.spilled.Iter(fn.Work, seg, halfChunks)
	find := segmentInfos(ctx, fn.Work, seg)
	emits := []func(int64, []byte){emit, fn.unsure.Wrap(emitUnsure)}
	for first, more := true, true; more; first = false {
		var chunks [][]byte
		chunks, more = collectBatch(halfChunks, verifyBatchBytes)
		if len(chunks) == 0 {
			break
		}
		fn.ahead.Start(2, func(emits []func(int64, []byte), emitStat func(string, int64)) error {
			info, err := find()
			if err != nil {
				return err
			}
			if first {
				emitStat(summary.StatSegments, 1)
			}
			return VerifyHalves(fn.Verify, fn.Work.SegmentBits, spilled.IterOf(chunks), info, fn.Work.SegmentShardName(seg), emits[0], emits[1], emitStat)
		})
		if err := fn.ahead.Drain(runtime.GOMAXPROCS(0), emits, emitStat, jobstate.BusyIn(ctx, "Verify")); err != nil {
			return err
		}
	}
	return failed()
}

// FinishBundle emits the output of the segments still being worked on.
func (fn *verifyFileFn) FinishBundle(ctx context.Context, emit, emitUnsure func(int64, []byte), emitStat func(string, int64)) error {
	defer fn.spilled.Close()
	return spilled.Finish(fn.ahead.Drain(0, []func(int64, []byte){emit, fn.unsure.Wrap(emitUnsure)}, emitStat, jobstate.BusyIn(ctx, "Verify")), emitUnsure, fn.unsure)
}

// UniquePairs decodes the candidate-pair chunks of iter, sorted and without
// repeats (a pair met in several blocks arrives once per block).
func UniquePairs(iter func(*[]byte) bool) ([]wire.Pair, error) {
	var pairs []wire.Pair
	var chunk []byte
	var err error
	for iter(&chunk) {
		if pairs, err = wire.AppendCandidates(pairs, chunk); err != nil {
			return nil, err
		}
	}
	return candidates.Unique(pairs), nil
}

// HalfJoin emits the first document's info (from info) of every pair to
// route of the second document: one record per first document and route,
// wire.AppendHalf, so that
// an info travels once per destination, not once per pair. pairs must be
// sorted (uniquePairs).
func HalfJoin(pairs []wire.Pair, info func(wire.Doc) *wire.Info, route func(wire.Doc) int, where string,
	emit func(int64, []byte), emitStat func(string, int64)) error {
	emit, report := tally.CountShuffle(tally.ShuffleHalves, emit, emitStat)
	b := wire.NewBatcher(0)
	var group []wire.Doc
	total := len(pairs)
	for len(pairs) > 0 {
		n := 1
		for n < len(pairs) && pairs[n].A == pairs[0].A {
			n++
		}
		a := info(pairs[0].A)
		if a == nil {
			return fmt.Errorf("join: no info for document %d (%s)", pairs[0].A, where)
		}
		group = group[:0]
		for _, p := range pairs[:n] {
			group = append(group, p.B)
		}
		slices.SortStableFunc(group, func(x, y wire.Doc) int { return cmp.Compare(route(x), route(y)) })
		for len(group) > 0 {
			r := route(group[0])
			k := 1
			for k < len(group) && route(group[k]) == r {
				k++
			}
			bs := group[:k]
			b.Add(r, func(c []byte) []byte { return wire.AppendHalf(c, a, bs) }, emit)
			group = group[k:]
		}
		pairs = pairs[n:]
	}
	b.Flush(emit)
	report()
	emitStat(summary.StatCandidates, int64(total))
	return nil
}

// VerifyHalves checks each pair of the half-join records of halfChunks
// against the second document's info (from info) under cfg, and emits
// the accepted matches, as wire.Match chunks keyed by the file of their
// first document, and the pairs whose estimate cannot decide, keyed by the
// exact checks' key of their first document (checkKey, with segments of
// bits).
func VerifyHalves(cfg verify.Config, bits int, halfChunks func(*[]byte) bool, info func(wire.Doc) *wire.Info, where string,
	emit, emitUnsure func(int64, []byte), emitStat func(string, int64)) error {
	emit, reportMatches := tally.CountShuffle(tally.ShuffleMatches, emit, emitStat)
	emitUnsure, reportUnsure := tally.CountShuffle(tally.ShuffleUnsure, emitUnsure, emitStat)
	byFile := wire.NewBatcher(0)
	unsure := wire.NewBatcher(0)
	var a wire.Info
	var verified, unsureN int64
	var chunk []byte
	var bDocs []wire.Doc
	var err error
	for halfChunks(&chunk) {
		for c := chunk; len(c) > 0; {
			if c, bDocs, err = wire.DecodeHalf(c, &a, bDocs); err != nil {
				return fmt.Errorf("verify: half-join record: %w", err)
			}
			for _, bDoc := range bDocs {
				b := info(bDoc)
				if b == nil {
					return fmt.Errorf("verify: no info for document %d (%s)", bDoc, where)
				}
				m, d := verify.Check(&a, b, cfg)
				jobstate.Progress.Verified.Add(1)
				switch d {
				case verify.Accept:
					jobstate.Progress.Matched.Add(1)
					verified++
					byFile.Add(wire.File(m.A), func(c []byte) []byte { return wire.AppendMatch(c, &m) }, emit)
				case verify.CheckExactly:
					unsureN++
					unsure.Add(CheckKey(m.A, bits), func(c []byte) []byte { return wire.AppendMatch(c, &m) }, emitUnsure)
				}
			}
		}
	}
	byFile.Flush(emit)
	unsure.Flush(emitUnsure)
	reportMatches()
	reportUnsure()
	emitStat(summary.StatByEstimate, verified)
	emitStat(summary.StatUnsure, unsureN)
	return nil
}
