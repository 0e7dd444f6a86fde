package spilled

import (
	"errors"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/neardup/neardup/transforms/format/spill"
	"github.com/neardup/neardup/transforms/internal/workfiles"
	"github.com/neardup/neardup/transforms/jobfiles"
)

type keyedChunks struct {
	key    int
	chunks []string
}

// TestSpilled: what a bundle emits into a spilled shuffle reaches the DoFn
// that reads the group, key by key, whatever the bundles; the runner sees
// only file names, once per key and file, in key order; without Spill the
// chunks pass as they are.
func TestSpilled(t *testing.T) {
	bundles := [][]keyedChunks{
		{{3, []string{"a", "b"}}, {1, []string{"c"}}},
		{{1, []string{"d", "e"}}, {7, []string{"f"}}},
		{}, // a bundle that emits nothing writes no file
	}
	want := map[int][]string{1: {"c", "d", "e"}, 3: {"a", "b"}, 7: {"f"}}
	for _, spilled := range []bool{false, true} {
		work := jobfiles.WorkDir{Spill: spilled, Dir: t.TempDir(), SegmentBits: 16}
		shuffled := map[int][][]byte{}
		var names []int
		var nameBytes int
		workfiles.ResetWritten()
		for _, b := range bundles {
			out := To(work, "test")
			emit := func(k int64, c []byte) { shuffled[int(k)] = append(shuffled[int(k)], slices.Clone(c)) }
			send := out.Wrap(emit)
			for _, kc := range b {
				for _, c := range kc.chunks {
					send(int64(kc.key), []byte(c))
				}
			}
			if err := out.Finish(func(k int64, c []byte) { names = append(names, int(k)); nameBytes += len(c); emit(k, c) }); err != nil {
				t.Fatal(err)
			}
		}
		files, _ := filepath.Glob(filepath.Join(work.Dir, jobfiles.SpillPattern))
		if spilled {
			if len(files) != 2 || !slices.Equal(names, []int{1, 3, 1, 7}) {
				t.Errorf("spill: %d files, names emitted for keys %v; want 2 files, keys [1 3 1 7]", len(files), names)
			}
			if got := workfiles.Names(); got != int64(nameBytes) || nameBytes == 0 {
				t.Errorf("spill names counted %d bytes, emitted %d", got, nameBytes)
			}
		} else if len(files) != 0 || len(names) != 0 {
			t.Errorf("no spill: %d files, %v names", len(files), names)
		}
		var in In
		for k, w := range want {
			var got []string
			err := in.Each(work, k, IterOf(shuffled[k]), func(c []byte) error { got = append(got, string(c)); return nil })
			if err != nil {
				t.Fatal(err)
			}
			if !slices.Equal(got, w) {
				t.Errorf("spill %v, key %d: got %q, want %q", spilled, k, got, w)
			}
		}
		in.Close()
	}
}

// TestSpilledErrors: a spill file that cannot be written fails the bundle
// with the file, the directory and the space needed, and leaves no file;
// a name that is not a spill file's, or a damaged file, fails the reader.
func TestSpilledErrors(t *testing.T) {
	work := jobfiles.WorkDir{Spill: true, Dir: filepath.Join(t.TempDir(), "missing"), SegmentBits: 16}
	out := To(work, "test")
	out.Wrap(nil)(0, []byte("x"))
	err := out.Finish(func(int64, []byte) { t.Error("names emitted after a failure") })
	if err == nil || !strings.Contains(err.Error(), work.Dir) || !strings.Contains(err.Error(), "needs about") {
		t.Errorf("unwritable directory: got %v", err)
	}

	work.Dir = t.TempDir()
	out = To(work, "test")
	out.Wrap(nil)(0, []byte("x"))
	if err := Finish(errors.New("bundle failed"), nil, out); err == nil {
		t.Error("finishSpilled dropped the bundle's error")
	}
	if files, _ := filepath.Glob(filepath.Join(work.Dir, "*")); len(files) != 0 {
		t.Errorf("files left after a failed bundle: %v", files)
	}

	var in In
	defer in.Close()
	for _, name := range []string{"", "../spill-x-1-1.bin", "info-00001.bin"} {
		if err := in.Each(work, 0, IterOf([][]byte{[]byte(name)}), func([]byte) error { return nil }); err == nil {
			t.Errorf("name %q: no error", name)
		}
	}
	bad := "spill-test-1-1.bin"
	if err := os.WriteFile(filepath.Join(work.Dir, bad), []byte("not a spill file"), 0o644); err != nil {
		t.Fatal(err)
	}
	err = in.Each(work, 0, IterOf([][]byte{[]byte(bad)}), func([]byte) error { return nil })
	if !errors.Is(err, spill.ErrCorrupt) {
		t.Errorf("damaged file: got %v, want spill.ErrCorrupt", err)
	}
}

// TestNameUnique: spill file names carry the process's pid and a random
// tag, so that processes of two hosts sharing a work directory, whose pids
// may be equal, never name the same file; each name is a spill file's.
func TestNameUnique(t *testing.T) {
	a, b := Name("x"), Name("x")
	if a == b || !jobfiles.IsSpillName(a) || !strings.Contains(a, "-"+tag+"-") || len(tag) != 8 {
		t.Errorf("names %q, %q (tag %q)", a, b, tag)
	}
}
