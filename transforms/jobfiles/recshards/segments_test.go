package recshards

import (
	"context"
	"errors"
	"fmt"
	"math/rand/v2"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/neardup/neardup/transforms/format/record"
	"github.com/neardup/neardup/transforms/format/wire"
	"github.com/neardup/neardup/transforms/internal/docpool"
	"github.com/neardup/neardup/transforms/jobfiles"
)

// TestInfoSegments: the infos of a file, computed by docpool.Map' workers in
// any order of completion, go to one info shard per segment holding
// exactly the segment's documents, while the pass never holds more than
// two segments' infos (the one it fills and the one being written), far
// fewer than the file's.
func TestInfoSegments(t *testing.T) {
	const docs, bits = 5000, 6
	work := jobfiles.WorkDir{Dir: t.TempDir(), SegmentBits: bits}
	const file = 2
	line := func(i int64) int64 { return i + i/7 } // every 8th line a reject: gaps
	read := func(doc func(*docpool.Doc) error, _ func(record.Reject) error) error {
		for i := range int64(docs) {
			if err := doc(&docpool.Doc{ID: fmt.Sprint(i), Text: "x", Index: line(i)}); err != nil {
				return err
			}
		}
		return nil
	}
	s := NewInfoWriter(context.Background(), work, file, "in.jsonl")
	err := docpool.Map(read, 4, func() (func(*docpool.Doc, *wire.Info), error) {
		return func(d *docpool.Doc, in *wire.Info) {
			if d.Index%50 == 0 {
				time.Sleep(time.Duration(rand.IntN(2000)) * time.Microsecond)
			}
			*in = wire.Info{Doc: wire.DocNum(file, d.Index), ID: d.ID, Sketch: []uint8{1, 2}}
		}, nil
	}, s.Add, nil)
	if err := s.Close(err); err != nil {
		t.Fatal(err)
	}
	if s.Most > 2<<bits {
		t.Errorf("held %d infos at once, more than two segments of %d lines", s.Most, 1<<bits)
	}
	next := int64(0) // the next document's number
	last := wire.Segment(wire.DocNum(file, line(docs-1)), bits)
	for seg := wire.Segment(wire.DocNum(file, 0), bits); seg <= last; seg++ {
		tab, err := ReadInfoShard(context.Background(), work, seg)
		if err != nil {
			t.Fatal(err)
		}
		for _, in := range tab.Infos {
			if in.Doc != wire.DocNum(file, line(next)) || in.ID != fmt.Sprint(next) {
				t.Fatalf("segment %d: info of %s (line %d), want %d (line %d)", seg, in.ID, wire.Line(in.Doc), next, line(next))
			}
			next++
		}
	}
	if next != docs {
		t.Errorf("the shards hold %d infos, want %d", next, docs)
	}
	if names, _ := filepath.Glob(filepath.Join(work.Dir, "info-*")); len(names) != int(last-wire.Segment(wire.DocNum(file, 0), bits)+1) {
		t.Errorf("%d info shards: %v", len(names), names)
	}
}

// TestInfoSegmentsErrors: an info that comes after a later segment's fails
// the pass (the shard of its segment is written already), and so does a
// shard that cannot be written, with the directory and the space needed.
func TestInfoSegmentsErrors(t *testing.T) {
	work := jobfiles.WorkDir{Dir: t.TempDir(), SegmentBits: 4}
	s := NewInfoWriter(context.Background(), work, 0, "in.jsonl")
	for _, l := range []int64{3, 17, 15} {
		s.Add(&wire.Info{Doc: wire.DocNum(0, l)})
	}
	if err := s.Close(nil); err == nil || !strings.Contains(err.Error(), "line 15 after lines of segment 1: not in line order") {
		t.Errorf("infos out of line order: %v", err)
	}
	work.Dir = "full://work"
	s = NewInfoWriter(context.Background(), work, 1, "in.jsonl")
	for l := range int64(40) {
		s.Add(&wire.Info{Doc: wire.DocNum(1, l), ID: "id", Sketch: make([]uint8, 128)})
	}
	err := s.Close(nil)
	want := "writing info shard info-00001-000000.bin in full://work: no space left on device (needs about 3 kB; set TMPDIR to a larger disk)"
	if err == nil || err.Error() != want || !errors.Is(err, syscall.ENOSPC) {
		t.Errorf("info shards on a full disk: %v, want %q", err, want)
	}
}
