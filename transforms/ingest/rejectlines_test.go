package ingest

import (
	"bytes"
	"context"
	"os"
	"path/filepath"
	"testing"

	"github.com/parquet-go/parquet-go"

	"github.com/neardup/neardup/transforms/format/summary"
	"github.com/neardup/neardup/transforms/format/wire"
	"github.com/neardup/neardup/transforms/job"
)

// TestRejectsBounded (issue 32): the first pass over a file of many
// rejects (a Parquet file of empty rows: 1M of them held 0.74-0.94 GB)
// holds at most rejectMemBytes of their lines and emits them in chunks of
// at most that, every line once; its spill file is gone afterwards.
func TestRejectsBounded(t *testing.T) {
	const rows = 40000 // about 6 MB of reject lines
	dir := t.TempDir()
	in := filepath.Join(dir, "empty.parquet")
	type row struct {
		ID   string `parquet:"id"`
		Text string `parquet:"text"`
	}
	var buf bytes.Buffer
	w := parquet.NewGenericWriter[row](&buf)
	if _, err := w.Write(make([]row, rows)); err != nil {
		t.Fatal(err)
	}
	if err := w.Close(); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(in, buf.Bytes(), 0o644); err != nil {
		t.Fatal(err)
	}
	cfg := job.DefaultConfig()
	cfg.Work = t.TempDir()
	fn := &readKeysFn{Work: cfg.WorkDir(), Read: cfg.Reading(), Partitions: cfg.Partitions}
	nop := func(int64, []byte) {}
	var chunks, total, biggest int
	seen := map[uint64]bool{}
	emitRejects := func(file int64, chunk []byte) {
		chunks++
		total += len(chunk)
		biggest = max(biggest, len(chunk))
		lines, err := wire.AppendLines(nil, chunk)
		if err != nil {
			t.Fatal(err)
		}
		for _, l := range lines {
			if seen[l.K1] {
				t.Errorf("row %d rejected twice", l.K1)
			}
			seen[l.K1] = true
		}
	}
	var rejected int64
	err := fn.read(context.Background(), readUnit{Path: in, Of: 1}, nop, emitRejects, nop, nop, func(name string, n int64) {
		if name == summary.StatRejected {
			rejected = n
		}
	})
	if err != nil {
		t.Fatal(err)
	}
	if rejected != rows || len(seen) != rows {
		t.Errorf("%d rejects counted, %d emitted, want %d", rejected, len(seen), rows)
	}
	if biggest > rejectMemBytes || total < 2*rejectMemBytes {
		t.Errorf("%d bytes of reject lines in %d chunks, the biggest %d: want chunks of at most %d", total, chunks, biggest, rejectMemBytes)
	}
	if left, _ := filepath.Glob(filepath.Join(cfg.Work, "spill-*")); len(left) > 0 {
		t.Errorf("left in the work directory: %v", left)
	}
}

// TestRejectLines: the lines added come back in the order added, in
// chunks of at most rejectMemBytes, each chunk whole lines.
func TestRejectLines(t *testing.T) {
	for _, n := range []int{0, 1, 5000, 40000} {
		r := newRejectLines(t.TempDir())
		text := bytes.Repeat([]byte("r"), 100)
		for i := range n {
			r.add(uint64(i+1), uint64(i), text)
		}
		var next uint64 = 1
		err := r.emit(3, func(file int64, chunk []byte) {
			if file != 3 || len(chunk) > rejectMemBytes {
				t.Errorf("a chunk of %d bytes for file %d", len(chunk), file)
			}
			lines, err := wire.AppendLines(nil, chunk)
			if err != nil {
				t.Fatal(err)
			}
			for _, l := range lines {
				if l.K1 != next || l.K2 != next-1 || !bytes.Equal(l.Text, text) {
					t.Fatalf("line %d: %d %d %q", next, l.K1, l.K2, l.Text)
				}
				next++
			}
		})
		if err != nil || next != uint64(n+1) {
			t.Errorf("%d lines: %d emitted, %v", n, next-1, err)
		}
		if left, _ := filepath.Glob(filepath.Join(r.dir, "*")); len(left) > 0 {
			t.Errorf("left behind: %v", left)
		}
	}
}
