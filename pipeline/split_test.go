package pipeline

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/parquet-go/parquet-go"

	"github.com/neardup/neardup/transforms/format/output"
	"github.com/neardup/neardup/transforms/format/record"
	"github.com/neardup/neardup/transforms/format/summary"
	"github.com/neardup/neardup/transforms/job"
	"github.com/neardup/neardup/transforms/jobstate"
)

// writeParquetGroups writes rows to path, per rows to a row group, with
// the writer options opts (the codec).
func writeParquetGroups[T any](t *testing.T, path string, rows []T, per int, opts ...parquet.WriterOption) {
	t.Helper()
	f, err := os.Create(path)
	if err != nil {
		t.Fatal(err)
	}
	w := parquet.NewGenericWriter[T](f, opts...)
	for i := 0; i < len(rows); i += per {
		if _, err := w.Write(rows[i:min(i+per, len(rows))]); err != nil {
			t.Fatal(err)
		}
		if err := w.Flush(); err != nil {
			t.Fatal(err)
		}
	}
	if err := w.Close(); err != nil {
		t.Fatal(err)
	}
	if err := f.Close(); err != nil {
		t.Fatal(err)
	}
}

// sampleParquet writes the sample's files as Parquet in dir, per rows to a
// row group, with an id column or without, and a bad row (a null text) in
// every 97: the rejects are compared too.
func sampleParquet(t *testing.T, dir string, per int, withID bool) (files []string, rows int) {
	t.Helper()
	type row struct {
		ID   string  `parquet:"id"`
		Text *string `parquet:"text,optional"`
		N    int64   `parquet:"n"`
	}
	type noID struct {
		Text *string `parquet:"text,optional"`
		N    int64   `parquet:"n"`
	}
	for fi, name := range sampleFiles {
		var a []row
		var b []noID
		err := record.Read(strings.NewReader(string(decompressed(t, name))), name, record.Options{}, func(d record.Doc) error {
			text := &d.Text
			if len(a)%97 == 50 {
				text = nil
			}
			a = append(a, row{d.ID, text, int64(len(a))})
			b = append(b, noID{text, int64(len(b))})
			return nil
		}, func(rj record.Reject) error { return fmt.Errorf("sample reject %+v", rj) })
		if err != nil {
			t.Fatal(err)
		}
		path := filepath.Join(dir, fmt.Sprintf("sample-%d.parquet", fi))
		if withID {
			writeParquetGroups(t, path, a, per, parquet.Compression(&parquet.Snappy))
		} else {
			writeParquetGroups(t, path, b, per, parquet.Compression(&parquet.Snappy))
		}
		files, rows = append(files, path), rows+len(a)
	}
	return files, rows
}

// splitRun is a run of TestParquetSplit and TestLineSplit: the runner ("":
// Prism), the rows or lines of a unit (Config.SplitRows; -1: a file is one
// unit), the branches and the workers.
type splitRun struct {
	runner               string
	split, branches, wkr int
}

// splitRuns: the reference first, then units of 1 and 3 segments of 16
// rows on both runners.
var splitRuns = []splitRun{
	{"", -1, 2, 2}, // the reference: a file is one unit
	{"", 16, 2, 2},
	{"", 48, 3, 1},
	{"direct", 16, 1, 2},
	{"direct", 40, 2, 3}, // rounded to 3 segments
}

// config is the default configuration with segments of 16 rows and the
// run's split, branches and workers.
func (v splitRun) config() job.Config {
	cfg := job.DefaultConfig()
	cfg.SegmentBits, cfg.SplitRows, cfg.Branches, cfg.Workers = 4, v.split, v.branches, v.wkr
	return cfg
}

// TestParquetSplit: the sample as Parquet, in row groups of 7 rows, read by
// the first pass in units of 1 and 3 segments of 16 rows (so that units
// cut row groups), gives byte for byte the outputs of reading each file
// in one unit (dedup copies, pairs, clusters, rejects, summary.json's
// inputs and counts), with ids and without (FILE:ROW), on Prism and on
// the direct runner; read_units says how many units read the files.
func TestParquetSplit(t *testing.T) {
	for _, withID := range []bool{true, false} {
		files, rows := sampleParquet(t, t.TempDir(), 7, withID)
		var want map[string][]byte
		for i, v := range splitRuns {
			cfg := v.config()
			dir := t.TempDir()
			if err := runInto(t, v.runner, cfg, files, dir); err != nil {
				t.Fatalf("%+v: %v", v, err)
			}
			got := outputs(t, dir)
			units := takeStat(t, got, summary.StatReadUnits)
			what := fmt.Sprintf("ids %v, %+v", withID, v)
			// Units of per rows, or up to 2·per to end at a row group.
			least, most := int64(len(files)), int64(len(files))
			if v.split > 0 {
				per := int64((v.split+8)/16) * 16
				least, most = 0, 0
				for _, f := range files {
					n := parquetRows(t, f)
					least, most = least+(n+2*per-1)/(2*per), most+(n+per-1)/per
				}
			}
			if units < least || units > most {
				t.Errorf("%s: read_units %d, want %d to %d", what, units, least, most)
			}
			t.Logf("%s: %d units for %d rows", what, units, rows)
			if i == 0 {
				if len(readRejects(t, dir)) == 0 {
					t.Fatal("no rejects in the reference run")
				}
				want = got
				continue
			}
			sameOutputs(t, what, want, got)
		}
	}
}

// parquetRows is the number of rows of the Parquet file at path.
func parquetRows(t *testing.T, path string) int64 {
	t.Helper()
	f, err := os.Open(path)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	fi, err := f.Stat()
	if err != nil {
		t.Fatal(err)
	}
	groups, err := record.ParquetRowGroups(f, fi.Size())
	if err != nil {
		t.Fatal(err)
	}
	var n int64
	for _, g := range groups {
		n += g
	}
	return n
}

// TestParquetSplitChanged: a Parquet file read in units that changes
// between two of its units, or after the last, fails the job naming it,
// and the job writes neither its dedup copy nor summary.json.
func TestParquetSplitChanged(t *testing.T) {
	files, _ := sampleParquet(t, t.TempDir(), 16, true) // row groups of a segment: units of 64 rows
	in := files[1]
	splitChanged(t, files, 1, (parquetRows(t, in)+63)/64, 64, output.DedupName("parquet", 1))
}

// splitChanged checks that input file index file of files, read in units
// of split rows (segments of 16), which makes units of them, fails the
// job naming it when it changes after the first unit or after the last,
// and that the job then writes neither dedup (the file's copy) nor
// summary.json.
func splitChanged(t *testing.T, files []string, file int, units int64, split int, dedup string) {
	t.Helper()
	in := files[file]
	if units < 3 {
		t.Fatalf("%s: %d units, want at least 3", in, units)
	}
	touch := func() error { // a new modification time, the same bytes
		later := time.Now().Add(time.Hour)
		return os.Chtimes(in, later, later)
	}
	for _, at := range []int64{1, units} { // after the first unit, after the last
		t.Run(fmt.Sprint("after unit ", at), func(t *testing.T) {
			var calls atomic.Int64
			var changeErr atomic.Pointer[error]
			jobstate.SetStageHook("Read", func(key string) {
				if key == in && calls.Add(1) == at {
					if err := touch(); err != nil {
						changeErr.Store(&err)
					}
				}
			})
			defer jobstate.SetStageHook("", nil)
			cfg := job.DefaultConfig()
			cfg.SegmentBits, cfg.SplitRows, cfg.Branches, cfg.Workers = 4, split, 1, 1 // the units one after the other
			dir := t.TempDir()
			err := runInto(t, "", cfg, files, dir)
			if p := changeErr.Load(); calls.Load() < at || p != nil {
				t.Fatalf("the input was not changed: hook ran %d times, %v", calls.Load(), p)
			}
			want := "input " + in + " changed during the run"
			if err == nil || !strings.Contains(err.Error(), want) {
				t.Fatalf("job error %v, want %q", err, want)
			}
			msg := err.Error()[strings.Index(err.Error(), want):]
			t.Logf("the job failed: %s", msg[:strings.IndexByte(msg+"\n", '\n')])
			if calls.Load() != at {
				// The unit after the change failed at its check (the hook
				// runs once a unit is read).
				t.Errorf("%d units read after the change, want none", calls.Load()-at)
			}
			for _, name := range []string{dedup, summary.FileName} {
				if _, err := os.Stat(filepath.Join(dir, name)); !errors.Is(err, os.ErrNotExist) {
					t.Errorf("%s written by the failed job (%v)", name, err)
				}
			}
		})
	}
}
