package recshards

import (
	"cmp"
	"context"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"syscall"
	"testing"

	"github.com/apache/beam/sdks/v2/go/pkg/beam/io/filesystem"
	_ "github.com/apache/beam/sdks/v2/go/pkg/beam/io/filesystem/local"

	"github.com/neardup/neardup/transforms/format/index"
	"github.com/neardup/neardup/transforms/format/wire"
	"github.com/neardup/neardup/transforms/jobfiles"
)

// TestInfoShardRoundTrip: the infos a signature pass adds, in any order,
// come back from the shard in line order, found by document number; other
// documents, and documents of other segments or files, are not found.
func TestInfoShardRoundTrip(t *testing.T) {
	ctx := context.Background()
	work := jobfiles.WorkDir{Dir: filepath.Join(t.TempDir(), "work"), SegmentBits: 10}
	const file = 3
	seg := work.Segment(wire.DocNum(file, 1<<34+7))
	var want []wire.Info
	var s Shard
	for _, line := range []int64{1<<34 + 7, 1 << 34, 1<<34 + 1023, 1<<34 + 2, 1<<34 + 500} {
		in := wire.Info{Doc: wire.DocNum(file, line), ID: "doc-" + string(rune('a'+line%26)), Len: line + 10,
			SimHash: uint64(line) * 0x9e3779b97f4a7c15, Sketch: []uint8{uint8(line), 1, 2, 3}, Shingles: line % 7}
		rec := infoRecord(&in)
		s.add(&rec)
		w := in
		w.Sketch = slices.Clone(in.Sketch)
		want = append(want, w)
		in.Sketch[1] = 99 // add keeps its own copy

	}
	if err := s.Write(ctx, work.Dir, jobfiles.InfoShardName(file, 1<<24), "in/file-3.jsonl"); err != nil {
		t.Fatal(err)
	}
	got, err := ReadInfoShard(ctx, work, seg)
	if err != nil {
		t.Fatal(err)
	}
	slices.SortFunc(want, func(a, b wire.Info) int { return cmp.Compare(a.Doc, b.Doc) })
	if len(got.Infos) != len(want) {
		t.Fatalf("read %d infos, want %d", len(got.Infos), len(want))
	}
	for i := range want {
		g, w := got.Infos[i], want[i]
		if g.Doc != w.Doc || g.ID != w.ID || g.Len != w.Len || g.SimHash != w.SimHash || !slices.Equal(g.Sketch, w.Sketch) || g.Shingles != w.Shingles {
			t.Errorf("info %d = %+v, want %+v", i, g, w)
		}
		if f := got.Find(w.Doc); f == nil || f.Doc != w.Doc {
			t.Errorf("find(%d) = %v", w.Doc, f)
		}
	}
	for _, d := range []wire.Doc{wire.DocNum(file, 1<<34+3), wire.DocNum(file+1, 1<<34+7), wire.DocNum(file, 1<<34+1024), wire.DocNum(file, 7)} {
		if f := got.Find(d); f != nil {
			t.Errorf("find(%d) = %+v, want nil", d, f)
		}
	}

	// A leftover of an interrupted write goes too.
	if err := os.WriteFile(filepath.Join(work.Dir, ".tmp-info-00001.bin-00ff"), nil, 0o644); err != nil {
		t.Fatal(err)
	}
	if err := work.RemoveAll(ctx); err != nil {
		t.Fatal(err)
	}
	if _, err := os.Stat(work.Dir); !errors.Is(err, os.ErrNotExist) {
		t.Errorf("work directory left after removing its shards: %v", err)
	}
}

// TestInfoShardErrors: a missing or damaged shard, or one of another
// segment, is an error naming it, never an empty table.
func TestInfoShardErrors(t *testing.T) {
	ctx := context.Background()
	work := jobfiles.WorkDir{Dir: t.TempDir(), SegmentBits: 16}
	seg := work.Segment(wire.DocNum(2, 1<<16))
	_, err := ReadInfoShard(ctx, work, seg)
	if want := "info shard of input file 2, lines 65536 to 131071: "; err == nil || !strings.HasPrefix(err.Error(), want) ||
		!strings.Contains(err.Error(), jobfiles.InfoShardName(2, 1)) || !errors.Is(err, fs.ErrNotExist) {
		t.Errorf("reading a missing shard: %v, want %q, the name and fs.ErrNotExist", err, want)
	}
	var s Shard
	for line := range int64(1000) {
		rec := infoRecord(&wire.Info{Doc: wire.DocNum(0, line), ID: "x", Sketch: make([]uint8, 128)})
		s.add(&rec)
	}
	if err := s.Write(ctx, work.Dir, jobfiles.InfoShardName(0, 0), "in"); err != nil {
		t.Fatal(err)
	}
	// A shard under the name of another segment.
	if err := os.Rename(filepath.Join(work.Dir, jobfiles.InfoShardName(0, 0)), filepath.Join(work.Dir, jobfiles.InfoShardName(0, 1))); err != nil {
		t.Fatal(err)
	}
	if _, err := ReadInfoShard(ctx, work, 1); !errors.Is(err, index.ErrCorrupt) || !strings.Contains(err.Error(), "another segment") {
		t.Errorf("reading a shard of another segment: %v, want index.ErrCorrupt", err)
	}
	if err := s.Write(ctx, work.Dir, jobfiles.InfoShardName(0, 0), "in"); err != nil {
		t.Fatal(err)
	}
	path := filepath.Join(work.Dir, jobfiles.InfoShardName(0, 0))
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	b[len(b)/2] ^= 0x40
	if err := os.WriteFile(path, b, 0o644); err != nil {
		t.Fatal(err)
	}
	if _, err := ReadInfoShard(ctx, work, 0); !errors.Is(err, index.ErrCorrupt) {
		t.Errorf("reading a damaged shard: %v, want index.ErrCorrupt", err)
	}
	if err := (&Shard{}).Write(ctx, "", jobfiles.InfoShardName(0, 0), "in"); err == nil {
		t.Error("writing a shard without a work directory succeeded")
	}
}

// fullFS is a Beam filesystem ("full://") on a full disk: every write
// fails with ENOSPC.
type fullFS struct{}

func (fullFS) Close() error                                            { return nil }
func (fullFS) List(context.Context, string) ([]string, error)          { return nil, nil }
func (fullFS) Size(context.Context, string) (int64, error)             { return 0, os.ErrNotExist }
func (fullFS) OpenRead(context.Context, string) (io.ReadCloser, error) { return nil, os.ErrNotExist }
func (fullFS) OpenWrite(_ context.Context, name string) (io.WriteCloser, error) {
	return fullFile{name}, nil
}

type fullFile struct{ name string }

func (f fullFile) Write([]byte) (int, error) {
	return 0, &fs.PathError{Op: "write", Path: f.name, Err: syscall.ENOSPC}
}
func (fullFile) Close() error { return nil }

func init() {
	filesystem.Register("full", func(context.Context) filesystem.Interface { return fullFS{} })
}

// TestInfoShardNoSpace (issue 19, D7): an info shard that does not fit in
// the work directory fails the pass with an error that names the shard, the
// directory, the cause and about the space the shard needs.
func TestInfoShardNoSpace(t *testing.T) {
	var s Shard
	for line := range int64(10000) {
		rec := infoRecord(&wire.Info{Doc: wire.DocNum(0, line), ID: "document-id", Sketch: make([]uint8, 128)})
		s.add(&rec)
	}
	err := writeInfoShard(context.Background(), "full://work", 3, 2, "in.jsonl", &s)
	want := "writing info shard info-00003-000002.bin in full://work: no space left on device (needs about 2 MB; set TMPDIR to a larger disk)"
	if err == nil || err.Error() != want || !errors.Is(err, syscall.ENOSPC) {
		t.Errorf("writeInfoShard = %v, want %q", err, want)
	}
}

// BenchmarkReadInfoShard reads the info shard of one full segment of 65,536
// documents with 128-byte sketches, as the joins and the verification do.
func BenchmarkReadInfoShard(b *testing.B) {
	ctx := context.Background()
	work := jobfiles.WorkDir{Dir: filepath.Join(b.TempDir(), "work"), SegmentBits: 16}
	const file = 2
	var s Shard
	sketch := make([]uint8, 128)
	for line := range int64(1 << 16) {
		for i := range sketch {
			sketch[i] = uint8(line*31 + int64(i))
		}
		in := wire.Info{Doc: wire.DocNum(file, line), ID: fmt.Sprintf("doc-%d", line), Len: 1000 + line%977,
			SimHash: uint64(line) * 0x9e3779b97f4a7c15, Sketch: sketch}
		rec := infoRecord(&in)
		s.add(&rec)
	}
	if err := s.Write(ctx, work.Dir, jobfiles.InfoShardName(file, 0), "in/file-2.jsonl"); err != nil {
		b.Fatal(err)
	}
	seg := work.Segment(wire.DocNum(file, 0))
	b.ReportAllocs()
	for b.Loop() {
		if _, err := ReadInfoShard(ctx, work, seg); err != nil {
			b.Fatal(err)
		}
	}
}

// TestInfoTableFind: documents with infos are found, the lines between
// them (exact duplicates, rejects), before and after them and of other
// files are not.
func TestInfoTableFind(t *testing.T) {
	lines := []int64{3, 4, 9, 70}
	tab := &InfoTable{}
	for _, l := range lines {
		tab.Infos = append(tab.Infos, wire.Info{Doc: wire.DocNum(2, l), ID: fmt.Sprint(l)})
	}
	tab.index()
	for _, l := range lines {
		if in := tab.Find(wire.DocNum(2, l)); in == nil || in.ID != fmt.Sprint(l) {
			t.Errorf("line %d: got %v, want its info", l, in)
		}
	}
	for _, d := range []wire.Doc{wire.DocNum(2, 0), wire.DocNum(2, 5), wire.DocNum(2, 69), wire.DocNum(2, 71), wire.DocNum(1, 4), wire.DocNum(3, 4)} {
		if in := tab.Find(d); in != nil {
			t.Errorf("document %d (file %d, line %d): got %v, want none", d, wire.File(d), wire.Line(d), in)
		}
	}
	if in := (&InfoTable{}).Find(wire.DocNum(0, 0)); in != nil {
		t.Errorf("empty table: got %v", in)
	}
}
