package transforms

import (
	"context"
	"encoding/binary"
	"fmt"
	"runtime"
	"time"

	"github.com/apache/beam/sdks/v2/go/pkg/beam/register"

	"github.com/neardup/neardup/transforms/candidates"
	"github.com/neardup/neardup/transforms/verify"
	"github.com/neardup/neardup/transforms/wire"
)

func init() {
	register.DoFn5x1[context.Context, int, func(*[]byte) bool, func(int, []byte), func(string, int64), error](&CandidatesFn{})
	register.DoFn6x1[context.Context, int, func(*[]byte) bool, func(*[]byte) bool, func(int, []byte), func(string, int64), error](&HalfJoinFn{})
	register.DoFn7x1[context.Context, int, func(*[]byte) bool, func(*[]byte) bool, func(int, []byte), func(int, []byte), func(string, int64), error](&VerifyFn{})
}

// CandidatesFn turns one partition of the blocking shuffle into candidate
// pairs.
//
// In: (partition, chunks of wire.Entry, or of wire.SimEntry for partitions
// >= Cfg.Partitions). Out: wire.Pair chunks keyed by the
// partition of the pair's first document, the partition that holds that
// document's info in the join that follows.
//
// The pairs of a partition are computed on another goroutine while the next
// partition arrives (see ahead), and emitted in partition order.
type CandidatesFn struct {
	Cfg Config

	ahead ahead[candidatesResult]
}

type candidatesResult struct {
	pairs []wire.Pair
	st    candidates.Stats
	took  time.Duration
}

func (fn *CandidatesFn) ProcessElement(ctx context.Context, part int, chunks func(*[]byte) bool, emit func(int, []byte), emitStat func(string, int64)) error {
	start := time.Now()
	var chunk []byte
	var err error
	limits := fn.Cfg.limits()
	if part < fn.Cfg.Partitions {
		var entries []wire.Entry
		for chunks(&chunk) {
			if entries, err = wire.AppendEntries(entries, chunk); err != nil {
				return err
			}
		}
		fn.ahead.start(func() (r candidatesResult) {
			t := time.Now()
			r.pairs = candidates.Unique(candidates.Append(nil, candidates.Sort(entries), limits, &r.st))
			r.took = time.Since(t)
			return r
		})
	} else {
		var entries []wire.SimEntry
		for chunks(&chunk) {
			if entries, err = wire.AppendSimEntries(entries, chunk); err != nil {
				return err
			}
		}
		k := fn.Cfg.Hamming
		fn.ahead.start(func() (r candidatesResult) {
			t := time.Now()
			r.pairs = candidates.Unique(candidates.AppendNear(nil, candidates.SortSim(entries), k, limits, &r.st))
			r.took = time.Since(t)
			return r
		})
	}
	addBusy(ctx, "Candidates", time.Since(start))
	return fn.ahead.drain(runtime.GOMAXPROCS(0), fn.emitter(ctx, emit, emitStat))
}

// FinishBundle emits the partitions still being worked on.
func (fn *CandidatesFn) FinishBundle(ctx context.Context, emit func(int, []byte), emitStat func(string, int64)) error {
	return fn.ahead.drain(0, fn.emitter(ctx, emit, emitStat))
}

func (fn *CandidatesFn) emitter(ctx context.Context, emit func(int, []byte), emitStat func(string, int64)) func(candidatesResult) error {
	return func(r candidatesResult) error {
		start := time.Now()
		b := wire.NewBatcher(0)
		for _, p := range r.pairs {
			b.Add(wire.Partition(p.A, fn.Cfg.Partitions), func(c []byte) []byte { return wire.AppendPair(c, p) }, emit)
		}
		b.Flush(emit)
		emitStat(StatBuckets, r.st.Buckets)
		emitStat(StatHot, r.st.HotBuckets)
		emitStat(StatSkipped, r.st.Skipped)
		emitStat(StatFar, r.st.Far)
		addBusy(ctx, "Candidates", r.took+time.Since(start))
		return nil
	}
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
// document is in p, from every block partition). Out: for each distinct pair,
// the second document's number followed by the first document's info, keyed
// by the partition of the second document. A pair met in several blocks is
// passed on once.
type HalfJoinFn struct {
	Cfg Config
}

func (fn *HalfJoinFn) ProcessElement(ctx context.Context, part int, infoChunks, pairChunks func(*[]byte) bool, emit func(int, []byte), emitStat func(string, int64)) error {
	defer busy(ctx, "JoinFirst", time.Now())
	infos, err := decodeInfos(infoChunks)
	if err != nil {
		return err
	}
	var pairs []wire.Pair
	var chunk []byte
	for pairChunks(&chunk) {
		if pairs, err = wire.AppendPairs(pairs, chunk); err != nil {
			return err
		}
	}
	pairs = candidates.Unique(pairs)
	b := wire.NewBatcher(0)
	for _, p := range pairs {
		a, ok := infos[p.A]
		if !ok {
			return fmt.Errorf("join: no info for document %d (partition %d)", p.A, part)
		}
		b.Add(wire.Partition(p.B, fn.Cfg.Partitions), func(c []byte) []byte {
			c = binary.LittleEndian.AppendUint64(c, p.B)
			return wire.AppendInfo(c, a)
		}, emit)
	}
	b.Flush(emit)
	emitStat(StatCandidates, int64(len(pairs)))
	return nil
}

// VerifyFn is the second half of the join, and the verification.
//
// In: (partition p, infos of the documents in p, (second document, first
// document's info) records whose second document is in p). Out: the
// accepted matches and the pairs whose estimate cannot decide (both as
// wire.Match chunks keyed by the file of their first document).
type VerifyFn struct {
	Cfg Config
}

func (fn *VerifyFn) ProcessElement(ctx context.Context, part int, infoChunks, halfChunks func(*[]byte) bool, emit, emitUnsure func(int, []byte), emitStat func(string, int64)) error {
	defer busy(ctx, "Verify", time.Now())
	infos, err := decodeInfos(infoChunks)
	if err != nil {
		return err
	}
	cfg := fn.Cfg.verifyConfig()
	byFile := wire.NewBatcher(0)
	unsure := wire.NewBatcher(0)
	var a wire.Info
	var verified, unsureN int64
	var chunk []byte
	for halfChunks(&chunk) {
		for c := chunk; len(c) > 0; {
			if len(c) < 8 {
				return fmt.Errorf("verify: %w", wire.ErrCorrupt)
			}
			bDoc := binary.LittleEndian.Uint64(c)
			if c, err = wire.DecodeInfo(c[8:], &a); err != nil {
				return err
			}
			b, ok := infos[bDoc]
			if !ok {
				return fmt.Errorf("verify: no info for document %d (partition %d)", bDoc, part)
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
	byFile.Flush(emit)
	unsure.Flush(emitUnsure)
	emitStat(StatByEstimate, verified)
	emitStat(StatUnsure, unsureN)
	return nil
}
