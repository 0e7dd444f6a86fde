package write

import (
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
	"github.com/neardup/neardup/transforms/ingest"
	"github.com/neardup/neardup/transforms/job"
	"github.com/neardup/neardup/transforms/jobfiles"
	"github.com/neardup/neardup/transforms/jobfiles/filelist"
	"github.com/neardup/neardup/transforms/jobfiles/input"
	"github.com/neardup/neardup/transforms/jobstate"
)

func init() {
	register.DoFn7x1[context.Context, int64, func(*string) bool, func(*[]byte) bool, func(*[]byte) bool, func(*[]byte) bool, func(string, int64), error](&writeDedupFn{})
}

// Write writes pairs, clusters, rejects and the deduplicated input, one
// shard per input file that has any.
//
// In: files, matches, cluster lines, reject lines (keyed by file index, not
// grouped: see writeparts.go), removals and fates (keyed by file index;
// fates with o.Out.Fates only). Out: stats.
func Write(s beam.Scope, o Options, files filelist.Files, matches, clusters, rejects, removes, fates beam.PCollection) beam.PCollection {
	s = s.Scope("Write")
	rejected := beam.ParDo(s.Scope("rejected"), &ingest.RejectedLinesFn{}, rejects)
	dedup := files.PerFile(s.Scope("dedup"), 1, &writeDedupFn{Work: o.Work, Read: o.Read, Out: o.Out}, removes, rejected, fates)[0]
	return beam.Flatten(s, writeLines(s, o, output.KindPairs, matches),
		writeLines(s, o, output.KindClusters, clusters),
		writeLines(s, o, output.KindRejects, rejects),
		dedup)
}

// appendPairLines appends the pairs lines of the matches in chunk, with
// the documents' locations if locations, and adds the containment matches
// to *containment.
func appendPairLines(dst []wire.OutLine, chunk []byte, locations bool, containment *int64) ([]wire.OutLine, error) {
	var m wire.Match
	var err error
	for len(chunk) > 0 {
		if chunk, err = wire.DecodeMatch(chunk, &m); err != nil {
			return dst, err
		}
		if m.Method == wire.Containment {
			*containment++
		}
		pl := output.NewPairLine(&m)
		if locations {
			a, b := output.LocationOf(wire.File(m.A), wire.Line(m.A)), output.LocationOf(wire.File(m.B), wire.Line(m.B))
			pl.ALocation, pl.BLocation = &a, &b
		}
		text, err := pl.JSON()
		if err != nil {
			return dst, err
		}
		dst = append(dst, wire.OutLine{K1: m.A, K2: m.B, Text: text})
	}
	return dst, nil
}

// writeDedupFn writes the deduplicated copy of one input file.
//
// In: (file index, its path, chunks of uvarint line numbers to remove, the
// line lists of the file's rejected records from the first pass: see
// rejectedLinesFn). Out: the file's
// output.DedupName with every good record of the file that is not removed,
// byte for byte as read (each line with its own line ending, "\n" for a
// last line without one; a text file's content as
// it is, or nothing if it is removed; a Parquet input's good rows not
// removed, as a Parquet file with its schema: see
// input.WriteParquetDedup), and the
// count kept. The file is copied without parsing: the first pass already
// said which lines are records (rejected ones are in rejects-*.jsonl). The
// copy is compressed with Out.Compress, or else as the input is (a
// .jsonl.gz input gives a .jsonl.gz copy), at Out.Level. Reading the input itself, not
// its spool copy, it checks the file against the first pass's reading (see
// input.Read) before the copy is renamed into place. With Out.Removed it
// also writes output.RemovedName, the file's removed records copied the
// same way (a Text input: the file if it is removed, else nothing). With
// Out.Fates it writes, in place of the copy, output.FatesName: every good
// record with its fate (the file's wire.OutLine chunks of fates: see
// copyFates), the count kept as for the copy.
type writeDedupFn struct {
	Work jobfiles.WorkDir
	Read job.ReadOptions
	Out  job.OutDir
}

func (fn *writeDedupFn) ProcessElement(ctx context.Context, k int64, paths func(*string) bool, removeChunks, rejectChunks, fateChunks func(*[]byte) bool, emitStat func(string, int64)) error {
	file := int(k)
	defer jobstate.Busy(ctx, "WriteDedup", jobstate.Begin())
	var path string
	if !paths(&path) {
		return fmt.Errorf("dedup: no path for file %d", file)
	}
	removed, err := wire.ReadLineSet(removeChunks)
	if err != nil {
		return fmt.Errorf("dedup: removal list for %s: %w", path, err)
	}
	var removedOnly wire.LineSet
	if fn.Out.Removed || fn.Out.Fates {
		removedOnly = slices.Clone(removed)
	}
	remove, err := dedupRemovals(path, removed, rejectChunks)
	if err != nil {
		return err
	}
	opt := fn.Read.Options()
	opt.Raw = true
	if fn.Out.Fates {
		return fn.writeFates(ctx, file, path, remove, removedOnly, fateChunks, opt, emitStat)
	}
	opt.Only = func(index int64) bool { return !remove.Has(index) }
	kept, err := fn.copy(ctx, file, path, output.DedupName, opt)
	if err != nil {
		return err
	}
	emitStat(summary.StatKept, kept)
	if fn.Out.Removed {
		// Removed records are good ones: no rejected line is among them.
		opt.Only = func(index int64) bool { return removedOnly.Has(index) }
		if _, err := fn.copy(ctx, file, path, output.RemovedName, opt); err != nil {
			return err
		}
	}
	return nil
}

// writeFates writes the copy of input file index file at path with
// fates (copyFates): its records that remove does not have or removed
// has, and emits the count of those kept.
func (fn *writeDedupFn) writeFates(ctx context.Context, file int, path string, remove, removed wire.LineSet, fateChunks func(*[]byte) bool, opt record.Options, emitStat func(string, int64)) error {
	f := record.FormatFor(path, opt.Format)
	if f == record.Text {
		return fmt.Errorf("fates of %s: a %v input has no fields to add a fate to", path, f)
	}
	fates, err := newFateSort(fn.Work.Dir, fn.Out.SortBytes)
	if err != nil {
		return err
	}
	defer fates.close()
	if err := fates.addChunks(path, fateChunks); err != nil {
		return err
	}
	opt.Only = func(index int64) bool { return !remove.Has(index) || removed.Has(index) }
	copyFates := fn.copyFates
	if f == record.Parquet {
		copyFates = fn.copyParquetFates
	}
	kept, err := copyFates(ctx, file, path, fates, removed.Has, opt)
	if err != nil {
		return err
	}
	emitStat(summary.StatKept, kept)
	return nil
}

// copy writes the copy of input file index file at path named by name that
// holds the records opt.Only selects, and returns their count.
func (fn *writeDedupFn) copy(ctx context.Context, file int, path string, name func(format string, file int) string, opt record.Options) (int64, error) {
	if record.FormatFor(path, opt.Format) == record.Parquet {
		return fn.copyParquet(ctx, file, path, name("parquet", file), opt)
	}
	return fn.copyLines(ctx, file, path, name(fn.Read.Format.String(), file), opt)
}

// dedupRemovals returns the lines of input path that its deduplicated copy
// leaves out: remove, the removed ones, with the rejected ones added
// (rejectChunks, line lists of rejectedLinesFn).
func dedupRemovals(path string, remove wire.LineSet, rejectChunks func(*[]byte) bool) (wire.LineSet, error) {
	var chunk []byte
	for rejectChunks(&chunk) {
		for c := chunk; len(c) > 0; {
			line, rest, err := wire.DecodeLineNum(c)
			if err != nil {
				return remove, fmt.Errorf("dedup: rejected lines of %s: %w", path, err)
			}
			remove.Add(line)
			c = rest
		}
	}
	return remove, nil
}

// copyParquet writes the deduplicated copy of a Parquet input and returns
// the rows kept.
func (fn *writeDedupFn) copyParquet(ctx context.Context, file int, path, name string, opt record.Options) (kept int64, err error) {
	opt.Raw = false
	err = jobfiles.WriteAtomically(ctx, fn.Out.Dir, name, func(w io.Writer) (err error) {
		kept, err = input.WriteParquetDedup(ctx, fn.Work, file, path, opt, nil, w)
		return err
	})
	return kept, err
}

// copyLines writes the deduplicated copy of a line (or text) input and
// returns the records kept.
func (fn *writeDedupFn) copyLines(ctx context.Context, file int, path, name string, opt record.Options) (kept int64, err error) {
	end := []byte{'\n'} // a line's terminator
	if fn.Read.Format == record.Text {
		end = nil // the record is the whole file, terminators and all
	}
	in, err := inputCompression(ctx, fn.Work.Dir, file, path)
	if err != nil {
		return 0, err
	}
	err = WriteCompressed(ctx, fn.Out.Dir, name, fn.Out.Compression(in), func(w io.Writer) error {
		return input.Reader(ctx, fn.Work, file, path, opt)(func(d record.Doc) error {
			kept++
			if _, err := w.Write(d.Raw); err != nil {
				return err
			}
			_, err := w.Write(end)
			return err
		}, func(record.Reject) error { return nil })
	})
	return kept, err
}

// inputCompression is the compression the first pass found in input file
// index file at path (see input.ReadSeen), or, without its reading (a stage
// tested alone), the one its name says.
func inputCompression(ctx context.Context, work string, file int, path string) (record.Compression, error) {
	seen, err := input.ReadSeen(ctx, work, file)
	if err != nil {
		return record.None, err
	}
	if seen != nil {
		return seen.Comp, nil
	}
	return max(record.ByName(path), record.None), nil
}

// WriteCompressed writes the file name, with the extension of c's
// compression, through writeAtomically, compressed as c says.
func WriteCompressed(ctx context.Context, dir, name string, c job.OutCompression, write func(w io.Writer) error) error {
	return jobfiles.WriteAtomically(ctx, dir, name+c.C.Ext(), func(w io.Writer) error {
		cw, err := record.NewWriterLevel(w, c.C, c.Level)
		if err != nil {
			return err
		}
		if err := write(cw); err != nil {
			return err
		}
		return cw.Close()
	})
}
