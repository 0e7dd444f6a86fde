package wire

import (
	"encoding/binary"
	"fmt"
)

// A segment is 1<<bits consecutive lines of one input file, starting at a
// multiple of 1<<bits: the documents d with the same d>>bits, which is the
// segment's key. Keys order segments by (file, line), like documents, and
// tell their file. bits is in [1, 40], so that a key fits an int.

// Segment returns the key of the segment of document d.
func Segment(d Doc, bits int) int { return int(d >> bits) }

// SegmentFile returns the file index of the segment with key seg and the
// segment's index within its file: lines [index<<bits, (index+1)<<bits).
func SegmentFile(seg, bits int) (file, index int) {
	return seg >> (40 - bits), seg & (1<<(40-bits) - 1)
}

// SegmentRound returns the round, of n, of the segment with key seg: its
// file index plus its index within the file, mod n. Consecutive segments
// of one file go to consecutive rounds, and so do the first segments of
// consecutive files; the key mod n would put every file's first segment
// in round 0.
func SegmentRound(seg, bits, n int) int {
	file, index := SegmentFile(seg, bits)
	return (file%n + index%n) % n
}

// A segment marker says that the first pass wrote the document shard of a
// segment: the number of documents in the shard (uvarint), then the input
// file's path.

// AppendMarker appends the marker of a segment of n documents of path.
func AppendMarker(dst []byte, n int64, path string) []byte {
	return append(binary.AppendUvarint(dst, uint64(n)), path...)
}

// DecodeMarker returns the document count and the path of a marker.
func DecodeMarker(b []byte) (n int64, path string, err error) {
	v, k := binary.Uvarint(b)
	if k <= 0 || v > MaxLines {
		return 0, "", fmt.Errorf("%w: segment marker", ErrCorrupt)
	}
	return int64(v), string(b[k:]), nil
}
