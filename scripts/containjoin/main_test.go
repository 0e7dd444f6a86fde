package main

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/neardup/neardup/transforms/eval/containjoin"
)

func TestRun(t *testing.T) {
	dir := t.TempDir()
	in := filepath.Join(dir, "in.jsonl")
	story := "the council met on monday and voted to repair the old bridge before winter comes"
	corpus := `{"id":"story","text":"` + story + `"}` + "\n" +
		`{"id":"reprint","text":"` + story + `. Local news: the fair opens on friday at the school hall"}` + "\n" +
		`{"id":"other","text":"an unrelated note about gardening and tomatoes in the summer heat"}` + "\n" +
		`{"id":"bad"}` + "\n"
	if err := os.WriteFile(in, []byte(corpus), 0o644); err != nil {
		t.Fatal(err)
	}
	out := filepath.Join(dir, "truth.tsv")
	f := flags{input: in, out: out, shingle: "char:5", dict: "auto", idField: "id", textField: "text", threshold: 0.5}
	if err := run(f); err != nil {
		t.Fatal(err)
	}
	pairs, err := containjoin.ReadTSV(out)
	if err != nil {
		t.Fatal(err)
	}
	if len(pairs) != 1 || pairs[0].A != "story" || pairs[0].B != "reprint" || pairs[0].ContainA() != 1 {
		t.Errorf("pairs = %+v, want story wholly in reprint", pairs)
	}
}

func TestNewSigner(t *testing.T) {
	tests := []struct{ shingle, want string }{
		{"char:5", ""},
		{"char:3", ""},
		{"char", "want char:N or word:N"},
		{"line:5", "want char:N or word:N"},
		{"char:0", "want a shingle size from 1 to 100"},
		{"char:05", "want a shingle size from 1 to 100"},
	}
	for _, tt := range tests {
		s, err := newSigner(tt.shingle, "auto")
		switch {
		case tt.want == "" && (err != nil || s == nil):
			t.Errorf("newSigner(%q) = %v", tt.shingle, err)
		case tt.want != "" && (err == nil || !strings.Contains(err.Error(), tt.want)):
			t.Errorf("newSigner(%q) error %v, want %q", tt.shingle, err, tt.want)
		}
	}
}
