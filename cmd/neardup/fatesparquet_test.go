package main

import (
	"bytes"
	"encoding/json"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/parquet-go/parquet-go"

	"github.com/neardup/neardup/transforms/format/output"
	"github.com/neardup/neardup/transforms/format/summary"
)

// pqDoc is a row of the Parquet input of TestFatesParquet.
type pqDoc struct {
	ID   string  `parquet:"id"`
	Lang string  `parquet:"lang"`
	Text *string `parquet:"text,optional"`
}

// pqFate is the "neardup" column --fates adds to a Parquet row.
type pqFate struct {
	Fate                *string  `parquet:"fate,optional"`
	Kept                *string  `parquet:"kept,optional"`
	Cluster             *string  `parquet:"cluster,optional"`
	Method              *string  `parquet:"method,optional"`
	Jaccard             *float64 `parquet:"jaccard,optional"`
	JaccardEstimate     *float64 `parquet:"jaccard_estimate,optional"`
	Hamming             *int32   `parquet:"hamming,optional"`
	Containment         *float64 `parquet:"containment,optional"`
	ContainmentEstimate *float64 `parquet:"containment_estimate,optional"`
	Via                 *string  `parquet:"via,optional"`
}

// pqDocFate is a row of a Parquet fates file.
type pqDocFate struct {
	pqDoc
	Neardup *pqFate `parquet:"neardup,optional"`
}

// writeSampleParquet writes sample file name as Parquet at path, 250 rows
// to a row group, zstd, with the text of row 3 null (rejected as
// missing_text), and returns its rows.
func writeSampleParquet(t *testing.T, name, path string) []pqDoc {
	t.Helper()
	data, err := os.ReadFile(sampleFile(t, name))
	if err != nil {
		t.Fatal(err)
	}
	var rows []pqDoc
	for i, line := range gunzipLines(t, name, string(data)) {
		var r struct{ ID, Lang, Text string }
		if err := json.Unmarshal([]byte(line), &r); err != nil {
			t.Fatalf("%s line %d: %v", name, i+1, err)
		}
		rows = append(rows, pqDoc{ID: r.ID, Lang: r.Lang, Text: &r.Text})
	}
	rows[3].Text = nil
	var buf bytes.Buffer
	w := parquet.NewGenericWriter[pqDoc](&buf, parquet.MaxRowsPerRowGroup(250), parquet.Compression(&parquet.Zstd))
	for i := 0; i < len(rows); i += 250 {
		if _, err := w.Write(rows[i:min(len(rows), i+250)]); err != nil {
			t.Fatal(err)
		}
		if err := w.Flush(); err != nil {
			t.Fatal(err)
		}
	}
	if err := w.Close(); err != nil {
		t.Fatal(err)
	}
	copyBytes(t, path, buf.String())
	return rows
}

// TestFatesParquet: with --fates, run and audit write for a Parquet input
// fates-NNNNN.parquet in place of dedup-NNNNN.parquet: its good rows in
// order, whole, each with the column "neardup" after its own, as many as
// summary.json keeps and removes; its schema is the input's with
// neardup's fields after it, in the order of the JSONL fate's keys, and
// its codec the input's; the rows kept are the dedup copy of the job
// without --fates; each removed row names a kept row's id (the run's, or
// in the audit a kept new or an indexed one), and its method.
func TestFatesParquet(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	idx := filepath.Join(dir, "idx")
	jobs := []struct {
		name, sample, summary string
		args                  []string
	}{
		{"run", "sample-0.jsonl", summary.FileName, []string{"run", "--index-out", idx}},
		{"audit", "sample-1.jsonl.gz", summary.AuditFileName, []string{"audit", "--index", idx}},
	}
	runKept := map[string]bool{} // the run's kept ids: the audit's index
	for _, j := range jobs {
		input := filepath.Join(dir, j.name+".parquet")
		rows := writeSampleParquet(t, j.sample, input)
		plain, withFates := filepath.Join(dir, j.name+"-plain"), filepath.Join(dir, j.name+"-fates")
		for _, c := range []struct {
			out   string
			extra []string
		}{{withFates, []string{"--fates"}}, {plain, nil}} {
			args := slices.Concat(j.args, []string{"--quiet", "--input", input, "--output", c.out}, c.extra)
			if j.name == "run" && c.out == plain {
				args = slices.Delete(args, 1, 3) // one index
			}
			if code, stderr := neardup(t, "", args...); code != 0 {
				t.Fatalf("%s: exit %d: %s", strings.Join(args, " "), code, stderr)
			}
		}
		name := j.name + ": fates-00000.parquet"
		if _, err := os.Stat(filepath.Join(withFates, "dedup-00000.parquet")); err == nil {
			t.Errorf("%s: dedup-00000.parquet written with --fates", j.name)
		}
		got := readParquetFile[pqDocFate](t, filepath.Join(withFates, "fates-00000.parquet"))
		dedup := readParquetFile[pqDoc](t, filepath.Join(plain, "dedup-00000.parquet"))
		counts := summaryCountsOf(t, snapshot(t, withFates), j.summary)
		if int64(len(got)) != counts[summary.StatKept]+counts[summary.StatRemoved] || counts[summary.StatRemoved] == 0 {
			t.Errorf("%s: %d rows, summary keeps %d and removes %d", name, len(got), counts[summary.StatKept], counts[summary.StatRemoved])
		}
		good := slices.Delete(slices.Clone(rows), 3, 4)
		var own, kept []pqDoc
		keptIDs := map[string]bool{}
		for _, r := range got {
			own = append(own, r.pqDoc)
			if r.Neardup != nil && deref(r.Neardup.Fate) == output.FateKept {
				kept = append(kept, r.pqDoc)
				keptIDs[r.ID] = true
			}
		}
		if !slices.EqualFunc(own, good, samePQDoc) {
			t.Errorf("%s: without their fates, %d rows are not the input's %d good rows, in order", name, len(own), len(good))
		}
		if !slices.EqualFunc(kept, dedup, samePQDoc) {
			t.Errorf("%s: %d rows kept, not the %d of dedup-00000.parquet without --fates", name, len(kept), len(dedup))
		}
		removed, viaIndex := 0, 0
		for _, r := range got {
			f := r.Neardup
			if f == nil || deref(f.Fate) == output.FateKept {
				continue
			}
			removed++
			inIndex := j.name == "audit" && runKept[deref(f.Kept)]
			if inIndex {
				viaIndex++
			}
			if deref(f.Fate) != output.FateRemoved || !(keptIDs[deref(f.Kept)] || inIndex) || deref(f.Method) == "" || f.Hamming == nil || (f.Jaccard == nil) == (f.JaccardEstimate == nil) {
				t.Errorf("%s: %s: fate %s, want removed for a kept row, with a method, a hamming and one jaccard", name, r.ID, fateString(f))
			}
			if deref(f.Cluster) == "" && !inIndex {
				t.Errorf("%s: %s removed in the batch, in no cluster: %s", name, r.ID, fateString(f))
			}
		}
		if int64(removed) != counts[summary.StatRemoved] {
			t.Errorf("%s: %d removed, summary removes %d", name, removed, counts[summary.StatRemoved])
		}
		if j.name == "audit" && int64(viaIndex) < counts[summary.StatDupOfIndex] {
			t.Errorf("%s: %d removed for indexed documents, summary has %d duplicates of the index", name, viaIndex, counts[summary.StatDupOfIndex])
		}
		if j.name == "run" {
			runKept = keptIDs
		}
		f := openParquetFile(t, filepath.Join(withFates, "fates-00000.parquet"))
		var cols []string
		for _, c := range f.Schema().Columns() {
			cols = append(cols, strings.Join(c, "."))
		}
		want := []string{"id", "lang", "text"}
		for _, c := range output.FateTSVColumns {
			want = append(want, output.FateKey+"."+c)
		}
		if !slices.Equal(cols, want) {
			t.Errorf("%s: columns %v, want %v", name, cols, want)
		}
		if c := f.Metadata().RowGroups[0].Columns[0].MetaData.Codec; c != parquet.Zstd.CompressionCodec() {
			t.Errorf("%s: codec %v, want the input's zstd", name, c)
		}
	}
}

func samePQDoc(a, b pqDoc) bool {
	return a.ID == b.ID && a.Lang == b.Lang && deref(a.Text) == deref(b.Text) && (a.Text == nil) == (b.Text == nil)
}

func deref[T any](p *T) T {
	var v T
	if p != nil {
		v = *p
	}
	return v
}

// fateString is f for a message.
func fateString(f *pqFate) string {
	b, _ := json.Marshal(f)
	return string(b)
}

// openParquetFile opens the Parquet file at path.
func openParquetFile(t *testing.T, path string) *parquet.File {
	t.Helper()
	data, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	f, err := parquet.OpenFile(bytes.NewReader(data), int64(len(data)))
	if err != nil {
		t.Fatalf("%s: %v", path, err)
	}
	return f
}

// readParquetFile reads the rows of the Parquet file at path as T.
func readParquetFile[T any](t *testing.T, path string) []T {
	t.Helper()
	data, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	rows, err := parquet.Read[T](bytes.NewReader(data), int64(len(data)))
	if err != nil {
		t.Fatalf("%s: %v", path, err)
	}
	return rows
}
