package wire

import (
	"errors"
	"testing"
)

// TestSegment: a segment holds 1<<bits consecutive lines of one file; its
// key gives back the file and the segment's index within it, and keys
// order segments as documents are ordered.
func TestSegment(t *testing.T) {
	for _, bits := range []int{1, 4, 16, 40} {
		docs := []Doc{DocNum(0, 0), DocNum(0, 15), DocNum(0, 16), DocNum(0, 1<<16), DocNum(3, 1<<20+5), DocNum(MaxFiles-1, MaxLines-1)}
		prev := -1
		for _, d := range docs {
			seg := Segment(d, bits)
			file, index := SegmentFile(seg, bits)
			if file != File(d) || int64(index) != Line(d)>>bits {
				t.Errorf("bits %d: segment %d of %d:%d gives file %d, index %d", bits, seg, File(d), Line(d), file, index)
			}
			if seg < prev {
				t.Errorf("bits %d: segment %d of %d:%d before %d", bits, seg, File(d), Line(d), prev)
			}
			prev = seg
			first := DocNum(file, int64(index)<<bits)
			if Segment(first, bits) != seg || first > d || d-first >= 1<<bits {
				t.Errorf("bits %d: %d:%d not in the %d lines from %d:%d", bits, File(d), Line(d), 1<<bits, File(first), Line(first))
			}
		}
		if bits < 40 && Segment(DocNum(1, 1<<bits-1), bits) == Segment(DocNum(1, 1<<bits), bits) {
			t.Errorf("bits %d: lines %d and %d share a segment", bits, 1<<bits-1, 1<<bits)
		}
	}
}

// TestSegmentRound: the segments of one file, and the first segments of
// consecutive files, go round the rounds.
func TestSegmentRound(t *testing.T) {
	const bits, n = 16, 4
	for i := range 2 * n {
		if got := SegmentRound(Segment(DocNum(0, int64(i)<<bits), bits), bits, n); got != i%n {
			t.Errorf("segment %d of file 0 in round %d, want %d", i, got, i%n)
		}
		if got := SegmentRound(Segment(DocNum(i, 0), bits), bits, n); got != i%n {
			t.Errorf("segment 0 of file %d in round %d, want %d", i, got, i%n)
		}
	}
	if got := SegmentRound(Segment(DocNum(MaxFiles-1, MaxLines-1), 4), 4, 7); got < 0 || got >= 7 {
		t.Errorf("round %d out of [0, 7)", got)
	}
}

// TestMarker: a marker gives back its count and path; a damaged one fails.
func TestMarker(t *testing.T) {
	for _, tc := range []struct {
		n    int64
		path string
	}{{0, ""}, {1, "a.jsonl"}, {1 << 16, "gs://bucket/dir/shard-000001.jsonl.gz"}, {MaxLines, "x"}} {
		n, path, err := DecodeMarker(AppendMarker(nil, tc.n, tc.path))
		if err != nil || n != tc.n || path != tc.path {
			t.Errorf("marker of %d, %q: got %d, %q, %v", tc.n, tc.path, n, path, err)
		}
	}
	for _, bad := range [][]byte{nil, {0x80}, AppendMarker(nil, MaxLines+1, "x")} {
		if _, _, err := DecodeMarker(bad); !errors.Is(err, ErrCorrupt) {
			t.Errorf("DecodeMarker(%x): %v, want ErrCorrupt", bad, err)
		}
	}
}
