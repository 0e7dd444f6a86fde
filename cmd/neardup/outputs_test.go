package main

import (
	"bytes"
	"compress/gzip"
	"encoding/json"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/neardup/neardup/cmd/neardup/internal/outdir"
	"github.com/neardup/neardup/transforms/format/summary"
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
	if want := "outputs in " + out + " (" + outdir.FileList(names) + ")"; last != want {
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

// TestRemovedCopy: with --removed, run and audit write removed-NNNNN
// beside dedup-NNNNN, compressed alike: its records are the input's lines
// that the deduplicated copy leaves out, as many as summary.json removes,
// and the two copies together are the input's records, line for line.
func TestRemovedCopy(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	inputs := []string{sampleFile(t, "sample-0.jsonl"), sampleFile(t, "sample-1.jsonl.gz")}
	out, idx := filepath.Join(dir, "run"), filepath.Join(dir, "idx")
	if code, stderr := neardup(t, "", "run", "--quiet", "--removed", "--input", inputs[0], "--output", out, "--index-out", idx); code != 0 {
		t.Fatalf("run: exit %d: %s", code, stderr)
	}
	audit := filepath.Join(dir, "audit")
	if code, stderr := neardup(t, "", "audit", "--quiet", "--removed", "--index", idx, "--input", inputs[1], "--output", audit); code != 0 {
		t.Fatalf("audit: exit %d: %s", code, stderr)
	}
	for _, c := range []struct {
		out, input, dedup, removed, summary string
	}{
		{out, inputs[0], "dedup-00000.jsonl", "removed-00000.jsonl", summary.FileName},
		{audit, inputs[1], "dedup-00000.jsonl.gz", "removed-00000.jsonl.gz", summary.AuditFileName},
	} {
		files := snapshot(t, c.out)
		kept, removed := gunzipLines(t, c.dedup, files[c.dedup]), gunzipLines(t, c.removed, files[c.removed])
		in, err := os.ReadFile(c.input)
		if err != nil {
			t.Fatal(err)
		}
		all := gunzipLines(t, c.input, string(in))
		var counts map[string]int64
		if err := json.Unmarshal([]byte(files[c.summary]), &struct {
			Counts *map[string]int64 `json:"counts"`
		}{&counts}); err != nil {
			t.Fatal(err)
		}
		if int64(len(removed)) != counts[summary.StatRemoved] || len(removed) == 0 {
			t.Errorf("%s: %d removed records, summary removes %d", c.removed, len(removed), counts[summary.StatRemoved])
		}
		both := append(slices.Clone(kept), removed...)
		slices.Sort(both)
		slices.Sort(all)
		if !slices.Equal(both, all) {
			t.Errorf("%s: %d kept and %d removed records are not the input's %d", c.out, len(kept), len(removed), len(all))
		}
	}
}

// gunzipLines returns the lines of content, gunzipped if name ends in .gz.
func gunzipLines(t *testing.T, name, content string) []string {
	t.Helper()
	if strings.HasSuffix(name, ".gz") {
		zr, err := gzip.NewReader(strings.NewReader(content))
		if err != nil {
			t.Fatalf("%s: %v", name, err)
		}
		b, err := io.ReadAll(zr)
		if err != nil {
			t.Fatalf("%s: %v", name, err)
		}
		content = string(b)
	}
	return strings.Split(strings.TrimSuffix(content, "\n"), "\n")
}

// TestPairCounts: summary.json and the run's lines count what pairs-*
// holds: pairs_lines its lines, exact_duplicates those of method exact,
// verified_exactly the other lines with "jaccard" (computed from the
// shingle sets), verified_by_estimate those with "jaccard_estimate"; with
// and without containment and SimHash.
func TestPairCounts(t *testing.T) {
	t.Parallel()
	idx := filepath.Join(t.TempDir(), "idx")
	if code, stderr := neardup(t, "", "run", "--quiet", sampleFile(t, "sample-0.jsonl"), "--output", filepath.Join(t.TempDir(), "out"), "--index-out", idx); code != 0 {
		t.Fatalf("index: exit %d: %s", code, stderr)
	}
	for _, tc := range []struct {
		name string
		args []string
	}{
		{"default", nil},
		{"containment", []string{"--containment", "0.8"}},
		{"simhash", []string{"--method", "simhash"}},
		{"audit", []string{"--index", idx}},
	} {
		out := filepath.Join(t.TempDir(), "out")
		args := append([]string{"run", "--quiet", "--input", sampleFile(t, "sample-*"), "--output", out}, tc.args...)
		audit := tc.name == "audit"
		if audit { // the batch's pairs, without the (new, indexed) ones
			args = append([]string{"audit", "--quiet", "--input", sampleFile(t, "sample-1.jsonl.gz"), "--output", out}, tc.args...)
		}
		stdout, code, stderr := neardupOut(t, args...)
		if code != 0 {
			t.Fatalf("%s: exit %d: %s", tc.name, code, stderr)
		}
		got := map[string]int64{}
		paths, _ := filepath.Glob(filepath.Join(out, "pairs-*.jsonl"))
		for _, path := range paths {
			b, err := os.ReadFile(path)
			if err != nil {
				t.Fatal(err)
			}
			for line := range strings.Lines(string(b)) {
				var p map[string]any
				if err := json.Unmarshal([]byte(line), &p); err != nil {
					t.Fatalf("%s: %s: %v", tc.name, path, err)
				}
				_, exact := p["jaccard"]
				_, estimate := p["jaccard_estimate"]
				switch {
				case exact == estimate:
					t.Errorf("%s: %s: line %s has jaccard %v, jaccard_estimate %v: want one", tc.name, path, line, exact, estimate)
				case p["method"] == "exact" && exact:
					got[summary.StatExactDups]++
				case exact:
					got[summary.StatByExact]++
				default:
					got[summary.StatByEstimate]++
				}
				got["pairs_lines"]++
			}
		}
		var sum summary.Summary
		b, err := os.ReadFile(filepath.Join(out, summary.FileName))
		if audit {
			b, err = os.ReadFile(filepath.Join(out, summary.AuditFileName))
		}
		if err == nil {
			err = json.Unmarshal(b, &sum)
		}
		if err != nil {
			t.Fatal(err)
		}
		if audit && (sum.Counts[summary.StatIndexVerified] == 0 || sum.Counts[summary.StatIndexMatches] == 0) {
			t.Errorf("audit: %s %d, %s %d: want the index's matches counted apart", summary.StatIndexVerified, sum.Counts[summary.StatIndexVerified], summary.StatIndexMatches, sum.Counts[summary.StatIndexMatches])
		}
		for name, n := range got {
			if sum.Counts[name] != n {
				t.Errorf("%s: summary.json %s = %d; pairs-* has %d such lines", tc.name, name, sum.Counts[name], n)
			}
		}
		if got[summary.StatByEstimate] == 0 || got["pairs_lines"] == got[summary.StatExactDups] {
			t.Errorf("%s: pairs-* counts %v: want lines of every kind", tc.name, got)
		}
		want := fmt.Sprintf("pairs written %d: exact duplicates %d, verified exactly %d, by estimate %d",
			got["pairs_lines"], got[summary.StatExactDups], got[summary.StatByExact], got[summary.StatByEstimate])
		if !audit && !strings.Contains(stdout, want) {
			t.Errorf("%s: the run printed\n%s\nwithout %q", tc.name, stdout, want)
		}
	}
}
