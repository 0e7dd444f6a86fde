//go:build linux

package main

import (
	"bytes"
	"os"
	"path/filepath"
	"syscall"
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
	// pages it freed counted until the kernel wants them, which on a busy
	// machine says more about the kernel than about the run.
	cmd := neardupCmd([]string{"GODEBUG=madvdontneed=1"}, &stderr, "run", "--quiet", "--input", in, "--output", filepath.Join(dir, "out"),
		"--memory", "700MiB", "--max-reject-ratio", "1")
	if code := exitCode(t, cmd.Run()); code != 0 {
		t.Fatalf("exit %d: %s", code, stderr.String())
	}
	peak := cmd.ProcessState.SysUsage().(*syscall.Rusage).Maxrss << 10 // kB on Linux
	if peak > 700<<20 {
		t.Errorf("peak resident memory %d MiB, more than --memory 700MiB", peak>>20)
	}
	t.Logf("peak resident memory %d MiB", peak>>20)
}
