package wire

import (
	"encoding/binary"
	"fmt"
	"math/bits"
)

// A line list names records of one file (the file is the chunk's key) by
// their line number, the 0-based record index (a Doc's Line, below
// MaxLines): a chunk is a sequence of uvarint line numbers, in any order,
// repeats allowed. Skip lists, remove lists and the lines an exact check
// re-reads travel as line lists.

// AppendLineNum appends line, which must be in [0, MaxLines), to a line
// list chunk.
func AppendLineNum(chunk []byte, line int64) []byte {
	return binary.AppendUvarint(chunk, uint64(line))
}

// DecodeLineNum decodes the line number at the start of a line list chunk
// and returns the rest of the chunk. A number of MaxLines or more is
// corrupt.
func DecodeLineNum(chunk []byte) (int64, []byte, error) {
	line, n := binary.Uvarint(chunk)
	if n <= 0 || line >= MaxLines {
		return 0, nil, fmt.Errorf("%w: line number", ErrCorrupt)
	}
	return int64(line), chunk[n:], nil
}

// LineSet is a set of the line numbers of one file, one bit a line: the
// test of a reader's Options.Only, made for every line of the file, reads
// one word of a bitmap that stays in cache, several times faster than a
// map (BenchmarkOnly; docs/BENCHMARKS.md). It takes a
// bit for every line up to the largest, an eighth of a byte a record of the
// file. The zero LineSet is empty.
type LineSet []uint64

// Add puts line (>= 0) in the set.
func (s *LineSet) Add(line int64) {
	w := int(line >> 6)
	if w >= len(*s) {
		*s = append(*s, make([]uint64, w+1-len(*s))...)
	}
	(*s)[w] |= 1 << (line & 63)
}

// Has reports whether line is in the set.
func (s LineSet) Has(line int64) bool {
	w := line >> 6
	return line >= 0 && w < int64(len(s)) && s[w]&(1<<(line&63)) != 0
}

// Lines returns the lines of the set in increasing order.
func (s LineSet) Lines() []int64 {
	var out []int64
	for w, word := range s {
		for word != 0 {
			out = append(out, int64(w<<6+bits.TrailingZeros64(word)))
			word &= word - 1
		}
	}
	return out
}

// ReadLineSet decodes the line list chunks of a Beam iterator into a
// LineSet. A chunk that does not decode fails with ErrCorrupt.
func ReadLineSet(chunks func(*[]byte) bool) (LineSet, error) {
	var set LineSet
	var chunk []byte
	for chunks(&chunk) {
		for c := chunk; len(c) > 0; {
			line, rest, err := DecodeLineNum(c)
			if err != nil {
				return nil, err
			}
			set.Add(line)
			c = rest
		}
	}
	return set, nil
}
