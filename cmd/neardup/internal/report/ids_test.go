package report

import (
	"os"
	"path/filepath"
	"testing"

	"github.com/neardup/neardup/transforms/format/output"
)

// TestSampleTextsLineIDs: the texts of documents identified as FILE:LINE
// (no id field in the file, or --id-field ”) and of nested fields are
// found, also in a copy of the input under another name (the run's spool
// copy of a compressed input), by the input's own name.
func TestSampleTextsLineIDs(t *testing.T) {
	dir := t.TempDir()
	noIDs := filepath.Join(dir, "noids.jsonl")
	nested := filepath.Join(dir, "nested.jsonl")
	if err := os.WriteFile(noIDs, []byte(`{"text":"one"}`+"\n\n"+`{"text":"three"}`+"\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	gz := filepath.Join(dir, "noids.jsonl.gz") // not there: its copy is
	spooled := filepath.Join(dir, "input-00000")
	if err := os.WriteFile(spooled, []byte(`{"text":"one"}`+"\n\n"+`{"text":"three"}`+"\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(nested, []byte(`{"m":{"id":"n1"},"c":{"t":"nested one"}}`+"\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	for _, tt := range []struct {
		idField, textField string
		inputs             []Input
		pair               output.PairLine
		want               map[string]string
	}{
		{"id", "text", as(noIDs), output.PairLine{A: noIDs + ":1", B: noIDs + ":3"}, map[string]string{noIDs + ":1": "one", noIDs + ":3": "three"}},
		{"", "text", as(noIDs), output.PairLine{A: noIDs + ":3", B: "x"}, map[string]string{noIDs + ":3": "three"}},
		{"m.id", "c.t", as(nested), output.PairLine{A: "n1", B: "x"}, map[string]string{"n1": "nested one"}},
		{"id", "text", []Input{{Name: gz, Path: spooled}}, output.PairLine{A: gz + ":1", B: gz + ":3"}, map[string]string{gz + ":1": "one", gz + ":3": "three"}},
	} {
		texts, _, err := readAllTexts(map[string]bool{tt.pair.A: true, tt.pair.B: true}, tt.inputs, tt.idField, tt.textField)
		if err != nil {
			t.Fatal(err)
		}
		if len(texts) != len(tt.want) {
			t.Errorf("--id-field %q: %d texts %v, want %v", tt.idField, len(texts), texts, tt.want)
		}
		for id, w := range tt.want {
			if texts[id].Text != w {
				t.Errorf("--id-field %q: text of %s = %q, want %q", tt.idField, id, texts[id].Text, w)
			}
		}
	}
}

// as is inputs read where they are named.
func as(paths ...string) []Input {
	in := make([]Input, len(paths))
	for i, p := range paths {
		in[i] = Input{Name: p, Path: p}
	}
	return in
}
