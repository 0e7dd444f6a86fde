package pipeline

import (
	"bytes"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"sync/atomic"
	"syscall"
	"testing"
	"time"

	"github.com/neardup/neardup/transforms/format/output"
	"github.com/neardup/neardup/transforms/format/record"
	"github.com/neardup/neardup/transforms/format/summary"
	"github.com/neardup/neardup/transforms/job"
	"github.com/neardup/neardup/transforms/jobstate"
)

// copyFile copies the file src to dst.
func copyFile(t *testing.T, src, dst string) {
	t.Helper()
	b, err := os.ReadFile(src)
	if err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(dst, b, 0o644); err != nil {
		t.Fatal(err)
	}
}

// reorder replaces the file at path, by an atomic rename, with its lines in
// reverse order and its modification time: the same size and time, other
// content.
func reorder(path string) error {
	b, err := os.ReadFile(path)
	if err != nil {
		return err
	}
	fi, err := os.Stat(path)
	if err != nil {
		return err
	}
	lines := bytes.SplitAfter(b, []byte{'\n'})
	slices.Reverse(lines)
	tmp := path + ".new"
	if err := os.WriteFile(tmp, bytes.Join(lines, nil), 0o644); err != nil {
		return err
	}
	if err := os.Chtimes(tmp, fi.ModTime(), fi.ModTime()); err != nil {
		return err
	}
	return os.Rename(tmp, path)
}

// truncate cuts the last line of the file at path.
func truncate(path string) error {
	b, err := os.ReadFile(path)
	if err != nil {
		return err
	}
	cut := bytes.LastIndexByte(b[:len(b)-1], '\n') + 1
	return os.Truncate(path, int64(cut))
}

// appendLine appends a line to the file at path: it grows, its first
// bytes as they were.
func appendLine(path string) error {
	f, err := os.OpenFile(path, os.O_APPEND|os.O_WRONLY, 0)
	if err != nil {
		return err
	}
	if _, err := f.WriteString("{\"id\":\"late\",\"text\":\"appended after the first pass\"}\n"); err != nil {
		f.Close()
		return err
	}
	return f.Close()
}

// TestInputChanged (issue 19, D1, D2; issue 54): an input file replaced,
// cut or grown between the first pass and a later one fails the job with
// an error that names the file, and leaves no deduplicated copy of it and
// no summary, with the spool as without. The change, made by a hook once
// the first pass has read the file, keeps the file's size and modification
// time in the first case: only the checksum of what the dedup writer read
// (the spool holds the other passes' copies) tells. In the second, the
// signature pass sees the new size. A gzipped input's dedup copy is
// written from its spool copy: that pass checks the input's size and
// time, as one that reads the input does.
func TestInputChanged(t *testing.T) {
	for _, tt := range []struct {
		name   string
		spool  bool
		sample string // the input changed, a copy of it
		change func(string) error
	}{
		{"reordered, same size and time, read again by the dedup writer", true, sampleFiles[0], reorder},
		{"truncated, read again by the signature pass", false, sampleFiles[0], truncate},
		{"gzipped, grown, read again by the dedup writer", false, sampleFiles[1], appendLine},
		{"gzipped, grown, the dedup writer reading its spool copy", true, sampleFiles[1], appendLine},
	} {
		t.Run(tt.name, func(t *testing.T) {
			in := filepath.Join(t.TempDir(), filepath.Base(tt.sample))
			copyFile(t, tt.sample, in)
			other := sampleFiles[1]
			if tt.sample == other {
				other = sampleFiles[0]
			}
			files := inputs(t, in, other)
			cfg := job.DefaultConfig()
			if tt.spool {
				cfg.Spool = t.TempDir()
			}
			var changed atomic.Bool
			var changeErr atomic.Pointer[error]
			jobstate.SetStageHook("Read", func(key string) {
				if key == in && !changed.Swap(true) {
					if err := tt.change(in); err != nil {
						changeErr.Store(&err)
					}
				}
			})
			defer jobstate.SetStageHook("", nil)
			dir := t.TempDir()
			err := runInto(t, "", cfg, files, dir)
			if p := changeErr.Load(); !changed.Load() || p != nil {
				t.Fatalf("the input was not changed: hook ran %v, %v", changed.Load(), p)
			}
			want := "input " + in + " changed during the run"
			if err == nil || !strings.Contains(err.Error(), want) {
				t.Fatalf("job error %v, want %q", err, want)
			}
			msg := err.Error()[strings.Index(err.Error(), want):]
			t.Logf("the job failed: %s", msg[:strings.IndexByte(msg+"\n", '\n')])
			dedup := output.DedupName("jsonl", slices.Index(files, in))
			for _, name := range []string{dedup, summary.FileName} {
				if _, err := os.Stat(filepath.Join(dir, name)); !errors.Is(err, os.ErrNotExist) {
					t.Errorf("%s written by the failed job (%v)", name, err)
				}
			}
		})
	}
}

// TestInputNotAFile (issue 19, D8): a named pipe, a dangling symlink and a
// symlink loop among the inputs are each one not_a_file reject, found
// without opening them (opening the pipe would block); the job completes
// with every record accounted for, and summary.json lists every input
// with what the first pass read of it. The dangling symlink's target
// appears after the first pass: the later passes still read nothing of it.
func TestInputNotAFile(t *testing.T) {
	dir := t.TempDir()
	fifo := filepath.Join(dir, "fifo.jsonl")
	if err := syscall.Mkfifo(fifo, 0o644); err != nil {
		t.Skipf("no FIFO here: %v", err)
	}
	dangling, later := filepath.Join(dir, "dangling.jsonl"), filepath.Join(dir, "later.jsonl")
	loop := filepath.Join(dir, "loop.jsonl")
	for link, target := range map[string]string{dangling: later, loop: loop} {
		if err := os.Symlink(target, link); err != nil {
			t.Fatal(err)
		}
	}
	good := "../testdata/bad/good.jsonl.gz"
	files := inputs(t, good, fifo, dangling, loop)
	jobstate.SetStageHook("Read", func(key string) {
		if key == dangling {
			os.WriteFile(later, []byte(`{"id":"late","text":"a record the first pass never saw"}`+"\n"), 0o644)
		}
	})
	defer jobstate.SetStageHook("", nil)
	out := t.TempDir()
	done := make(chan error, 1)
	go func() { done <- runInto(t, "", job.DefaultConfig(), files, out) }()
	select {
	case err := <-done:
		if err != nil {
			t.Fatalf("job failed: %v", err)
		}
	case <-time.After(time.Minute):
		// Let the reader blocked on the pipe go, so that the job ends.
		if f, err := os.OpenFile(fifo, os.O_WRONLY, 0); err == nil {
			f.Close()
		}
		<-done
		t.Fatal("the job hung on the named pipe")
	}

	details := map[string]string{
		fifo:     fifo + ": a named pipe (FIFO), not a regular file",
		dangling: dangling + ": dangling symlink (to " + later + ")",
		loop:     loop + ": symlink loop",
	}
	for _, r := range readRejects(t, out) {
		if want := details[r.File]; r.Reason != record.ReasonNotAFile || r.Line != 0 || r.Detail != want {
			t.Errorf("reject %+v, want a not_a_file reject of the whole file with detail %q", r, want)
		}
		delete(details, r.File)
	}
	if len(details) > 0 {
		t.Errorf("no reject of %v", details)
	}
	c := checkAccounting(t, out)
	if c[summary.StatInput] != 9 || c[summary.StatRejected] != 3 || c[summary.StatDocuments] != 6 {
		t.Errorf("counts %v: want 9 input records, 3 rejected, 6 documents", c)
	}
	if b, err := os.ReadFile(filepath.Join(out, output.DedupName("jsonl", slices.Index(files, dangling)))); err != nil || len(b) > 0 {
		t.Errorf("dedup copy of the dangling symlink: %q, %v; want it empty", b, err)
	}

	fi, err := os.Stat(good)
	if err != nil {
		t.Fatal(err)
	}
	s := readSummary(t, out)
	if len(s.Inputs) != len(files) {
		t.Fatalf("summary inputs %+v, want %d", s.Inputs, len(files))
	}
	for i, in := range s.Inputs {
		want := summary.InputFile{Index: i, Path: files[i], Records: 1, Rejected: 1,
			Reasons: map[string]int64{record.ReasonNotAFile: 1}}
		if files[i] == inputs(t, good)[0] {
			want = summary.InputFile{Index: i, Path: files[i], Records: 6, Bytes: fi.Size(), Compression: "gzip", Fingerprint: in.Fingerprint}
			if !strings.Contains(in.Fingerprint, fmt.Sprintf("size=%d ", fi.Size())) {
				t.Errorf("fingerprint of %s: %q", files[i], in.Fingerprint)
			}
		}
		if fmt.Sprint(in) != fmt.Sprint(want) {
			t.Errorf("summary input %d = %+v, want %+v", i, in, want)
		}
	}
}
