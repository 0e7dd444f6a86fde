package pipeline

import (
	"encoding/json"
	"fmt"
	"maps"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/neardup/neardup/transforms/eval/containjoin"
	"github.com/neardup/neardup/transforms/eval/devcorpus"
	"github.com/neardup/neardup/transforms/eval/quality"
	"github.com/neardup/neardup/transforms/format/output"
	"github.com/neardup/neardup/transforms/format/record"
	"github.com/neardup/neardup/transforms/format/summary"
	"github.com/neardup/neardup/transforms/job"
	"github.com/neardup/neardup/transforms/match/verify"
	"github.com/neardup/neardup/transforms/sketch/signature"
)

// containCorpus writes a JSONL file with documents inside others: "part",
// the first 20 of the 60 blocks of "whole" (a truncated copy: containment
// 1, Jaccard about 1/3); "reprint", a text of 30 blocks, inside
// "reprint+", the same with 10 blocks added (Jaccard 0.75); "line", 4
// words of "whole", below the minimum size; and unrelated documents.
func containCorpus(t *testing.T) string {
	t.Helper()
	return writeBlocks(t, "contain.jsonl", [][2]string{
		{"whole", blockText(0, 60)},
		{"other1", blockText(1000, 25)},
		{"part", blockText(0, 20)},
		{"reprint", blockText(500, 30)},
		{"line", "b3w0 b3w1 b3w2 b3w3"},
		{"reprint+", blockText(500, 30) + " " + blockText(700, 10)},
		{"other2", blockText(2000, 40)},
	})
}

// TestContainment runs --containment 0.8 on containCorpus: the contained
// documents are paired with their containers by method containment and
// removed, the short text is counted, not paired, and every runner and
// shape of the job gives the same outputs.
func TestContainment(t *testing.T) {
	files := []string{containCorpus(t)}
	variants := []struct {
		runner            string
		partitions, bits  int
		rounds, workers   int
		spill, exactCheck bool
	}{
		{"", job.DefaultPartitions, 0, 1, 1, false, false}, // the reference
		{"direct", 7, 1, 3, 2, true, false},
		{"", 1, 2, 2, 2, false, false},
		{"direct", 3, 1, 1, 1, false, true}, // every pair checked exactly
	}
	var want map[string][]byte
	for i, v := range variants {
		cfg := job.DefaultConfig()
		cfg.Containment = 0.8
		cfg.Partitions, cfg.SegmentBits, cfg.Rounds, cfg.Workers, cfg.Spill = v.partitions, v.bits, v.rounds, v.workers, v.spill
		if v.exactCheck {
			cfg.Verify = verify.Exact
		}
		dir := t.TempDir()
		if err := runInto(t, v.runner, cfg, files, dir); err != nil {
			t.Fatalf("%+v: %v", v, err)
		}
		got := outputs(t, dir)
		if i > 0 {
			if v.bits != 0 { // the segments are counted: compare the rest
				sameCounts(t, fmt.Sprintf("%+v", v), want[summary.FileName], got[summary.FileName], summary.StatSegments, summary.StatSignSegments)
				got[summary.FileName] = want[summary.FileName]
			}
			sameOutputs(t, fmt.Sprintf("%+v", v), want, got)
			continue
		}
		want = got
		checkContainPairs(t, dir)
		s := readSummary(t, dir)
		if n := s.Counts[summary.StatContainSmall]; n != 1 {
			t.Errorf("summary %s = %d, want 1 (\"line\")", summary.StatContainSmall, n)
		}
		if n := s.Counts[summary.StatRemoved]; n != 2 {
			t.Errorf("summary removed = %d, want 2 (part, reprint)", n)
		}
	}
}

// checkContainPairs checks the pairs of dir: (part, whole) and (reprint,
// reprint+) by containment, nothing with "line" or the unrelated texts.
func checkContainPairs(t *testing.T, dir string) {
	t.Helper()
	paths, err := filepath.Glob(filepath.Join(dir, "pairs-*"))
	if err != nil || len(paths) == 0 {
		t.Fatalf("no pairs files in %s: %v", dir, err)
	}
	got := map[string]string{}
	for _, p := range paths {
		for _, line := range strings.Split(strings.TrimSpace(string(readOutput(t, p))), "\n") {
			if line == "" {
				continue
			}
			var pl output.PairLine
			if err := json.Unmarshal([]byte(line), &pl); err != nil {
				t.Fatalf("%s: %v", p, err)
			}
			got[pl.A+" "+pl.B] = pl.Method
		}
	}
	wantPairs := map[string]string{"whole part": "containment", "reprint reprint+": "containment"}
	for k, m := range wantPairs {
		if got[k] != m {
			t.Errorf("pair %s: method %q, want %q (all pairs: %v)", k, got[k], m, got)
		}
	}
	if len(got) != len(wantPairs) {
		t.Errorf("pairs %v, want only %v", got, wantPairs)
	}
}

// sameCounts checks that summaries want and got have the same counts but
// those named in except.
func sameCounts(t *testing.T, what string, want, got []byte, except ...string) {
	t.Helper()
	var w, g summary.Summary
	if err := json.Unmarshal(want, &w); err != nil {
		t.Fatal(err)
	}
	if err := json.Unmarshal(got, &g); err != nil {
		t.Fatal(err)
	}
	for _, name := range except {
		delete(w.Counts, name)
		delete(g.Counts, name)
	}
	if !maps.Equal(w.Counts, g.Counts) {
		t.Errorf("%s: counts %v, want %v", what, g.Counts, w.Counts)
	}
}

// TestDevContainment runs --containment 0.8 on the dev corpus and scores
// it against the exact containment join of the corpus (containjoin.Join
// on the run's shingle sets): recall at containment >= 0.85 of 0.99 or
// more for English and for Chinese, precision (true containment >= 0.8)
// of 0.999 or more, and no containment pair below 0.7.
func TestDevContainment(t *testing.T) {
	dcDir, err := devcorpus.Dir()
	if err != nil {
		t.Skip(err)
	}
	corpus := filepath.Join(dcDir, "dev.jsonl")
	cfg := job.DefaultConfig()
	cfg.Containment = 0.8
	dir := runJob(t, "direct", cfg, []string{corpus})
	truthPath := filepath.Join(t.TempDir(), "truth.tsv")
	writeContainTruth(t, corpus, truthPath)
	truth, err := quality.ReadContainTruth(truthPath)
	if err != nil {
		t.Fatal(err)
	}
	langs, err := quality.ReadLangs(corpus)
	if err != nil {
		t.Fatal(err)
	}
	pairs, clusters, err := quality.ReadRun(filepath.Join(dir, "pairs-*.jsonl"))
	if err != nil {
		t.Fatal(err)
	}
	r := quality.EvaluateContainment(pairs, clusters, truth, langs, cfg.Threshold, 0.8, cfg.ContainMinSize)
	t.Logf("dev containment 0.8: recall %.4f (en %.4f, zh %.4f), precision %.4f of %d, far below %d, removal precision %.4f of %d",
		r.All.Headline.RecallDirect, r.ByLang["en"].Headline.RecallDirect, r.ByLang["zh"].Headline.RecallDirect,
		r.All.Precision, r.All.Reported, r.All.FarBelow, r.Removals.Precision, r.Removals.Removed)
	for _, lang := range []string{"en", "zh"} {
		if got := r.ByLang[lang].Headline.RecallDirect; got < 0.99 {
			t.Errorf("%s: recall at containment >= 0.85 %.4f, want >= 0.99 (missed: %v)", lang, got, r.Examples["missed"])
		}
	}
	if r.All.Reported == 0 || r.All.Precision < 0.999 || r.All.FarBelow > 0 {
		t.Errorf("precision %.4f of %d containment pairs, %d below 0.7 (%v); want >= 0.999 and none", r.All.Precision, r.All.Reported, r.All.FarBelow, r.Examples["far_below"])
	}
	// Every removed document is a near-duplicate of the document kept for
	// it, or inside it.
	if rm := r.Removals; rm.Removed == 0 || rm.Inside == 0 || rm.Precision < 0.999 || rm.BelowLenient > 0 {
		t.Errorf("removals %+v (%v); want some inside their kept document, precision >= 0.999 and none below 0.7", rm, r.Examples["removed_below"])
	}
}

// writeContainTruth writes the containment truth of the JSONL corpus at
// path, pairs at 0.5 or more, shingled as the run shingles.
func writeContainTruth(t *testing.T, corpus, path string) {
	t.Helper()
	signer, err := signature.New(must(job.DefaultConfig().Signing().Config()))
	if err != nil {
		t.Fatal(err)
	}
	f, err := os.Open(corpus)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	opt := record.Options{Format: record.JSONL, IDField: record.DefaultIDField, TextField: record.DefaultTextField}
	docs, err := containjoin.ReadDocs(f, corpus, opt, job.DefaultConfig().Signing().Norm, signer, func(rj record.Reject) error { return fmt.Errorf("dev corpus reject: %s", rj.Detail) })
	if err != nil {
		t.Fatal(err)
	}
	pairs, err := containjoin.Join(docs, 0.5)
	if err != nil {
		t.Fatal(err)
	}
	out, err := os.Create(path)
	if err != nil {
		t.Fatal(err)
	}
	if err := containjoin.WriteTSV(out, pairs); err != nil {
		t.Fatal(err)
	}
	if err := out.Close(); err != nil {
		t.Fatal(err)
	}
}
