package transforms

import (
	"cmp"
	"context"
	"encoding/binary"
	"fmt"
	"runtime"
	"slices"
	"time"

	"github.com/apache/beam/sdks/v2/go/pkg/beam/register"

	"github.com/neardup/neardup/transforms/format/wire"
	"github.com/neardup/neardup/transforms/match/blocking"
	"github.com/neardup/neardup/transforms/match/candidates"
	"github.com/neardup/neardup/transforms/match/verify"
)

func init() {
	register.DoFn5x1[context.Context, int, func(*[]byte) bool, func(int, []byte), func(string, int64), error](&CandidatesFn{})
	register.DoFn6x1[context.Context, int, func(*[]byte) bool, func(*[]byte) bool, func(int, []byte), func(string, int64), error](&HalfJoinFn{})
	register.DoFn7x1[context.Context, int, func(*[]byte) bool, func(*[]byte) bool, func(int, []byte), func(int, []byte), func(string, int64), error](&VerifyFn{})
	register.DoFn5x1[context.Context, int, func(*[]byte) bool, func(int, []byte), func(string, int64), error](&HalfJoinFileFn{})
	register.DoFn6x1[context.Context, int, func(*[]byte) bool, func(int, []byte), func(int, []byte), func(string, int64), error](&VerifyFileFn{})
}

// CandidatesFn turns one partition of the blocking shuffle into candidate
// pairs.
//
// In: (partition, chunks of wire.Entry, or of wire.SimEntry for partitions
// >= Cfg.Partitions). Out: candidate-pair chunks (wire.AppendCandidate)
// keyed by the input file of the pair's first document, whose info shard
// the join that follows reads.
//
// The pairs of a partition are computed on another goroutine while the next
// partition arrives (see ahead), and emitted in partition order.
//
// The entry and pair slices of a partition are reused for later partitions:
// fresh ones cost page faults as well as garbage while the runner's copies
// of the shuffle grow the heap.
type CandidatesFn struct {
	Cfg Config

	tables    *blocking.Tables
	ahead     ahead[candidatesResult]
	entryBufs reuse[wire.Entry]
	simBufs   reuse[wire.SimEntry]
	pairBufs  reuse[wire.Pair]
}

type candidatesResult struct {
	pairs []wire.Pair
	st    candidates.Stats
	began time.Time
	took  time.Duration
}

func (fn *CandidatesFn) Setup() (err error) {
	fn.tables, err = fn.Cfg.simTables()
	return err
}

func (fn *CandidatesFn) ProcessElement(ctx context.Context, part int, chunks func(*[]byte) bool, emit func(int, []byte), emitStat func(string, int64)) error {
	start := time.Now()
	var chunk []byte
	var err error
	limits := fn.Cfg.limits()
	if part < fn.Cfg.Partitions {
		entries := fn.entryBufs.get()
		for chunks(&chunk) {
			if entries, err = wire.AppendEntries(entries, chunk); err != nil {
				return err
			}
		}
		fn.ahead.start(func() (r candidatesResult) {
			t := time.Now()
			sorted, scratch := candidates.SortBuf(entries, fn.entryBufs.get())
			r.pairs = fn.unique(candidates.Append(fn.pairBufs.get(), sorted, limits, &r.st))
			fn.entryBufs.put(entries)
			fn.entryBufs.put(scratch)
			r.began, r.took = t, time.Since(t)
			return r
		})
	} else {
		entries := fn.simBufs.get()
		for chunks(&chunk) {
			if entries, err = simEntries(entries, chunk, fn.tables); err != nil {
				return err
			}
		}
		k := fn.Cfg.Hamming
		fn.ahead.start(func() (r candidatesResult) {
			t := time.Now()
			sorted, scratch := candidates.SortSimBuf(entries, fn.simBufs.get())
			r.pairs = fn.unique(candidates.AppendNear(fn.pairBufs.get(), sorted, k, limits, &r.st))
			fn.simBufs.put(entries)
			fn.simBufs.put(scratch)
			r.began, r.took = t, time.Since(t)
			return r
		})
	}
	addBusy(ctx, "Candidates", time.Since(start), start)
	return fn.ahead.drain(runtime.GOMAXPROCS(0), fn.emitter(ctx, emit, emitStat))
}

// unique sorts pairs and drops repeats, with a working buffer from the pool.
func (fn *CandidatesFn) unique(pairs []wire.Pair) []wire.Pair {
	pairs, scratch := candidates.UniqueBuf(pairs, fn.pairBufs.get())
	fn.pairBufs.put(scratch)
	return pairs
}

// FinishBundle emits the partitions still being worked on.
func (fn *CandidatesFn) FinishBundle(ctx context.Context, emit func(int, []byte), emitStat func(string, int64)) error {
	return fn.ahead.drain(0, fn.emitter(ctx, emit, emitStat))
}

func (fn *CandidatesFn) emitter(ctx context.Context, emit func(int, []byte), emitStat func(string, int64)) func(candidatesResult) error {
	return func(r candidatesResult) error {
		start := time.Now()
		emitCandidates(r.pairs, wire.File, emit)
		fn.pairBufs.put(r.pairs)
		emitStat(StatBuckets, r.st.Buckets)
		emitStat(StatHot, r.st.HotBuckets)
		emitStat(StatSkipped, r.st.Skipped)
		emitStat(StatFar, r.st.Far)
		addBusy(ctx, "Candidates", r.took+time.Since(start), r.began)
		return nil
	}
}

// emitCandidates emits pairs as candidate-pair chunks (wire.AppendCandidate)
// keyed by route of their first document.
func emitCandidates(pairs []wire.Pair, route func(wire.Doc) int, emit func(int, []byte)) {
	b := wire.NewBatcher(0)
	prev := map[int]wire.Doc{}
	for _, p := range pairs {
		r := route(p.A)
		b.Add(r, func(c []byte) []byte {
			last := prev[r]
			c = wire.AppendCandidate(c, p, &last)
			prev[r] = last
			return c
		}, emit)
	}
	b.Flush(emit)
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

// HalfJoinFn is the first half of the join of candidate pairs with document
// infos.
//
// In: (partition p, infos of the documents in p, candidate pairs whose first
// document is in p, from every block partition). Out: half-join records
// (see halfJoin) keyed by the partition of the second documents: each
// first document's info once per partition of its partners. A pair met in
// several blocks is passed on once. An audit uses it; a run uses
// HalfJoinFileFn.
type HalfJoinFn struct {
	Cfg Config
}

func (fn *HalfJoinFn) ProcessElement(ctx context.Context, part int, infoChunks, pairChunks func(*[]byte) bool, emit func(int, []byte), emitStat func(string, int64)) error {
	defer busy(ctx, "JoinFirst", time.Now())
	infos, err := decodeInfos(infoChunks)
	if err != nil {
		return err
	}
	pairs, err := uniquePairs(pairChunks)
	if err != nil {
		return err
	}
	P := fn.Cfg.Partitions
	return halfJoin(pairs, func(d wire.Doc) *wire.Info { return infos[d] },
		func(d wire.Doc) int { return wire.Partition(d, P) }, fmt.Sprintf("partition %d", part), emit, emitStat)
}

// uniquePairs decodes the candidate-pair chunks of iter, sorted and without
// repeats (a pair met in several blocks arrives once per block).
func uniquePairs(iter func(*[]byte) bool) ([]wire.Pair, error) {
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

// halfJoin emits the first document's info (from info) of every pair to
// route of the second document: one record per first document and route,
// "uvarint count, that many second documents (uvarint), the info", so that
// an info travels once per destination, not once per pair. pairs must be
// sorted (uniquePairs).
func halfJoin(pairs []wire.Pair, info func(wire.Doc) *wire.Info, route func(wire.Doc) int, where string,
	emit func(int, []byte), emitStat func(string, int64)) error {
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
			b.Add(r, func(c []byte) []byte {
				c = binary.AppendUvarint(c, uint64(len(bs)))
				for _, d := range bs {
					c = binary.AppendUvarint(c, d)
				}
				return wire.AppendInfo(c, a)
			}, emit)
			group = group[k:]
		}
		pairs = pairs[n:]
	}
	b.Flush(emit)
	emitStat(StatCandidates, int64(total))
	return nil
}

// HalfJoinFileFn is HalfJoinFn with the infos read from the file's info
// shard (see infoshard.go) instead of a shuffle.
//
// In: (file index, candidate pairs whose first document is in the file).
// Out: like HalfJoinFn, keyed by the file of the second document. The work
// of a file runs on another goroutine while the next file's pairs arrive
// (see aheadEmits).
type HalfJoinFileFn struct {
	Cfg Config

	ahead aheadEmits
}

func (fn *HalfJoinFileFn) ProcessElement(ctx context.Context, file int, pairChunks func(*[]byte) bool, emit func(int, []byte), emitStat func(string, int64)) error {
	start := time.Now()
	pairs, err := uniquePairs(pairChunks)
	if err != nil || len(pairs) == 0 {
		return err
	}
	addBusy(ctx, "JoinFirst", time.Since(start), start)
	fn.ahead.stage = "JoinFirst"
	fn.ahead.start(1, func(emits []func(int, []byte), emitStat func(string, int64)) error {
		infos, err := readInfoShard(ctx, fn.Cfg, file)
		if err != nil {
			return err
		}
		return halfJoin(pairs, infos.find, wire.File, fmt.Sprintf("file %d", file), emits[0], emitStat)
	})
	return fn.ahead.drain(ctx, runtime.GOMAXPROCS(0), []func(int, []byte){emit}, emitStat)
}

// FinishBundle emits the output of the files still being worked on.
func (fn *HalfJoinFileFn) FinishBundle(ctx context.Context, emit func(int, []byte), emitStat func(string, int64)) error {
	return fn.ahead.drain(ctx, 0, []func(int, []byte){emit}, emitStat)
}

// VerifyFn is the second half of the join, and the verification.
//
// In: (partition p, infos of the documents in p, half-join records whose
// second documents are in p). Out: the accepted matches and the pairs whose
// estimate cannot decide (both as wire.Match chunks keyed by the file of
// their first document).
type VerifyFn struct {
	Cfg Config
}

func (fn *VerifyFn) ProcessElement(ctx context.Context, part int, infoChunks, halfChunks func(*[]byte) bool, emit, emitUnsure func(int, []byte), emitStat func(string, int64)) error {
	defer busy(ctx, "Verify", time.Now())
	infos, err := decodeInfos(infoChunks)
	if err != nil {
		return err
	}
	return verifyHalves(fn.Cfg, halfChunks, func(d wire.Doc) *wire.Info { return infos[d] }, fmt.Sprintf("partition %d", part), emit, emitUnsure, emitStat)
}

// verifyHalves checks each pair of the half-join records of halfChunks
// against the second document's info (from info), and emits
// the accepted matches and the pairs whose estimate cannot decide, as
// wire.Match chunks keyed by the file of their first document.
func verifyHalves(c Config, halfChunks func(*[]byte) bool, info func(wire.Doc) *wire.Info, where string,
	emit, emitUnsure func(int, []byte), emitStat func(string, int64)) error {
	cfg := c.verifyConfig()
	byFile := wire.NewBatcher(0)
	unsure := wire.NewBatcher(0)
	var a wire.Info
	var verified, unsureN int64
	var chunk []byte
	var bDocs []wire.Doc
	var err error
	for halfChunks(&chunk) {
		for c := chunk; len(c) > 0; {
			if c, bDocs, err = decodeHalf(c, &a, bDocs); err != nil {
				return err
			}
			for _, bDoc := range bDocs {
				b := info(bDoc)
				if b == nil {
					return fmt.Errorf("verify: no info for document %d (%s)", bDoc, where)
				}
				m, d := verify.Check(&a, b, cfg)
				Progress.Verified.Add(1)
				switch d {
				case verify.Accept:
					Progress.Matched.Add(1)
					verified++
					byFile.Add(wire.File(m.A), func(c []byte) []byte { return wire.AppendMatch(c, &m) }, emit)
				case verify.CheckExactly:
					unsureN++
					unsure.Add(wire.File(m.A), func(c []byte) []byte { return wire.AppendMatch(c, &m) }, emitUnsure)
				}
			}
		}
	}
	byFile.Flush(emit)
	unsure.Flush(emitUnsure)
	emitStat(StatByEstimate, verified)
	emitStat(StatUnsure, unsureN)
	return nil
}

// decodeHalf decodes the halfJoin record at the start of c: the first
// document's info into a, the second documents appended to docs[:0].
func decodeHalf(c []byte, a *wire.Info, docs []wire.Doc) ([]byte, []wire.Doc, error) {
	n, k := binary.Uvarint(c)
	if k <= 0 || n == 0 || n > uint64(len(c)) {
		return nil, nil, fmt.Errorf("verify: half-join record: %w", wire.ErrCorrupt)
	}
	c = c[k:]
	docs = docs[:0]
	for range n {
		d, k := binary.Uvarint(c)
		if k <= 0 {
			return nil, nil, fmt.Errorf("verify: half-join record: %w", wire.ErrCorrupt)
		}
		docs = append(docs, d)
		c = c[k:]
	}
	c, err := wire.DecodeInfo(c, a)
	return c, docs, err
}

// VerifyFileFn is VerifyFn with the infos read from the file's info shard
// (see infoshard.go) instead of a shuffle.
//
// In: (file index, half-join records whose second documents are in the
// file). Out: like VerifyFn. The work of a file
// runs on another goroutine while the next file's records arrive (see
// aheadEmits).
type VerifyFileFn struct {
	Cfg Config

	ahead aheadEmits
}

func (fn *VerifyFileFn) ProcessElement(ctx context.Context, file int, halfChunks func(*[]byte) bool, emit, emitUnsure func(int, []byte), emitStat func(string, int64)) error {
	// The work reads the chunks after this call returns: keep copies, as
	// the runner owns what its iterator hands out.
	var chunks [][]byte
	var c []byte
	for halfChunks(&c) {
		chunks = append(chunks, slices.Clone(c))
	}
	if len(chunks) == 0 {
		return nil
	}
	fn.ahead.stage = "Verify"
	fn.ahead.start(2, func(emits []func(int, []byte), emitStat func(string, int64)) error {
		infos, err := readInfoShard(ctx, fn.Cfg, file)
		if err != nil {
			return err
		}
		next := func(c *[]byte) bool {
			if len(chunks) == 0 {
				return false
			}
			*c, chunks = chunks[0], chunks[1:]
			return true
		}
		return verifyHalves(fn.Cfg, next, infos.find, fmt.Sprintf("file %d", file), emits[0], emits[1], emitStat)
	})
	return fn.ahead.drain(ctx, runtime.GOMAXPROCS(0), []func(int, []byte){emit, emitUnsure}, emitStat)
}

// FinishBundle emits the output of the files still being worked on.
func (fn *VerifyFileFn) FinishBundle(ctx context.Context, emit, emitUnsure func(int, []byte), emitStat func(string, int64)) error {
	return fn.ahead.drain(ctx, 0, []func(int, []byte){emit, emitUnsure}, emitStat)
}
