package main

import (
	"bytes"
	"encoding/json"
	"errors"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/neardup/neardup/transforms/eval/quality"
)

// evalInputs writes a tiny run, its truth and corpus: p-q (en, J 0.9) is
// reported, r-s (en, 0.75) reported below t, u-v (zh and en, 0.85) only
// clustered.
func evalInputs(t *testing.T) []string {
	t.Helper()
	dir := t.TempDir()
	files := map[string]string{
		"pairs-00000.jsonl": `{"a":"p","b":"q","jaccard":0.9,"method":"minhash"}` + "\n" +
			`{"a":"r","b":"s","jaccard":0.82,"method":"minhash"}` + "\n",
		"clusters-00000.jsonl": `{"cluster":"k1","representative":"p","members":["p","q"]}` + "\n" +
			`{"cluster":"k2","representative":"u","members":["u","v"]}` + "\n",
		"truth.tsv": "id_a\tid_b\tjaccard\tinter\tunion\n" +
			"p\tq\t0.9\t9\t10\nr\ts\t0.75\t3\t4\nu\tv\t0.85\t17\t20\n",
		"corpus.jsonl": `{"id":"p","lang":"en"}` + "\n" + `{"id":"q","lang":"en"}` + "\n" +
			`{"id":"r","lang":"en"}` + "\n" + `{"id":"s","lang":"en"}` + "\n" +
			`{"id":"u","lang":"zh"}` + "\n" + `{"id":"v","lang":"en"}` + "\n",
	}
	for name, text := range files {
		if err := os.WriteFile(filepath.Join(dir, name), []byte(text), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	return []string{"--pairs", filepath.Join(dir, "pairs-*.jsonl"), "--truth", filepath.Join(dir, "truth.tsv"),
		"--corpus", filepath.Join(dir, "corpus.jsonl")}
}

func TestEvalJSON(t *testing.T) {
	var out bytes.Buffer
	if err := evalTo(&out, append(evalInputs(t), "--json")); err != nil {
		t.Fatal(err)
	}
	var r struct {
		HeadlineThreshold float64 `json:"headline_threshold"`
		All               struct {
			AtThreshold struct {
				Pairs        int     `json:"pairs"`
				RecallDirect float64 `json:"recall_direct"`
				RecallLinked float64 `json:"recall_linked"`
			} `json:"recall_at_threshold"`
			StrictPrecision  float64 `json:"strict_precision"`
			LenientPrecision float64 `json:"lenient_precision"`
			F1Strict         float64 `json:"f1_strict"`
		} `json:"all"`
		ByLang map[string]struct {
			Reported    int `json:"reported_pairs"`
			AtThreshold struct {
				Pairs int `json:"pairs"`
			} `json:"recall_at_threshold"`
		} `json:"by_lang"`
	}
	if err := json.Unmarshal(out.Bytes(), &r); err != nil {
		t.Fatalf("%v in\n%s", err, out.String())
	}
	a := r.All
	// J >= 0.8: p-q (direct), u-v (linked); reported: p-q (0.9), r-s (0.75).
	if r.HeadlineThreshold != 0.85 || a.AtThreshold.Pairs != 2 || a.AtThreshold.RecallDirect != 0.5 || a.AtThreshold.RecallLinked != 1 ||
		a.StrictPrecision != 0.5 || a.LenientPrecision != 1 || a.F1Strict != 0.5 {
		t.Errorf("eval --json: %+v", r)
	}
	if en, cross := r.ByLang["en"], r.ByLang["cross"]; en.Reported != 2 || en.AtThreshold.Pairs != 1 || cross.AtThreshold.Pairs != 1 {
		t.Errorf("eval --json by language: %+v", r.ByLang)
	}
}

func TestEvalText(t *testing.T) {
	var out bytes.Buffer
	if err := evalTo(&out, evalInputs(t)); err != nil {
		t.Fatal(err)
	}
	for _, want := range []string{"headline band J >= 0.85", "direct/linked", "strict P", "lenient P", "F1 (strict)",
		"\n  cross ", "\n  all                2  0.5000  1.0000              2  0.5000  1.0000         2    0.5000     1.0000       0.5000\n"} {
		if !strings.Contains(out.String(), want) {
			t.Errorf("eval output lacks %q:\n%s", want, out.String())
		}
	}
	if err := evalTo(&out, []string{"--pairs", "x"}); err == nil || !strings.Contains(err.Error(), "--truth") {
		t.Errorf("eval without --truth: %v", err)
	}
}

// TestEvalContainment: --containment prints the containment report of a
// containment truth and refuses, as a usage error (exit 2), a Jaccard one.
func TestEvalContainment(t *testing.T) {
	args := evalInputs(t)
	dir := filepath.Dir(args[3])
	truth := filepath.Join(dir, "contain.tsv")
	// p-q: q (10 shingles) 0.9 inside p; r-s: 0.75 either way, reported as
	// containment; u-v: 0.85, only clustered.
	text := "id_a\tid_b\tjaccard\tinter\tunion\tsize_a\tsize_b\tcontain_a\tcontain_b\n" +
		"p\tq\t0.1\t9\t100\t99\t10\t0.09\t0.9\nr\ts\t0.6\t15\t25\t20\t20\t0.75\t0.75\nu\tv\t0.74\t17\t23\t20\t20\t0.85\t0.85\n"
	if err := os.WriteFile(truth, []byte(text), 0o644); err != nil {
		t.Fatal(err)
	}
	err := evalTo(&bytes.Buffer{}, append(args, "--containment", "0.8"))
	if !errors.As(err, &usageError{}) || !strings.Contains(err.Error(), "contain_a") {
		t.Errorf("a Jaccard truth: %v, want a usage error naming the columns", err)
	}
	os.WriteFile(filepath.Join(dir, "pairs-00000.jsonl"), []byte(`{"a":"p","b":"q","jaccard":0.1,"method":"minhash"}`+"\n"+
		`{"a":"r","b":"s","jaccard":0.6,"method":"containment"}`+"\n"), 0o644)
	var out bytes.Buffer
	args[3] = truth
	if err := evalTo(&out, append(args, "--containment", "0.8", "--json")); err != nil {
		t.Fatal(err)
	}
	var r quality.ContainReport
	if err := json.Unmarshal(out.Bytes(), &r); err != nil {
		t.Fatal(err)
	}
	if h := r.All.Headline; h.Pairs != 2 || h.FoundDirect != 1 || r.All.Reported != 1 || r.All.Correct != 0 || r.ByLang["cross"].Headline.Pairs != 1 {
		t.Errorf("report %+v", r)
	}
	out.Reset()
	if err := evalTo(&out, append(args, "--containment", "0.8", "--containment-min-size", "11")); err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(out.String(), "containment C = 0.80") {
		t.Errorf("text report:\n%s", out.String())
	}
}

// TestEvalUnknownDocuments (issue 54): pairs that name documents in
// neither --corpus nor --truth get one warning line on stderr, and the
// report is printed all the same (exit 0); pairs of the corpus get none.
func TestEvalUnknownDocuments(t *testing.T) {
	args := evalInputs(t)
	dir := filepath.Dir(args[3])
	other := filepath.Join(dir, "other")
	if err := os.Mkdir(other, 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(other, "pairs-00000.jsonl"), []byte(`{"a":"p","b":"x1","jaccard":0.9,"method":"minhash"}`+"\n"+
		`{"a":"x1","b":"x2","jaccard":0.82,"method":"minhash"}`+"\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	for _, tt := range []struct {
		name  string
		pairs string
		want  string // the warning; "": none
	}{
		{"pairs of the corpus", args[1], ""},
		{"pairs of another corpus", filepath.Join(other, "pairs-*.jsonl"),
			`neardup eval: warning: the pairs name 2 of 3 documents in neither --corpus nor --truth ("x1" the first): are they of this corpus?` + "\n"},
	} {
		cmd := neardupCmd(nil, &bytes.Buffer{}, append([]string{"eval"}, append(slices.Clone(args), "--pairs", tt.pairs)...)...)
		var stderr bytes.Buffer
		cmd.Stderr = &stderr
		stdout, err := cmd.Output()
		if code := exitCode(t, err); code != 0 || stderr.String() != tt.want {
			t.Errorf("%s: exit %d, stderr %q; want 0 and %q", tt.name, code, stderr.String(), tt.want)
		}
		if !strings.Contains(string(stdout), "strict P") {
			t.Errorf("%s: no report on stdout:\n%s", tt.name, stdout)
		}
	}
}
