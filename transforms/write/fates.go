package write

import (
	"bufio"
	"bytes"
	"cmp"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"

	"github.com/parquet-go/parquet-go"

	"github.com/neardup/neardup/transforms/format/output"
	"github.com/neardup/neardup/transforms/format/record"
	"github.com/neardup/neardup/transforms/format/wire"
	"github.com/neardup/neardup/transforms/internal/extsort"
	"github.com/neardup/neardup/transforms/jobfiles"
	"github.com/neardup/neardup/transforms/jobfiles/input"
)

// The fates of one input file arrive in no order, from the partitions
// that decided them. fateSort sorts them by line within a memory budget:
// their texts go to a file of their own as they arrive, and a fixed-size
// record of each (fateRec, 24 bytes in memory, 21 on disk) is sorted with package extsort,
// which holds a quarter of the budget and spills sorted runs beyond it.
// The copy then streams the sorted records against the input read in
// order, reading each text back from its file.

// fateRec is one fate in the sort: its record's line, the offset and
// length of its text in the texts file, and whether it is a removal.
type fateRec struct {
	line    int64
	off     uint64
	n       uint32
	removed bool
}

// fateCodec sorts fateRecs by line (then offset: a total order, which a
// line given two fates needs, to fail the same way every time).
var fateCodec = extsort.Fixed(func(f extsort.Fields, v *fateRec) extsort.Fields {
	return f.I64(&v.line).U64(&v.off).U32(&v.n).Bool(&v.removed)
}, func(a, b fateRec) int {
	if c := cmp.Compare(a.line, b.line); c != 0 {
		return c
	}
	return cmp.Compare(a.off, b.off)
})

// fateSort sorts the fates of one input file by line.
type fateSort struct {
	dir    *extsort.Dir
	texts  *os.File
	w      *bufio.Writer
	off    uint64
	sorter *extsort.Sorter[fateRec]
}

// newFateSort makes a fateSort in a temporary directory in scratch, within
// about budget bytes.
func newFateSort(scratch string, budget int64) (*fateSort, error) {
	if strings.Contains(scratch, "://") {
		scratch = os.TempDir()
	}
	dir, err := extsort.NewDir(scratch, "fates-", budget, nil)
	if err != nil {
		return nil, err
	}
	f, err := os.Create(filepath.Join(dir.Path(), "texts"))
	if err != nil {
		dir.Remove()
		return nil, fmt.Errorf("fates: %w", err)
	}
	return &fateSort{dir: dir, texts: f, w: bufio.NewWriterSize(f, dir.BufSize()), sorter: extsort.NewSorter(dir, fateCodec)}, nil
}

// addChunks adds the fates of the wire.OutLine chunks of chunks (K1 the
// document, Text its fate's JSON) of file path.
func (s *fateSort) addChunks(path string, chunks func(*[]byte) bool) error {
	var chunk []byte
	var lines []wire.OutLine
	removed := []byte(`{"fate":"` + output.FateRemoved + `"`)
	for chunks(&chunk) {
		var err error
		if lines, err = wire.AppendLines(lines[:0], chunk); err != nil {
			return fmt.Errorf("fates of %s: %w", path, err)
		}
		for _, l := range lines {
			if len(l.Text) == 0 {
				return fmt.Errorf("fates of %s: line %d is removed for a document removed beforehand, and no audit named the indexed document", path, wire.Line(l.K1)+1)
			}
			r := fateRec{line: wire.Line(l.K1), off: s.off, n: uint32(len(l.Text)), removed: bytes.HasPrefix(l.Text, removed)}
			if _, err := s.w.Write(l.Text); err != nil {
				return fmt.Errorf("fates of %s: %w", path, err)
			}
			s.off += uint64(len(l.Text))
			if err := s.sorter.Add(r); err != nil {
				return fmt.Errorf("fates of %s: %w", path, err)
			}
		}
	}
	return s.w.Flush()
}

// text reads the text of r into buf.
func (s *fateSort) text(r fateRec, buf []byte) ([]byte, error) {
	if cap(buf) < int(r.n) {
		buf = make([]byte, r.n)
	}
	buf = buf[:r.n]
	if _, err := s.texts.ReadAt(buf, int64(r.off)); err != nil {
		return nil, fmt.Errorf("fates: reading a text back: %w", err)
	}
	return buf, nil
}

// close removes the sort's files.
func (s *fateSort) close() {
	s.texts.Close()
	s.dir.Remove()
}

// keptFate is the fate of a record kept in no cluster.
var keptFate = []byte(`{"fate":"` + output.FateKept + `"}`)

// fateCursor walks the sorted fates of input file path along its good
// records, in order: the fate of each (keptFate when it has none), and the
// count of those kept. A record has a fate of removal exactly when removed
// has its line; a fate for a line that is not a record fails, naming the
// line.
type fateCursor struct {
	path    string
	fates   *fateSort
	src     extsort.Source[fateRec]
	next    fateRec
	have    bool
	text    []byte
	removed func(int64) bool
	kept    int64
}

// cursor starts a fateCursor on the fates of file path sorted; its close
// closes the sorted stream.
func (s *fateSort) cursor(path string, removed func(int64) bool) (*fateCursor, error) {
	src, err := s.sorter.Sorted()
	if err != nil {
		return nil, err
	}
	c := &fateCursor{path: path, fates: s, src: src, removed: removed}
	if c.have, err = src.Next(&c.next); err != nil {
		src.Close()
		return nil, err
	}
	return c, nil
}

// fate returns the fate's JSON of the record of line index, the next
// record of the file; it is valid until the next call.
func (c *fateCursor) fate(index int64) ([]byte, error) {
	fate, gone := keptFate, false
	if c.have && c.next.line < index {
		return nil, fmt.Errorf("fates of %s: a fate for line %d, which is not a record", c.path, c.next.line+1)
	}
	if c.have && c.next.line == index {
		var err error
		if c.text, err = c.fates.text(c.next, c.text); err != nil {
			return nil, err
		}
		fate, gone = c.text, c.next.removed
		if c.have, err = c.src.Next(&c.next); err != nil {
			return nil, err
		}
		if c.have && c.next.line == index {
			return nil, fmt.Errorf("fates of %s: line %d has two fates", c.path, index+1)
		}
	}
	if gone != c.removed(index) {
		return nil, fmt.Errorf("fates of %s: line %d is removed by the removal list but not by its fate, or the other way", c.path, index+1)
	}
	if !gone {
		c.kept++
	}
	return fate, nil
}

// finish fails if a fate is left past the file's records.
func (c *fateCursor) finish() error {
	if c.have {
		return fmt.Errorf("fates of %s: a fate for line %d, past the file's records", c.path, c.next.line+1)
	}
	return nil
}

func (c *fateCursor) close() { c.src.Close() }

// copyFates writes output.FatesName of input file index file at path: the
// records opt.Only selects (its good ones), in order, each with its fate
// (fateCursor), and returns the records kept. A JSONL record that has a
// top-level output.FateKey of its own fails the copy, naming the line.
func (fn *writeDedupFn) copyFates(ctx context.Context, file int, path string, fates *fateSort, removed func(int64) bool, opt record.Options) (kept int64, err error) {
	in, err := inputCompression(ctx, fn.Work.Dir, file, path)
	if err != nil {
		return 0, err
	}
	cur, err := fates.cursor(path, removed)
	if err != nil {
		return 0, err
	}
	defer cur.close()
	tsv := fn.Read.Format == record.TSV
	var buf []byte
	err = WriteCompressed(ctx, fn.Out.Dir, output.FatesName(fn.Read.Format.String(), file), fn.Out.Compression(in), func(w io.Writer) error {
		err := input.Reader(ctx, fn.Work, file, path, opt)(func(d record.Doc) error {
			fate, err := cur.fate(d.Index)
			if err != nil {
				return err
			}
			if buf, err = appendWithFate(buf[:0], d.Raw, fate, tsv); err != nil {
				return fmt.Errorf("%s line %d: %w", path, d.Index+1, err)
			}
			_, err = w.Write(append(buf, '\n'))
			return err
		}, func(record.Reject) error { return nil })
		if err == nil {
			err = cur.finish()
		}
		return err
	})
	return cur.kept, err
}

// copyParquetFates writes output.FatesName of the Parquet input file index
// file at path: the rows opt.Only selects (its good ones), in order, whole,
// each with its fate (fateCursor) in the column output.FateParquet, and
// returns the rows kept.
func (fn *writeDedupFn) copyParquetFates(ctx context.Context, file int, path string, fates *fateSort, removed func(int64) bool, opt record.Options) (kept int64, err error) {
	cur, err := fates.cursor(path, removed)
	if err != nil {
		return 0, err
	}
	defer cur.close()
	var f output.Fate
	add := output.FateParquet(func(row int64, vals []parquet.Value) error {
		fate, err := cur.fate(row)
		if err != nil {
			return err
		}
		f = output.Fate{}
		if err := json.Unmarshal(fate, &f); err != nil {
			return fmt.Errorf("fates of %s: fate %s: %w", path, fate, err)
		}
		f.ParquetValues(vals)
		return nil
	})
	opt.Raw = false
	err = jobfiles.WriteAtomically(ctx, fn.Out.Dir, output.FatesName("parquet", file), func(w io.Writer) error {
		if _, err := input.WriteParquetDedup(ctx, fn.Work, file, path, opt, add, w); err != nil {
			return err
		}
		return cur.finish()
	})
	return cur.kept, err
}

// appendWithFate appends raw, a JSONL record (tsv false) or a TSV one as
// read (a "\r" of its "\r\n" kept), with fate, a Fate's JSON, added.
func appendWithFate(dst, raw, fate []byte, tsv bool) ([]byte, error) {
	if !tsv {
		if output.HasFateKey(raw) {
			return dst, fmt.Errorf("the record has a top-level %q key of its own, which --fates adds; rename it, or leave --fates out", output.FateKey)
		}
		return output.AppendFateJSONL(dst, raw, fate)
	}
	var f output.Fate
	if err := json.Unmarshal(fate, &f); err != nil {
		return dst, fmt.Errorf("fate %s: %w", fate, err)
	}
	body, cr := bytes.CutSuffix(raw, []byte{'\r'})
	dst = f.AppendTSV(append(dst, body...))
	if cr {
		dst = append(dst, '\r')
	}
	return dst, nil
}
