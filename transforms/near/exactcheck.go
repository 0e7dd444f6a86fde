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
	"github.com/neardup/neardup/transforms/internal/workfiles"
	"github.com/neardup/neardup/transforms/job"
	"github.com/neardup/neardup/transforms/jobfiles"
	"github.com/neardup/neardup/transforms/jobfiles/docshards"
	"github.com/neardup/neardup/transforms/jobfiles/filelist"
	"github.com/neardup/neardup/transforms/jobfiles/spilled"
	"github.com/neardup/neardup/transforms/jobstate"
	"github.com/neardup/neardup/transforms/match/verify"
	"github.com/neardup/neardup/transforms/sign"
	"github.com/neardup/neardup/transforms/sketch/signature"
	"github.com/neardup/neardup/transforms/sketch/similarity"
)

func init() {
	register.DoFn5x1[context.Context, int64, func(*[]byte) bool, func(int64, []byte), func(string, int64), error](&ShingleSetsFn{})
	register.DoFn5x1[context.Context, int64, func(*[]byte) bool, func(int64, []byte), func(string, int64), error](&ExactJaccardFn{})
}

// ExactChecks computes the exact Jaccard of the unsure pairs in
// cfg.ShuffleRounds() rounds, one after the other, each for the pairs
// whose second document's segment belongs to the round (see checkRound):
// shingleSetsFn sends the first documents' shingle sets to the segments
// of the second ones, and exactJaccardFn compares them there. Both work
// by segment (see checkKey), reading its document shard, in batches of
// matches of about Batches.CheckBytes, so a pass holds one batch per segment
// in progress however long the file and however many its pairs. A round's
// grouped input waits for the stats of the round before it (the first for
// wait), flattened in by rounds.After. A runner that keeps every shuffled
// byte in memory (Prism) then holds one round's shingle sets at a time,
// the largest shuffle of a run at full size; each round reads the
// document shards again, but decodes only the records it needs.
//
// In: unsure matches (checkKey of A, chunk), stats to wait for. Out:
// matches (file index of A, chunk), stats.
func ExactChecks(s beam.Scope, o Options, manifest string, unsure, wait beam.PCollection) (matches, st beam.PCollection) {
	n := o.Rounds
	check := ShingleChecks{Work: o.Work, Sign: o.Sign, Read: o.Read, Manifest: manifest, Batches: o.Batches}
	var ms, sts []beam.PCollection
	for i := range n {
		part := unsure
		if n > 1 && !o.Work.Spill { // spilled, shingleSetsFn keeps the round's matches
			part = beam.ParDo(s, &DestBranchFn{N: n, I: i, Bits: o.Work.SegmentBits}, unsure)
		}
		grouped := beam.GroupByKey(s, beam.Flatten(s, part, beam.ParDo(s, rounds.After, wait)))
		sets, st1 := beam.ParDo2(s.Scope("ShingleSets"), &ShingleSetsFn{Check: check, Rounds: n, Round: i}, grouped)
		exact := filelist.ByFile(s.Scope("ExactJaccard"), &ExactJaccardFn{Check: check, Verify: o.Verify}, sets)
		ms, sts = append(ms, exact[0]), append(sts, st1, exact[1])
		wait = exact[1]
	}
	return beam.Flatten(s, ms...), beam.Flatten(s, sts...)
}

// ShingleSetsFn is the first half of the exact check of unsure pairs.
//
// In: (checkKey, unsure matches whose first document has that key);
// ExactChecks makes the group wait for the round before (see rounds.After). It
// reads the segment's documents again, and Out: for each first
// document and each key of second documents of its matches, one record
// under that key: uvarint count, the matches, then the first document's
// shingle set (wire.AppendSet). A set thus travels once per destination
// segment, not once per match.
type ShingleSetsFn struct {
	Check ShingleChecks
	// With Check.Work.Spill, the function keeps only the matches of round
	// Round of Rounds (see destBranchFn), which ExactChecks cannot select
	// from the names of the spill files it shuffles.
	Rounds, Round int

	docs    shingleReader
	ahead   docpool.AheadEmits
	spilled spilled.In // unsure matches
	sets    *spilled.Out
}

func (fn *ShingleSetsFn) Setup(ctx context.Context) (err error) {
	fn.sets = spilled.To(fn.Check.Work, "sets")
	fn.docs, err = fn.Check.reader(ctx)
	return err
}

func (fn *ShingleSetsFn) ProcessElement(ctx context.Context, k int64, chunks func(*[]byte) bool, emit func(int64, []byte), emitStat func(string, int64)) error {
	key := int(k)
	chunks, failed := fn.spilled.Iter(fn.Check.Work, key, chunks)
	var keep func(*wire.Match) bool
	if fn.Check.Work.Spill && fn.Rounds > 1 {
		bits := fn.Check.Work.SegmentBits
		keep = func(m *wire.Match) bool { return CheckRound(m.B, bits, fn.Rounds) == fn.Round }
	}
	read := func() (matchBatch, error) {
		return readMatches(chunks, fn.Check.Batches.withDefaults().CheckBytes, false, keep, func(m *wire.Match) int64 { return wire.Line(m.A) })
	}
	err := checkBatches(ctx, &fn.ahead, "ShingleSets", fn.sets.Wrap(emit), emitStat, read, func(b matchBatch, emit func(int64, []byte), emitStat func(string, int64)) error {
		emit, report := tally.CountShuffle(tally.ShuffleSets, emit, emitStat)
		defer report()
		return fn.work(ctx, key, b, emit)
	})
	if err != nil {
		return err
	}
	return failed()
}

// FinishBundle emits the output of the files still being worked on.
func (fn *ShingleSetsFn) FinishBundle(ctx context.Context, emit func(int64, []byte), emitStat func(string, int64)) error {
	defer fn.spilled.Close()
	return spilled.Finish(fn.ahead.Drain(0, []func(int64, []byte){fn.sets.Wrap(emit)}, emitStat, jobstate.BusyIn(ctx, "ShingleSets")), emit, fn.sets)
}

func (fn *ShingleSetsFn) work(ctx context.Context, key int, mb matchBatch, emit func(int64, []byte)) error {
	b := wire.NewBatcher(0)
	bits := fn.Check.Work.SegmentBits
	ms := mb.ms
	destOf := func(i int) int { return CheckKey(ms[i].B, bits) }
	err := fn.docs.each(ctx, key, mb.byLine, func(set []uint32, idx []int) {
		slices.SortFunc(idx, func(i, j int) int { return cmp.Compare(destOf(i), destOf(j)) })
		for len(idx) > 0 {
			dest := destOf(idx[0])
			n := 1
			for n < len(idx) && destOf(idx[n]) == dest {
				n++
			}
			group := idx[:n]
			b.Add(dest, func(c []byte) []byte {
				return wire.AppendMatchSet(c, len(group), func(i int) *wire.Match { return &ms[group[i]] }, set)
			}, emit)
			idx = idx[n:]
		}
	})
	b.Flush(emit)
	return err
}

// ExactJaccardFn is the second half of the exact check.
//
// In: (checkKey, unsure matches with their first document's shingle set,
// whose second document has that key). It reads the segment's documents
// again, and Out: the matches whose exact Jaccard reaches the threshold,
// with that Jaccard, keyed by the file of their first document.
type ExactJaccardFn struct {
	Check  ShingleChecks
	Verify verify.Config // the threshold the exact Jaccard must reach

	docs    shingleReader
	ahead   docpool.AheadEmits
	spilled spilled.In // shingle sets
}

func (fn *ExactJaccardFn) Setup(ctx context.Context) (err error) {
	fn.docs, err = fn.Check.reader(ctx)
	return err
}

func (fn *ExactJaccardFn) ProcessElement(ctx context.Context, k int64, chunks func(*[]byte) bool, emit func(int64, []byte), emitStat func(string, int64)) error {
	key := int(k)
	chunks, failed := fn.spilled.Iter(fn.Check.Work, key, chunks)
	read := func() (matchBatch, error) {
		return readMatches(chunks, fn.Check.Batches.withDefaults().CheckBytes, true, nil, func(m *wire.Match) int64 { return wire.Line(m.B) })
	}
	err := checkBatches(ctx, &fn.ahead, "ExactJaccard", emit, emitStat, read, func(b matchBatch, emit func(int64, []byte), emitStat func(string, int64)) error {
		return fn.work(ctx, key, b, emit, emitStat)
	})
	if err != nil {
		return err
	}
	return failed()
}

// checkBatches reads a segment's matches batch by batch (read) and starts
// work on each on another goroutine, with output emit, leaving at most
// GOMAXPROCS batches in progress; stage names their busy time.
func checkBatches(ctx context.Context, ahead *docpool.AheadEmits, stage string, emit func(int64, []byte), emitStat func(string, int64),
	read func() (matchBatch, error), work func(b matchBatch, emit func(int64, []byte), emitStat func(string, int64)) error) error {
	emits := []func(int64, []byte){emit}
	for more := true; more; {
		start := time.Now()
		b, err := read()
		if err != nil {
			return err
		}
		more = b.more
		if len(b.ms) == 0 {
			continue
		}
		jobstate.AddBusy(ctx, stage, time.Since(start), start)
		ahead.Start(1, func(emits []func(int64, []byte), emitStat func(string, int64)) error {
			return work(b, emits[0], emitStat)
		})
		if err := ahead.Drain(runtime.GOMAXPROCS(0), emits, emitStat, jobstate.BusyIn(ctx, stage)); err != nil {
			return err
		}
	}
	return nil
}

// FinishBundle emits the output of the files still being worked on.
func (fn *ExactJaccardFn) FinishBundle(ctx context.Context, emit func(int64, []byte), emitStat func(string, int64)) error {
	defer fn.spilled.Close()
	return fn.ahead.Drain(0, []func(int64, []byte){emit}, emitStat, jobstate.BusyIn(ctx, "ExactJaccard"))
}

func (fn *ExactJaccardFn) work(ctx context.Context, key int, mb matchBatch, emit func(int64, []byte), emitStat func(string, int64)) error {
	emit, report := tally.CountShuffle(tally.ShuffleMatches, emit, emitStat)
	defer report()
	b := wire.NewBatcher(0)
	var accepted, indexed int64
	err := fn.docs.each(ctx, key, mb.byLine, func(set []uint32, idx []int) {
		for _, i := range idx {
			m := &mb.ms[i]
			if !fn.Verify.Exact(m, mb.sets[i], set) {
				continue
			}
			if filelist.IsIndexed(m.B) {
				indexed++
			} else {
				accepted++
			}
			jobstate.Progress.Matched.Add(1)
			b.Add(wire.File(m.A), func(c []byte) []byte { return wire.AppendMatch(c, m) }, emit)
		}
	})
	b.Flush(emit)
	emitStat(summary.StatByExact, accepted)
	emitStat(summary.StatIndexVerified, indexed)
	return err
}

// ShingleChecks is what the exact checks read documents with: the work
// directory (their document shards), how to parse an input that has none
// (an audit's indexed sources), the file manifest (workfiles.WriteManifest)
// that gives the inputs' paths, and the signers whose shingles they
// compare.
type ShingleChecks struct {
	Work     jobfiles.WorkDir
	Sign     job.Signing
	Read     job.ReadOptions
	Manifest string
	Batches  Batches // CheckBytes
}

// reader returns c's shingleReader, set up once per DoFn instance: the
// manifest's paths and the process's signers.
func (c ShingleChecks) reader(ctx context.Context) (shingleReader, error) {
	r := shingleReader{ShingleChecks: c}
	var err error
	if r.paths, err = workfiles.FilePaths(ctx, c.Manifest); err != nil {
		return r, err
	}
	r.signers, err = sign.SharedSigners(c.Sign)
	return r, err
}

// shingleReader reads documents again for the exact checks.
type shingleReader struct {
	ShingleChecks
	paths   map[int]string // the manifest's, by file index
	signers *sign.SignerPool
}

// each re-reads the documents under key (see checkKey, checkDocs) and
// calls fn with the 32-bit shingle set of every document whose line is in
// byLine, and the match indexes listed there. The sets are computed on
// Work.Workers goroutines, with signers from the pool, and fn is called on
// the calling goroutine in the order they complete. It fails if a listed
// document is not found.
func (r shingleReader) each(ctx context.Context, key int, byLine map[int64][]int, fn func(set []uint32, idx []int)) error {
	file, _ := wire.SegmentFile(key, r.Work.SegmentBits)
	path, ok := r.paths[file]
	if !ok {
		return fmt.Errorf("exact check: no path for file %d", file)
	}
	opt := r.Read.Options()
	var want wire.LineSet
	for l := range byLine {
		want.Add(l)
	}
	opt.Only = want.Has
	signers, form := r.signers, r.Sign.Norm
	var mu sync.Mutex
	var held []*signature.Signer
	defer func() {
		for _, s := range held {
			signers.Put(s)
		}
	}()
	newWorker := func() (func(*docpool.Doc, *shingleSet), error) {
		signer, err := signers.Get()
		if err != nil {
			return nil, err
		}
		mu.Lock()
		held = append(held, signer)
		mu.Unlock()
		var sorter similarity.Sorter
		return func(d *docpool.Doc, r *shingleSet) {
			r.set = set32(&sorter, r.set, signer.Shingles(d.Norm(form)))
			r.line = d.Index
		}, nil
	}
	found := 0
	err := docpool.Map(docshards.CheckDocs(ctx, r.Work, key, path, opt), r.Work.Workers, newWorker, func(r *shingleSet) {
		// The reader reads only the lines in byLine, each once.
		found++
		fn(r.set, byLine[r.line])
	}, nil)
	if err != nil {
		return err
	}
	if found < len(byLine) {
		return fmt.Errorf("exact check: %d documents of %s not found on re-reading", len(byLine)-found, path)
	}
	return nil
}

// shingleSet is the shingle set of the document on a line.
type shingleSet struct {
	set  []uint32
	line int64
}

// set32 returns the sorted set of the low 32 bits of shingle hashes. Exact
// checks compare these: half the bytes to ship, and two of the ~10^3
// shingles of a document agree in 32 bits with probability ~10^-4, which
// moves a Jaccard value by about 10^-3 at most.
func set32(s *similarity.Sorter, dst []uint32, shingles []uint64) []uint32 {
	dst = dst[:0]
	for _, v := range shingles {
		dst = append(dst, uint32(v))
	}
	return s.Set(dst)
}

// MapBytes is the most memory the batches of one file's docpool.Map in
// the exact checks hold on workers goroutines (docpool.MapBytes).
func MapBytes(workers int) int64 { return docpool.MapBytes[shingleSet](workers) }
