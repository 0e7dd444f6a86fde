package ingest

import (
	"bytes"
	"compress/gzip"
	"context"
	"errors"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"sync/atomic"
	"syscall"
	"testing"

	"github.com/apache/beam/sdks/v2/go/pkg/beam/io/filesystem"

	"github.com/neardup/neardup/transforms/format/record"
	"github.com/neardup/neardup/transforms/format/summary"
	"github.com/neardup/neardup/transforms/internal/docpool"
	"github.com/neardup/neardup/transforms/internal/workfiles"
	"github.com/neardup/neardup/transforms/job"
	"github.com/neardup/neardup/transforms/jobfiles"
	"github.com/neardup/neardup/transforms/jobfiles/input"
	"github.com/neardup/neardup/transforms/jobfiles/spool"
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

// TestSpoolDropped: a spool copy that cannot be created (a full disk,
// issue 19 D7) costs the job nothing but the copy: the first pass
// succeeds, reports the same documents, and leaves no copy, so the later
// passes parse the input. (spool.TestFileDropped: one that cannot be
// written or renamed into place.)
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
	cfg := job.DefaultConfig()
	cfg.Spool = filepath.Join(dir, "not-a-dir")
	if err := os.WriteFile(cfg.Spool, nil, 0o644); err != nil {
		t.Fatal(err)
	}
	var docs int64
	fn := &readKeysFn{Work: cfg.WorkDir(), Read: cfg.Reading(), Partitions: cfg.Partitions}
	nop := func(int64, []byte) {}
	err = fn.read(ctx, readUnit{Path: in, Of: 1}, nop, nop, nop, nop, func(name string, n int64) {
		if name == summary.StatDocuments {
			docs = n
		}
	})
	if err != nil || docs != 2 {
		t.Fatalf("first pass without a usable spool: %v, %d documents, want 2", err, docs)
	}
	if got := collectDocs(t, docpool.Parsed(input.Reader(ctx, cfg.WorkDir(), 0, in, cfg.RecordOptions()))); len(got) != 2 {
		t.Errorf("the input read again without a spool copy: %d documents, want 2", len(got))
	}

}

// roomFS is a Beam filesystem ("room://") whose writes fail for lack of
// space while the file named by roomFull exists: a disk the spool fills.
type roomFS struct{}

// roomFull is the file whose existence fills the room:// disk.
var roomFull atomic.Pointer[string]

func (roomFS) Close() error                                            { return nil }
func (roomFS) List(context.Context, string) ([]string, error)          { return nil, nil }
func (roomFS) Size(context.Context, string) (int64, error)             { return 0, os.ErrNotExist }
func (roomFS) OpenRead(context.Context, string) (io.ReadCloser, error) { return nil, os.ErrNotExist }
func (roomFS) Rename(context.Context, string, string) error            { return nil }
func (roomFS) OpenWrite(_ context.Context, name string) (io.WriteCloser, error) {
	return roomFile{name}, nil
}

type roomFile struct{ name string }

func (f roomFile) Write(p []byte) (int, error) {
	if full := roomFull.Load(); full != nil {
		if _, err := os.Stat(*full); err == nil {
			return 0, &fs.PathError{Op: "write", Path: f.name, Err: syscall.ENOSPC}
		}
	}
	return len(p), nil
}
func (roomFile) Close() error { return nil }

func init() {
	filesystem.Register("room", func(context.Context) filesystem.Interface { return roomFS{} })
}

// TestSpoolYields (issue 32): a work file the job needs that does not fit
// has the spool dropped, its copies written and being written, and is
// written again; the later passes then read the input itself, and no
// more copies are made.
func TestSpoolYields(t *testing.T) {
	ctx := context.Background()
	dir := t.TempDir()
	in := filepath.Join(dir, "in.jsonl.gz")
	var gz bytes.Buffer
	zw := gzip.NewWriter(&gz)
	zw.Write([]byte(`{"id":"a","text":"one"}` + "\n" + `{"id":"b","text":"two"}` + "\n"))
	zw.Close()
	if err := os.WriteFile(in, gz.Bytes(), 0o644); err != nil {
		t.Fatal(err)
	}
	cfg := job.DefaultConfig()
	cfg.Spool = t.TempDir()
	w := cfg.WorkDir()
	fn := &readKeysFn{Work: w, Read: cfg.Reading(), Partitions: cfg.Partitions}
	nop := func(int64, []byte) {}
	if err := fn.read(ctx, readUnit{Path: in, Of: 1}, nop, nop, nop, nop, func(string, int64) {}); err != nil {
		t.Fatal(err)
	}
	copyPath := spool.Path(w, 0)
	if spool.Source(w, 0, in) != copyPath {
		t.Fatal("no spool copy written")
	}
	// A copy being written, of another file.
	open := spool.Start(ctx, w, 1, in)
	open.Write([]byte("some decompressed bytes"))
	openNames, _ := filepath.Glob(filepath.Join(w.Spool, ".tmp-"+jobfiles.SpoolName(1)+"-*"))
	if len(openNames) != 1 {
		t.Fatalf("the copy being written has %d temporary names, want 1: %v", len(openNames), openNames)
	}
	openName := openNames[0]

	roomFull.Store(&copyPath)
	defer roomFull.Store(nil)
	err := workfiles.Write(ctx, "room://work", "docs-00000-000000.bin", workfiles.KindDocShards, func(w io.Writer) error {
		_, err := w.Write([]byte("a document shard"))
		return err
	}, false)
	if err != nil {
		t.Fatalf("a needed write on a disk the spool fills: %v", err)
	}
	if _, err := os.Stat(copyPath); !errors.Is(err, fs.ErrNotExist) {
		t.Errorf("the spool copy is still there: %v", err)
	}
	if _, err := os.Stat(openName); !errors.Is(err, fs.ErrNotExist) {
		t.Errorf("the copy being written is still there: %v", err)
	}
	open.Commit(ctx)
	if _, err := os.Stat(spool.Path(w, 1)); !errors.Is(err, fs.ErrNotExist) {
		t.Errorf("a dropped copy was committed: %v", err)
	}
	if got := spool.Source(w, 0, in); got != in {
		t.Errorf("spooled = %s after the spool was dropped, want the input", got)
	}
	if s := spool.Start(ctx, w, 2, in); s != nil {
		t.Error("a new copy was started after the spool was dropped")
		s.Abort()
	}
	if got := collectDocs(t, docpool.Parsed(input.Reader(ctx, w, 0, in, cfg.RecordOptions()))); len(got) != 2 {
		t.Errorf("the input read again without its copy: %d documents, want 2", len(got))
	}

	// Once the spool is gone, a write that does not fit fails.
	full := filepath.Join(dir, "full")
	if err := os.WriteFile(full, []byte("not the spool's"), 0o644); err != nil {
		t.Fatal(err)
	}
	roomFull.Store(&full)
	err = workfiles.Write(ctx, "room://work", "docs-00000-000000.bin", workfiles.KindDocShards, func(w io.Writer) error {
		_, err := w.Write([]byte("a document shard"))
		return err
	}, false)
	if !errors.Is(err, syscall.ENOSPC) {
		t.Errorf("a needed write with nothing to free: %v, want ENOSPC", err)
	}
}
