package transforms

import (
	"compress/gzip"
	"context"
	"os"
	"path/filepath"
	"testing"

	"github.com/neardup/neardup/transforms/format/output"
	"github.com/neardup/neardup/transforms/format/record"
	"github.com/neardup/neardup/transforms/internal/docpool"
)

// collectDocs reads every document r reports, by line index.
func collectDocs(t *testing.T, r docpool.Reader) map[int64]docpool.Doc {
	t.Helper()
	got := map[int64]docpool.Doc{}
	err := r(func(d *docpool.Doc) error {
		if _, dup := got[d.Index]; dup {
			t.Errorf("line %d reported twice", d.Index)
		}
		item := *d
		if item.TextBytes != nil { // valid only during the call
			item.Text, item.TextBytes = string(item.TextBytes), nil
		}
		got[d.Index] = item
		return nil
	}, func(record.Reject) error { return nil })
	if err != nil {
		t.Fatal(err)
	}
	return got
}

// TestSpoolDropped: a spool copy that cannot be created, written or renamed
// into place (a full disk, issue 19 D7) costs
// the job nothing but the copy: the first pass succeeds, reports the same
// documents, and leaves no copy, so the later passes parse the input.
func TestSpoolDropped(t *testing.T) {
	ctx := context.Background()
	dir := t.TempDir()
	in := filepath.Join(dir, "in.jsonl.gz")
	f, err := os.Create(in)
	if err != nil {
		t.Fatal(err)
	}
	zw := gzip.NewWriter(f)
	zw.Write([]byte(`{"id":"a","text":"one"}` + "\n" + `{"id":"b","text":"two"}` + "\n"))
	zw.Close()
	f.Close()

	// A spool "directory" that is a file: no copy can be created.
	cfg := DefaultConfig()
	cfg.Spool = filepath.Join(dir, "not-a-dir")
	if err := os.WriteFile(cfg.Spool, nil, 0o644); err != nil {
		t.Fatal(err)
	}
	var docs int64
	fn := &readKeysFn{Work: cfg.work(), Read: cfg.reading(), Partitions: cfg.Partitions}
	nop := func(int, []byte) {}
	err = fn.read(ctx, readUnit{Path: in, Of: 1}, nop, nop, nop, nop, func(name string, n int64) {
		if name == output.StatDocuments {
			docs = n
		}
	})
	if err != nil || docs != 2 {
		t.Fatalf("first pass without a usable spool: %v, %d documents, want 2", err, docs)
	}
	if got := collectDocs(t, docpool.Parsed(cfg.work().reader(ctx, 0, in, cfg.recordOptions()))); len(got) != 2 {
		t.Errorf("the input read again without a spool copy: %d documents, want 2", len(got))
	}

	// Writes that fail (a file opened read-only): Write reports success,
	// so that the tee'd read goes on, and commit drops the copy.
	tmp := filepath.Join(dir, "copy.tmp")
	if err := os.WriteFile(tmp, nil, 0o644); err != nil {
		t.Fatal(err)
	}
	ro, err := os.Open(tmp)
	if err != nil {
		t.Fatal(err)
	}
	final := filepath.Join(dir, "copy")
	s := &spoolFile{File: ro, final: final, input: in}
	if n, err := s.Write([]byte("some bytes")); n != 10 || err != nil {
		t.Errorf("Write = %d, %v; want 10, nil", n, err)
	}
	if s.err == nil {
		t.Fatal("the failed write was not kept")
	}
	s.commit(ctx)
	if _, err := os.Stat(final); err == nil {
		t.Error("a copy whose writes failed was committed")
	}
	if _, err := os.Stat(tmp); err == nil {
		t.Error("a dropped copy was left behind")
	}

	// A rename that fails (the final name is a directory): dropped too.
	if err := os.MkdirAll(filepath.Join(final, "x"), 0o755); err != nil {
		t.Fatal(err)
	}
	if s = newSpoolFile(ctx, final, in); s == nil {
		t.Fatal("no spool copy")
	}
	s.Write([]byte("some bytes"))
	tmpName := s.File.Name()
	s.commit(ctx)
	if _, err := os.Stat(tmpName); err == nil {
		t.Error("a copy that could not be renamed was left behind")
	}
	if err := os.RemoveAll(final); err != nil {
		t.Fatal(err)
	}
}
