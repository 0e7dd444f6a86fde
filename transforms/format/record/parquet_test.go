package record

import (
	"bytes"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"

	"github.com/parquet-go/parquet-go"
	"github.com/parquet-go/parquet-go/compress"
)

// pqRow is a row with nullable id and text columns.
type pqRow struct {
	ID    *string `parquet:"id,optional"`
	Text  *string `parquet:"text,optional"`
	Other int64   `parquet:"other"`
}

func sp(s string) *string { return &s }

// writePQ returns a Parquet file of rows, rowsPerGroup rows to a row group.
func writePQ[T any](t testing.TB, rows []T, rowsPerGroup int64) []byte {
	t.Helper()
	var buf bytes.Buffer
	w := parquet.NewGenericWriter[T](&buf, parquet.MaxRowsPerRowGroup(rowsPerGroup), parquet.Compression(&parquet.Snappy))
	for i := 0; i < len(rows); i += int(rowsPerGroup) {
		end := min(len(rows), i+int(rowsPerGroup))
		if _, err := w.Write(rows[i:end]); err != nil {
			t.Fatal(err)
		}
		if err := w.Flush(); err != nil {
			t.Fatal(err)
		}
	}
	if err := w.Close(); err != nil {
		t.Fatal(err)
	}
	return buf.Bytes()
}

// readPQ reads data as Parquet and returns its docs (ID, Text, Index) and
// rejects, checking that reading the row groups in parallel (Workers 3)
// gives the same.
func readPQ(t testing.TB, data []byte, opt Options) ([]Doc, []Reject) {
	t.Helper()
	docs, rejects := readPQWith(t, data, opt)
	opt.Workers = 3
	pdocs, prejects := readPQWith(t, data, opt)
	if !reflect.DeepEqual(docs, pdocs) || !reflect.DeepEqual(rejects, prejects) {
		t.Fatalf("parallel read differs:\n%+v %+v\nserial:\n%+v %+v", pdocs, prejects, docs, rejects)
	}
	return docs, rejects
}

func readPQWith(t testing.TB, data []byte, opt Options) ([]Doc, []Reject) {
	t.Helper()
	var docs []Doc
	var rejects []Reject
	err := ReadParquet(bytes.NewReader(data), int64(len(data)), "f.parquet", opt, func(d Doc) error {
		d.Raw = append([]byte(nil), d.Raw...)
		docs = append(docs, d)
		return nil
	}, func(r Reject) error {
		rejects = append(rejects, r)
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	return docs, rejects
}

func TestReadParquet(t *testing.T) {
	rows := []pqRow{
		{ID: sp("a"), Text: sp("first text")},
		{ID: sp("b"), Text: nil},                         // null text
		{ID: nil, Text: sp("no id")},                     // null id
		{ID: sp(""), Text: sp("empty id")},               // empty id
		{ID: sp("e"), Text: sp("  \t ")},                 // white space
		{ID: sp("f"), Text: sp("bad \xff utf-8")},        // invalid text
		{ID: sp("g"), Text: sp(strings.Repeat("x", 40))}, // too large below
		{ID: sp("h"), Text: sp("last text")},
	}
	data := writePQ(t, rows, 3) // row groups of 3, 3 and 2 rows
	docs, rejects := readPQ(t, data, Options{MaxDocBytes: 30})
	var got []string
	for _, d := range docs {
		got = append(got, fmt.Sprintf("%d %s %q raw=%q", d.Index, d.ID, d.Text, d.Raw))
	}
	for _, r := range rejects {
		got = append(got, fmt.Sprintf("line %d %s", r.Line, r.Reason))
	}
	want := []string{
		`0 a "first text" raw="first text"`,
		`7 h "last text" raw="last text"`,
		"line 2 text_not_string",
		"line 3 missing_id",
		"line 4 missing_id",
		"line 5 empty_text",
		"line 6 invalid_utf8",
		"line 7 too_large",
	}
	if strings.Join(got, "\n") != strings.Join(want, "\n") {
		t.Errorf("got\n%s\nwant\n%s", strings.Join(got, "\n"), strings.Join(want, "\n"))
	}
	for _, r := range rejects {
		if r.File != "f.parquet" || !strings.HasPrefix(r.Detail, fmt.Sprintf("f.parquet:%d: ", r.Line)) {
			t.Errorf("reject %+v: detail does not name file:line", r)
		}
	}
}

func TestReadParquetColumns(t *testing.T) {
	type intID struct {
		ID   int64  `parquet:"id"`
		Text string `parquet:"text"`
	}
	type noID struct {
		Body string `parquet:"body"`
	}
	type nested struct {
		Meta struct {
			URL string `parquet:"url"`
		} `parquet:"meta"`
		Content struct {
			Text string `parquet:"text"`
		} `parquet:"content"`
	}
	type listText struct {
		ID   string   `parquet:"id"`
		Text []string `parquet:"text,list"`
	}
	type intText struct {
		ID   string `parquet:"id"`
		Text int32  `parquet:"text"`
	}
	var n nested
	n.Meta.URL, n.Content.Text = "http://x", "nested text"
	tests := []struct {
		name string
		data []byte
		opt  Options
		want string // docs then rejects
	}{
		{"int ids", writePQ(t, []intID{{-7, "t1"}, {42, "t2"}}, 10), Options{}, "0 -7 t1|1 42 t2"},
		{"no id column", writePQ(t, []noID{{"t1"}, {"t2"}, {"t3"}}, 2), Options{TextField: "body"},
			"0 f.parquet:1 t1|1 f.parquet:2 t2|2 f.parquet:3 t3"},
		{"line ids asked for", writePQ(t, []intID{{-7, "t1"}, {42, "t2"}}, 10), Options{IDs: IDFromLine}, "0 f.parquet:1 t1|1 f.parquet:2 t2"},
		{"dotted paths", writePQ(t, []nested{n}, 10), Options{IDField: "meta.url", TextField: "content.text"}, "0 http://x nested text"},
		{"missing text column", writePQ(t, []noID{{"t1"}}, 10), Options{},
			`reject 0 missing_text f.parquet: no column "text" (columns: body)`},
		{"list text column", writePQ(t, []listText{{"a", []string{"x"}}}, 10), Options{},
			`reject 0 text_not_string f.parquet: column "text" is a group (a list, map or struct), want a string column`},
		{"int text column", writePQ(t, []intText{{"a", 3}}, 10), Options{},
			`reject 0 text_not_string f.parquet: column "text" is of type INT32, want a string column`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			docs, rejects := readPQ(t, tt.data, tt.opt)
			var got []string
			for _, d := range docs {
				got = append(got, fmt.Sprintf("%d %s %s", d.Index, d.ID, d.Text))
			}
			for _, r := range rejects {
				got = append(got, fmt.Sprintf("reject %d %s %s", r.Line, r.Reason, r.Detail))
			}
			if s := strings.Join(got, "|"); s != tt.want {
				t.Errorf("got  %s\nwant %s", s, tt.want)
			}
		})
	}
}

// TestReadParquetOnLineIDs checks that OnLineIDs is called once for a
// file read with line ids, and not for one with its id column.
func TestReadParquetOnLineIDs(t *testing.T) {
	data := writePQ(t, []pqRow{{ID: sp("a"), Text: sp("x")}}, 10)
	for _, tt := range []struct {
		opt  Options
		want int
	}{{Options{IDs: IDAuto}, 0}, {Options{IDs: IDAuto, IDField: "nope"}, 1}, {Options{IDs: IDFromLine}, 1}} {
		calls := 0
		tt.opt.OnLineIDs = func() { calls++ }
		readPQ(t, data, tt.opt)
		if calls != 2*tt.want { // readPQ reads twice
			t.Errorf("%+v: OnLineIDs called %d times in two reads, want %d", tt.opt, calls, 2*tt.want)
		}
	}
}

// TestReadParquetOnly checks that Options.Only selects rows by index across
// row groups, called once per row in order, and that Read reads Parquet
// from a plain io.Reader the same way.
func TestReadParquetOnly(t *testing.T) {
	var rows []pqRow
	for i := range 10 {
		rows = append(rows, pqRow{ID: sp(fmt.Sprint("id", i)), Text: sp(fmt.Sprint("text ", i))})
	}
	data := writePQ(t, rows, 4)
	for _, workers := range []int{0, 3} {
		var asked []int64
		opt := Options{Format: Parquet, Workers: workers, Only: func(i int64) bool { asked = append(asked, i); return i%3 == 0 }}
		readOnly(t, data, opt, &asked)
	}
}

func readOnly(t *testing.T, data []byte, opt Options, asked *[]int64) {
	var got []string
	err := Read(io.MultiReader(bytes.NewReader(data)), "f.parquet", opt, func(d Doc) error {
		got = append(got, fmt.Sprintf("%d:%s", d.Index, d.ID))
		return nil
	}, func(r Reject) error { return fmt.Errorf("reject %+v", r) })
	if err != nil {
		t.Fatal(err)
	}
	if s := strings.Join(got, " "); s != "0:id0 3:id3 6:id6 9:id9" {
		t.Errorf("docs %s", s)
	}
	if fmt.Sprint(*asked) != "[0 1 2 3 4 5 6 7 8 9]" {
		t.Errorf("Only called for %v", *asked)
	}
}

// TestReadParquetDamaged damages a small file at every byte (and cuts it at
// every length) and checks that reading never fails nor panics, that the
// rows read are the file's own, in order, and that damage is at most one
// corrupt_parquet Reject naming it (its rows are all good otherwise).
func TestReadParquetDamaged(t *testing.T) {
	var rows []pqRow
	for i := range 40 {
		rows = append(rows, pqRow{ID: sp(fmt.Sprint("id", i)), Text: sp(fmt.Sprint("the text of row ", i)), Other: int64(i)})
	}
	good := writePQ(t, rows, 16)
	check := func(what string, data []byte) {
		docs, rejects := readPQ(t, data, Options{})
		// A flipped byte inside a value can change its text without the
		// decoder noticing (no page checksum), but rows stay in place.
		last := int64(-1)
		for _, d := range docs {
			if d.Index <= last || d.Index >= int64(len(rows)) {
				t.Fatalf("%s: doc index %d after %d, file has %d rows", what, d.Index, last, len(rows))
			}
			last = d.Index
		}
		for k, r := range rejects {
			if r.Reason == ReasonCorruptParquet || r.Reason == ReasonReadError {
				if k != len(rejects)-1 {
					t.Fatalf("%s: %s reject not last: %+v", what, r.Reason, rejects)
				}
				if r.Detail == "" || r.Line < 0 {
					t.Fatalf("%s: reject %+v", what, r)
				}
			}
		}
	}
	for n := 0; n < len(good); n++ {
		check(fmt.Sprint("cut at ", n), good[:n])
	}
	for i := range good {
		bad := bytes.Clone(good)
		bad[i] ^= 0xff
		check(fmt.Sprint("byte ", i, " flipped"), bad)
	}
	// A cut file is one whole-file reject naming the damage.
	_, rejects := readPQ(t, good[:len(good)/2], Options{})
	if len(rejects) != 1 || rejects[0].Reason != ReasonCorruptParquet || rejects[0].Line != 0 ||
		!strings.Contains(rejects[0].Detail, "not a readable Parquet file") {
		t.Errorf("cut file: %+v", rejects)
	}
	// JSONL under --format parquet names the problem.
	_, rejects = readPQ(t, []byte(`{"id":"a","text":"b"}`+"\n"), Options{})
	if len(rejects) != 1 || !strings.Contains(rejects[0].Detail, "magic") {
		t.Errorf("JSONL as Parquet: %+v", rejects)
	}
}

// FuzzReadParquet checks that no input makes ReadParquet fail or panic,
// and that a parallel read gives what a serial one does.
func FuzzReadParquet(f *testing.F) {
	f.Add(writePQ(f, []pqRow{{ID: sp("a"), Text: sp("text a")}, {ID: sp("b"), Text: nil}}, 1))
	f.Add([]byte("PAR1"))
	f.Fuzz(func(t *testing.T, data []byte) {
		readPQ(t, data, Options{})
	})
}

// TestCopyParquet checks that the copy has the input's schema and metadata
// and exactly the kept rows, in order, whole (every column), and that two
// copies are the same bytes.
func TestCopyParquet(t *testing.T) {
	var rows []pqRow
	for i := range 50 {
		rows = append(rows, pqRow{ID: sp(fmt.Sprint("id", i)), Text: sp(fmt.Sprint("text ", i)), Other: int64(i * 10)})
	}
	rows[7].Text = nil
	data := writePQ(t, rows, 16)
	keep := func(i int64) bool { return i%4 != 1 && i != 40 && i < 45 }
	var keepRows []int64
	for i := range int64(len(rows)) {
		if keep(i) {
			keepRows = append(keepRows, i)
		}
	}
	var out, again bytes.Buffer
	kept, err := CopyParquet(bytes.NewReader(data), int64(len(data)), keepRows, &out)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := CopyParquet(bytes.NewReader(data), int64(len(data)), keepRows, &again); err != nil {
		t.Fatal(err)
	}
	if !bytes.Equal(out.Bytes(), again.Bytes()) {
		t.Error("two copies differ")
	}
	got, err := parquet.Read[pqRow](bytes.NewReader(out.Bytes()), int64(out.Len()))
	if err != nil {
		t.Fatal(err)
	}
	var want []pqRow
	for i, r := range rows {
		if keep(int64(i)) {
			want = append(want, r)
		}
	}
	if kept != int64(len(want)) || len(got) != len(want) {
		t.Fatalf("kept %d, read back %d rows, want %d", kept, len(got), len(want))
	}
	for i := range want {
		if fmt.Sprint(deref(want[i].ID), deref(want[i].Text), want[i].Other) != fmt.Sprint(deref(got[i].ID), deref(got[i].Text), got[i].Other) {
			t.Errorf("row %d: got %v, want %v", i, got[i], want[i])
		}
	}
	in, _ := parquet.OpenFile(bytes.NewReader(data), int64(len(data)))
	cp, err := parquet.OpenFile(bytes.NewReader(out.Bytes()), int64(out.Len()))
	if err != nil {
		t.Fatal(err)
	}
	if in.Schema().String() != cp.Schema().String() {
		t.Errorf("schema\n%s\nwant\n%s", cp.Schema(), in.Schema())
	}
	if c := cp.Metadata().RowGroups[0].Columns[0].MetaData.Codec; c != in.Metadata().RowGroups[0].Columns[0].MetaData.Codec {
		t.Errorf("codec %v", c)
	}
	// Nothing kept: still a Parquet file with the schema and no rows.
	out.Reset()
	if kept, err := CopyParquet(bytes.NewReader(data), int64(len(data)), nil, &out); err != nil || kept != 0 {
		t.Fatal(kept, err)
	}
	if cp, err := parquet.OpenFile(bytes.NewReader(out.Bytes()), int64(out.Len())); err != nil || cp.NumRows() != 0 {
		t.Fatalf("empty copy: %v", err)
	}
}

func deref(s *string) string {
	if s == nil {
		return "<nil>"
	}
	return *s
}

func TestFormatFor(t *testing.T) {
	for _, tt := range []struct {
		name string
		f    Format
		want Format
	}{
		{"a.parquet", JSONL, Parquet},
		{"gs://b/A.PARQUET", TSV, Parquet},
		{"a.jsonl", JSONL, JSONL},
		{"a.parquet.gz", JSONL, JSONL},
		{"a.jsonl", Parquet, Parquet},
	} {
		if got := FormatFor(tt.name, tt.f); got != tt.want {
			t.Errorf("FormatFor(%q, %v) = %v, want %v", tt.name, tt.f, got, tt.want)
		}
	}
	if f, err := ParseFormat(" Parquet "); err != nil || f != Parquet || f.String() != "parquet" {
		t.Errorf("ParseFormat: %v %v", f, err)
	}
}

// parquetBenchDocs returns the documents of the dev corpus (NEARDUP_CORPUS,
// else /work/shared/corpus), else of the bundled sample, as JSONL.
func parquetBenchDocs(b *testing.B) []byte {
	dir := os.Getenv("NEARDUP_CORPUS")
	if dir == "" {
		dir = "/work/shared/corpus"
	}
	if data, err := os.ReadFile(filepath.Join(dir, "dev.jsonl")); err == nil {
		return data
	}
	data, err := os.ReadFile("../../../testdata/sample/sample-0.jsonl")
	if err != nil {
		b.Skip(err)
	}
	return data
}

// BenchmarkReadParquetVsJSONL reads the same documents as JSONL and as
// Parquet (id and text columns, as converted with 10,000 rows to a row
// group, Snappy or Zstd; with Options.Workers 2, its two row groups at
// once). Every sub-benchmark counts the JSONL bytes, so
// MB/s compare documents per second.
func BenchmarkReadParquetVsJSONL(b *testing.B) {
	jsonl := parquetBenchDocs(b)
	type row struct {
		ID   string `parquet:"id"`
		Text string `parquet:"text"`
	}
	var rows []row
	err := Read(bytes.NewReader(jsonl), "dev.jsonl", Options{}, func(d Doc) error {
		rows = append(rows, row{d.ID, d.Text})
		return nil
	}, func(Reject) error { return nil })
	if err != nil {
		b.Fatal(err)
	}
	convert := func(codec compress.Codec) []byte {
		var buf bytes.Buffer
		w := parquet.NewGenericWriter[row](&buf, parquet.Compression(codec))
		for i := 0; i < len(rows); i += 10000 {
			if _, err := w.Write(rows[i:min(i+10000, len(rows))]); err != nil {
				b.Fatal(err)
			}
			if err := w.Flush(); err != nil {
				b.Fatal(err)
			}
		}
		if err := w.Close(); err != nil {
			b.Fatal(err)
		}
		return buf.Bytes()
	}
	count := func(b *testing.B, read func(doc func(Doc) error) error) {
		b.SetBytes(int64(len(jsonl)))
		b.ReportAllocs()
		for b.Loop() {
			n := 0
			if err := read(func(Doc) error { n++; return nil }); err != nil || n != len(rows) {
				b.Fatalf("read %d docs of %d: %v", n, len(rows), err)
			}
		}
	}
	b.Run("jsonl", func(b *testing.B) {
		count(b, func(doc func(Doc) error) error {
			return Read(bytes.NewReader(jsonl), "dev.jsonl", Options{}, doc, func(Reject) error { return nil })
		})
	})
	for _, c := range []struct {
		name    string
		codec   compress.Codec
		workers int
	}{{"parquet-snappy", &parquet.Snappy, 0}, {"parquet-zstd", &parquet.Zstd, 0}, {"parquet-zstd-workers2", &parquet.Zstd, 2}} {
		data := convert(c.codec)
		b.Run(c.name, func(b *testing.B) {
			b.ReportMetric(float64(len(data)), "file-bytes")
			count(b, func(doc func(Doc) error) error {
				return ReadParquet(bytes.NewReader(data), int64(len(data)), "dev.parquet", Options{Workers: c.workers}, doc, func(Reject) error { return nil })
			})
		})
	}
}
