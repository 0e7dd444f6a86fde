package near

import (
	"fmt"
	"unsafe"

	"github.com/neardup/neardup/transforms/format/wire"
)

// matchBatch is what readMatches decodes: the matches, indexed by the
// line of their document in this file, and with withSet the set that came
// with each (sets[i] is match i's; matches of one record share it). more
// says that chunks has more.
type matchBatch struct {
	byLine map[int64][]int
	ms     []wire.Match
	sets   [][]uint32
	more   bool
}

// matchBytes is what readMatches counts for a match beyond its IDs: the
// match, its index in byLine and its set's slice header.
const matchBytes = int64(unsafe.Sizeof(wire.Match{})) + 8 + 24

// readMatches decodes wire.Match chunks or, withSet, chunks of shingle-set
// records (see shingleSetsFn) from chunks until it ends or the batch holds
// maxBytes. Matches without a set are kept only if keep (if not
// nil) says so.
func readMatches(chunks func(*[]byte) bool, maxBytes int64, withSet bool, keep func(*wire.Match) bool, line func(*wire.Match) int64) (matchBatch, error) {
	b := matchBatch{byLine: map[int64][]int{}}
	size := int64(0)
	add := func(m wire.Match, set []uint32) {
		l := line(&m)
		b.byLine[l] = append(b.byLine[l], len(b.ms))
		b.ms = append(b.ms, m)
		b.sets = append(b.sets, set)
		size += matchBytes + int64(len(m.IDA)+len(m.IDB))
	}
	var chunk []byte
	var group []wire.Match
	for size < maxBytes {
		if b.more = chunks(&chunk); !b.more {
			break
		}
		for c := chunk; len(c) > 0; {
			var err error
			if !withSet {
				var m wire.Match
				if c, err = wire.DecodeMatch(c, &m); err != nil {
					return b, err
				}
				if keep == nil || keep(&m) {
					add(m, nil)
				}
				continue
			}
			var set []uint32
			if c, group, set, err = wire.DecodeMatchSet(c, group, nil); err != nil {
				return b, fmt.Errorf("shingle-set record: %w", err)
			}
			size += 4 * int64(len(set))
			for _, m := range group {
				add(m, set)
			}
		}
	}
	return b, nil
}
