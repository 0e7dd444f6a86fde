package record

import (
	"bytes"
	"fmt"
	"io"
	"math"
)

// RowRange is the range of 0-based rows [First, End) of a Parquet file
// that a read covers (Options.Rows).
type RowRange struct{ First, End int64 }

// has reports whether row is in the range; a nil range has every row.
func (r *RowRange) has(row int64) bool { return r == nil || (row >= r.First && row < r.End) }

// fromStart reports whether the range starts at the file's first row.
func (r *RowRange) fromStart() bool { return r == nil || r.First <= 0 }

// LineRange is the range of 0-based lines [First, End) of a JSONL or TSV
// stream that a read covers (Options.Lines); Offset is the byte offset in
// the stream of line First's first byte, where the reader given to Read
// starts. A line is what ends with "\n" (or the stream), so a range starts
// right after a "\n": SplitLines finds where.
//
// The lines of a range get the numbers, offsets, IDs and rejects that one
// read of the whole stream gives them, and the read stops after End-First
// lines (an End past the last line: at the end of the stream). A UTF-8 byte
// order mark is skipped only at the start of the stream (First 0), not at
// a range's. What cannot be known from the range alone is the caller's to
// give:
//
//   - IDAuto settles on the stream's first parsable record, which may come
//     before First: read every range with the IDs that SplitLines settled
//     for the stream (LineSplit.IDs).
//   - A read error ends the range with its final Reject, not the stream:
//     the ranges after it are read on their own.
type LineRange struct{ First, End, Offset int64 }

// LineSplit is where SplitLines cut a stream.
type LineSplit struct {
	// Ranges cover the stream's lines in order, per lines each but the
	// last, which has the rest (End: Lines). A stream of at most per lines
	// is one range.
	Ranges []LineRange
	Lines  int64 // the stream's lines, as Read numbers them
	Bytes  int64 // the stream's bytes
	// IDs is Options.IDs for the read of each range: for IDAuto on JSONL,
	// what the stream's first parsable record settles (IDFromField or
	// IDFromLine), or IDAuto if it has none; else Options.IDs.
	IDs IDSource
}

// splitBufSize is the size of SplitLines' reads.
const splitBufSize = 1 << 20

// SplitLines reads the JSONL or TSV stream r (decompressed) to its end and
// cuts it into ranges of per lines (0: one range), to be read with
// Options.Lines. It counts lines with a scan for "\n" over large reads,
// parsing only the stream's first line and, for IDAuto, the lines up to
// the first parsable record (as Read, with opt's fields and MaxDocBytes).
// A read error is returned.
func SplitLines(r io.Reader, opt Options, per int64) (LineSplit, error) {
	opt = opt.withDefaults()
	opt.OnLineIDs = nil // the reads of the ranges call it
	if opt.Format != JSONL && opt.Format != TSV {
		return LineSplit{}, fmt.Errorf("record: SplitLines of a %v stream: lines are JSONL or TSV", opt.Format)
	}
	if per <= 0 {
		per = math.MaxInt64
	}
	c := &lineCutter{per: per, next: per}
	lr := newLineReader(r, opt.MaxDocBytes)
	ids, err := c.head(lr, opt)
	if err != nil {
		return LineSplit{}, err
	}
	lines, pos, err := c.rest(lr)
	if err != nil {
		return LineSplit{}, err
	}
	return LineSplit{Ranges: c.ranges(lines, pos), Lines: lines, Bytes: pos, IDs: ids}, nil
}

// lineCutter collects where SplitLines cuts a stream: the first line and
// the offset of each range after the first.
type lineCutter struct {
	per  int64 // lines per range
	next int64 // the first line of the next range
	cuts []LineRange
}

// at notes that line num, if there is one, starts at offset off.
func (c *lineCutter) at(num, off int64) {
	if num == c.next {
		c.cuts, c.next = append(c.cuts, LineRange{First: num, Offset: off}), c.next+c.per
	}
}

// head reads the lines that are parsed: the first (its BOM skipped, as Read
// does) and, for IDAuto on JSONL, those up to the first parsable record,
// which settles the IDs the ranges are read with (see LineSplit.IDs).
func (c *lineCutter) head(lr *lineReader, opt Options) (IDSource, error) {
	p := &parser{opt: opt, idsDecided: opt.Format != JSONL || opt.IDs != IDAuto || opt.Raw}
	if !p.idsDecided {
		p.json = newJSONFields(opt.IDField, opt.TextField, "")
	}
	for first := true; first || !p.idsDecided; first = false {
		ln, ok := lr.next()
		if !ok {
			break
		}
		if ln.err != nil {
			return 0, ln.err
		}
		if !p.idsDecided && !ln.tooLarge && !isBlank(ln.raw) {
			p.decideIDs(ln.raw)
		}
		c.at(lr.num, lr.off)
	}
	if !p.idsDecided || opt.IDs != IDAuto {
		return opt.IDs, nil
	}
	if p.lineIDs {
		return IDFromLine, nil
	}
	return IDFromField, nil
}

// rest counts the lines after those head read with a scan for "\n" over
// large reads, going line by line only through a read that holds a cut,
// and returns the stream's lines and bytes.
func (c *lineCutter) rest(lr *lineReader) (int64, int64, error) {
	lines, pos := lr.num, lr.off
	tail := false // bytes after the last "\n"
	for buf := make([]byte, splitBufSize); !lr.done; {
		n, err := lr.br.Read(buf) // the buffered rest first, then reads of buf's size
		if n > 0 {
			chunk := buf[:n]
			tail = chunk[n-1] != '\n'
			if k := int64(bytes.Count(chunk, []byte{'\n'})); lines+k < c.next {
				lines, pos = lines+k, pos+int64(n)
				chunk = nil
			}
			for len(chunk) > 0 { // a cut in this chunk: line by line
				i := bytes.IndexByte(chunk, '\n')
				if i < 0 {
					pos += int64(len(chunk))
					break
				}
				lines, pos, chunk = lines+1, pos+int64(i+1), chunk[i+1:]
				c.at(lines, pos)
			}
		}
		if err == io.EOF {
			break
		}
		if err != nil {
			return 0, 0, err
		}
	}
	if tail {
		lines++
	}
	return lines, pos, nil
}

// ranges turns the cuts into the ranges of a stream of lines lines and
// pos bytes.
func (c *lineCutter) ranges(lines, pos int64) []LineRange {
	cuts := c.cuts
	if k := len(cuts); k > 0 && cuts[k-1].Offset >= pos { // no line starts at the end
		cuts = cuts[:k-1]
	}
	rs := []LineRange{{}}
	for _, cut := range cuts {
		rs[len(rs)-1].End = cut.First
		rs = append(rs, cut)
	}
	rs[len(rs)-1].End = lines
	return rs
}
