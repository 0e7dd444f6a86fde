package main

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/neardup/neardup/cmd/neardup/internal/inputs"
	"github.com/neardup/neardup/transforms/format/summary"
)

// TestOverlappingPaths: directories that are one another or inside one
// another, for run and audit alike, or an input that is or holds one of
// them, are refused before anything is made, with exit code 2 and one
// line naming both paths.
func TestOverlappingPaths(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	input := sampleFile(t, "sample-0.jsonl")
	idx := filepath.Join(dir, "idx")
	if code, stderr := neardup(t, "", "run", "--quiet", "--input", input, "--output", filepath.Join(dir, "run"), "--index-out", idx); code != 0 {
		t.Fatalf("run: exit code %d: %s", code, stderr)
	}
	d := filepath.Join(dir, "d") // absent
	a7 := filepath.Join(dir, "a7")
	link := filepath.Join(t.TempDir(), "link") // outside dir, whose snapshot does not follow links
	if err := os.Symlink(dir, link); err != nil {
		t.Fatal(err)
	}
	for _, tt := range []struct {
		name string
		args []string
		want string
	}{
		{"run index around output", []string{"run", "--input", input, "--output", filepath.Join(d, "out"), "--index-out", d},
			"--index-out " + d + " overlaps --output " + filepath.Join(d, "out") + " (holds it)"},
		{"run index inside output", []string{"run", "--input", input, "--output", d, "--index-out", filepath.Join(d, "idx")},
			"--index-out " + filepath.Join(d, "idx") + " overlaps --output " + d + " (inside it)"},
		{"run index is output through a link", []string{"run", "--input", input, "--output", d, "--index-out", filepath.Join(link, "d")},
			"--index-out " + filepath.Join(link, "d") + " overlaps --output " + d + " (the same directory)"},
		{"audit next index is output", []string{"audit", "--index", idx, "--input", input, "--output", a7, "--update-index", a7},
			"--update-index " + a7 + " overlaps --output " + a7 + " (the same directory)"},
		{"audit output is the index", []string{"audit", "--index", idx, "--input", input, "--output", idx, "--overwrite"},
			"the old index --index " + idx + " overlaps --output " + idx + " (the same directory)"},
		{"audit output inside the index", []string{"audit", "--index", idx, "--input", input, "--output", filepath.Join(idx, "out")},
			"the old index --index " + idx + " overlaps --output " + filepath.Join(idx, "out") + " (holds it)"},
		{"input holds the output", []string{"run", "--input", dir, "--output", filepath.Join(dir, "out2")},
			"--input " + dir + " overlaps --output " + filepath.Join(dir, "out2") + " (holds it)"},
		{"input inside the next index", []string{"audit", "--index", idx, "--input", filepath.Join(dir, "next", "x.jsonl"), "--output", a7, "--update-index", filepath.Join(dir, "next")},
			"--input " + filepath.Join(dir, "next", "x.jsonl") + " is inside --update-index " + filepath.Join(dir, "next")},
	} {
		if tt.name == "input inside the next index" {
			copyFile(t, input, filepath.Join(dir, "next", "x.jsonl"))
		}
		before := snapshot(t, dir)
		code, stderr := neardup(t, "", append(tt.args, "--quiet")...)
		if code != 2 || !strings.Contains(stderr, tt.want) {
			t.Errorf("%s: exit code %d, stderr %q; want 2 and %q", tt.name, code, stderr, tt.want)
		}
		checkOneLine(t, stderr)
		if after := snapshot(t, dir); !sameSnapshot(before, after) {
			t.Errorf("%s: %s changed: %q, was %q", tt.name, dir, keys(after), keys(before))
		}
	}
	if _, err := os.Stat(d); !errors.Is(err, os.ErrNotExist) {
		t.Errorf("a refused run made %s (%v)", d, err)
	}
}

// TestInputsByRealPath: a file reached twice, through a symbolic link to
// its folder, is read once.
func TestInputsByRealPath(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	data := filepath.Join(dir, "data")
	copyFile(t, sampleFile(t, "sample-0.jsonl"), filepath.Join(data, "a.jsonl"))
	if err := os.Symlink(data, filepath.Join(dir, "link")); err != nil {
		t.Fatal(err)
	}
	records := func(out string, input string) int64 {
		t.Helper()
		if code, stderr := neardup(t, "", "run", "--quiet", "--input", input, "--output", filepath.Join(dir, out)); code != 0 {
			t.Fatalf("--input %s: exit code %d: %s", input, code, stderr)
		}
		b, err := os.ReadFile(filepath.Join(dir, out, summary.FileName))
		if err != nil {
			t.Fatal(err)
		}
		var sum summary.Summary
		if err := json.Unmarshal(b, &sum); err != nil {
			t.Fatal(err)
		}
		return sum.Counts[summary.StatInput]
	}
	once := records("once", filepath.Join(data, "a.jsonl"))
	if got := records("twice", filepath.Join(data, "*.jsonl")+","+filepath.Join(dir, "link", "*.jsonl")); got != once {
		t.Errorf("the file through its folder and a link: %d input records, want %d", got, once)
	}
}

// TestLineBreakInFileName: a file whose name holds a line break is read
// like any other (the file manifest quotes its path).
func TestLineBreakInFileName(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	b, err := os.ReadFile(sampleFile(t, "sample-0.jsonl"))
	if err != nil {
		t.Fatal(err)
	}
	name := filepath.Join(dir, "in", "a\nb.jsonl")
	if err := os.MkdirAll(filepath.Dir(name), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(name, b, 0o644); err != nil {
		t.Fatal(err)
	}
	out := filepath.Join(dir, "out")
	if code, stderr := neardup(t, "", "run", "--quiet", "--input", filepath.Join(dir, "in", "*"), "--output", out); code != 0 {
		t.Fatalf("exit code %d: %s", code, stderr)
	}
	sum, err := summary.ReadSummary(out)
	if err != nil {
		t.Fatal(err)
	}
	if lines := int64(bytes.Count(b, []byte("\n"))); sum.Counts[summary.StatInput] != lines || len(sum.Inputs) != 1 || sum.Inputs[0].Path != name {
		t.Errorf("read %d records of %v, want %d of %q", sum.Counts[summary.StatInput], sum.Inputs, lines, name)
	}
}

// TestInputsHardLink: a file and a hard link of it are one input, under
// the first of the two paths in sorted order, counted once in the size.
func TestInputsHardLink(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	writeFiles(t, dir, "b.jsonl", "c.jsonl")
	if err := os.Link(filepath.Join(dir, "b.jsonl"), filepath.Join(dir, "a.jsonl")); err != nil {
		t.Skipf("no hard link here: %v", err)
	}
	files, size, err := inputs.Expand(context.Background(), filepath.Join(dir, "*.jsonl"))
	want := []string{filepath.Join(dir, "a.jsonl"), filepath.Join(dir, "c.jsonl")}
	if err != nil || !slices.Equal(files, want) || size != int64(len("b.jsonl\nc.jsonl\n")) {
		t.Errorf("expandInputs = %v, %d, %v; want %v, %d", files, size, err, want, len("b.jsonl\nc.jsonl\n"))
	}
}
