package transforms

import (
	"github.com/apache/beam/sdks/v2/go/pkg/beam"
	"github.com/apache/beam/sdks/v2/go/pkg/beam/register"

	"github.com/neardup/neardup/transforms/format/wire"
	"github.com/neardup/neardup/transforms/internal/rounds"
)

// Shuffle rounds (package internal/rounds): a runner that keeps every
// shuffled byte in memory (Prism) holds only one round's groups at a time
// when the largest shuffles are grouped in rounds, one after the other.
func init() {
	register.DoFn3x1[int, []byte, func(int, []byte), error](&destBranchFn{})
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

// splitSegmentRounds is rounds.SplitSegments of the job's rounds and
// segments, for collections keyed by segment.
func splitSegmentRounds(s beam.Scope, cfg Config, cols ...beam.PCollection) []beam.PCollection {
	return rounds.SplitSegments(s, cfg.ShuffleRounds(), cfg.segmentBits(), cols...)
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
