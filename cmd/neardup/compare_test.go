package main

import (
	"bytes"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/neardup/neardup/transforms/format/rank"
	"github.com/neardup/neardup/transforms/job"
	"github.com/neardup/neardup/transforms/match/compare"
)

// The measures themselves are tested in package compare; these tests cover
// the command: its flags, how it reads documents and what it prints.

func TestComparePrint(t *testing.T) {
	c, err := compare.Texts("one two three four five six", "one two three four five seven", compare.DefaultOptions())
	if err != nil {
		t.Fatal(err)
	}
	var buf bytes.Buffer
	printComparison(&buf, "a.txt", "b.txt", c, "--keep longest: A 27 bytes, B 29 bytes; b.txt is kept")
	out := buf.String()
	for _, want := range []string{
		"document  a.txt             b.txt\n",
		"bytes     27                29\n",
		fmt.Sprintf("simhash   %016x  %016x", c.A.SimHash, c.B.SimHash),
		"jaccard (exact)    0.3333  1 shared of 3 distinct shingles",
		"containment        A in B 0.5000 (1 of 2 shingles), B in A 0.5000 (1 of 2)",
		"only in A          six\n",
		"only in B          seven\n",
		"IDF from document frequencies of A and B",
		"verdict (jaccard)  near-duplicate: no (Jaccard 0.3333 < 0.80)",
		"verdict (simhash)  near-duplicate: ",
		"kept               --keep longest: A 27 bytes, B 29 bytes; b.txt is kept\n",
	} {
		if !strings.Contains(out, want) {
			t.Errorf("output lacks %q:\n%s", want, out)
		}
	}
}

// TestCompareFoldScript: compare folds scripts as the run does, and says
// whether it did; a Traditional copy is the same text folded, and shares no
// shingle with its original as written.
func TestCompareFoldScript(t *testing.T) {
	simplified, traditional := "软件开发的头发和里面的台湾著作很长的文章", "軟件開發的頭髮和裡面的臺灣著作很長的文章"
	for _, fold := range []bool{true, false} {
		opt := compare.DefaultOptions()
		opt.FoldScript = fold
		c, err := compare.Texts(simplified, traditional, opt)
		if err != nil {
			t.Fatal(err)
		}
		var buf bytes.Buffer
		printComparison(&buf, "a", "b", c, "")
		wantJ, wantLine := 1.0, "script             folded: Traditional characters compared as Simplified (--fold-script)"
		if !fold {
			wantJ, wantLine = 0, "script             as written (--fold-script=false)"
		}
		if c.Jaccard != wantJ || !strings.Contains(buf.String(), wantLine) {
			t.Errorf("--fold-script=%v: Jaccard %v, want %v, and the line %q in:\n%s", fold, c.Jaccard, wantJ, wantLine, buf.String())
		}
	}
}

func TestVerdicts(t *testing.T) {
	opt := compare.DefaultOptions() // threshold 0.8, Hamming 3
	tok := compare.Side{Tokens: 5}
	tests := []struct {
		name             string
		r                compare.Result
		jaccard, simhash string
	}{
		{"one word in 60", compare.Result{A: tok, B: tok, Jaccard: 51.0 / 61, Inter: 51, Union: 61, Hamming: 3},
			"near-duplicate: yes (Jaccard 0.8361 >= 0.80)", "near-duplicate: yes (Hamming 3 <= 3)"},
		{"apart", compare.Result{A: tok, B: tok, Jaccard: 0.5, Union: 4, Hamming: 19},
			"near-duplicate: no (Jaccard 0.5000 < 0.80)", "near-duplicate: no (Hamming 19 > 3)"},
		{"no tokens", compare.Result{B: tok},
			"near-duplicate: no (no shingles: a document has no tokens)", "near-duplicate: no (a document has no tokens)"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			tt.r.Options = opt
			if got := jaccardVerdict(&tt.r); got != tt.jaccard {
				t.Errorf("Jaccard verdict %q, want %q", got, tt.jaccard)
			}
			if got := simhashVerdict(&tt.r); got != tt.simhash {
				t.Errorf("SimHash verdict %q, want %q", got, tt.simhash)
			}
		})
	}
}

// TestCompareMainErrors runs the command on arguments it refuses.
func TestCompareMainErrors(t *testing.T) {
	tests := []struct {
		args []string
		want string
	}{
		{[]string{"a"}, "want two documents, got 1 argument(s)"},
		{[]string{"--text", "--jsonl", "c.jsonl", "a", "b"}, "--text and --jsonl exclude each other"},
		{[]string{"--text", "a", "b", "--shingle", "char5"}, `--shingle "char5": want char:N or word:N`},
		{[]string{"--text", "a", "b", "--threshold", "0"}, "--threshold 0 out of (0, 1]"},
		{[]string{filepath.Join(t.TempDir(), "nope"), "b"}, "reading document A"},
		{[]string{"--text", "a", "b", "--keep", "field:date"}, "--keep field:date: a field needs records: --jsonl"},
		{[]string{"--text", "a", "b", "--keep", "shortest"}, `keep order "shortest"`},
	}
	for _, tt := range tests {
		err := compareMain(tt.args)
		if err == nil || !strings.Contains(err.Error(), tt.want) {
			t.Errorf("compare %q: error %v, want one containing %q", tt.args, err, tt.want)
		}
	}
}

func TestReadDocuments(t *testing.T) {
	dir := t.TempDir()
	a := filepath.Join(dir, "a.txt")
	corpus := filepath.Join(dir, "c.jsonl")
	if err := os.WriteFile(a, []byte("hello world"), 0o644); err != nil {
		t.Fatal(err)
	}
	bin := filepath.Join(dir, "a.bin")
	if err := os.WriteFile(bin, []byte("\x89PNG\r\n\x1a\n\x00\x00\x00\rIHDR"), 0o644); err != nil {
		t.Fatal(err)
	}
	blank := filepath.Join(dir, "blank.txt")
	if err := os.WriteFile(blank, []byte(" \n"), 0o644); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(corpus, []byte(`{"id":"x","text":"first"}`+"\n"+`{"id":"y","text":"second"}`+"\n"+`{"id":"y","text":"third"}`+"\n"+`{"id":"z","text":"fourth"}`+"\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	tests := []struct {
		name       string
		read       func() (document, document, error)
		wantA      string
		wantErrSub string
	}{
		{"files", func() (document, document, error) { return readFiles(a, a) }, "hello world", ""},
		{"missing file", func() (document, document, error) { return readFiles(a, filepath.Join(dir, "nope")) }, "", "reading document B"},
		{"binary file", func() (document, document, error) { return readFiles(a, bin) }, "", "reading document B: " + bin + ": invalid UTF-8 at byte 0 (0x89): not a text document ('neardup run' rejects it as invalid_utf8)"},
		{"blank file", func() (document, document, error) { return readFiles(blank, a) }, " \n", ""},
		{"records", func() (document, document, error) { return readRecords(corpus, "id", "text", rank.Field{}, "z", "x") }, "fourth", ""},
		{"missing id", func() (document, document, error) { return readRecords(corpus, "id", "text", rank.Field{}, "x", "w") }, "", `no record with id "w"`},
		{"no id field", func() (document, document, error) { return readRecords(corpus, "url", "text", rank.Field{}, "x", "y") }, "",
			`no record with url "x": none of the first 4 records has the field "url" (--id-field); their fields: id, text`},
		{"no text field", func() (document, document, error) { return readRecords(corpus, "id", "body", rank.Field{}, "x", "w") }, "",
			`no record with id "x": none of the first 4 records has the field "body" (--text-field); their fields: id, text`},
		{"id twice", func() (document, document, error) { return readRecords(corpus, "id", "text", rank.Field{}, "y", "y") }, "", `2 records with id "y": an id must name one record`},
		{"one id twice", func() (document, document, error) { return readRecords(corpus, "id", "text", rank.Field{}, "x", "y") }, "", `2 records with id "y"`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			da, _, err := tt.read()
			if tt.wantErrSub != "" {
				if err == nil || !strings.Contains(err.Error(), tt.wantErrSub) {
					t.Errorf("error %v, want one containing %q", err, tt.wantErrSub)
				}
				return
			}
			if err != nil || da.Text != tt.wantA {
				t.Errorf("got %q, %v; want %q", da.Text, err, tt.wantA)
			}
		})
	}
}

func TestParseInterspersed(t *testing.T) {
	tests := []struct {
		args []string
		want string
	}{
		{[]string{"a", "b"}, "a b"},
		{[]string{"--text", "a", "b"}, "a b"},
		{[]string{"a", "--text", "b"}, "a b"},
		{[]string{"a", "b", "--threshold", "0.9"}, "a b"},
		{[]string{"--", "-a", "b"}, "-a b"},
	}
	for _, tt := range tests {
		fs, _ := newCompareFlags()
		got, err := parseInterspersed(fs, tt.args)
		if err != nil || strings.Join(got, " ") != tt.want {
			t.Errorf("parseInterspersed(%q) = %q, %v; want %q", tt.args, got, err, tt.want)
		}
	}
}

// TestPrintKeep: compare says each document's key under --keep and which
// one a run keeps: the longer text, the first, or by a field (missing
// values last), ties going to the longer, then the first.
func TestPrintKeep(t *testing.T) {
	date := rank.Field{Name: "date", Type: rank.Time}
	early, late := date.Of("2024-03-01"), date.Of("2024-03-05")
	a := document{Name: "a", Text: "short", Index: 0}
	b := document{Name: "b", Text: "a longer one", Index: 1}
	for _, tt := range []struct {
		keep string
		a, b document
		want string
	}{
		{"longest", a, b, "--keep longest: A 5 bytes, B 12 bytes; b is kept"},
		{"first", a, b, "--keep first: A input position 1, B input position 2; a is kept"},
		{"field:date", withRank(a, early), withRank(b, late), "--keep field:date: A 2024-03-01T00:00:00Z, B 2024-03-05T00:00:00Z; a is kept"},
		{"field:-date", withRank(a, early), withRank(b, late), "--keep field:-date: A 2024-03-01T00:00:00Z, B 2024-03-05T00:00:00Z; b is kept"},
		{"field:date", a, withRank(b, late), "--keep field:date: A none (ranks last), B 2024-03-05T00:00:00Z; b is kept"},
		{"field:date", withRank(a, early), withRank(b, early), "--keep field:date: A 2024-03-01T00:00:00Z, B 2024-03-01T00:00:00Z; b is kept"},
	} {
		k, err := job.ParseKeep(tt.keep)
		if err != nil {
			t.Fatal(err)
		}
		k.Type = rank.Time
		if k.Desc {
			// A key made for the smallest first, made again for the largest.
			tt.a.Rank, tt.b.Rank = (rank.Field{Type: rank.Time, Desc: true}).Of("2024-03-01"), (rank.Field{Type: rank.Time, Desc: true}).Of("2024-03-05")
		}
		if got := keepVerdict(k, tt.a, tt.b); got != tt.want {
			t.Errorf("--keep %s: %q, want %q", tt.keep, got, tt.want)
		}
	}
}

func withRank(d document, k rank.Key) document { d.Rank = k; return d }
