package ingest

import (
	"bytes"
	"compress/gzip"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/neardup/neardup/transforms/format/record"
	"github.com/neardup/neardup/transforms/format/wire"
	"github.com/neardup/neardup/transforms/job"
)

// TestSplitLineFile checks the units of a line file: a local JSONL or TSV
// file of more lines than a unit is cut every unit's lines (whole
// segments), each unit starting at the byte offset of its first line,
// with the ids the file's first record settles, the file's size and time;
// a file of at most a unit's lines, a compressed one (by name or content)
// and a text file are one unit.
func TestSplitLineFile(t *testing.T) {
	dir := t.TempDir()
	var jsonl, tsv bytes.Buffer
	var starts, tsvStarts []int64
	for i := range 100 {
		starts, tsvStarts = append(starts, int64(jsonl.Len())), append(tsvStarts, int64(tsv.Len()))
		switch i % 10 {
		case 3:
			jsonl.WriteString("\r\n") // a blank line still counts
		case 4:
			jsonl.WriteString("{bad json\n")
		default:
			fmt.Fprintf(&jsonl, "{\"text\":\"line %d\"}\n", i) // no ids: FILE:LINE
		}
		fmt.Fprintf(&tsv, "u%d\tt\tc\n", i)
	}
	var gz bytes.Buffer
	zw := gzip.NewWriter(&gz)
	zw.Write(jsonl.Bytes())
	zw.Close()
	files := map[string][]byte{
		"in.jsonl": jsonl.Bytes(), "in.tsv": tsv.Bytes(), "in.jsonl.gz": gz.Bytes(), "gzip.jsonl": gz.Bytes(),
		"short.jsonl": []byte(strings.Repeat("{\"text\":\"x\"}\n", 24)), "tail.jsonl": []byte(strings.Repeat("{\"text\":\"x\"}\n", 24) + "{}"),
	}
	for name, b := range files {
		if err := os.WriteFile(filepath.Join(dir, name), b, 0o644); err != nil {
			t.Fatal(err)
		}
	}
	cfg := job.DefaultConfig()
	cfg.SegmentBits, cfg.SplitRows = 3, 20 // units of 3 segments of 8 lines
	path := filepath.Join(dir, "in.jsonl")
	fi, err := os.Stat(path)
	if err != nil {
		t.Fatal(err)
	}
	units := splitterOf(OptionsFor(cfg)).splitFile(t.Context(), 4, path)
	if len(units) != 5 { // 100 lines: 4 units of 24, the last of 4
		t.Fatalf("%d units of 100 lines: %+v", len(units), units)
	}
	for k, u := range units {
		end := int64(k+1) * 24
		if k == 4 {
			end = wire.MaxLines
		}
		if u.File != 4 || u.Path != path || u.U != k || u.Of != 5 || u.First != int64(k)*24 || u.End != end ||
			u.Offset != starts[k*24] || u.IDs == nil || *u.IDs != record.IDFromLine ||
			u.Size != fi.Size() || !u.ModTime.Equal(fi.ModTime()) {
			t.Errorf("unit %d: %+v", k, u)
		}
	}
	if u := splitterOf(OptionsFor(cfg)).splitFile(t.Context(), 0, filepath.Join(dir, "in.tsv")); len(u) != 5 || u[1].Offset != tsvStarts[24] || *u[1].IDs != record.IDAuto {
		t.Errorf("TSV: %+v, want 5 units, the second at byte %d", u, tsvStarts[24])
	}
	if u := splitterOf(OptionsFor(cfg)).splitFile(t.Context(), 0, filepath.Join(dir, "tail.jsonl")); len(u) != 2 || u[1].First != 24 {
		t.Errorf("25 lines, the last without a newline: %+v, want 2 units", u)
	}
	for _, name := range []string{"in.jsonl.gz", "gzip.jsonl", "short.jsonl"} {
		p := filepath.Join(dir, name)
		if u := splitterOf(OptionsFor(cfg)).splitFile(t.Context(), 1, p); len(u) != 1 || u[0] != (readUnit{File: 1, Path: p, Of: 1}) {
			t.Errorf("%s: %+v, want one unit", name, u)
		}
	}
	cfg.Format = record.Text
	if u := splitterOf(OptionsFor(cfg)).splitFile(t.Context(), 1, path); len(u) != 1 {
		t.Errorf("a text file: %+v, want one unit", u)
	}
}
