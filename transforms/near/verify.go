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
	"github.com/neardup/neardup/transforms/jobfiles/filelist"
	"github.com/neardup/neardup/transforms/jobfiles/recshards"
	"github.com/neardup/neardup/transforms/jobfiles/spilled"
	"github.com/neardup/neardup/transforms/jobstate"
	"github.com/neardup/neardup/transforms/match/verify"
)

func init() {
	register.DoFn5x1[context.Context, int64, func(*[]byte) bool, func(int64, []byte), func(string, int64), error](&halfJoinFn{})
	register.DoFn6x1[context.Context, int64, func(*[]byte) bool, func(int64, []byte), func(int64, []byte), func(string, int64), error](&verifyFn{})
	register.DoFn6x1[context.Context, int64, func(*[]byte) bool, func(*[]byte) bool, func(int64, []byte), func(string, int64), error](&groupHalfJoinFn{})
	register.DoFn7x1[context.Context, int64, func(*[]byte) bool, func(*[]byte) bool, func(int64, []byte), func(int64, []byte), func(string, int64), error](&groupVerifyFn{})
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
func Verify(s beam.Scope, o Options, files filelist.Files, pairs beam.PCollection) (matches, st beam.PCollection) {
	s = s.Scope("Verify")
	halves := filelist.ByFile(s.Scope("JoinFirst"), &halfJoinFn{Work: o.Work, Batches: o.Batches}, pairs)
	byRound := rounds.SplitSegments(s, o.Rounds, o.Work.SegmentBits, halves[0])
	checked := rounds.Run(s.Scope("Check"), 3, &verifyFn{Work: o.Work, Verify: o.Verify, Batches: o.Batches}, byRound)
	accepted, unsure, st1, st2 := checked[0], checked[1], halves[1], checked[2]
	exact, st3 := ExactChecks(s, o, files.Manifest, unsure, st2)
	return beam.Flatten(s, accepted, exact), beam.Flatten(s, st1, st2, st3)
}

// VerifyGrouped is the join and verification of Verify with the infos
// shuffled with the pairs rather than read from info shards (an audit's:
// it joins the infos of new and indexed documents), both keyed by
// partition of the document (o.Blocking.Partitions).
//
// In: infos (partition of the document, chunk), candidate pairs (partition
// of the first document, chunk). Out: accepted matches (file index of A,
// chunk), the pairs whose estimate cannot decide (exact checks' key of A,
// chunk), the join's stats and the verification's.
func VerifyGrouped(s beam.Scope, o Options, infos, pairs beam.PCollection) (accepted, unsure, joinSt, verifySt beam.PCollection) {
	P := o.Blocking.Partitions
	halves, joinSt := beam.ParDo2(s, &groupHalfJoinFn{halfJoinFn{Work: o.Work, Batches: o.Batches, Partitions: P}}, beam.CoGroupByKey(s, infos, pairs))
	accepted, unsure, verifySt = beam.ParDo3(s, &groupVerifyFn{verifyFn{Work: o.Work, Verify: o.Verify, Batches: o.Batches, Partitions: P}}, beam.CoGroupByKey(s, infos, halves))
	return accepted, unsure, joinSt, verifySt
}

// halfJoinFn is the first half of the join of candidate pairs with document
// infos.
//
// In: (segment, candidate pairs whose first document is in the segment),
// the infos read from the segment's info shard. Out: half-join records
// (see HalfJoin) keyed by the segment of the second documents: each first
// document's info once per segment of its partners. The segment's pairs
// are sorted within Batches.PairRunBytes (sortPairs, spilling sorted runs
// beyond) and joined in batches of about Batches.JoinPairs, each on another goroutine
// while the next is read (see docpool.AheadEmits), at most GOMAXPROCS in
// progress: the records of each destination come out in the same order as
// from one HalfJoin of the whole segment. A pair met in several blocks is
// passed on once.
//
// With Partitions, keys are partitions of the documents instead, and the
// infos come with the pairs (groupHalfJoinFn).
type halfJoinFn struct {
	Work       jobfiles.WorkDir
	Batches    Batches
	Partitions int // 0: keys are segments

	ahead   docpool.AheadEmits
	spilled spilled.In // candidate pairs
	halves  *spilled.Out
}

func (fn *halfJoinFn) Setup() { fn.halves = spilled.To(fn.Work, "halves") }

func (fn *halfJoinFn) ProcessElement(ctx context.Context, k int64, pairChunks func(*[]byte) bool, emit func(int64, []byte), emitStat func(string, int64)) error {
	return fn.join(ctx, int(k), segmentInfos(ctx, fn.Work, int(k)), pairChunks, emit, emitStat)
}

// join joins the pairs of key k with the infos find gives.
func (fn *halfJoinFn) join(ctx context.Context, k int, find func() (func(wire.Doc) *wire.Info, error), pairChunks func(*[]byte) bool, emit func(int64, []byte), emitStat func(string, int64)) error {
	start := time.Now()
	pairChunks, failed := fn.spilled.Iter(fn.Work, k, pairChunks)
	pairs, err := sortPairs(pairChunks, fn.Work.Dir, fn.Batches.withDefaults().PairRunBytes)
	if err != nil {
		return err
	}
	defer pairs.close()
	if err := failed(); err != nil {
		return err
	}
	jobstate.AddBusy(ctx, "JoinFirst", time.Since(start), start)
	route, where := routeOf(fn.Work, fn.Partitions, k)
	emits := []func(int64, []byte){fn.halves.Wrap(emit)}
	for {
		start := time.Now()
		batch, err := pairs.batch(fn.Batches.withDefaults().JoinPairs)
		if err != nil || len(batch) == 0 {
			return err
		}
		jobstate.AddBusy(ctx, "JoinFirst", time.Since(start), start)
		fn.ahead.Start(1, func(emits []func(int64, []byte), emitStat func(string, int64)) error {
			info, err := find()
			if err != nil {
				return err
			}
			return HalfJoin(batch, info, route, where, emits[0], emitStat)
		})
		if err := fn.ahead.Drain(runtime.GOMAXPROCS(0), emits, emitStat, jobstate.BusyIn(ctx, "JoinFirst")); err != nil {
			return err
		}
	}
}

// routeOf returns the key of a document's infos and what names key k in
// errors: its segment and the segment's info shard, or with partitions its
// partition.
func routeOf(w jobfiles.WorkDir, partitions, k int) (route func(wire.Doc) int, where string) {
	if partitions == 0 {
		return w.Segment, w.SegmentShardName(k)
	}
	return func(d wire.Doc) int { return wire.Partition(d, partitions) }, fmt.Sprintf("partition %d", k)
}

// segmentInfos returns what reads the info shard of segment seg once, for
// the batches of the segment's work on other goroutines, and then gives
// its lookup.
func segmentInfos(ctx context.Context, w jobfiles.WorkDir, seg int) func() (func(wire.Doc) *wire.Info, error) {
	return sync.OnceValues(func() (func(wire.Doc) *wire.Info, error) {
		infos, err := recshards.ReadInfoShard(ctx, w, seg)
		if err != nil {
			return nil, err
		}
		return infos.Find, nil
	})
}

// groupInfos decodes the wire.Info chunks of iter and returns what gives
// their lookup.
func groupInfos(iter func(*[]byte) bool) (func() (func(wire.Doc) *wire.Info, error), error) {
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
	find := func(d wire.Doc) *wire.Info { return m[d] }
	return func() (func(wire.Doc) *wire.Info, error) { return find, nil }, nil
}

// FinishBundle emits the output of the keys still being worked on.
func (fn *halfJoinFn) FinishBundle(ctx context.Context, emit func(int64, []byte), emitStat func(string, int64)) error {
	defer fn.spilled.Close()
	return spilled.Finish(fn.ahead.Drain(0, []func(int64, []byte){fn.halves.Wrap(emit)}, emitStat, jobstate.BusyIn(ctx, "JoinFirst")), emit, fn.halves)
}

// groupHalfJoinFn is halfJoinFn with the infos of the partition grouped
// with its pairs.
type groupHalfJoinFn struct{ halfJoinFn }

func (fn *groupHalfJoinFn) ProcessElement(ctx context.Context, k int64, infoChunks, pairChunks func(*[]byte) bool, emit func(int64, []byte), emitStat func(string, int64)) error {
	find, err := groupInfos(infoChunks)
	if err != nil {
		return err
	}
	return fn.join(ctx, int(k), find, pairChunks, emit, emitStat)
}

// verifyFn is the second half of the join, and the verification.
//
// In: (segment, half-join records whose second documents are in the
// segment), the infos read from the segment's info shard. Out: the
// accepted matches and the pairs whose estimate cannot decide (both as
// wire.Match chunks, keyed by the file of their first document and by the
// exact checks' key), and a count of the segments (summary.StatSegments).
// The records are verified in batches of about Batches.VerifyBytes
// (collectBatch), each on another goroutine while the next is read (see
// docpool.AheadEmits), at most GOMAXPROCS in progress, all reading the
// segment's info shard once (segmentInfos).
//
// With Partitions, keys are partitions of the documents instead, the
// infos come with the records (groupVerifyFn), and the segments are not
// counted.
type verifyFn struct {
	Work       jobfiles.WorkDir
	Verify     verify.Config
	Batches    Batches
	Partitions int // 0: keys are segments

	ahead   docpool.AheadEmits
	spilled spilled.In // half-join records
	unsure  *spilled.Out
}

func (fn *verifyFn) Setup() { fn.unsure = spilled.To(fn.Work, "unsure") }

func (fn *verifyFn) ProcessElement(ctx context.Context, k int64, halfChunks func(*[]byte) bool, emit, emitUnsure func(int64, []byte), emitStat func(string, int64)) error {
	return fn.verify(ctx, int(k), segmentInfos(ctx, fn.Work, int(k)), halfChunks, emit, emitUnsure, emitStat)
}

// verify verifies the half-join records of key k against the infos find
// gives.
func (fn *verifyFn) verify(ctx context.Context, k int, find func() (func(wire.Doc) *wire.Info, error), halfChunks func(*[]byte) bool, emit, emitUnsure func(int64, []byte), emitStat func(string, int64)) error {
	halfChunks, failed := fn.spilled.Iter(fn.Work, k, halfChunks)
	_, where := routeOf(fn.Work, fn.Partitions, k)
	emits := []func(int64, []byte){emit, fn.unsure.Wrap(emitUnsure)}
	for first, more := true, true; more; first = false {
		var chunks [][]byte
		chunks, more = collectBatch(halfChunks, fn.Batches.withDefaults().VerifyBytes)
		if len(chunks) == 0 {
			break
		}
		fn.ahead.Start(2, func(emits []func(int64, []byte), emitStat func(string, int64)) error {
			info, err := find()
			if err != nil {
				return err
			}
			if first && fn.Partitions == 0 {
				emitStat(summary.StatSegments, 1)
			}
			return VerifyHalves(fn.Verify, fn.Work.SegmentBits, spilled.IterOf(chunks), info, where, emits[0], emits[1], emitStat)
		})
		if err := fn.ahead.Drain(runtime.GOMAXPROCS(0), emits, emitStat, jobstate.BusyIn(ctx, "Verify")); err != nil {
			return err
		}
	}
	return failed()
}

// FinishBundle emits the output of the keys still being worked on.
func (fn *verifyFn) FinishBundle(ctx context.Context, emit, emitUnsure func(int64, []byte), emitStat func(string, int64)) error {
	defer fn.spilled.Close()
	return spilled.Finish(fn.ahead.Drain(0, []func(int64, []byte){emit, fn.unsure.Wrap(emitUnsure)}, emitStat, jobstate.BusyIn(ctx, "Verify")), emitUnsure, fn.unsure)
}

// groupVerifyFn is verifyFn with the infos of the partition grouped with
// its half-join records.
type groupVerifyFn struct{ verifyFn }

func (fn *groupVerifyFn) ProcessElement(ctx context.Context, k int64, infoChunks, halfChunks func(*[]byte) bool, emit, emitUnsure func(int64, []byte), emitStat func(string, int64)) error {
	find, err := groupInfos(infoChunks)
	if err != nil {
		return err
	}
	return fn.verify(ctx, int(k), find, halfChunks, emit, emitUnsure, emitStat)
}

// HalfJoin emits the first document's info (from info) of every pair to
// route of the second document: one record per first document and route,
// wire.AppendHalf, so that
// an info travels once per destination, not once per pair. pairs must be
// sorted, without repeats (sortPairs).
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
	cfg = cfg.Prepared()
	emit, reportMatches := tally.CountShuffle(tally.ShuffleMatches, emit, emitStat)
	emitUnsure, reportUnsure := tally.CountShuffle(tally.ShuffleUnsure, emitUnsure, emitStat)
	byFile := wire.NewBatcher(0)
	unsure := wire.NewBatcher(0)
	var a wire.Info
	var verified, indexed, unsureN int64
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
					if filelist.IsIndexed(m.B) {
						indexed++
					} else {
						verified++
					}
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
	emitStat(summary.StatIndexVerified, indexed)
	emitStat(summary.StatUnsure, unsureN)
	return nil
}
