package main

import (
	"bytes"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// sameOutputs compares the outputs of two runs, named as in dir want: every
// shard byte for byte and summary.json's counts (its times and settings
// differ from run to run; report.html names the directory and the times).
// It reports differences as "<name> differs <what>" and returns how many
// files it compared.
func sameOutputs(t *testing.T, got, want, what string) int {
	t.Helper()
	compared := 0
	for _, name := range listDir(t, want) {
		if !strings.HasSuffix(name, ".jsonl") && name != "summary.json" {
			continue
		}
		a, errA := os.ReadFile(filepath.Join(got, name))
		b, errB := os.ReadFile(filepath.Join(want, name))
		if errA != nil || errB != nil {
			t.Fatal(errA, errB)
		}
		if name == "summary.json" {
			a, b = summaryCounts(t, a), summaryCounts(t, b)
		}
		if !bytes.Equal(a, b) {
			t.Errorf("%s differs %s", name, what)
		}
		compared++
	}
	return compared
}

func TestFileList(t *testing.T) {
	for _, c := range []struct {
		names []string
		want  string
	}{
		{nil, "no files"},
		{[]string{"clusters-00000.jsonl", "clusters-00001.jsonl", "dedup-00000.jsonl.gz", "report.html", "summary.json"},
			"summary.json, report.html, clusters-* (2 files), dedup-* (1 file)"},
		{[]string{"index-00000.bin", "index.json", "keys-00003.bin"}, "index.json, index-* (1 file), keys-* (1 file)"},
		{[]string{"my-file", "a-"}, "my-file, a-"},
	} {
		if got := fileList(c.names); got != c.want {
			t.Errorf("fileList(%q) = %q, want %q", c.names, got, c.want)
		}
	}
}

// TestRunLastLine: the run's last line names the files it wrote, as they
// are in the output directory, report.html included, and no kind it did
// not write.
func TestRunLastLine(t *testing.T) {
	t.Parallel()
	out := filepath.Join(t.TempDir(), "out")
	stdout, code, stderr := neardupOut(t, "run", "--quiet", "--input", sampleFile(t, "sample-0.jsonl"), "--output", out)
	if code != 0 {
		t.Fatalf("exit %d: %s", code, stderr)
	}
	lines := strings.Split(strings.TrimSpace(stdout), "\n")
	last := lines[len(lines)-1]
	entries, err := os.ReadDir(out)
	if err != nil {
		t.Fatal(err)
	}
	var names []string
	for _, e := range entries {
		names = append(names, e.Name())
	}
	if want := "outputs in " + out + " (" + fileList(names) + ")"; last != want {
		t.Errorf("last line %q, want %q", last, want)
	}
	for _, want := range []string{"report.html", "summary.json", "pairs-* (1 file)"} {
		if !strings.Contains(last, want) {
			t.Errorf("last line %q lacks %s", last, want)
		}
	}
	if strings.Contains(last, "rejects-") {
		t.Errorf("last line %q names rejects, and the sample has none", last)
	}
}
