package ingest

import (
	"encoding/binary"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"

	"github.com/apache/beam/sdks/v2/go/pkg/beam/register"

	"github.com/neardup/neardup/transforms/format/spill"
	"github.com/neardup/neardup/transforms/format/wire"
	"github.com/neardup/neardup/transforms/internal/workfiles"
	"github.com/neardup/neardup/transforms/jobfiles"
	"github.com/neardup/neardup/transforms/jobfiles/spilled"
	"io"
)

func init() {
	register.DoFn3x1[int64, []byte, func(int64, []byte), error](&RejectedLinesFn{})
}

// The first pass gets a unit's rejects on its reading goroutine, where it
// may not emit, and emits them once the unit is read. A Parquet file of
// millions of empty rows is millions of rejects of a few hundred bytes
// each: the pass holds at most rejectMemBytes of them, and spills the rest
// to a spill file of its own (package spill) in the work directory, read
// back a chunk at a time when they are emitted.

// rejectMemBytes is the most reject lines a unit holds in memory, and the
// size of the chunks it emits when it has more.
const rejectMemBytes = 1 << 20

// rejectLines holds a unit's reject lines (wire.AppendLine): in memory up
// to rejectMemBytes, one chunk, then in chunks of that size in a spill
// file in dir (the work directory, or os.TempDir() when it is not a local
// one).
type rejectLines struct {
	dir  string
	buf  []byte
	path string // the spill file, once made
	w    *spill.Writer
	err  error
}

// newRejectLines returns the holder of a unit's reject lines, spilling to
// the work directory dir if it is local.
func newRejectLines(dir string) *rejectLines {
	if dir == "" || strings.Contains(dir, "://") {
		dir = os.TempDir()
	}
	return &rejectLines{dir: dir}
}

// add appends the reject line (line, offset, text).
func (r *rejectLines) add(line, offset uint64, text []byte) {
	if len(r.buf) > 0 && len(r.buf)+len(text)+16+binary.MaxVarintLen64 > rejectMemBytes {
		r.spill()
	}
	r.buf = wire.AppendLine(r.buf, line, offset, text)
}

// spill writes the lines held to the spill file, as one chunk.
func (r *rejectLines) spill() {
	if r.err == nil && r.w == nil {
		r.path = filepath.Join(r.dir, spilled.Name("rejects"))
		var f io.WriteCloser
		if f, r.err = workfiles.Create(r.path, workfiles.KindSpills); r.err == nil {
			r.w = spill.NewWriter(r.path, f)
		}
	}
	if r.err == nil {
		r.err = r.w.Add(0, r.buf)
	}
	r.buf = r.buf[:0]
}

// emit emits the lines, keyed by file, in chunks (the spilled ones first,
// as added), and removes the spill file.
func (r *rejectLines) emit(file int, emit func(int64, []byte)) error {
	defer r.abort()
	if r.err != nil {
		return jobfiles.WorkFileError(filepath.Base(r.path), r.dir, r.err, rejectMemBytes)
	}
	if r.w != nil {
		size := r.w.Size()
		if err := r.w.Close(); err != nil {
			return jobfiles.WorkFileError(filepath.Base(r.path), r.dir, err, size)
		}
		r.w = nil
		f, err := spill.Open(r.path)
		if err != nil {
			return fmt.Errorf("rejects of input file %d: %w", file, err)
		}
		defer f.Close()
		if _, err := f.Each(0, nil, func(c []byte) error { emit(int64(file), slices.Clone(c)); return nil }); err != nil {
			return fmt.Errorf("rejects of input file %d: %w", file, err)
		}
	}
	if len(r.buf) > 0 {
		emit(int64(file), r.buf)
		r.buf = nil
	}
	return nil
}

// abort removes the spill file, if any.
func (r *rejectLines) abort() {
	if r.w != nil {
		r.w.Abort()
		r.w = nil
	}
	if r.path != "" {
		os.Remove(r.path)
		r.path = ""
	}
}

// RejectedLinesFn maps reject lines to what the dedup copy needs of them.
//
// In: (file index, a chunk of reject lines: wire.OutLine, K1 the 1-based
// line). Out: (file index, a line list of the rejected records' 0-based
// lines; a whole-file reject, line 0, has none): a few bytes a reject,
// where its line is a few hundred, for the runner to hold until the file's
// copy is written.
type RejectedLinesFn struct {
	lines []wire.OutLine
}

func (fn *RejectedLinesFn) ProcessElement(file int64, chunk []byte, emit func(int64, []byte)) error {
	var err error
	if fn.lines, err = wire.AppendLines(fn.lines[:0], chunk); err != nil {
		return fmt.Errorf("rejects of input file %d: %w", file, err)
	}
	var list []byte
	for _, l := range fn.lines {
		if l.K1 > 0 {
			list = wire.AppendLineNum(list, int64(l.K1)-1)
		}
	}
	if len(list) > 0 {
		emit(file, list)
	}
	return nil
}
