package main

import (
	"bytes"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/parquet-go/parquet-go"

	"github.com/neardup/neardup/transforms/format/output"
	"github.com/neardup/neardup/transforms/format/summary"
)

// fateRecord is a record of a fates file: its bytes without the fate, and
// the fate.
type fateRecord struct {
	raw  string
	fate output.Fate
}

// readFates splits the records of fates file name (content, gunzipped as
// its name says) into their input bytes and their fates: the "neardup"
// member, which must be the record's last.
func readFates(t *testing.T, name, content string) []fateRecord {
	t.Helper()
	var out []fateRecord
	for i, line := range gunzipLines(t, name, content) {
		at := strings.LastIndex(line, `,"`+output.FateKey+`":`)
		if at < 0 || !strings.HasSuffix(line, "}}") {
			t.Fatalf("%s line %d: no %q as the last member: %s", name, i+1, output.FateKey, line)
		}
		var r fateRecord
		if err := json.Unmarshal([]byte(line[at+len(output.FateKey)+4:len(line)-1]), &r.fate); err != nil {
			t.Fatalf("%s line %d: %v", name, i+1, err)
		}
		r.raw = line[:at] + "}"
		out = append(out, r)
	}
	return out
}

// summaryCountsOf is the counts of summary file name in files.
func summaryCountsOf(t *testing.T, files map[string]string, name string) map[string]int64 {
	t.Helper()
	var counts map[string]int64
	if err := json.Unmarshal([]byte(files[name]), &struct {
		Counts *map[string]int64 `json:"counts"`
	}{&counts}); err != nil {
		t.Fatalf("%s: %v", name, err)
	}
	return counts
}

// TestFates: with --fates, run and audit write fates-NNNNN in place of
// dedup-NNNNN, compressed alike: the input's records in order, each with
// its fate as its last member, as many as summary.json keeps and removes;
// those kept are the dedup copy of the same job without --fates; each
// removed record names a kept document (the run's, or in the audit a kept
// new or an indexed one) and its cluster's or index match's method and
// similarity.
func TestFates(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	inputs := []string{sampleFile(t, "sample-0.jsonl"), sampleFile(t, "sample-1.jsonl.gz")}
	idx := filepath.Join(dir, "idx")
	jobs := []struct {
		name, input, fates, dedup, summary string
		args                               []string
	}{
		{"run", inputs[0], "fates-00000.jsonl", "dedup-00000.jsonl", summary.FileName, []string{"run", "--index-out", idx}},
		{"audit", inputs[1], "fates-00000.jsonl.gz", "dedup-00000.jsonl.gz", summary.AuditFileName, []string{"audit", "--index", idx}},
	}
	runKept := map[string]bool{} // the run's kept ids: the audit's index
	for _, j := range jobs {
		plain, withFates := filepath.Join(dir, j.name+"-plain"), filepath.Join(dir, j.name+"-fates")
		for _, c := range []struct {
			out   string
			extra []string
		}{{withFates, []string{"--fates"}}, {plain, nil}} {
			args := slices.Concat(j.args, []string{"--quiet", "--input", j.input, "--output", c.out}, c.extra)
			if j.name == "run" && c.out == plain {
				args = slices.Delete(args, 1, 3) // one index
			}
			if code, stderr := neardup(t, "", args...); code != 0 {
				t.Fatalf("%s: exit %d: %s", strings.Join(args, " "), code, stderr)
			}
		}
		files, plainFiles := snapshot(t, withFates), snapshot(t, plain)
		if _, ok := files[j.dedup]; ok {
			t.Errorf("%s: %s written with --fates", j.name, j.dedup)
		}
		recs := readFates(t, j.fates, files[j.fates])
		in, err := os.ReadFile(j.input)
		if err != nil {
			t.Fatal(err)
		}
		all := gunzipLines(t, j.input, string(in))
		counts := summaryCountsOf(t, files, j.summary)
		if int64(len(recs)) != counts[summary.StatKept]+counts[summary.StatRemoved] || counts[summary.StatRemoved] == 0 {
			t.Errorf("%s: %d records, summary keeps %d and removes %d", j.fates, len(recs), counts[summary.StatKept], counts[summary.StatRemoved])
		}
		var raws, keptRaws []string
		kept := map[string]bool{}
		for _, r := range recs {
			raws = append(raws, r.raw)
			if r.fate.Fate == output.FateKept {
				keptRaws = append(keptRaws, r.raw)
				kept[idOf(t, r.raw)] = true
			}
		}
		if !slices.Equal(raws, all) {
			t.Errorf("%s: without their fates, %d records are not the input's %d, in order", j.fates, len(raws), len(all))
		}
		if dedup := gunzipLines(t, j.dedup, plainFiles[j.dedup]); !slices.Equal(keptRaws, dedup) {
			t.Errorf("%s: %d records kept, not the %d of %s without --fates", j.fates, len(keptRaws), len(dedup), j.dedup)
		}
		if j.name == "run" {
			runKept = kept
		}
		removed, viaIndex := 0, 0
		for _, r := range recs {
			f := r.fate
			switch {
			case f.Fate == output.FateKept:
				continue
			case f.Fate != output.FateRemoved:
				t.Errorf("%s: fate %q of %s", j.fates, f.Fate, idOf(t, r.raw))
				continue
			}
			removed++
			inIndex := j.name == "audit" && runKept[f.Kept]
			if inIndex {
				viaIndex++
			}
			if !kept[f.Kept] && !inIndex {
				t.Errorf("%s: %s removed for %q, which is not kept", j.fates, idOf(t, r.raw), f.Kept)
			}
			if f.Match == nil || f.Match.Method == "" {
				t.Errorf("%s: %s removed with no method: %+v", j.fates, idOf(t, r.raw), f)
			}
			if f.Cluster == "" && !inIndex {
				t.Errorf("%s: %s removed in the batch, in no cluster: %+v", j.fates, idOf(t, r.raw), f)
			}
		}
		if int64(removed) != counts[summary.StatRemoved] {
			t.Errorf("%s: %d removed, summary removes %d", j.fates, removed, counts[summary.StatRemoved])
		}
		if j.name == "audit" && int64(viaIndex) < counts[summary.StatDupOfIndex] {
			t.Errorf("%s: %d removed for indexed documents, summary has %d duplicates of the index", j.fates, viaIndex, counts[summary.StatDupOfIndex])
		}
	}
}

// idOf is the "id" of JSONL record raw.
func idOf(t *testing.T, raw string) string {
	t.Helper()
	var r struct{ ID string }
	if err := json.Unmarshal([]byte(raw), &r); err != nil {
		t.Fatalf("%s: %v", raw, err)
	}
	return r.ID
}

// TestFatesRefused: what --fates cannot write a fate into, or whose
// records have a "neardup" field (a JSONL key, a Parquet column) among the
// surveyed ones, is refused before the run with exit 2 and one line; a record past the surveyed ones
// with a "neardup" key of its own fails the run with exit 1, naming its
// file and line, and no outputs are left.
func TestFatesRefused(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	write := func(name, content string) string {
		path := filepath.Join(dir, name)
		if err := os.WriteFile(path, []byte(content), 0o644); err != nil {
			t.Fatal(err)
		}
		return path
	}
	var many strings.Builder
	for i := range 1200 {
		fmt.Fprintf(&many, `{"id":"r%d","text":"record number %d of many"}`+"\n", i, i)
	}
	fmt.Fprintf(&many, `{"id":"late","text":"the last","neardup":1}`+"\n")
	late := write("late.jsonl", many.String())
	early := write("early.jsonl", `{"id":"a","text":"one","neardup":{"x":1}}`+"\n")
	text := write("doc.txt", "a text\n")
	type row struct {
		ID      string `parquet:"id"`
		Text    string `parquet:"text"`
		Neardup struct {
			Fate string `parquet:"fate"`
		} `parquet:"neardup"`
	}
	var buf bytes.Buffer
	pw := parquet.NewGenericWriter[row](&buf)
	if _, err := pw.Write([]row{{ID: "a", Text: "a page"}}); err != nil {
		t.Fatal(err)
	}
	if err := pw.Close(); err != nil {
		t.Fatal(err)
	}
	pq := write("rows.parquet", buf.String())
	for _, c := range []struct {
		args []string
		code int
		want string
	}{
		{[]string{"--removed", "--input", sampleFile(t, "sample-0.jsonl")}, 2, "--fates and --removed"},
		{[]string{"--format", "text", "--input", text}, 2, "--fates: a text input's record is a whole file"},
		{[]string{"--input", pq}, 2, `--fates: ` + pq + ` has a column "neardup"`},
		{[]string{"--input", early}, 2, `--fates: records of ` + early + ` have a top-level "neardup" key`},
		{[]string{"--input", late}, 1, late + ` line 1201: the record has a top-level "neardup" key`},
	} {
		out := filepath.Join(dir, fmt.Sprint("out", len(c.args), c.code, filepath.Base(c.args[len(c.args)-1])))
		code, stderr := neardup(t, "", slices.Concat([]string{"run", "--quiet", "--fates", "--output", out}, c.args)...)
		if code != c.code || !strings.Contains(stderr, c.want) {
			t.Errorf("%v: exit %d, %q; want exit %d and %q", c.args, code, stderr, c.code, c.want)
		}
		if lines := strings.Split(strings.TrimSpace(stderr), "\n"); c.code == 2 && len(lines) != 1 {
			t.Errorf("%v: %d lines on stderr, want 1: %q", c.args, len(lines), stderr)
		}
		entries, _ := os.ReadDir(out)
		var names []string
		for _, e := range entries {
			names = append(names, e.Name())
		}
		if slices.Contains(names, summary.FileName) || slices.ContainsFunc(names, output.OutputName) {
			t.Errorf("%v: outputs left: %v", c.args, names)
		}
	}
}
