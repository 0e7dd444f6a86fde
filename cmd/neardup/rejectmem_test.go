package main

import (
	"bytes"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"

	"github.com/parquet-go/parquet-go"
)

// TestRejectsWithinMemory (issue 32): a run over a Parquet file of 3M
// empty rows, all rejects, stays within --memory 700MiB (it peaked at
// 1.6 GB when the first pass held every reject line and the dedup copy's
// shuffle carried them whole).
func TestRejectsWithinMemory(t *testing.T) {
	if testing.Short() {
		t.Skip("a 15-second run")
	}
	if _, err := os.Stat("/proc/self/status"); err != nil {
		t.Skip("no /proc/self/status to read the peak resident memory from")
	}
	const rows = 3_000_000
	dir := t.TempDir()
	in := filepath.Join(dir, "empty.parquet")
	type row struct {
		ID   string `parquet:"id"`
		Text string `parquet:"text"`
	}
	var buf bytes.Buffer
	w := parquet.NewGenericWriter[row](&buf)
	empty := make([]row, 100_000)
	for range rows / len(empty) {
		if _, err := w.Write(empty); err != nil {
			t.Fatal(err)
		}
		if err := w.Flush(); err != nil {
			t.Fatal(err)
		}
	}
	if err := w.Close(); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(in, buf.Bytes(), 0o644); err != nil {
		t.Fatal(err)
	}
	var stderr bytes.Buffer
	// With Go's default MADV_DONTNEED, the resident memory is the memory
	// the run holds; the command's own MADV_FREE (madvise.go) leaves the
	// pages it freed counted until the kernel wants them.
	peakFile := filepath.Join(dir, "peak")
	cmd := neardupCmd([]string{"GODEBUG=madvdontneed=1", "NEARDUP_TEST_PEAK_FILE=" + peakFile}, &stderr,
		"run", "--quiet", "--input", in, "--output", filepath.Join(dir, "out"),
		"--memory", "700MiB", "--max-reject-ratio", "1")
	if code := exitCode(t, cmd.Run()); code != 0 {
		t.Fatalf("exit %d: %s", code, stderr.String())
	}
	b, err := os.ReadFile(peakFile)
	if err != nil {
		t.Fatal(err)
	}
	peak, err := strconv.ParseInt(string(b), 10, 64)
	if err != nil {
		t.Fatal(err)
	}
	if peak > 700<<20 {
		t.Errorf("peak resident memory %d MiB, more than --memory 700MiB", peak>>20)
	}
	t.Logf("peak resident memory %d MiB", peak>>20)
}

// writePeak writes the process's peak resident memory in bytes (VmHWM) to
// path. The child's own rusage cannot say it: os/exec starts children with
// CLONE_VM, and exec folds the parent's high-water mark into the child's
// maxrss, so a child of a test binary that once held 800 MiB reports 800 MiB.
func writePeak(path string) {
	b, err := os.ReadFile("/proc/self/status")
	if err != nil {
		return
	}
	for line := range strings.Lines(string(b)) {
		if kb, ok := strings.CutPrefix(line, "VmHWM:"); ok {
			kb = strings.TrimSpace(strings.TrimSuffix(strings.TrimSpace(kb), "kB"))
			if n, err := strconv.ParseInt(kb, 10, 64); err == nil {
				_ = os.WriteFile(path, []byte(strconv.FormatInt(n<<10, 10)), 0o644)
			}
			return
		}
	}
}
