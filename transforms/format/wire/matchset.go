package wire

import (
	"encoding/binary"
	"fmt"
)

// A match-set record carries the shingle set of a first document to the
// file of the second documents of some of its unsure matches, for the exact
// check: the set travels once per destination file, not once per match.
//
//	uvarint n (> 0) | n matches (AppendMatch) | the set (AppendSet)

// AppendMatchSet appends the match-set record of the n matches match(0),
// ..., match(n-1), which share their first document, and that document's
// shingle set (sorted, without repeats) to chunk. It panics if n <= 0:
// such a record would not decode.
func AppendMatchSet(chunk []byte, n int, match func(i int) *Match, set []uint32) []byte {
	if n <= 0 {
		panic("wire: match-set record without matches")
	}
	chunk = binary.AppendUvarint(chunk, uint64(n))
	for i := range n {
		chunk = AppendMatch(chunk, match(i))
	}
	return AppendSet(chunk, set)
}

// DecodeMatchSet decodes the match-set record at the start of chunk: the
// matches appended to ms[:0], the set decoded into set[:0] (pass nil to
// keep sets of earlier records). It returns the rest of the chunk, the
// matches and the set.
func DecodeMatchSet(chunk []byte, ms []Match, set []uint32) ([]byte, []Match, []uint32, error) {
	ms = ms[:0]
	n, k := binary.Uvarint(chunk)
	if k <= 0 || n == 0 || n > uint64(len(chunk)) {
		return nil, ms, nil, fmt.Errorf("%w: match-set record count", ErrCorrupt)
	}
	c := chunk[k:]
	for range n {
		ms = append(ms, Match{})
		var err error
		if c, err = DecodeMatch(c, &ms[len(ms)-1]); err != nil {
			return nil, ms[:0], nil, err
		}
	}
	set, c, err := DecodeSet(c, set)
	if err != nil {
		return nil, ms[:0], nil, err
	}
	return c, ms, set, nil
}
