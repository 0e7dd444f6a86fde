package ingest

import (
	"bufio"
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
	"github.com/neardup/neardup/transforms/internal/diskroom"
	"github.com/neardup/neardup/transforms/internal/docpool"
	"github.com/neardup/neardup/transforms/internal/workfiles"
	"github.com/neardup/neardup/transforms/job"
	"github.com/neardup/neardup/transforms/jobfiles"
	"github.com/neardup/neardup/transforms/jobfiles/input"
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
	s := &jobfiles.SpoolFile{Dir: jobfiles.SpoolDirOf(dir), File: ro, Bw: bufio.NewWriterSize(ro, 4), Final: final, Input: in}
	if n, err := s.Write([]byte("some bytes")); n != 10 || err != nil {
		t.Errorf("Write = %d, %v; want 10, nil", n, err)
	}
	if s.Err == nil {
		t.Fatal("the failed write was not kept")
	}
	s.Commit(ctx)
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
	if s = jobfiles.NewSpoolFile(ctx, jobfiles.SpoolDirOf(dir), final, in); s == nil {
		t.Fatal("no spool copy")
	}
	s.Write([]byte("some bytes"))
	tmpName := s.File.Name()
	s.Commit(ctx)
	if _, err := os.Stat(tmpName); err == nil {
		t.Error("a copy that could not be renamed was left behind")
	}
	if err := os.RemoveAll(final); err != nil {
		t.Fatal(err)
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
	copyPath := w.SpoolPath(0)
	if w.Spooled(0, in) != copyPath {
		t.Fatal("no spool copy written")
	}
	// A copy being written, of another file.
	open := w.NewSpool(ctx, 1, in)
	open.Write([]byte("some decompressed bytes"))
	openName := open.File.Name()

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
	if _, err := os.Stat(w.SpoolPath(1)); !errors.Is(err, fs.ErrNotExist) {
		t.Errorf("a dropped copy was committed: %v", err)
	}
	if got := w.Spooled(0, in); got != in {
		t.Errorf("spooled = %s after the spool was dropped, want the input", got)
	}
	if s := w.NewSpool(ctx, 2, in); s != nil {
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

// TestForgetSpool: once its job has ended (ForgetSpool), a spool
// directory no longer yields to other jobs' files, and a job that uses it
// again starts with a spool that was never dropped.
func TestForgetSpool(t *testing.T) {
	dir := t.TempDir()
	copyPath := filepath.Join(dir, "input-00000")
	if err := os.WriteFile(copyPath, []byte("a copy\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	d := jobfiles.SpoolDirOf(dir)
	jobfiles.ForgetSpool(dir)
	if _, ok := jobfiles.SpoolDirs.Load(dir); ok {
		t.Error("the spool directory is still held after ForgetSpool")
	}
	diskroom.Yield()
	if d.IsDropped() {
		t.Error("a forgotten spool was dropped to make room for another job")
	}
	if _, err := os.Stat(copyPath); err != nil {
		t.Errorf("a forgotten spool's copy was deleted: %v", err)
	}

	d = jobfiles.SpoolDirOf(dir)
	if !diskroom.Yield() || !d.IsDropped() {
		t.Error("a spool in use again does not yield")
	}
	jobfiles.ForgetSpool(dir)
	if jobfiles.SpoolDirOf(dir).IsDropped() {
		t.Error("a spool used after ForgetSpool starts dropped")
	}
	jobfiles.ForgetSpool(dir)
}
