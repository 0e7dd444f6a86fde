//go:build linux

package main

import (
	"bytes"
	"compress/gzip"
	"fmt"
	"math/rand/v2"
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
)

// TestSmallTMPDIR (issue 32): on a TMPDIR too small for the spool and the
// work files together, but large enough for the work files, a run of a
// gzipped input succeeds as with --spool=false, with the same outputs
// (the spool yields to the document shards), and leaves TMPDIR empty. It
// needs an 8 MB tmpfs, so it runs only where it may mount one (as root).
func TestSmallTMPDIR(t *testing.T) {
	tmp := t.TempDir()
	if os.Geteuid() != 0 {
		t.Skip("mounting a small tmpfs needs root")
	}
	if err := syscall.Mount("tmpfs", tmp, "tmpfs", 0, "size=8m"); err != nil {
		t.Skipf("mounting a small tmpfs: %v", err)
	}
	t.Cleanup(func() { syscall.Unmount(tmp, 0) })

	// 6 MB of documents, 2 MB gzipped: the spool copy and the document
	// shards (5 MB) do not fit in 8 MB together.
	dir := t.TempDir()
	words := make([]string, 4000)
	rng := rand.New(rand.NewPCG(32, 1))
	for i := range words {
		b := make([]byte, 3+rng.IntN(8))
		for j := range b {
			b[j] = byte('a' + rng.IntN(26))
		}
		words[i] = string(b)
	}
	var jsonl bytes.Buffer
	for i := 0; jsonl.Len() < 4<<20; i++ {
		var text strings.Builder
		for range 60 + rng.IntN(60) {
			text.WriteString(words[rng.IntN(len(words))] + " ")
		}
		fmt.Fprintf(&jsonl, "{\"id\":\"d%d\",\"text\":%q}\n", i, text.String())
	}
	var gz bytes.Buffer
	zw := gzip.NewWriter(&gz)
	zw.Write(jsonl.Bytes())
	zw.Close()
	in := filepath.Join(dir, "in.jsonl.gz")
	if err := os.WriteFile(in, gz.Bytes(), 0o644); err != nil {
		t.Fatal(err)
	}
	var dedup [2][]byte
	for i, spool := range []string{"--spool=false", "--spool=true"} {
		out := filepath.Join(dir, fmt.Sprint("out", i))
		code, stderr := neardupEnv(t, []string{"TMPDIR=" + tmp}, "run", "--quiet", "--input", in, "--output", out, spool)
		if code != 0 {
			t.Fatalf("%s on an 8 MB TMPDIR: exit %d: %s", spool, code, stderr)
		}
		b, err := os.ReadFile(filepath.Join(out, "dedup-00000.jsonl.gz"))
		if err != nil {
			t.Fatal(err)
		}
		dedup[i] = b
		if left := listDir(t, tmp); len(left) > 0 {
			t.Errorf("%s left %v in TMPDIR", spool, left)
		}
	}
	if !bytes.Equal(dedup[0], dedup[1]) {
		t.Error("the dedup copies with and without the spool differ")
	}
}
