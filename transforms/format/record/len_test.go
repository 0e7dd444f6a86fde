package record

import (
	"bytes"
	"encoding/json"
	"fmt"
	"testing"
)

// TestDocLen reads one document in each format and checks that its length
// is its text's bytes as decoded, the same in every format, and not the
// record's (a JSONL line with its escapes and other fields, a TSV line with
// its url).
func TestDocLen(t *testing.T) {
	const title, content = `Title "quoted" é 中文`, `content with \ backslash, <b>tags</b> & more`
	text := title + "\n" + content // TSV: title + "\n" + content
	line, err := json.Marshal(map[string]any{"id": "d1", "text": text, "url": "https://example.com/a", "n": 12345})
	if err != nil {
		t.Fatal(err)
	}
	type pqDoc struct {
		ID   string `parquet:"id"`
		Text string `parquet:"text"`
		URL  string `parquet:"url"`
	}
	cases := []struct {
		name    string
		format  Format
		data    []byte
		longRaw bool // the record is longer than its text
	}{
		{"jsonl", JSONL, append(line, '\n'), true},
		{"tsv", TSV, []byte("https://example.com/a\t" + title + "\t" + content + "\n"), true},
		{"text", Text, []byte(text), false},
		{"parquet", Parquet, writePQ(t, []pqDoc{{"d1", text, "https://example.com/a"}}, 1), false},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			d := readOne(t, c.format, c.data, false)
			if d.Text != text || d.Len() != len(text) {
				t.Errorf("text %q, Len %d; want %q and its %d bytes", d.Text, d.Len(), text, len(text))
			}
			if c.longRaw && len(d.Raw) <= d.Len() {
				t.Errorf("raw record of %d bytes, want more than the text's %d", len(d.Raw), d.Len())
			}
			if d := readOne(t, c.format, c.data, true); d.Len() != 0 || len(d.Raw) == 0 {
				t.Errorf("with Options.Raw: Len %d, %d raw bytes; want 0 and the record", d.Len(), len(d.Raw))
			}
		})
	}
}

// readOne reads data, which must hold one good record, in format f (with
// Options.Raw if raw) and returns its Doc.
func readOne(t *testing.T, f Format, data []byte, raw bool) Doc {
	t.Helper()
	var docs []Doc
	doc := func(d Doc) error {
		d.Raw = bytes.Clone(d.Raw)
		docs = append(docs, d)
		return nil
	}
	reject := func(r Reject) error { return fmt.Errorf("reject %+v", r) }
	opt := Options{Format: f, Raw: raw}
	var err error
	if f == Parquet {
		err = ReadParquet(bytes.NewReader(data), int64(len(data)), "f.parquet", opt, doc, reject)
	} else {
		err = Read(bytes.NewReader(data), "f", opt, doc, reject)
	}
	if err != nil || len(docs) != 1 {
		t.Fatalf("read: %v, %d docs; want one", err, len(docs))
	}
	return docs[0]
}
