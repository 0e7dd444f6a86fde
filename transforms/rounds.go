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
