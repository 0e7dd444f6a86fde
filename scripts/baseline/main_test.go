package main

import (
	"bytes"
	"encoding/json"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"testing"
)

// TestSameAsJob runs `neardup run` and the baseline on the same inputs (the
// sample, a file with rejected records and exact duplicates of the sample's
// documents, and the dev corpus when NEARDUP_CORPUS is set): every output
// file must be the same byte for byte, and the baseline's counts those of
// the job's summary.json.
func TestSameAsJob(t *testing.T) {
	if testing.Short() {
		t.Skip("builds and runs neardup")
	}
	bin := filepath.Join(t.TempDir(), "neardup")
	if out, err := exec.Command("go", "build", "-o", bin, "github.com/neardup/neardup/cmd/neardup").CombinedOutput(); err != nil {
		t.Fatalf("go build: %v\n%s", err, out)
	}
	sample, err := filepath.Abs("../../testdata/sample")
	if err != nil {
		t.Fatal(err)
	}
	// Bad records, and copies of sample documents under other ids.
	extra := filepath.Join(t.TempDir(), "extra.jsonl")
	head, err := os.ReadFile(filepath.Join(sample, "sample-0.jsonl"))
	if err != nil {
		t.Fatal(err)
	}
	var lines []string
	for k, l := range strings.SplitN(string(head), "\n", 40)[:39] {
		var rec map[string]any
		if err := json.Unmarshal([]byte(l), &rec); err != nil {
			t.Fatal(err)
		}
		rec["id"] = rec["id"].(string) + "-copy"
		b, _ := json.Marshal(rec)
		lines = append(lines, string(b))
		if k%10 == 0 {
			lines = append(lines, `{"id": "broken`, `{"id":"no-text"}`, "")
		}
	}
	if err := os.WriteFile(extra, []byte(strings.Join(lines, "\n")+"\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	inputs := []string{filepath.Join(sample, "sample-*") + "," + extra}
	if dir := os.Getenv("NEARDUP_CORPUS"); dir != "" {
		inputs = append(inputs, filepath.Join(dir, "dev.jsonl"))
	}
	for _, in := range inputs {
		jobDir, baseDir := filepath.Join(t.TempDir(), "job"), filepath.Join(t.TempDir(), "base")
		if out, err := exec.Command(bin, "run", "--quiet", "--max-reject-ratio", "1", "--input", in, "--output", jobDir).CombinedOutput(); err != nil {
			t.Fatalf("neardup run --input %s: %v\n%s", in, err, out)
		}
		c, err := run(in, baseDir)
		if err != nil {
			t.Fatalf("baseline %s: %v", in, err)
		}
		var names []string
		for _, dir := range []string{jobDir, baseDir} {
			ents, err := os.ReadDir(dir)
			if err != nil {
				t.Fatal(err)
			}
			var n []string
			for _, e := range ents {
				if e.Name() != "summary.json" && e.Name() != "report.html" {
					n = append(n, e.Name())
				}
			}
			if names != nil && !slices.Equal(n, names) {
				t.Errorf("%s: the baseline wrote %q, the job %q", in, n, names)
			}
			names = n
		}
		for _, name := range names {
			a, errA := os.ReadFile(filepath.Join(jobDir, name))
			b, errB := os.ReadFile(filepath.Join(baseDir, name))
			if errA != nil || errB != nil || !bytes.Equal(a, b) {
				t.Errorf("%s: %s differs between the job and the baseline (%v, %v)", in, name, errA, errB)
			}
		}
		var sum struct{ Counts map[string]int64 }
		b, err := os.ReadFile(filepath.Join(jobDir, "summary.json"))
		if err == nil {
			err = json.Unmarshal(b, &sum)
		}
		if err != nil {
			t.Fatal(err)
		}
		got := map[string]int64{
			"input_records": c.records, "rejected": c.rejected, "exact_duplicates": c.exact, "candidate_pairs": c.candidates,
			"verified_by_estimate": c.byEstimate, "verified_exactly": c.byExact, "verified_pairs": c.byEstimate + c.byExact,
			"clusters": c.clusters, "kept": c.kept, "removed": c.removed,
		}
		for k, v := range got {
			if sum.Counts[k] != v {
				t.Errorf("%s: %s %d, the job's %d", in, k, v, sum.Counts[k])
			}
		}
		if c.rejected == 0 && in == inputs[0] {
			t.Errorf("%s: no rejected record; the test input has some", in)
		}
	}
}
