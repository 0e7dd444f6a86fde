package write

import (
	"cmp"
	"context"
	"fmt"
	"io"
	"slices"

	"github.com/apache/beam/sdks/v2/go/pkg/beam"
	"github.com/apache/beam/sdks/v2/go/pkg/beam/register"

	"github.com/neardup/neardup/transforms/format/output"
	"github.com/neardup/neardup/transforms/format/record"
	"github.com/neardup/neardup/transforms/format/summary"
	"github.com/neardup/neardup/transforms/format/wire"
	"github.com/neardup/neardup/transforms/internal/tally"
	"github.com/neardup/neardup/transforms/internal/workfiles"
	"github.com/neardup/neardup/transforms/job"
	"github.com/neardup/neardup/transforms/jobfiles"
	"github.com/neardup/neardup/transforms/jobfiles/spilled"
	"github.com/neardup/neardup/transforms/jobstate"
	"github.com/neardup/neardup/transforms/objects"
)

func init() {
	register.DoFn4x1[int64, []byte, func(int64, []byte), func(string, int64), error](&splitPartsFn{})
	register.DoFn5x1[context.Context, int64, func(*[]byte) bool, func(int64, []byte), func(string, int64), error](&writePartFn{})
	register.DoFn4x1[context.Context, int64, func(*[]byte) bool, func(string, int64), error](&joinPartsFn{})
}

// An output shard of pairs, clusters or rejects holds one input file's
// lines, sorted by their key (wire.OutLine's K1, K2; a match's documents):
// the lines of a file with many documents would not fit one worker. So the
// shard is written in parts: the lines whose K1 falls in one segment of
// the file (the same segments as the passes after the first: K1 is a
// document of the file, or for rejects its 1-based line) are one part,
// sorted and written to the work directory by one bundle, and the parts of
// a file are then copied one after the other, streaming, into its shard.
// A part's lines all sort before the next part's, so the shard is the same
// as if one bundle had sorted all of them.

// writeLines writes the output shards of kind from col (chunks keyed by
// file index, not grouped): wire.Match chunks for pairs, wire.OutLine
// chunks for the others. Their parts are grouped through spill files on one
// machine (spilled.Group). Out: stats.
func writeLines(s beam.Scope, o Options, kind string, col beam.PCollection) beam.PCollection {
	s = s.Scope(kind)
	parts, st1 := beam.ParDo2(s, &splitPartsFn{SegmentBits: o.Work.SegmentBits, Kind: kind}, col)
	named, st2 := beam.ParDo2(s, &writePartFn{Work: o.Work, Kind: kind, Locations: o.Locations}, spilled.Group(s, o.Work, "parts", parts))
	st3 := beam.ParDo(s, &joinPartsFn{WorkDir: o.Work.Dir, Out: o.Out, Kind: kind}, beam.GroupByKey(s, named))
	return beam.Flatten(s, st1, st2, st3)
}

// partKey is the key of the part of input file file that holds the line
// with sort key k1: the segment (of segmentBits) of its line (k1's low 40
// bits).
func partKey(segmentBits, file int, k1 uint64) int {
	return wire.Segment(wire.DocNum(file, int64(k1&(1<<40-1))), segmentBits)
}

// splitPartsFn re-keys a file's output records by part.
//
// In: (file index, a chunk). Out: the same records in chunks keyed by part
// (partKey), batched over the bundle; stats.
type splitPartsFn struct {
	SegmentBits int
	Kind        string

	parts *wire.Batcher
	tally tally.Shuffle
	lines []wire.OutLine
}

func (fn *splitPartsFn) Setup() { fn.parts = wire.NewBatcher(0) }

func (fn *splitPartsFn) ProcessElement(k int64, chunk []byte, emit func(int64, []byte), _ func(string, int64)) error {
	file := int(k)
	emit = fn.tally.Count(emit)
	if fn.Kind == output.KindPairs {
		return wire.EachMatch(chunk, func(m *wire.Match, rec []byte) error {
			fn.parts.Add(partKey(fn.SegmentBits, file, m.A), func(dst []byte) []byte { return append(dst, rec...) }, emit)
			return nil
		})
	}
	var err error
	if fn.lines, err = wire.AppendLines(fn.lines[:0], chunk); err != nil {
		return err
	}
	for _, l := range fn.lines {
		fn.parts.Add(partKey(fn.SegmentBits, file, l.K1), func(dst []byte) []byte { return wire.AppendLine(dst, l.K1, l.K2, l.Text) }, emit)
	}
	return nil
}

// FinishBundle emits the bundle's last chunks and its shuffle tally.
func (fn *splitPartsFn) FinishBundle(emit func(int64, []byte), emitStat func(string, int64)) {
	fn.parts.Flush(fn.tally.Count(emit))
	fn.tally.Report(tally.ShuffleParts, emitStat)
}

// writePartFn writes one part of an output shard.
//
// In: (part, chunks of its records). Out: the part, its lines sorted, in
// the work directory (plain text, whatever the outputs' compression),
// named with its line count as a wire marker keyed by file index; stats
// (of pairs, summary.StatContainmentPairs).
type writePartFn struct {
	Work                jobfiles.WorkDir
	Kind                string
	Locations           bool // pairs lines with the documents' locations
	spilled.GroupReader      // the records, spilled with Work.Spill (spilled.Group)
}

func (fn *writePartFn) ProcessElement(ctx context.Context, k int64, chunks func(*[]byte) bool, emit func(int64, []byte), emitStat func(string, int64)) error {
	part := int(k)
	defer jobstate.Busy(ctx, "Write."+fn.Kind, jobstate.Begin())
	var lines []wire.OutLine
	var containment int64 // the containment pairs
	err := fn.In.Each(fn.Work, part, chunks, func(chunk []byte) (err error) {
		if fn.Kind == output.KindPairs {
			lines, err = appendPairLines(lines, chunk, fn.Locations, &containment)
		} else {
			// The lines' texts point into the chunk, which a spill
			// file's reader reuses: keep a copy.
			lines, err = wire.AppendLines(lines, slices.Clone(chunk))
		}
		return err
	})
	if err != nil {
		return err
	}
	file, index := wire.SegmentFile(part, fn.Work.SegmentBits)
	name := jobfiles.PartName(fn.Kind, file, index)
	if err := writePart(ctx, fn.Work.Dir, name, lines); err != nil {
		return err
	}
	emit(int64(file), wire.AppendMarker(nil, int64(len(lines)), name))
	if containment > 0 {
		emitStat(summary.StatContainmentPairs, containment)
	}
	return nil
}

// writePart sorts lines by key and writes their texts to the part name in
// the work directory dir.
func writePart(ctx context.Context, dir, name string, lines []wire.OutLine) error {
	slices.SortFunc(lines, func(a, b wire.OutLine) int {
		if a.K1 != b.K1 {
			return cmp.Compare(a.K1, b.K1)
		}
		return cmp.Compare(a.K2, b.K2)
	})
	err := workfiles.Write(ctx, dir, name, workfiles.KindOutputParts, func(w io.Writer) error {
		for _, l := range lines {
			if _, err := w.Write(l.Text); err != nil {
				return err
			}
			if _, err := w.Write([]byte{'\n'}); err != nil {
				return err
			}
		}
		return nil
	}, false)
	if err != nil {
		return jobfiles.WorkFileError(name, dir, err, int64(len(lines))*128)
	}
	return nil
}

// joinPartsFn writes one output shard from its parts.
//
// In: (file index, its parts' markers). Out: the file <kind>-<index>.jsonl
// (compressed as Out says), the parts copied in order from WorkDir, and a
// stat with the number of lines written.
type joinPartsFn struct {
	WorkDir string
	Out     job.OutDir
	Kind    string
}

func (fn *joinPartsFn) ProcessElement(ctx context.Context, k int64, markers func(*[]byte) bool, emitStat func(string, int64)) error {
	file := int(k)
	defer jobstate.Busy(ctx, "Write."+fn.Kind, jobstate.Begin())
	var names []string
	var lines int64
	var m []byte
	for markers(&m) {
		n, name, err := wire.DecodeMarker(m)
		if err != nil {
			return fmt.Errorf("%s of input file %d: %w", fn.Kind, file, err)
		}
		names, lines = append(names, name), lines+n
	}
	slices.Sort(names) // part names sort by file, then segment
	comp := fn.Out.Compression(record.None)
	err := WriteCompressed(ctx, fn.Out.Dir, output.ShardName(fn.Kind, file), comp, func(w io.Writer) error {
		for _, name := range names {
			rc, err := workfiles.Open(ctx, objects.JoinPath(fn.WorkDir, name))
			if err != nil {
				return fmt.Errorf("part of %s: %w", output.ShardName(fn.Kind, file), err)
			}
			_, err = io.Copy(w, rc)
			rc.Close()
			if err != nil {
				return err
			}
		}
		return nil
	})
	if err != nil {
		return err
	}
	emitStat(fn.Kind+"_lines", lines)
	return nil
}
