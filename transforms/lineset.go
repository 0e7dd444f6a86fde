package transforms

import (
	"encoding/binary"
	"math/bits"

	"github.com/neardup/neardup/transforms/format/wire"
)

// lineSet is a set of the line numbers (0-based record indexes) of one
// file, one bit a line: the test of a reader's Options.Only, made for every
// line of the file, reads one word of a bitmap that stays in cache
// (BenchmarkOnly: 1.3 ns a line, a map 11.9 ns; under perf, the map lookups
// of the dedup output and the exact checks took 0.65 core-s of a run at
// full SCALE size). It takes a bit for every line up to the
// largest, an eighth of a byte a record of the file. The zero lineSet is
// empty.
type lineSet []uint64

// add puts line (>= 0) in the set.
func (s *lineSet) add(line int64) {
	w := int(line >> 6)
	if w >= len(*s) {
		*s = append(*s, make([]uint64, w+1-len(*s))...)
	}
	(*s)[w] |= 1 << (line & 63)
}

// has reports whether line is in the set.
func (s lineSet) has(line int64) bool {
	w := line >> 6
	return line >= 0 && w < int64(len(s)) && s[w]&(1<<(line&63)) != 0
}

// lines returns the lines of the set in increasing order.
func (s lineSet) lines() []int64 {
	var out []int64
	for w, word := range s {
		for word != 0 {
			out = append(out, int64(w<<6+bits.TrailingZeros64(word)))
			word &= word - 1
		}
	}
	return out
}

// readLineSet decodes chunks of uvarint line numbers into a lineSet.
func readLineSet(chunks func(*[]byte) bool) (lineSet, error) {
	var set lineSet
	var chunk []byte
	for chunks(&chunk) {
		for c := chunk; len(c) > 0; {
			line, n := binary.Uvarint(c)
			if n <= 0 || line >= 1<<40 { // a wire.Doc's line has 40 bits
				return nil, wire.ErrCorrupt
			}
			set.add(int64(line))
			c = c[n:]
		}
	}
	return set, nil
}
