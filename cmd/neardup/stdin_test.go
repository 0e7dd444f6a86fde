package main

import (
	"bytes"
	"compress/gzip"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/klauspost/compress/zstd"

	"github.com/neardup/neardup/transforms/format/summary"
)

// TestStdin: "-" reads standard input, plain, gzip or zstd (told from its
// bytes), with the outputs of the same records read from a file; the input
// is named "-" in summary.json, in line ids and in a field's refusal; the
// copy of standard input is gone after the run; an index, which names its
// input files, is refused.
func TestStdin(t *testing.T) {
	t.Parallel()
	plain, err := os.ReadFile("../../testdata/sample/sample-0.jsonl")
	if err != nil {
		t.Fatal(err)
	}
	var gz, zst bytes.Buffer
	gw := gzip.NewWriter(&gz)
	gw.Write(plain)
	gw.Close()
	zw, _ := zstd.NewWriter(&zst)
	zw.Write(plain)
	zw.Close()

	dir := t.TempDir()
	file := filepath.Join(dir, "sample.jsonl")
	copyBytes(t, file, string(plain))
	fromFile := filepath.Join(dir, "from-file")
	if code, stderr := neardup(t, "", "run", "--quiet", file, "--output", fromFile); code != 0 {
		t.Fatalf("from a file: exit %d: %s", code, stderr)
	}
	want := readOutputs(t, fromFile, "pairs-00000.jsonl", "clusters-00000.jsonl")

	// run pipes in to the command with TMPDIR set to its own directory,
	// and returns the exit code, stderr and what TMPDIR holds after.
	run := func(in []byte, args ...string) (int, string, []string) {
		tmp := t.TempDir()
		var stderr bytes.Buffer
		cmd := neardupCmd([]string{"TMPDIR=" + tmp}, &stderr, args...)
		cmd.Stdin = bytes.NewReader(in)
		code := exitCode(t, cmd.Run())
		left, _ := filepath.Glob(filepath.Join(tmp, "neardup-stdin-*"))
		return code, stderr.String(), left
	}
	for _, c := range []struct {
		name, dedup string
		in          []byte
	}{{"plain", "dedup-00000.jsonl", plain}, {"gzip", "dedup-00000.jsonl.gz", gz.Bytes()}, {"zstd", "dedup-00000.jsonl.zst", zst.Bytes()}} {
		t.Run(c.name, func(t *testing.T) {
			out := filepath.Join(t.TempDir(), "out")
			code, stderr, left := run(c.in, "run", "--quiet", "-", "--output", out)
			if code != 0 {
				t.Fatalf("exit %d: %s", code, stderr)
			}
			if len(left) > 0 {
				t.Errorf("left behind: %q", left)
			}
			got := readOutputs(t, out, "pairs-00000.jsonl", "clusters-00000.jsonl")
			if got != want {
				t.Errorf("pairs and clusters differ from the run on %s", file)
			}
			if kept := decompressed(t, filepath.Join(out, c.dedup)); kept != decompressed(t, filepath.Join(fromFile, "dedup-00000.jsonl")) {
				t.Errorf("%s is not the dedup copy of the run on %s", c.dedup, file)
			}
			s, err := summary.ReadSummary(out)
			if err != nil {
				t.Fatal(err)
			}
			if len(s.Inputs) != 1 || s.Inputs[0].Path != "-" {
				t.Errorf("summary.json inputs %+v, want one named -", s.Inputs)
			}
		})
	}

	lines := []byte(`{"text":"a page read from standard input, twice"}` + "\n" + `{"text":"a page read from standard input, twice"}` + "\n")
	out := filepath.Join(dir, "line-ids")
	if code, stderr, _ := run(lines, "run", "--quiet", "--input", "-", "--output", out); code != 0 {
		t.Fatalf("line ids: exit %d: %s", code, stderr)
	}
	if got := readOutputs(t, out, "pairs-00000.jsonl"); !strings.Contains(got, `"-:1"`) || !strings.Contains(got, `"-:2"`) {
		t.Errorf("line ids: pairs %q, want ids -:1 and -:2", got)
	}

	for _, c := range []struct {
		name string
		args []string
		want string
	}{
		{"a field", []string{"run", "-", "--id-field", "url", "--output", filepath.Join(dir, "no-field")}, `--id-field "url": none of the first 600 records of - has it`},
		{"an index", []string{"run", "-", "--index-out", filepath.Join(dir, "idx"), "--output", filepath.Join(dir, "no-index")}, "--index-out: an index names the files it was made from, and standard input is none"},
	} {
		code, stderr, left := run(plain, c.args...)
		if code != 2 || !strings.Contains(stderr, c.want) || strings.Count(stderr, "\n") != 1 {
			t.Errorf("%s: exit %d, stderr %q; want 2 and one line with %q", c.name, code, stderr, c.want)
		}
		if len(left) > 0 {
			t.Errorf("%s: left behind: %q", c.name, left)
		}
	}
}

// readOutputs returns the named files of dir, one after the other.
func readOutputs(t *testing.T, dir string, names ...string) string {
	t.Helper()
	var b strings.Builder
	for _, n := range names {
		data, err := os.ReadFile(filepath.Join(dir, n))
		if err != nil {
			t.Fatal(err)
		}
		b.Write(data)
	}
	return b.String()
}

// decompressed returns the content of the file at path, decompressed by
// its name (.gz, .zst).
func decompressed(t *testing.T, path string) string {
	t.Helper()
	data, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	var tool string
	switch filepath.Ext(path) {
	case ".gz":
		tool = "gzip"
	case ".zst":
		r, err := zstd.NewReader(bytes.NewReader(data))
		if err != nil {
			t.Fatal(err)
		}
		defer r.Close()
		var b bytes.Buffer
		if _, err := b.ReadFrom(r); err != nil {
			t.Fatalf("%s: %v", path, err)
		}
		return b.String()
	default:
		return string(data)
	}
	out, err := exec.Command(tool, "-dc", path).Output()
	if err != nil {
		t.Fatalf("%s -dc %s: %v", tool, path, err)
	}
	return string(out)
}
