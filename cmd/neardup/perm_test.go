package main

import (
	"io/fs"
	"os"
	"path/filepath"
	"testing"
)

// TestOutputPermissions: no output or index file is readable by more users
// than the inputs: a private input (0600) gives private outputs, a
// group-readable one (0640) group-readable outputs at most.
func TestOutputPermissions(t *testing.T) {
	t.Parallel()
	for _, perm := range []fs.FileMode{0o600, 0o640} {
		t.Run(perm.String(), func(t *testing.T) {
			t.Parallel()
			dir := t.TempDir()
			b, err := os.ReadFile(sampleFile(t, "sample-0.jsonl"))
			if err != nil {
				t.Fatal(err)
			}
			in := filepath.Join(dir, "in.jsonl")
			if err := os.WriteFile(in, b, perm); err != nil {
				t.Fatal(err)
			}
			if err := os.Chmod(in, perm); err != nil { // whatever the umask
				t.Fatal(err)
			}
			out, idx := filepath.Join(dir, "out"), filepath.Join(dir, "idx")
			if code, stderr := neardup(t, "", "run", "--quiet", "--input", in, "--output", out, "--index-out", idx); code != 0 {
				t.Fatalf("exit code %d: %s", code, stderr)
			}
			n := 0
			for _, d := range []string{out, idx} {
				entries, err := os.ReadDir(d)
				if err != nil {
					t.Fatal(err)
				}
				for _, e := range entries {
					info, err := e.Info()
					if err != nil {
						t.Fatal(err)
					}
					if got := info.Mode().Perm(); got&^perm != 0 {
						t.Errorf("%s: mode %v, wider than the input's %v", e.Name(), got, perm)
					}
					n++
				}
			}
			if n < 5 {
				t.Errorf("only %d files checked", n)
			}
		})
	}
}
