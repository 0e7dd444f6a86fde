package ingest

import (
	"compress/gzip"
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/neardup/neardup/transforms/format/wire"
	"github.com/neardup/neardup/transforms/internal/docpool"
	"github.com/neardup/neardup/transforms/job"
	"github.com/neardup/neardup/transforms/jobfiles"
	"github.com/neardup/neardup/transforms/jobfiles/docshards"
	"github.com/neardup/neardup/transforms/jobfiles/input"
)

// TestDocShards: the first pass (readKeysFn) writes the good documents of
// each segment of a file, normalized, to one document shard in the work
// directory and emits one marker per shard with its document count and the
// file's path; a segment's shard gives the same documents, ids, lengths and
// normalized texts as parsing the input, the whole file's shards give them
// in line order with Only still selecting them, a file read only up to an
// error keeps the shards of what it read, and a damaged shard fails rather
// than giving fewer documents.
func TestDocShards(t *testing.T) {
	dir := t.TempDir()
	lines := []string{
		`{"id":"a","text":"Ｆｕｌｌ-width ＴＥＸＴ, and   spaces"}`,
		`not json`,
		``,
		`{"id":"b","text":"中文文本：全角，标点。"}`,
		`{"id":"c","text":"café\u0301 e\u0301"}`,
		`{"id":"d","text":""}`,
		`{"id":"e","text":"last line without newline"}`,
	}
	plain := filepath.Join(dir, "in.jsonl")
	if err := os.WriteFile(plain, []byte(strings.Join(lines, "\n")), 0o644); err != nil {
		t.Fatal(err)
	}
	// The first line many times, gzipped, cut in the middle.
	cut := filepath.Join(dir, "cut.jsonl.gz")
	f, err := os.Create(cut)
	if err != nil {
		t.Fatal(err)
	}
	zw := gzip.NewWriter(f)
	for i := range 4000 {
		fmt.Fprintf(zw, `{"id":"x%d","text":"document number %d"}`+"\n", i, i)
	}
	zw.Close()
	f.Close()
	whole, _ := os.ReadFile(cut)
	if err := os.WriteFile(cut, whole[:len(whole)/2], 0o644); err != nil {
		t.Fatal(err)
	}

	ctx := context.Background()
	cfg := job.DefaultConfig()
	cfg.Work = filepath.Join(dir, "work")
	cfg.SegmentBits = 2 // 4 lines a segment
	if err := os.Mkdir(cfg.Work, 0o755); err != nil {
		t.Fatal(err)
	}
	markers := map[int64][]byte{}
	for file, path := range []string{plain, cut} {
		fn := &readKeysFn{Work: cfg.WorkDir(), Read: cfg.Reading(), Norm: cfg.Signing().Norm, Partitions: cfg.Partitions}
		nop := func(int64, []byte) {}
		emitSegment := func(seg int64, m []byte) {
			if _, dup := markers[seg]; dup {
				t.Errorf("segment %d marked twice", seg)
			}
			markers[seg] = m
		}
		if err := fn.read(ctx, readUnit{File: file, Path: path, Of: 1}, nop, nop, nop, emitSegment, func(string, int64) {}); err != nil {
			t.Fatal(err)
		}
	}

	// in.jsonl: lines 0-3 (a, b) and 4-7 (c, e); d's empty text and "not
	// json" are rejects.
	parsedDocs := collectDocs(t, docpool.Parsed(input.Reader(ctx, cfg.WorkDir(), 0, plain, cfg.RecordOptions())))
	for _, seg := range []int{wire.Segment(wire.DocNum(0, 0), 2), wire.Segment(wire.DocNum(0, 4), 2)} {
		n, path, err := wire.DecodeMarker(markers[int64(seg)])
		if err != nil || n != 2 || path != plain {
			t.Fatalf("marker of segment %d: %d documents of %q (%v), want 2 of %s", seg, n, path, err, plain)
		}
		for line, s := range collectDocs(t, docshards.SegmentDocs(ctx, cfg.WorkDir(), seg, n, nil)) {
			p, ok := parsedDocs[line]
			switch {
			case !ok || !s.Normalized || wire.Segment(wire.DocNum(0, line), 2) != seg:
				t.Errorf("segment %d: line %d: %+v", seg, line, s)
			case s.ID != p.ID || s.Len != p.Len || s.Text != cfg.Signing().Norm.Text(p.Text) || s.Norm(cfg.Signing().Norm) != p.Norm(cfg.Signing().Norm):
				t.Errorf("line %d: shard %+v, parsed %+v", line, s, p)
			}
		}
		if err := docshards.SegmentDocs(ctx, cfg.WorkDir(), seg, n+1, nil)(func(*docpool.Doc) error { return nil }, nil); !errors.Is(err, wire.ErrCorrupt) {
			t.Errorf("segment %d with a count the shard does not hold: %v, want a corrupt-shard error", seg, err)
		}
	}

	// The exact checks: a segment's documents that Only selects, from its
	// shard; parsed without a work directory or a shard.
	opt := cfg.RecordOptions()
	opt.Only = func(i int64) bool { return i == 3 || i == 6 }
	seg1 := wire.Segment(wire.DocNum(0, 4), 2)
	only := collectDocs(t, docshards.CheckDocs(ctx, cfg.WorkDir(), 0, plain, opt))
	if len(only) != 1 || only[3].ID != "b" || !only[3].Normalized {
		t.Errorf("segment 0, Only lines 3 and 6: got %+v", only)
	}
	only = collectDocs(t, docshards.CheckDocs(ctx, cfg.WorkDir(), seg1, plain, opt))
	if len(only) != 1 || only[6].ID != "e" || !only[6].Normalized {
		t.Errorf("segment 1, Only lines 3 and 6: got %+v", only)
	}
	noWork := cfg
	noWork.Work = ""
	opt.Only = func(i int64) bool { return i == 3 }
	for name, c := range map[string]job.Config{"no work directory": noWork, "no shard": cfg} {
		key := 0
		if name == "no shard" {
			key = wire.Segment(wire.DocNum(0, 40), 2) // no such segment written
			opt.Only = func(i int64) bool { return i == 3 }
		}
		got := collectDocs(t, docshards.CheckDocs(ctx, c.WorkDir(), key, plain, opt))
		if len(got) != 1 || got[3].Normalized || got[3].ID != "b" {
			t.Errorf("%s: got %+v, want line 3 parsed", name, got)
		}
	}

	// The cut file: shards of what was read, every document of them.
	var cutDocs int64
	for seg, m := range markers {
		if file, _ := wire.SegmentFile(int(seg), 2); file == 1 {
			n, _, _ := wire.DecodeMarker(m)
			if n != 4 {
				t.Errorf("cut file: segment %d holds %d documents, want 4", seg, n)
			}
			cutDocs += n
		}
	}
	if got := collectDocs(t, docpool.Parsed(input.Reader(ctx, cfg.WorkDir(), 1, cut, cfg.RecordOptions()))); cutDocs == 0 || int64(len(got)) != cutDocs {
		t.Errorf("cut file: %d documents in shards, %d parsed", cutDocs, len(got))
	}

	// A shard cut short does not decode: an error, not fewer documents.
	shard := filepath.Join(cfg.Work, jobfiles.DocShardName(0, 0))
	b, _ := os.ReadFile(shard)
	if err := os.WriteFile(shard, b[:len(b)-3], 0o644); err != nil {
		t.Fatal(err)
	}
	err = docshards.SegmentDocs(ctx, cfg.WorkDir(), 0, 2, nil)(func(*docpool.Doc) error { return nil }, nil)
	if !errors.Is(err, wire.ErrCorrupt) {
		t.Errorf("reading a cut shard: %v, want a corrupt-shard error", err)
	}
}

// TestDocShardsUnwritable: a document shard that cannot be written fails
// the first pass with an error naming the shard and the work directory,
// leaves no temporary file, and emits no marker.
func TestDocShardsUnwritable(t *testing.T) {
	dir := t.TempDir()
	in := filepath.Join(dir, "in.jsonl")
	if err := os.WriteFile(in, []byte(`{"id":"a","text":"one"}`+"\n"+`{"id":"b","text":"two"}`+"\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	cfg := job.DefaultConfig()
	cfg.Work = in // a file: nothing can be created in it
	marked := false
	fn := &readKeysFn{Work: cfg.WorkDir(), Read: cfg.Reading(), Norm: cfg.Signing().Norm, Partitions: cfg.Partitions}
	nop := func(int64, []byte) {}
	err := fn.read(context.Background(), readUnit{Path: in, Of: 1}, nop, nop, nop, func(int64, []byte) { marked = true }, func(string, int64) {})
	if err == nil || !strings.Contains(err.Error(), "document shard "+jobfiles.DocShardName(0, 0)) || !strings.Contains(err.Error(), cfg.Work) {
		t.Fatalf("first pass with a work directory that cannot be written: %v", err)
	}
	if marked {
		t.Error("a marker emitted for a shard that was not written")
	}
	if !jobfiles.IsWorkFile(jobfiles.DocShardName(3, 7)) || jobfiles.IsWorkFile("docs-3-7.bin") {
		t.Error("IsWorkFile does not know document shards")
	}
}
