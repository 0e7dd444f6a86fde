package near

import (
	"cmp"
	"os"
	"slices"
	"strings"

	"github.com/neardup/neardup/transforms/format/wire"
	"github.com/neardup/neardup/transforms/internal/extsort"
	"github.com/neardup/neardup/transforms/internal/workfiles"
	"github.com/neardup/neardup/transforms/match/candidates"
)

// Batches bounds the memory of the join, the verification and the exact
// checks of a segment, however many pairs it has. A zero field is its
// default (DefaultBatches); tests make them small to cross the bounds.
type Batches struct {
	// PairRunBytes is about the most memory JoinFirst holds of one
	// segment's candidate pairs to sort them, and as much again for the
	// radix sort's scratch (candidates.UniqueBuf). A segment with more pairs
	// is sorted in runs of this many bytes, written to a temporary directory
	// (workfiles.KindSortRuns) and merged: the memory of JoinFirst is then
	// this much for the segment being sorted, and JoinPairs' for each batch
	// in progress (at most GOMAXPROCS).
	PairRunBytes int64
	// JoinPairs is about the pairs of one batch of HalfJoin: the pairs of
	// one first document are never split.
	JoinPairs int
	// VerifyBytes is about the bytes of half-join records of one batch of
	// Verify: a segment's records are verified in batches, at most
	// GOMAXPROCS in progress.
	VerifyBytes int64
	// CheckBytes is about the most memory one batch of an exact check's
	// matches (readMatches) holds. A segment whose matches are more is
	// checked in several batches, each reading the segment's documents
	// again for its lines: the memory of the exact checks is this much per
	// batch in progress (at most GOMAXPROCS+1).
	CheckBytes int64
}

// DefaultBatches returns the Batches of a job.
func DefaultBatches() Batches {
	return Batches{PairRunBytes: 64 << 20, JoinPairs: 1 << 20, VerifyBytes: 32 << 20, CheckBytes: 48 << 20}
}

// withDefaults returns b with DefaultBatches' value for each zero field.
func (b Batches) withDefaults() Batches {
	d := DefaultBatches()
	return Batches{PairRunBytes: cmp.Or(b.PairRunBytes, d.PairRunBytes), JoinPairs: cmp.Or(b.JoinPairs, d.JoinPairs),
		VerifyBytes: cmp.Or(b.VerifyBytes, d.VerifyBytes), CheckBytes: cmp.Or(b.CheckBytes, d.CheckBytes)}
}

// pairCodec writes pairs as AppendPair does and orders them by first
// document, then second, as candidates.Unique does.
var pairCodec = extsort.Codec[wire.Pair]{
	Size: wire.PairSize,
	Put:  func(b []byte, p *wire.Pair) { wire.AppendPair(b[:0], *p) },
	Get:  func(b []byte, p *wire.Pair) { *p = wire.DecodePair(b) },
	Cmp: func(x, y wire.Pair) int {
		return cmp.Or(cmp.Compare(x.A, y.A), cmp.Compare(x.B, y.B))
	},
}

// sortedPairs is a segment's candidate pairs in order, read in batches
// without repeats (batch).
type sortedPairs struct {
	dir  *extsort.Dir
	src  extsort.Source[wire.Pair]
	next wire.Pair
	have bool
}

// sortPairs decodes the candidate-pair chunks of iter and sorts them in
// runs of runBytes, written, if more than one, to a temporary directory in
// work (the worker's own if work is on an object store).
func sortPairs(iter func(*[]byte) bool, work string, runBytes int64) (_ *sortedPairs, err error) {
	if strings.Contains(work, "://") {
		work = os.TempDir()
	}
	s := &sortedPairs{}
	if s.dir, err = extsort.NewDir(work, "pairs-sort-", 4*runBytes, countSortRuns); err != nil {
		return nil, err
	}
	defer func() {
		if err != nil {
			s.close()
		}
	}()
	c := pairCodec
	var scratch []wire.Pair
	c.Sort = func(run []wire.Pair) (unique []wire.Pair) {
		unique, scratch = candidates.UniqueBuf(run, scratch)
		return unique
	}
	sorter := extsort.NewSorter(s.dir, &c)
	var pairs []wire.Pair
	var chunk []byte
	for iter(&chunk) {
		if pairs, err = wire.AppendCandidates(pairs[:0], chunk); err != nil {
			return nil, err
		}
		for _, p := range pairs {
			if err = sorter.Add(p); err != nil {
				return nil, err
			}
		}
	}
	if s.src, err = sorter.Sorted(); err != nil {
		return nil, err
	}
	s.have, err = s.src.Next(&s.next)
	return s, err
}

func countSortRuns(n int64) { workfiles.Count(workfiles.KindSortRuns, n) }

// batch returns the next pairs without repeats: at least about n unless
// they are the last, and every pair of their last first document. It
// returns none at the end.
func (s *sortedPairs) batch(n int) ([]wire.Pair, error) {
	var b []wire.Pair
	for s.have {
		switch k := len(b); {
		case k > 0 && s.next == b[k-1]: // a pair met in several runs
		case k >= n && s.next.A != b[k-1].A:
			return b, nil
		default:
			b = append(b, s.next)
		}
		var err error
		if s.have, err = s.src.Next(&s.next); err != nil {
			return nil, err
		}
	}
	return b, nil
}

// close removes the temporary directory and what is left in it.
func (s *sortedPairs) close() error {
	if s.src != nil {
		s.src.Close()
	}
	return s.dir.Remove()
}

// collectBatch returns copies of the next chunks of iter, which the caller
// may keep, until they hold n bytes or more; more is false if iter ended.
func collectBatch(iter func(*[]byte) bool, n int64) (chunks [][]byte, more bool) {
	var size int64
	var chunk []byte
	for size < n {
		if !iter(&chunk) {
			return chunks, false
		}
		chunks = append(chunks, slices.Clone(chunk))
		size += int64(len(chunk))
	}
	return chunks, true
}
