package main

import (
	"bytes"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/neardup/neardup/transforms/eval/containjoin"
	"github.com/neardup/neardup/transforms/format/record"
	"github.com/neardup/neardup/transforms/job"
	"github.com/neardup/neardup/transforms/sketch/signature"
	"github.com/neardup/neardup/transforms/text/normalize"
)

// TestRun writes a corpus where document b is the first half of document
// a, c is unrelated and d is Chinese, its truth, and checks that every
// method prints its rows and levels and the ensemble find the pair.
func TestRun(t *testing.T) {
	dir := t.TempDir()
	var words []string
	for i := range 60 {
		words = append(words, "w"+strings.Repeat("x", i%7)+string(rune('a'+i%26))+string(rune('a'+i/26)))
	}
	docs := []struct{ ID, Text, Lang string }{
		{"a", strings.Join(words, " "), "en"},
		{"b", strings.Join(words[:30], " "), "en"},
		{"c", strings.Repeat("other words here and there ", 8), "en"},
		{"d", "床前明月光疑是地上霜举头望明月低头思故乡", "zh"},
	}
	var corpus bytes.Buffer
	sc, err := job.DefaultConfig().Signing().Config()
	if err != nil {
		t.Fatal(err)
	}
	signer, err := signature.New(sc)
	if err != nil {
		t.Fatal(err)
	}
	for _, d := range docs {
		line, _ := json.Marshal(map[string]string{"id": d.ID, "text": d.Text, "lang": d.Lang})
		corpus.Write(append(line, '\n'))
	}
	sets, err := containjoin.ReadDocs(bytes.NewReader(corpus.Bytes()), "c.jsonl", record.Options{Format: record.JSONL}, normalize.Form{}, signer, func(rj record.Reject) error {
		return fmt.Errorf("reject: %s", rj.Detail)
	})
	if err != nil {
		t.Fatal(err)
	}
	input, truth := filepath.Join(dir, "c.jsonl"), filepath.Join(dir, "t.tsv")
	if err := os.WriteFile(input, corpus.Bytes(), 0o644); err != nil {
		t.Fatal(err)
	}
	pairs, err := containjoin.Join(sets, 0.5)
	if err != nil {
		t.Fatal(err)
	}
	var tsv bytes.Buffer
	if err := containjoin.WriteTSV(&tsv, pairs); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(truth, tsv.Bytes(), 0o644); err != nil {
		t.Fatal(err)
	}
	f := flags{input: input, truth: truth, thresholds: "0.9", methods: "levels,ensemble,asym,jaccard:0.5",
		partitions: 2, minSize: 10, fnWeight: 0.99}
	f.limits.MaxBucket, f.limits.Window = 256, 16
	var out bytes.Buffer
	if err := run(&out, f); err != nil {
		t.Fatal(err)
	}
	lines := strings.Split(strings.TrimSpace(out.String()), "\n")
	if len(lines) != 1+4*3 {
		t.Fatalf("%d lines, want 13:\n%s", len(lines), out.String())
	}
	for i, method := range map[int]string{1: "levels", 4: "ensemble"} {
		if fields := strings.Fields(lines[i]); fields[1] != method || fields[2] != "en" || fields[7] != "1.0000" {
			t.Errorf("%s en row %q: want recall 1.0000 of the pair (b, a)", method, lines[i])
		}
	}
	f.methods = "nothing"
	if err := run(&out, f); err == nil {
		t.Error("an unknown method is no error")
	}
}
