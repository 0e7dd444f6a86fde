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
	s := LineSplit{IDs: opt.IDs}
	var cuts []LineRange // First and Offset of each range after the first
	next := per          // the first line of the next range
	// Lines up to here: the first (its BOM skipped, as Read does), and
	// those that settle IDAuto.
	lr := newLineReader(r, opt.MaxDocBytes)
	p := &parser{opt: opt, idsDecided: opt.Format != JSONL || opt.IDs != IDAuto || opt.Raw}
	if !p.idsDecided {
		p.json = newJSONFields(opt.IDField, opt.TextField)
	}
	for first := true; first || !p.idsDecided; first = false {
		ln, ok := lr.next()
		if !ok {
			break
		}
		if ln.err != nil {
			return LineSplit{}, ln.err
		}
		if !p.idsDecided && !ln.tooLarge && !isBlank(ln.raw) {
			p.decideIDs(ln.raw)
		}
		if lr.num == next { // where line next would start, if it is one
			cuts, next = append(cuts, LineRange{First: lr.num, Offset: lr.off}), next+per
		}
	}
	if p.idsDecided && s.IDs == IDAuto {
		s.IDs = IDFromField
		if p.lineIDs {
			s.IDs = IDFromLine
		}
	}
	lines, pos, tail := lr.num, lr.off, false // tail: bytes after the last "\n"
	for buf := make([]byte, splitBufSize); !lr.done; {
		n, err := lr.br.Read(buf) // the buffered rest first, then reads of buf's size
		if n > 0 {
			chunk := buf[:n]
			tail = chunk[n-1] != '\n'
			if c := int64(bytes.Count(chunk, []byte{'\n'})); lines+c < next {
				lines, pos = lines+c, pos+int64(n)
				chunk = nil
			}
			for len(chunk) > 0 { // a cut in this chunk: line by line
				i := bytes.IndexByte(chunk, '\n')
				if i < 0 {
					pos += int64(len(chunk))
					break
				}
				lines, pos, chunk = lines+1, pos+int64(i+1), chunk[i+1:]
				if lines == next {
					cuts, next = append(cuts, LineRange{First: lines, Offset: pos}), next+per
				}
			}
		}
		if err == io.EOF {
			break
		}
		if err != nil {
			return LineSplit{}, err
		}
	}
	if tail {
		lines++
	}
	s.Lines, s.Bytes = lines, pos
	if k := len(cuts); k > 0 && cuts[k-1].Offset >= pos { // no line starts at the end
		cuts = cuts[:k-1]
	}
	s.Ranges = append(s.Ranges, LineRange{})
	for _, c := range cuts {
		s.Ranges[len(s.Ranges)-1].End = c.First
		s.Ranges = append(s.Ranges, c)
	}
	s.Ranges[len(s.Ranges)-1].End = lines
	return s, nil
}
