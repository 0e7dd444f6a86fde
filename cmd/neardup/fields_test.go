package main

import (
	"bytes"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/parquet-go/parquet-go"
)

// TestFieldsChecked: a field option that none of the first records has is
// one line and exit 2 naming the fields they have, before any output; the
// fields they do have run; an id field left at its default gives FILE:LINE
// ids without a word.
func TestFieldsChecked(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	jsonl := filepath.Join(dir, "crawl.jsonl")
	copyBytes(t, jsonl, `{"url":"u1","meta":{"lang":"en"},"content":"the first page"}`+"\n"+
		`{"url":"u2","meta":{"lang":"zh"},"content":"the second page"}`+"\n")
	pq := filepath.Join(dir, "crawl.parquet")
	type row struct {
		URL  string `parquet:"url"`
		Body string `parquet:"body"`
	}
	var buf bytes.Buffer
	w := parquet.NewGenericWriter[row](&buf)
	if _, err := w.Write([]row{{"u1", "a page"}}); err != nil {
		t.Fatal(err)
	}
	if err := w.Close(); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(pq, buf.Bytes(), 0o644); err != nil {
		t.Fatal(err)
	}
	for _, c := range []struct {
		name  string
		args  []string
		code  int
		wants []string
	}{
		{"id field misnamed", []string{"--input", jsonl, "--text-field", "content", "--id-field", "uri"}, 2,
			[]string{`--id-field "uri": none of the first 2 records of ` + jsonl + ` has it; their fields: url, meta, content`}},
		{"text field missing", []string{"--input", jsonl}, 2,
			[]string{`--text-field "text": none of the first 2 records of ` + jsonl + ` has it; their fields: url, meta, content`}},
		{"nested id field misnamed", []string{"--input", jsonl, "--text-field", "content", "--id-field", "meta.language"}, 2,
			[]string{`--id-field "meta.language"`}},
		{"parquet column", []string{"--input", pq, "--text-field", "text"}, 2,
			[]string{`--text-field "text": ` + pq + ` has no such column; its columns: url, body`}},
		{"fields as named", []string{"--input", jsonl, "--text-field", "content", "--id-field", "url"}, 0, nil},
		{"nested id field", []string{"--input", jsonl, "--text-field", "content", "--id-field", "meta.lang"}, 0, nil},
		{"default id field absent", []string{"--input", jsonl, "--text-field", "content"}, 0, nil},
		{"parquet as named", []string{"--input", pq, "--text-field", "body", "--id-field", "url"}, 0, nil},
	} {
		t.Run(c.name, func(t *testing.T) {
			out := filepath.Join(t.TempDir(), "out")
			code, stderr := neardup(t, "", append([]string{"run", "--quiet", "--output", out}, c.args...)...)
			if code != c.code {
				t.Fatalf("exit code %d, want %d: %s", code, c.code, stderr)
			}
			for _, want := range c.wants {
				if !strings.Contains(stderr, want) {
					t.Errorf("stderr %q lacks %q", stderr, want)
				}
			}
			if code == 0 {
				return
			}
			checkOneLine(t, stderr)
			if _, err := os.Stat(out); !errors.Is(err, os.ErrNotExist) {
				t.Errorf("output directory left (%v)", err)
			}
		})
	}
}
