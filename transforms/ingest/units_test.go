package ingest

import (
	"bytes"
	"fmt"
	"os"
	"path/filepath"
	"syscall"
	"testing"

	"github.com/parquet-go/parquet-go"

	"github.com/neardup/neardup/transforms/format/wire"
	"github.com/neardup/neardup/transforms/job"
)

// TestSplitFile checks the units of the first pass: a local Parquet file
// of more than a unit's rows is cut at whole segments (the last unit takes
// the rest) and carries the file's size and time; every other file is one
// unit: a small Parquet file, a JSONL file, a path of a remote filesystem
// that package objects does not read in ranges (a gs:// or s3:// one is
// split: see pipeline/remote_test.go), a file that is not Parquet though
// named so, a named pipe (not opened: that would block), a missing file,
// and any file with splitting off.
func TestSplitFile(t *testing.T) {
	dir := t.TempDir()
	type row struct {
		Text string `parquet:"text"`
	}
	rows := make([]row, 100)
	for i := range rows {
		rows[i] = row{fmt.Sprint("text ", i)}
	}
	var buf bytes.Buffer
	if err := parquet.Write(&buf, rows); err != nil {
		t.Fatal(err)
	}
	big, small, jsonl, fake, fifo := filepath.Join(dir, "big.parquet"), filepath.Join(dir, "small.parquet"),
		filepath.Join(dir, "in.jsonl"), filepath.Join(dir, "fake.parquet"), filepath.Join(dir, "fifo.parquet")
	for p, b := range map[string][]byte{big: buf.Bytes(), jsonl: []byte(`{"id":"a","text":"b"}` + "\n"), fake: []byte("not parquet")} {
		if err := os.WriteFile(p, b, 0o644); err != nil {
			t.Fatal(err)
		}
	}
	var sbuf bytes.Buffer
	if err := parquet.Write(&sbuf, rows[:20]); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(small, sbuf.Bytes(), 0o644); err != nil {
		t.Fatal(err)
	}
	if err := syscall.Mkfifo(fifo, 0o644); err != nil {
		t.Fatal(err)
	}
	fi, err := os.Stat(big)
	if err != nil {
		t.Fatal(err)
	}
	cfg := job.DefaultConfig()
	cfg.SegmentBits, cfg.SplitRows = 3, 20 // units of 3 segments of 8 rows (20 rounds to 24)
	units := splitterOf(OptionsFor(cfg)).splitFile(t.Context(), 4, big)
	if len(units) != 5 { // 100 rows: 4 units of 24, the last of 4
		t.Fatalf("%d units of 100 rows: %+v", len(units), units)
	}
	for k, u := range units {
		end := int64(k+1) * 24
		if k == 4 {
			end = wire.MaxLines
		}
		if u.File != 4 || u.Path != big || u.U != k || u.Of != 5 || u.First != int64(k)*24 || u.End != end ||
			u.Size != fi.Size() || !u.ModTime.Equal(fi.ModTime()) {
			t.Errorf("unit %d: %+v", k, u)
		}
	}
	for _, path := range []string{small, jsonl, fake, fifo, filepath.Join(dir, "missing.parquet"), "memfs://bucket/big.parquet"} {
		if u := splitterOf(OptionsFor(cfg)).splitFile(t.Context(), 1, path); len(u) != 1 || u[0] != (readUnit{File: 1, Path: path, Of: 1}) {
			t.Errorf("%s: %+v, want one unit", path, u)
		}
	}
	cfg.SplitRows = -1
	if u := splitterOf(OptionsFor(cfg)).splitFile(t.Context(), 1, big); len(u) != 1 || u[0].Of != 1 {
		t.Errorf("splitting off: %+v, want one unit", u)
	}
	if got := job.DefaultConfig().UnitRows(); got != 8<<16 {
		t.Errorf("default unit: %d rows, want %d", got, 8<<16)
	}
}

// TestUnitCuts checks where a file's units begin: every per rows, or at
// the first row group start after that that is a whole number of
// segments if one comes within 2·per rows.
func TestUnitCuts(t *testing.T) {
	rep := func(n int, v int64) []int64 {
		g := make([]int64, n)
		for i := range g {
			g[i] = v
		}
		return g
	}
	for _, c := range []struct {
		groups   []int64
		per, seg int64
		want     string
	}{
		{[]int64{100}, 24, 8, "[0 24 48 72 96 100]"},                                           // one row group: every per rows
		{[]int64{20}, 24, 8, "[0 20]"},                                                         // one unit
		{[]int64{24}, 24, 8, "[0 24]"},                                                         // exactly one unit
		{rep(6, 16), 24, 8, "[0 32 64 88 96]"},                                                 // at row groups, the last one cut
		{rep(4, 1<<20), 1 << 19, 1 << 16, "[0 1048576 2097152 3145728 3670016 4194304]"},       // pyarrow's row groups
		{rep(10, 7), 16, 16, "[0 16 32 48 64 70]"},                                             // no aligned row group: every per rows
		{[]int64{7, 7, 7, 7, 7, 7, 7, 7, 7, 7, 7, 7, 7, 7, 7, 7, 7}, 48, 16, "[0 48 112 119]"}, // 112 = 16·7
		{[]int64{16, 0}, 8, 8, "[0 16]"},                                                       // one row group (and an empty one)
		{nil, 8, 8, "[0 0]"},
	} {
		if got := fmt.Sprint(unitCuts(c.groups, c.per, c.seg)); got != c.want {
			t.Errorf("unitCuts(%v, %d, %d) = %s, want %s", c.groups, c.per, c.seg, got, c.want)
		}
	}
}
