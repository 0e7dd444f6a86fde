package main

import (
	"bytes"
	"errors"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/parquet-go/parquet-go"

	"github.com/neardup/neardup/transforms/format/summary"
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

// TestInputsAsTyped: the arguments that are not options are inputs,
// wherever they stand, each taken as the shell gave it (no glob, no
// comma), so that an unquoted --input data/*.jsonl works; a directory
// means its files, not those of its subdirectories, nor hidden or _
// files.
func TestInputsAsTyped(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	data := filepath.Join(dir, "data")
	doc := func(id, text string) string { return `{"id":"` + id + `","text":"` + text + `"}` + "\n" }
	copyBytes(t, filepath.Join(data, "a.jsonl"), doc("a1", "the first page of a")+doc("a2", "the second page of a"))
	copyBytes(t, filepath.Join(data, "b.jsonl"), doc("b1", "the first page of b"))
	copyBytes(t, filepath.Join(data, "odd*,name.jsonl"), doc("c1", "a page in a file with an odd name"))
	copyBytes(t, filepath.Join(data, ".hidden.jsonl"), "not json\n")
	copyBytes(t, filepath.Join(data, "_SUCCESS"), "")
	copyBytes(t, filepath.Join(data, "sub", "d.jsonl"), doc("d1", "a page in a subdirectory"))
	a, b, odd := filepath.Join(data, "a.jsonl"), filepath.Join(data, "b.jsonl"), filepath.Join(data, "odd*,name.jsonl")
	for _, c := range []struct {
		name string
		args []string
		want []string // the inputs, as summary.json lists them
	}{
		{"arguments", []string{a, "--output", "OUT", b}, []string{a, b}},
		{"unquoted --input glob", []string{"--input", a, b, odd, "--output", "OUT"}, []string{a, b, odd}},
		{"a name with glob characters and a comma", []string{odd, "--output", "OUT"}, []string{odd}},
		{"a directory", []string{"--output", "OUT", data}, []string{a, b, odd}},
		{"--input and an argument", []string{"--input", filepath.Join(data, "[ab].jsonl"), odd, "--output", "OUT"}, []string{a, b, odd}},
	} {
		t.Run(c.name, func(t *testing.T) {
			out := filepath.Join(t.TempDir(), "out")
			args := append([]string{"run", "--quiet"}, c.args...)
			for i, a := range args {
				if a == "OUT" {
					args[i] = out
				}
			}
			code, stderr := neardup(t, "", args...)
			if code != 0 {
				t.Fatalf("exit %d: %s", code, stderr)
			}
			s, err := summary.ReadSummary(out)
			if err != nil {
				t.Fatal(err)
			}
			var got []string
			for _, in := range s.Inputs {
				got = append(got, in.Path)
			}
			slices.Sort(got)
			want := slices.Sorted(slices.Values(c.want))
			if !slices.Equal(got, want) {
				t.Errorf("inputs %q, want %q", got, want)
			}
		})
	}
	if code, stderr := neardup(t, "", "run", "--output", filepath.Join(dir, "none")); code != 2 || !strings.Contains(stderr, "--input and --output are required") {
		t.Errorf("no input: exit %d, %q", code, stderr)
	}
}
