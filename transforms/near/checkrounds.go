package near

import (
	"github.com/apache/beam/sdks/v2/go/pkg/beam/register"

	"github.com/neardup/neardup/transforms/format/wire"
	"github.com/neardup/neardup/transforms/jobfiles/filelist"
)

// Shuffle rounds (package internal/rounds): a runner that keeps every
// shuffled byte in memory (Prism) holds only one round's groups at a time
// when the largest shuffles are grouped in rounds, one after the other.
func init() {
	register.DoFn3x1[int64, []byte, func(int64, []byte), error](&DestBranchFn{})
}

// DestBranchFn keeps, of chunks of wire.Match, the matches whose exact
// check belongs to round I of N (checkRound, with segments of Bits), in
// chunks under the same key.
type DestBranchFn struct{ N, I, Bits int }

func (fn *DestBranchFn) ProcessElement(key int64, chunk []byte, emit func(int64, []byte)) error {
	var out []byte
	err := wire.EachMatch(chunk, func(m *wire.Match, rec []byte) error {
		if CheckRound(m.B, fn.Bits, fn.N) == fn.I {
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

// CheckKey is the key of document d in the exact checks: its segment,
// whose document shard the check reads; for an audit's indexed document,
// whose source has no document shards and is parsed, the first segment
// of its source, so that a source is parsed once a round, not once for
// each of its segments.
func CheckKey(d wire.Doc, bits int) int {
	if filelist.IsIndexed(d) {
		d = wire.DocNum(wire.File(d), 0)
	}
	return wire.Segment(d, bits)
}

// CheckRound is the round, of n, of the exact check of a pair whose second
// document is b: the round of its key (wire.SegmentRound).
func CheckRound(b wire.Doc, bits, n int) int { return wire.SegmentRound(CheckKey(b, bits), bits, n) }
