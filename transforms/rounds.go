package transforms

import (
	"github.com/apache/beam/sdks/v2/go/pkg/beam"
	"github.com/apache/beam/sdks/v2/go/pkg/beam/register"

	"github.com/neardup/neardup/transforms/format/wire"
)

// Shuffle rounds: a runner that keeps every shuffled byte in memory (Prism)
// holds only one round's groups at a time when the largest shuffles are
// grouped in rounds, one after the other.
func init() {
	register.DoFn3x0[int, []byte, func(int, []byte)](&branchFn{})
	register.DoFn3x1[int, []byte, func(int, []byte), error](&destBranchFn{})
	register.Function3x0(after)
}

// ShuffleRounds is the number of rounds of the large shuffles: Rounds, or
// Branches if Rounds is 0, and at least 1.
func (c Config) ShuffleRounds() int {
	if c.Rounds > 0 {
		return c.Rounds
	}
	return max(1, c.Branches)
}

// RoundInputBytes and MaxRounds shape AutoRounds.
const (
	RoundInputBytes = 128 << 20
	MaxRounds       = 8
)

// AutoRounds is the number of shuffle rounds `neardup run` picks for input
// files of inputBytes in all (as stored) and the given branches. A runner
// that holds every shuffled byte in this process (held: Prism, or the
// direct runner with --spill=false), Prism copying a round's groups
// several times over while it hands them to the workers, gets one round per
// RoundInputBytes of input, at least branches and at most MaxRounds: the
// copies stay about the same size as the input grows, and each round
// re-reads the document shards once more for the exact checks. Where the
// runner holds only file names (the large shuffles spilled, on one
// machine) or its shuffle holds the data (a cluster), rounds would only
// put stages one after the other and re-read the shards: 1.
func AutoRounds(inputBytes int64, branches int, held bool) int {
	if !held {
		return 1
	}
	n := (inputBytes + RoundInputBytes - 1) / RoundInputBytes
	return int(min(max(n, int64(branches), 1), MaxRounds))
}

// splitRounds splits the collections cols, keyed by partition or file, into
// n collections by key mod n, each the flatten of its part of every col.
func splitRounds(s beam.Scope, n int, cols ...beam.PCollection) []beam.PCollection {
	return splitBy(s, n, 0, cols...)
}

// splitSegmentRounds is splitRounds for collections keyed by segment
// (Config.segment): a segment's round is wire.SegmentRound, so that the
// segments of one file, and the first segments of several files, spread
// over the rounds.
func splitSegmentRounds(s beam.Scope, cfg Config, cols ...beam.PCollection) []beam.PCollection {
	return splitBy(s, cfg.ShuffleRounds(), cfg.segmentBits(), cols...)
}

// splitBy is splitRounds (segmentBits 0) or splitSegmentRounds.
func splitBy(s beam.Scope, n, segmentBits int, cols ...beam.PCollection) []beam.PCollection {
	n = max(1, n)
	rounds := make([]beam.PCollection, n)
	for i := range n {
		var parts []beam.PCollection
		for _, c := range cols {
			if n > 1 {
				c = beam.ParDo(s, &branchFn{N: n, I: i, SegmentBits: segmentBits}, c)
			}
			parts = append(parts, c)
		}
		rounds[i] = beam.Flatten(s, parts...)
	}
	return rounds
}

// inRounds groups each of rounds by key and applies dofn, whose last of
// nOut outputs is its stats, to the groups, one round after the other: a
// round's grouped input waits, through after, for the stats of the round
// before. A runner that keeps every shuffled byte in memory (Prism) then
// builds and copies one round's groups at a time. It returns each output
// flattened over the rounds.
func inRounds(s beam.Scope, nOut int, dofn any, rounds []beam.PCollection) []beam.PCollection {
	outs := make([][]beam.PCollection, nOut)
	for i, part := range rounds {
		if i > 0 {
			part = beam.Flatten(s, part, beam.ParDo(s, after, outs[nOut-1][i-1]))
		}
		for j, o := range beam.ParDoN(s, dofn, beam.GroupByKey(s, part)) {
			outs[j] = append(outs[j], o)
		}
	}
	return flattenEach(s, outs)
}

// After emits nothing. Flattened into the input of a GroupByKey, it makes
// the grouped stage wait until the collection it reads (stats of an earlier
// stage) is complete. A side input would do the same, but Prism's scheduler
// spins while a stage that reads one runs: about half a core during the
// exact-check rounds at full size.
func after(string, int64, func(int, []byte)) {}

// branchFn keeps the elements of a collection keyed by file index or
// partition whose key belongs to branch (or round) I of N: key mod N is I;
// with SegmentBits, of a collection keyed by segment: wire.SegmentRound is
// I.
type branchFn struct{ N, I, SegmentBits int }

func (fn *branchFn) ProcessElement(key int, v []byte, emit func(int, []byte)) {
	r := key % fn.N
	if fn.SegmentBits > 0 {
		r = wire.SegmentRound(key, fn.SegmentBits, fn.N)
	}
	if r == fn.I {
		emit(key, v)
	}
}

// destBranchFn keeps, of chunks of wire.Match, the matches whose exact
// check belongs to round I of N (checkRound, with segments of Bits), in
// chunks under the same key.
type destBranchFn struct{ N, I, Bits int }

func (fn *destBranchFn) ProcessElement(key int, chunk []byte, emit func(int, []byte)) error {
	var out []byte
	err := wire.EachMatch(chunk, func(m *wire.Match, rec []byte) error {
		if checkRound(m.B, fn.Bits, fn.N) == fn.I {
			out = append(out, rec...)
		}
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
