package main

import (
	"context"
	"fmt"
	"net"
	"os"
	"path/filepath"
	"testing"

	"github.com/apache/beam/sdks/v2/go/pkg/beam/runners/prism"
)

// TestNoLoopbackFiles (issue 32): a job whose workers run in the
// command's process leaves nothing in TMPDIR, on Prism as on a job
// server reached with --environment_type LOOPBACK, although Beam's
// universal runner makes an empty beamloopbackworker-* file in TMPDIR
// for each such job and never removes it.
func TestNoLoopbackFiles(t *testing.T) {
	lis, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	port := lis.Addr().(*net.TCPAddr).Port
	lis.Close()
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	if _, err := prism.CreateJobServer(ctx, prism.Options{Port: port}); err != nil {
		t.Fatal(err)
	}
	in, err := filepath.Abs("../../testdata/sample/sample-1.jsonl.gz")
	if err != nil {
		t.Fatal(err)
	}
	for _, tc := range []struct {
		name string
		args []string
	}{
		{"prism", []string{"--runner", "prism"}},
		{"universal, loopback", []string{"--runner", "universal", "--endpoint", fmt.Sprintf("localhost:%d", port), "--environment_type", "LOOPBACK"}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			tmp := t.TempDir()
			args := append([]string{"run", "--quiet", "--input", in, "--output", filepath.Join(t.TempDir(), "out")}, tc.args...)
			if code, stderr := neardupEnv(t, []string{"TMPDIR=" + tmp}, args...); code != 0 {
				t.Fatalf("exit %d: %s", code, stderr)
			}
			if left := listDir(t, tmp); len(left) > 0 {
				t.Errorf("left in TMPDIR: %v", left)
			}
		})
	}
}

// TestPrivateTempDir: privateTempDir gives the process a TMPDIR of its
// own, inside the one it had, and removes it, with what was made there,
// when it restores TMPDIR.
func TestPrivateTempDir(t *testing.T) {
	outer := t.TempDir()
	t.Setenv("TMPDIR", outer)
	restore, err := privateTempDir()
	if err != nil {
		t.Fatal(err)
	}
	inner := os.TempDir()
	if filepath.Dir(inner) != outer {
		t.Fatalf("TMPDIR %s is not a directory in %s", inner, outer)
	}
	f, err := os.CreateTemp("", "beamloopbackworker-*")
	if err != nil {
		t.Fatal(err)
	}
	f.Close()
	restore()
	if got := os.TempDir(); got != outer {
		t.Errorf("TMPDIR %s after restore, want %s", got, outer)
	}
	if left := listDir(t, outer); len(left) > 0 {
		t.Errorf("left in TMPDIR: %v", left)
	}
}
