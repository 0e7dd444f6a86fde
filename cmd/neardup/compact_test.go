package main

import (
	"bytes"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"syscall"
	"testing"
	"time"
)

// compactIndex returns an index of the sample files for the tests of
// 'neardup index compact'.
func compactIndex(t *testing.T) string {
	t.Helper()
	dir := t.TempDir()
	idx := filepath.Join(dir, "idx")
	input := sampleFile(t, "sample-0.jsonl") + "," + sampleFile(t, "sample-1.jsonl.gz")
	if code, stderr := neardup(t, "", "run", "--quiet", "--input", input, "--output", filepath.Join(dir, "out"), "--index-out", idx); code != 0 {
		t.Fatalf("run --index-out: exit %d: %s", code, stderr)
	}
	return idx
}

// mountTmpfs mounts a tmpfs of size (as mount's size=) at a new
// directory, with flags (syscall.MS_RDONLY), or skips the test where it
// may not (not root).
func mountTmpfs(t *testing.T, size string, flags uintptr) string {
	t.Helper()
	dir := t.TempDir()
	if os.Geteuid() != 0 {
		t.Skip("mounting a tmpfs needs root")
	}
	if err := syscall.Mount("tmpfs", dir, "tmpfs", flags, "size="+size); err != nil {
		t.Skipf("mounting a tmpfs: %v", err)
	}
	t.Cleanup(func() { syscall.Unmount(dir, 0) })
	return dir
}

// TestCompactOverwrite (issue 40): index compact takes its output as run
// and audit take theirs: a non-empty directory is refused (exit 2,
// --overwrite named) and left as it was; with --overwrite an index there is
// replaced; a file that is not an index's is refused even then.
func TestCompactOverwrite(t *testing.T) {
	t.Parallel()
	idx := compactIndex(t)
	dir := t.TempDir()
	out := filepath.Join(dir, "compact")
	if code, stderr := neardup(t, "", "index", "compact", "--index", idx, "--output", out); code != 0 {
		t.Fatalf("compact: exit %d: %s", code, stderr)
	}
	before := snapshot(t, out)
	code, stderr := neardup(t, "", "index", "compact", "--index", idx, "--output", out)
	if code != 2 || !strings.Contains(stderr, "--output: "+out+" is not empty (use --overwrite") {
		t.Errorf("compact into a compacted index: exit %d, stderr %q; want 2 and --overwrite", code, stderr)
	}
	checkOneLine(t, stderr)
	if after := snapshot(t, out); !sameSnapshot(before, after) {
		t.Errorf("the refused compaction changed %s: %q, was %q", out, keys(after), keys(before))
	}
	if code, stderr := neardup(t, "", "index", "compact", "--index", idx, "--output", out, "--overwrite"); code != 0 {
		t.Fatalf("compact --overwrite: exit %d: %s", code, stderr)
	}
	if after := snapshot(t, out); !sameSnapshot(before, after) {
		t.Errorf("compact --overwrite wrote %q, want the same index %q", keys(after), keys(before))
	}
	writeFiles(t, out, "notes.txt")
	code, stderr = neardup(t, "", "index", "compact", "--index", idx, "--output", out, "--overwrite")
	if code != 1 || !strings.Contains(stderr, "notes.txt, which is not part of an index") {
		t.Errorf("compact --overwrite over a foreign file: exit %d, stderr %q; want 1", code, stderr)
	}
}

// TestCompactClosedPipe (issue 40): a compaction whose standard output is
// a closed pipe ('neardup index compact ... | true') completes and exits
// 0, leaving nothing in TMPDIR.
func TestCompactClosedPipe(t *testing.T) {
	t.Parallel()
	idx := compactIndex(t)
	dir := t.TempDir()
	tmp, out := filepath.Join(dir, "tmp"), filepath.Join(dir, "compact")
	if err := os.Mkdir(tmp, 0o755); err != nil {
		t.Fatal(err)
	}
	r, w, err := os.Pipe()
	if err != nil {
		t.Fatal(err)
	}
	r.Close()
	cmd := neardupCmd([]string{"TMPDIR=" + tmp}, nil, "index", "compact", "--index", idx, "--output", out)
	cmd.Stdout, cmd.Stderr = w, w
	err = cmd.Run()
	w.Close()
	if code := exitCode(t, err); code != 0 {
		t.Errorf("exit code %d, want 0", code)
	}
	if completeOutput(out) != "index.json" {
		t.Errorf("%s is not a complete index: %q", out, listDir(t, out))
	}
	if left := listDir(t, tmp); len(left) > 0 {
		t.Errorf("left in TMPDIR: %q", left)
	}
}

// TestCompactTmp (issue 40): a --tmp that is missing, a file or read-only
// is named in the one line of the error, as --tmp when given, as TMPDIR
// when it came from there, and nothing is written.
func TestCompactTmp(t *testing.T) {
	idx := compactIndex(t)
	dir := t.TempDir()
	file := filepath.Join(dir, "file")
	copyBytes(t, file, "x")
	ro := mountTmpfs(t, "1m", syscall.MS_RDONLY)
	for _, tt := range []struct {
		name, tmp string
		viaEnv    bool
		code      int
		want      string
	}{
		{"missing", filepath.Join(dir, "nowhere"), false, 2, "--tmp " + filepath.Join(dir, "nowhere") + " does not exist"},
		{"a file", file, false, 2, "--tmp " + file + " is not a directory"},
		{"read-only", ro, false, 1, "--tmp " + ro + ": "},
		{"TMPDIR read-only", ro, true, 1, "TMPDIR " + ro + ": "},
		{"TMPDIR missing", filepath.Join(dir, "nowhere"), true, 2, "TMPDIR " + filepath.Join(dir, "nowhere") + " does not exist"},
	} {
		t.Run(tt.name, func(t *testing.T) {
			out := filepath.Join(t.TempDir(), "compact")
			args := []string{"index", "compact", "--index", idx, "--output", out}
			var env []string
			if tt.viaEnv {
				env = []string{"TMPDIR=" + tt.tmp}
			} else {
				args = append(args, "--tmp", tt.tmp)
			}
			code, stderr := neardupEnv(t, env, args...)
			if code != tt.code || !strings.Contains(stderr, tt.want) {
				t.Errorf("exit %d, stderr %q; want %d and %q", code, stderr, tt.code, tt.want)
			}
			checkOneLine(t, stderr)
			if _, err := os.Lstat(out); !os.IsNotExist(err) {
				t.Errorf("the failed compaction left %s: %q", out, listAll(out))
			}
		})
	}
}

// TestCompactNoSpace (issue 40): a compaction that runs out of space in
// --tmp or in its output fails (exit 1) with one line naming the
// directory and about the space it needs there, and leaves neither its
// output directory nor anything in --tmp: the next compaction needs no
// --overwrite.
func TestCompactNoSpace(t *testing.T) {
	idx := compactIndex(t)
	t.Run("tmp", func(t *testing.T) {
		tmp := mountTmpfs(t, "64k", 0)
		out := filepath.Join(t.TempDir(), "compact")
		code, stderr := neardup(t, "", "index", "compact", "--index", idx, "--output", out, "--tmp", tmp)
		if code != 1 || !strings.Contains(stderr, "writing the key entries in "+tmp+"/compact-") || !strings.Contains(stderr, "no space left on device (the compaction needs about ") {
			t.Errorf("exit %d, stderr %q; want 1, the directory and the space", code, stderr)
		}
		checkOneLine(t, stderr)
		if _, err := os.Lstat(out); !os.IsNotExist(err) {
			t.Errorf("left %s: %q", out, listAll(out))
		}
		if left := listAll(tmp); len(left) > 0 {
			t.Errorf("left in --tmp: %q", left)
		}
	})
	t.Run("output", func(t *testing.T) {
		disk := mountTmpfs(t, "64k", 0)
		out := filepath.Join(disk, "compact")
		code, stderr := neardup(t, "", "index", "compact", "--index", idx, "--output", out)
		if code != 1 || !strings.Contains(stderr, "no space left on device (the compaction needs about ") || !strings.Contains(stderr, " in "+out+"/.tmp-run-") {
			t.Errorf("exit %d, stderr %q; want 1, the directory and the space", code, stderr)
		}
		checkOneLine(t, stderr)
		if left := listAll(disk); len(left) > 0 {
			t.Errorf("left on the disk of --output: %q", left)
		}
	})
}

// TestCompactSweep (issue 54): a compaction killed with SIGKILL leaves
// its compact-* directory in TMPDIR, with the marker run's work
// directories have; the next compaction removes it, as run removes the
// work directories of its killed runs (outdir.SweepWorkDirs): at once,
// since the marker records the killed process's identity; it leaves the
// directories of a live compaction, a young one whose marker has no
// identity, and those without the marker.
func TestCompactSweep(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	inputs := writeInterruptInputs(t, filepath.Join(dir, "in"), 6)
	idx := filepath.Join(dir, "idx")
	if code, stderr := neardup(t, "", "run", "--quiet", "--input", strings.Join(inputs, ","), "--output", filepath.Join(dir, "out"), "--index-out", idx); code != 0 {
		t.Fatalf("run --index-out: exit %d: %s", code, stderr)
	}
	tmp := filepath.Join(dir, "tmp")
	if err := os.Mkdir(tmp, 0o755); err != nil {
		t.Fatal(err)
	}
	// Kill a compaction once its directory in TMPDIR has its marker.
	var killed string
	for try := 0; killed == "" && try < 10; try++ {
		cmd := neardupCmd([]string{"TMPDIR=" + tmp}, &bytes.Buffer{}, "index", "compact", "--index", idx, "--output", filepath.Join(dir, fmt.Sprintf("killed-%d", try)))
		if err := cmd.Start(); err != nil {
			t.Fatal(err)
		}
		exited := make(chan struct{})
		go func() { cmd.Wait(); close(exited) }()
	poll:
		for {
			select {
			case <-exited:
				break poll
			default:
			}
			// Kill it once the marker is whole (its proc line written).
			if m, _ := filepath.Glob(filepath.Join(tmp, "compact-*", ".neardup-work")); len(m) > 0 && markerWhole(m[0]) {
				cmd.Process.Kill()
				<-exited
				killed = filepath.Dir(m[0])
				break
			}
			time.Sleep(time.Millisecond)
		}
	}
	if killed == "" {
		t.Fatal("10 compactions ended before their directory in TMPDIR could be seen")
	}
	if left := listDir(t, tmp); len(left) != 1 || left[0] != filepath.Base(killed) {
		t.Fatalf("TMPDIR holds %q after the kill; want %s", left, filepath.Base(killed))
	}
	host, _ := os.Hostname()
	old := time.Now().Add(-48 * time.Hour)
	others := map[string]string{ // name: marker ("" for none)
		"compact-running":  fmt.Sprintf("neardup work directory\npid %d\nhost %s\n", os.Getpid(), host),
		"compact-nomarker": "",
		"compact-young":    fmt.Sprintf("neardup work directory\npid %d\nhost %s\n", 1<<30, host),
	}
	for name, marker := range others {
		p := filepath.Join(tmp, name)
		copyBytes(t, filepath.Join(p, "part-00000"), "entries")
		if marker != "" {
			copyBytes(t, filepath.Join(p, ".neardup-work"), marker)
		}
		if name != "compact-young" {
			os.Chtimes(filepath.Join(p, ".neardup-work"), old, old)
			os.Chtimes(p, old, old)
		}
	}
	compact := func(out string) {
		t.Helper()
		if code, stderr := neardupEnv(t, []string{"TMPDIR=" + tmp}, "index", "compact", "--index", idx, "--output", filepath.Join(dir, out)); code != 0 {
			t.Fatalf("index compact: exit %d: %s", code, stderr)
		}
	}
	// Killed a moment ago, its marker names the process's identity: the
	// next compaction removes it.
	compact("c1")
	want := []string{"compact-nomarker", "compact-running", "compact-young"}
	if got := listDir(t, tmp); !slices.Equal(got, want) {
		t.Errorf("TMPDIR holds %q after the compaction; want %q (%s removed)", got, want, filepath.Base(killed))
	}
}

// markerWhole reports whether the work marker at path has its proc line.
func markerWhole(path string) bool {
	b, err := os.ReadFile(path)
	return err == nil && strings.Contains(string(b), "\nproc ")
}
