package spool

import (
	"bufio"
	"context"
	"os"
	"path/filepath"
	"testing"

	"github.com/neardup/neardup/transforms/internal/diskroom"
)

// TestFileDropped: a spool copy that cannot be written or renamed into
// place (a full disk, issue 19 D7) is dropped at Commit, and leaves
// nothing behind: the later passes read the input itself.
func TestFileDropped(t *testing.T) {
	ctx := context.Background()
	dir := t.TempDir()
	in := filepath.Join(dir, "in.jsonl.gz")
	defer Forget(dir)

	// Writes that fail (a file opened read-only): Write reports success,
	// so that the tee'd read goes on, and Commit drops the copy.
	tmp := filepath.Join(dir, "copy.tmp")
	if err := os.WriteFile(tmp, nil, 0o644); err != nil {
		t.Fatal(err)
	}
	ro, err := os.Open(tmp)
	if err != nil {
		t.Fatal(err)
	}
	final := filepath.Join(dir, "copy")
	s := &File{dir: dirOf(dir), file: ro, bw: bufio.NewWriterSize(ro, 4), final: final, input: in}
	if n, err := s.Write([]byte("some bytes")); n != 10 || err != nil {
		t.Errorf("Write = %d, %v; want 10, nil", n, err)
	}
	if s.err == nil {
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
	if s = newFile(ctx, dirOf(dir), final, in); s == nil {
		t.Fatal("no spool copy")
	}
	s.Write([]byte("some bytes"))
	tmpName := s.file.Name()
	s.Commit(ctx)
	if _, err := os.Stat(tmpName); err == nil {
		t.Error("a copy that could not be renamed was left behind")
	}
	if err := os.RemoveAll(final); err != nil {
		t.Fatal(err)
	}
}

// TestForget: once its job has ended (Forget), a spool
// directory no longer yields to other jobs' files, and a job that uses it
// again starts with a spool that was never dropped.
func TestForget(t *testing.T) {
	dir := t.TempDir()
	copyPath := filepath.Join(dir, "input-00000")
	if err := os.WriteFile(copyPath, []byte("a copy\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	d := dirOf(dir)
	Forget(dir)
	if _, ok := dirs.Load(dir); ok {
		t.Error("the spool directory is still held after Forget")
	}
	diskroom.Yield()
	if d.isDropped() {
		t.Error("a forgotten spool was dropped to make room for another job")
	}
	if _, err := os.Stat(copyPath); err != nil {
		t.Errorf("a forgotten spool's copy was deleted: %v", err)
	}

	d = dirOf(dir)
	if !diskroom.Yield() || !d.isDropped() {
		t.Error("a spool in use again does not yield")
	}
	Forget(dir)
	if dirOf(dir).isDropped() {
		t.Error("a spool used after Forget starts dropped")
	}
	Forget(dir)
}
