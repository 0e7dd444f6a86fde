package input

import (
	"bytes"
	"compress/gzip"
	"context"
	"encoding/json"
	"errors"
	"hash/crc32"
	"net"
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/neardup/neardup/transforms/format/fingerprint"
	"github.com/neardup/neardup/transforms/format/record"
	"github.com/neardup/neardup/transforms/format/summary"
	"github.com/neardup/neardup/transforms/jobfiles"
	"github.com/neardup/neardup/transforms/jobfiles/spool"
)

// readAll reads rd with Read, failing the test if that takes more
// than a few seconds (opening a FIFO blocks), and returns the documents'
// ids, the rejects, the fingerprint and the error.
func readAll(t *testing.T, rd FileRead) ([]string, []record.Reject, *fingerprint.Fingerprint, error) {
	t.Helper()
	type result struct {
		ids     []string
		rejects []record.Reject
		fp      *fingerprint.Fingerprint
		err     error
	}
	done := make(chan result, 1)
	go func() {
		var r result
		r.fp, r.err = Read(context.Background(), rd, func(d record.Doc) error {
			r.ids = append(r.ids, d.ID)
			return nil
		}, func(rj record.Reject) error {
			r.rejects = append(r.rejects, rj)
			return nil
		})
		done <- r
	}()
	select {
	case r := <-done:
		return r.ids, r.rejects, r.fp, r.err
	case <-time.After(10 * time.Second):
		t.Fatalf("reading %s hangs", rd.Open)
		return nil, nil, nil, nil
	}
}

// TestReadNotAFile (issue 19, D8): a local input that is not a regular
// file is one whole-file not_a_file reject that says what it is, found
// without opening it; a later pass reads nothing of a file the first pass
// did not read, and fails if a file it read is no longer a regular file.
func TestReadNotAFile(t *testing.T) {
	dir := t.TempDir()
	fifo := filepath.Join(dir, "fifo.jsonl")
	if err := syscall.Mkfifo(fifo, 0o644); err != nil {
		t.Skipf("no FIFO here: %v", err)
	}
	dangling, loop := filepath.Join(dir, "dangling.jsonl"), filepath.Join(dir, "loop.jsonl")
	if err := os.Symlink(filepath.Join(dir, "nowhere"), dangling); err != nil {
		t.Fatal(err)
	}
	if err := os.Symlink(filepath.Join(dir, "loop2.jsonl"), loop); err != nil {
		t.Fatal(err)
	}
	if err := os.Symlink(loop, filepath.Join(dir, "loop2.jsonl")); err != nil {
		t.Fatal(err)
	}
	sock := filepath.Join(dir, "sock.jsonl")
	ln, err := net.Listen("unix", sock)
	if err != nil {
		t.Fatal(err)
	}
	defer ln.Close()
	cases := map[string]string{
		fifo:        fifo + ": a named pipe (FIFO), not a regular file",
		dangling:    dangling + ": dangling symlink (to " + filepath.Join(dir, "nowhere") + ")",
		loop:        loop + ": symlink loop",
		sock:        sock + ": a socket, not a regular file",
		dir:         dir + ": is a directory",
		"/dev/null": "/dev/null: a character device, not a regular file",
	}
	for path, detail := range cases {
		ids, rejects, fp, err := readAll(t, FileRead{Open: path, Name: path})
		if err != nil || len(ids) > 0 || fp != nil || len(rejects) != 1 {
			t.Errorf("%s: %v, %v, %v, %v; want one reject", path, ids, rejects, fp, err)
			continue
		}
		if r := rejects[0]; r.File != path || r.Line != 0 || r.Reason != record.ReasonNotAFile || r.Detail != detail {
			t.Errorf("%s: reject %+v, want not_a_file with detail %q", path, r, detail)
		}
	}
	// A later pass, after the first pass rejected the file unread: nothing,
	// even when the file has become readable.
	if err := os.WriteFile(filepath.Join(dir, "nowhere"), []byte(`{"id":"a","text":"late"}`+"\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	ids, rejects, _, err := readAll(t, FileRead{Open: dangling, Name: dangling, seen: &Seen{unread: true}})
	if err != nil || len(ids)+len(rejects) > 0 {
		t.Errorf("later pass over a file the first pass rejected whole: %v, %v, %v; want nothing", ids, rejects, err)
	}
	// ... and after the first pass read a regular file that is now a FIFO:
	// the file changed.
	_, _, _, err = readAll(t, FileRead{Open: fifo, Name: fifo, seen: &Seen{fp: fingerprint.Fingerprint{Size: 10}}})
	if !errors.Is(err, fingerprint.ErrChanged) {
		t.Errorf("later pass over a file that became a FIFO: %v, want a change", err)
	}
}

// TestReadFingerprint (issue 19, D1, D2): the first pass's fingerprint is
// the size, modification time and CRC-32C of the stored (compressed) bytes;
// a later pass over a file replaced by one of the same size and time (other
// content), or cut, fails with an error naming the file, and one over the
// same file or a spool copy passes.
func TestReadFingerprint(t *testing.T) {
	dir := t.TempDir()
	path := filepath.Join(dir, "in.jsonl.gz")
	lines := []string{`{"id":"a","text":"one two three"}`, `{"id":"b","text":"four five six"}`}
	write := func(content string) []byte {
		var b bytes.Buffer
		zw := gzip.NewWriter(&b)
		zw.Write([]byte(content))
		zw.Close()
		if err := os.WriteFile(path, b.Bytes(), 0o644); err != nil {
			t.Fatal(err)
		}
		return b.Bytes()
	}
	stored := write(lines[0] + "\n" + lines[1] + "\n")
	fi, err := os.Stat(path)
	if err != nil {
		t.Fatal(err)
	}
	ids, _, fp, err := readAll(t, FileRead{Open: path, Name: path})
	if err != nil || len(ids) != 2 || fp == nil {
		t.Fatalf("first pass: %v, %v, %v", ids, fp, err)
	}
	want := fingerprint.Fingerprint{Size: int64(len(stored)), ModTime: fi.ModTime(), Read: int64(len(stored)),
		CRC: crc32.Checksum(stored, crc32.MakeTable(crc32.Castagnoli))}
	if fp.String() != want.String() {
		t.Errorf("fingerprint %v, want %v", fp, want)
	}
	// The first pass's reading, as readKeysFn leaves it in the work
	// directory, and a later pass's reader (work.reader), which finds it.
	b, err := json.Marshal(summary.InputFile{Path: path, Fingerprint: fp.String()})
	if err != nil {
		t.Fatal(err)
	}
	work := jobfiles.WorkDir{Dir: t.TempDir(), SegmentBits: 16}
	if err := WriteSeen(context.Background(), work.Dir, 0, b); err != nil {
		t.Fatal(err)
	}
	seen, err := ReadSeen(context.Background(), work.Dir, 0)
	if err != nil || seen == nil || seen.fp.String() != fp.String() {
		t.Fatalf("readSeen = %+v, %v; want %v", seen, err, fp)
	}
	later := func(work jobfiles.WorkDir, opt record.Options) (int, error) {
		n := 0
		err := Reader(context.Background(), work, 0, path, opt)(func(record.Doc) error { n++; return nil },
			func(record.Reject) error { return nil })
		return n, err
	}
	// Only the first line: the pass still checks the whole file.
	opt := record.Options{Only: func(i int64) bool { return i == 0 }}
	if n, err := later(work, opt); err != nil || n != 1 {
		t.Errorf("later pass over the same file: %d documents, %v", n, err)
	}

	// The same size and time, other content: only the checksum tells.
	if got := write(lines[1] + "\n" + lines[0] + "\n"); len(got) != len(stored) {
		t.Fatalf("the swapped file has %d bytes, want %d", len(got), len(stored))
	}
	if err := os.Chtimes(path, fi.ModTime(), fi.ModTime()); err != nil {
		t.Fatal(err)
	}
	_, err = later(work, opt)
	var ce *fingerprint.ChangedError
	if !errors.As(err, &ce) || ce.Name != path || !strings.Contains(err.Error(), "CRC-32C") {
		t.Errorf("later pass over a swapped file: %v, want a checksum mismatch naming %s", err, path)
	}
	// Without the first pass's reading (no work directory), nothing to
	// check against.
	if n, err := later(jobfiles.WorkDir{SegmentBits: 16}, opt); err != nil || n != 1 {
		t.Errorf("later pass without a work directory: %d documents, %v", n, err)
	}
	// A spool copy, written from what the first pass read, is not checked.
	copyPath := filepath.Join(dir, "input-00000")
	if err := os.WriteFile(copyPath, []byte(lines[0]+"\n"+lines[1]+"\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	work.Spool = dir
	if err := os.Rename(copyPath, spool.Path(work, 0)); err != nil {
		t.Fatal(err)
	}
	if n, err := later(work, record.Options{}); err != nil || n != 2 {
		t.Errorf("later pass over the spool copy: %d documents, %v", n, err)
	}

	// Cut: the size tells before reading.
	if err := os.Truncate(path, int64(len(stored)-5)); err != nil {
		t.Fatal(err)
	}
	read := false
	_, err = Read(context.Background(), FileRead{Open: path, Name: path, seen: seen},
		func(record.Doc) error { read = true; return nil }, func(record.Reject) error { read = true; return nil })
	if !errors.As(err, &ce) || read {
		t.Errorf("later pass over a cut file: %v (read %v), want a change found before reading", err, read)
	}
}
