// Package rounds splits the Beam layer's largest shuffles into rounds,
// grouped and worked on one after the other, and collections into
// branches: a runner that keeps every shuffled byte in memory (Prism) then
// holds only one round's groups at a time, and a runner that gives each
// stage a single bundle still works on several branches at once.
package rounds

import (
	"github.com/apache/beam/sdks/v2/go/pkg/beam"
	"github.com/apache/beam/sdks/v2/go/pkg/beam/register"

	"github.com/neardup/neardup/transforms/format/wire"
)

func init() {
	register.DoFn3x0[int64, []byte, func(int64, []byte)](&Branch{})
	register.Function3x0(After)
}

// Split splits the collections cols, keyed by partition or file, into n
// collections by key mod n, each the flatten of its part of every col.
func Split(s beam.Scope, n int, cols ...beam.PCollection) []beam.PCollection {
	return splitBy(s, n, 0, cols...)
}

// SplitSegments is Split for collections keyed by segment (of segmentBits,
// see wire.Segment): a segment's round is wire.SegmentRound, so that the
// segments of one file, and the first segments of several files, spread
// over the rounds.
func SplitSegments(s beam.Scope, n, segmentBits int, cols ...beam.PCollection) []beam.PCollection {
	return splitBy(s, n, segmentBits, cols...)
}

// splitBy is Split (segmentBits 0) or SplitSegments.
func splitBy(s beam.Scope, n, segmentBits int, cols ...beam.PCollection) []beam.PCollection {
	n = max(1, n)
	rounds := make([]beam.PCollection, n)
	for i := range n {
		var parts []beam.PCollection
		for _, c := range cols {
			if n > 1 {
				c = beam.ParDo(s, &Branch{N: n, I: i, SegmentBits: segmentBits}, c)
			}
			parts = append(parts, c)
		}
		rounds[i] = beam.Flatten(s, parts...)
	}
	return rounds
}

// Run groups each of rounds by key and applies dofn, whose last of nOut
// outputs is its stats, to the groups, one round after the other: a
// round's grouped input waits, through After, for the stats of the round
// before. A runner that keeps every shuffled byte in memory (Prism) then
// builds and copies one round's groups at a time. It returns each output
// flattened over the rounds.
func Run(s beam.Scope, nOut int, dofn any, rounds []beam.PCollection) []beam.PCollection {
	outs := make([][]beam.PCollection, nOut)
	for i, part := range rounds {
		if i > 0 {
			part = beam.Flatten(s, part, beam.ParDo(s, After, outs[nOut-1][i-1]))
		}
		for j, o := range beam.ParDoN(s, dofn, beam.GroupByKey(s, part)) {
			outs[j] = append(outs[j], o)
		}
	}
	return FlattenEach(s, outs)
}

// FlattenEach flattens each list of outs.
func FlattenEach(s beam.Scope, outs [][]beam.PCollection) []beam.PCollection {
	flat := make([]beam.PCollection, len(outs))
	for i := range outs {
		flat[i] = beam.Flatten(s, outs[i]...)
	}
	return flat
}

// After emits nothing. Flattened into the input of a GroupByKey, it makes
// the grouped stage wait until the collection it reads (stats of an earlier
// stage) is complete. A side input would do the same, but Prism's scheduler
// spins while a stage that reads one runs.
func After(string, int64, func(int64, []byte)) {}

// Branch keeps the elements of a collection keyed by file index or
// partition whose key belongs to branch (or round) I of N: key mod N is I;
// with SegmentBits, of a collection keyed by segment: wire.SegmentRound is
// I.
type Branch struct{ N, I, SegmentBits int }

func (fn *Branch) ProcessElement(key int64, v []byte, emit func(int64, []byte)) {
	r := int(key % int64(fn.N))
	if fn.SegmentBits > 0 {
		r = wire.SegmentRound(int(key), fn.SegmentBits, fn.N)
	}
	if r == fn.I {
		emit(key, v)
	}
}
