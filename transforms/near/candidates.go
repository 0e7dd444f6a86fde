package near

import (
	"context"
	"fmt"
	"runtime"
	"slices"
	"time"

	"github.com/apache/beam/sdks/v2/go/pkg/beam"
	"github.com/apache/beam/sdks/v2/go/pkg/beam/register"

	"github.com/neardup/neardup/transforms/format/summary"
	"github.com/neardup/neardup/transforms/format/wire"
	"github.com/neardup/neardup/transforms/internal/docpool"
	"github.com/neardup/neardup/transforms/internal/rounds"
	"github.com/neardup/neardup/transforms/internal/tally"
	"github.com/neardup/neardup/transforms/job"
	"github.com/neardup/neardup/transforms/jobfiles"
	"github.com/neardup/neardup/transforms/jobfiles/filelist"
	"github.com/neardup/neardup/transforms/jobfiles/spilled"
	"github.com/neardup/neardup/transforms/jobstate"
	"github.com/neardup/neardup/transforms/match/blocking"
	"github.com/neardup/neardup/transforms/match/blockkeys"
	"github.com/neardup/neardup/transforms/match/candidates"
	"github.com/neardup/neardup/transforms/match/ensemble"
	"github.com/neardup/neardup/transforms/sign"
)

func init() {
	register.DoFn5x1[context.Context, int64, func(*[]byte) bool, func(int64, []byte), func(string, int64), error](&candidatesFn{})
}

// Candidates groups block entries by partition and proposes pairs, one
// round of entries after the other (see rounds.Run).
//
// In: rounds of block entries (key of the blockkeys.KeySpace, chunk; with
// o.Work.Spill, spill files: see spilled.Out), and the signature pass's
// stats under its StatsKey. Out: candidate pairs (segment of the first document,
// chunk), stats (the signature pass's too).
func Candidates(s beam.Scope, o Options, entries []beam.PCollection) (pairs, st beam.PCollection) {
	s = s.Scope("Candidates")
	out := rounds.Run(s, 2, &candidatesFn{Work: o.Work, Blocking: o.Blocking}, entries)
	return out[0], out[1]
}

// AuditCandidates is Candidates for an audit, over the grouped block
// entries of the new batch and of the index scan: pairs of two indexed
// documents are dropped (the index was deduplicated when it was built).
//
// In: (key of the blockkeys.KeySpace, block entries). Out: candidate pairs
// (partition of the first document, chunk), stats.
func AuditCandidates(s beam.Scope, o Options, grouped beam.PCollection) (pairs, st beam.PCollection) {
	return beam.ParDo2(s, &candidatesFn{Work: o.Work, Blocking: o.Blocking, Audit: true}, grouped)
}

// BlockingConfig is what turns buckets of block entries into candidate
// pairs.
type BlockingConfig struct {
	Limits     candidates.Limits
	Hamming    int             // SimHash bits
	Partitions int             // of the block keys (Keys)
	Tables     blocking.Design // SimHash tables; the zero Design: none
	// Contain is the containment keys' configuration (ensemble.Levels),
	// whose buckets give at most ContainLimits' pairs; the zero Config: no
	// containment.
	Contain       ensemble.Config
	ContainLimits candidates.Limits
}

// Keys is the key space of the block entries.
func (c BlockingConfig) Keys() blockkeys.KeySpace { return blockkeys.KeySpace{P: c.Partitions} }

// candidatesFn turns one partition of the blocking shuffle into candidate
// pairs.
//
// In: (key, chunks of the entries of its blockkeys.Kind). Out: candidate-pair chunks
// (wire.AppendCandidate) keyed by the segment of the pair's first
// document, whose info shard the join that follows reads.
//
// With Audit, the buckets hold new and indexed documents: pairs whose first
// document is indexed (filelist.IsIndexed, so both are) are dropped, and
// the pairs are keyed by the partition of their first document, where the
// audit's join finds its info with them (VerifyGrouped); their shuffle is
// not counted.
//
// The pairs of a partition are computed on another goroutine while the next
// partition arrives (see docpool.Ahead), and emitted in partition order.
//
// The entry and pair slices of a partition are reused for later partitions:
// fresh ones cost page faults as well as garbage while the runner's copies
// of the shuffle grow the heap.
type candidatesFn struct {
	Work     jobfiles.WorkDir
	Blocking BlockingConfig
	Audit    bool

	tables    *blocking.Tables
	levels    *ensemble.Levels // nil: no containment
	ahead     docpool.Ahead[candidatesResult]
	entryBufs docpool.Reuse[wire.Entry]
	simBufs   docpool.Reuse[wire.SimEntry]
	sizedBufs docpool.Reuse[wire.SizedEntry]
	pairBufs  docpool.Reuse[wire.Pair]
	spilled   spilled.In // block entries
	pairsOut  *spilled.Out
}

type candidatesResult struct {
	pairs []wire.Pair
	st    candidates.Stats
	began time.Time
	took  time.Duration
}

func (fn *candidatesFn) Setup() (err error) {
	fn.pairsOut = spilled.To(fn.Work, "pairs")
	if fn.tables, err = job.NewTables(fn.Blocking.Tables); err != nil {
		return err
	}
	if fn.Blocking.Contain.Threshold > 0 {
		fn.levels, err = ensemble.NewLevels(fn.Blocking.Contain)
	}
	return err
}

func (fn *candidatesFn) ProcessElement(ctx context.Context, k int64, chunks func(*[]byte) bool, emit func(int64, []byte), emitStat func(string, int64)) error {
	part := int(k)
	start := time.Now()
	var err error
	switch fn.Blocking.Keys().Kind(part) {
	case blockkeys.StatRecords:
		return sign.PassStats(chunks, emitStat)
	case blockkeys.BandEntries:
		err = fn.startBands(part, chunks)
	case blockkeys.TableEntries:
		err = fn.startTables(part, chunks)
	case blockkeys.ContainEntries:
		err = fn.startContained(part, chunks)
	default:
		err = fn.Blocking.Keys().Outside(part)
	}
	if err != nil {
		return err
	}
	jobstate.AddBusy(ctx, "Candidates", time.Since(start), start)
	return fn.ahead.Drain(runtime.GOMAXPROCS(0), fn.emitter(ctx, emit, emitStat))
}

// startBands decodes the band entries of partition part and starts their
// pairs' work.
func (fn *candidatesFn) startBands(part int, chunks func(*[]byte) bool) error {
	entries := fn.entryBufs.Get()
	err := fn.spilled.Each(fn.Work, part, chunks, func(chunk []byte) (err error) {
		entries, err = wire.AppendEntries(entries, chunk)
		return err
	})
	if err != nil {
		return err
	}
	limits := fn.Blocking.Limits
	fn.ahead.Start(func() (r candidatesResult) {
		t := time.Now()
		sorted, scratch := candidates.SortBuf(entries, fn.entryBufs.Get())
		r.pairs = fn.unique(candidates.Append(fn.pairBufs.Get(), sorted, limits, &r.st))
		fn.entryBufs.Put(entries)
		fn.entryBufs.Put(scratch)
		r.began, r.took = t, time.Since(t)
		return r
	})
	return nil
}

// startTables decodes the SimHash table entries of partition part and
// starts their pairs' work.
func (fn *candidatesFn) startTables(part int, chunks func(*[]byte) bool) error {
	entries := fn.simBufs.Get()
	err := fn.spilled.Each(fn.Work, part, chunks, func(chunk []byte) (err error) {
		entries, err = job.SimEntries(entries, chunk, fn.tables)
		return err
	})
	if err != nil {
		return err
	}
	k, limits := fn.Blocking.Hamming, fn.Blocking.Limits
	fn.ahead.Start(func() (r candidatesResult) {
		t := time.Now()
		sorted, scratch := candidates.SortSimBuf(entries, fn.simBufs.Get())
		r.pairs = fn.unique(candidates.AppendNear(fn.pairBufs.Get(), sorted, k, limits, &r.st))
		fn.simBufs.Put(entries)
		fn.simBufs.Put(scratch)
		r.began, r.took = t, time.Since(t)
		return r
	})
	return nil
}

// startContained decodes the containment entries of partition part and
// starts their pairs' work.
func (fn *candidatesFn) startContained(part int, chunks func(*[]byte) bool) error {
	if fn.levels == nil {
		return fmt.Errorf("candidates: containment entries in partition %d of a job without containment", part)
	}
	entries := fn.sizedBufs.Get()
	err := fn.spilled.Each(fn.Work, part, chunks, func(chunk []byte) (err error) {
		entries, err = wire.AppendSizedEntries(entries, chunk)
		return err
	})
	if err != nil {
		return err
	}
	limits := fn.Blocking.ContainLimits
	fn.ahead.Start(func() (r candidatesResult) {
		t := time.Now()
		sorted, scratch := candidates.SortSizedBuf(entries, fn.sizedBufs.Get())
		r.pairs = fn.unique(candidates.AppendContained(fn.pairBufs.Get(), sorted, fn.levels, limits, &r.st))
		fn.sizedBufs.Put(entries)
		fn.sizedBufs.Put(scratch)
		r.began, r.took = t, time.Since(t)
		return r
	})
	return nil
}

// unique sorts pairs and drops repeats (and with Audit the pairs of
// indexed documents), with a working buffer from the pool.
func (fn *candidatesFn) unique(pairs []wire.Pair) []wire.Pair {
	if fn.Audit {
		pairs = slices.DeleteFunc(pairs, func(p wire.Pair) bool { return filelist.IsIndexed(p.A) })
	}
	pairs, scratch := candidates.UniqueBuf(pairs, fn.pairBufs.Get())
	fn.pairBufs.Put(scratch)
	return pairs
}

// FinishBundle emits the partitions still being worked on and lets go of
// the reused slices: a runner that keeps the DoFn for the rest of the job
// (the direct runner) would otherwise keep the largest partition's entries
// through the stages after.
func (fn *candidatesFn) FinishBundle(ctx context.Context, emit func(int64, []byte), emitStat func(string, int64)) error {
	defer fn.spilled.Close()
	err := spilled.Finish(fn.ahead.Drain(0, fn.emitter(ctx, emit, emitStat)), emit, fn.pairsOut)
	fn.entryBufs.Clear()
	fn.simBufs.Clear()
	fn.sizedBufs.Clear()
	fn.pairBufs.Clear()
	return err
}

func (fn *candidatesFn) emitter(ctx context.Context, emit func(int64, []byte), emitStat func(string, int64)) func(candidatesResult) error {
	return func(r candidatesResult) error {
		start := time.Now()
		if fn.Audit {
			P := fn.Blocking.Partitions
			EmitCandidates(r.pairs, func(d wire.Doc) int { return wire.Partition(d, P) }, emit)
		} else {
			var pairs tally.Shuffle
			EmitCandidates(r.pairs, fn.Work.Segment, pairs.Count(fn.pairsOut.Wrap(emit)))
			pairs.Report(tally.ShuffleCandidates, emitStat)
		}
		fn.pairBufs.Put(r.pairs)
		BucketStats(r.st).Emit(emitStat)
		jobstate.AddBusy(ctx, "Candidates", r.took+time.Since(start), r.began)
		return nil
	}
}

// BucketStats is what proposing the pairs of a partition counted.
func BucketStats(st candidates.Stats) tally.Counts {
	return tally.Counts{
		{Name: summary.StatBuckets, N: st.Buckets},
		{Name: summary.StatHot, N: st.HotBuckets},
		{Name: summary.StatSkipped, N: st.Skipped},
		{Name: summary.StatFar, N: st.Far},
	}
}

// EmitCandidates emits pairs as candidate-pair chunks (wire.AppendCandidate)
// keyed by route of their first document.
func EmitCandidates(pairs []wire.Pair, route func(wire.Doc) int, emit func(int64, []byte)) {
	b := wire.NewBatcher(0)
	prev := map[int]wire.Doc{} // by route, but cur's, which is in last
	cur, last := -1, wire.Doc(0)
	for _, p := range pairs {
		if r := route(p.A); r != cur {
			if cur >= 0 {
				prev[cur] = last
			}
			cur, last = r, prev[r]
		}
		b.Add(cur, func(c []byte) []byte { return wire.AppendCandidate(c, p, &last) }, emit)
	}
	b.Flush(emit)
}
