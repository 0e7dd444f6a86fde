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

// TestFatesParquet: with --fates, a Parquet input's fates-NNNNN.parquet
// holds its good rows in order, whole, each with the column "neardup"
// after its own, as many as summary.json keeps and removes; its schema is
// the input's with neardup's fields after it, in the order of the JSONL
// fate's keys, and its codec the input's; the rows kept are the
// dedup-NNNNN.parquet of the run without --fates; each removed row names
// a kept row's id, its cluster and its method.
func TestFatesParquet(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	data, err := os.ReadFile(sampleFile(t, "sample-0.jsonl"))
	if err != nil {
		t.Fatal(err)
	}
	var rows []pqDoc
	for i, line := range strings.Split(strings.TrimSpace(string(data)), "\n") {
		var r struct{ ID, Lang, Text string }
		if err := json.Unmarshal([]byte(line), &r); err != nil {
			t.Fatalf("sample-0.jsonl line %d: %v", i+1, err)
		}
		rows = append(rows, pqDoc{ID: r.ID, Lang: r.Lang, Text: &r.Text})
	}
	rows[3].Text = nil // rejected: missing_text
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
	input := filepath.Join(dir, "docs.parquet")
	copyBytes(t, input, buf.String())
	plain, withFates := filepath.Join(dir, "plain"), filepath.Join(dir, "fates")
	for _, args := range [][]string{{"--output", plain}, {"--output", withFates, "--fates"}} {
		args = append([]string{"run", "--quiet", "--input", input}, args...)
		if code, stderr := neardup(t, "", args...); code != 0 {
			t.Fatalf("%s: exit %d: %s", strings.Join(args, " "), code, stderr)
		}
	}
	name := "fates-00000.parquet"
	if _, err := os.Stat(filepath.Join(withFates, "dedup-00000.parquet")); err == nil {
		t.Errorf("dedup-00000.parquet written with --fates")
	}
	got := readParquetFile[pqDocFate](t, filepath.Join(withFates, name))
	dedup := readParquetFile[pqDoc](t, filepath.Join(plain, "dedup-00000.parquet"))
	counts := summaryCountsOf(t, snapshot(t, withFates), summary.FileName)
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
	removed := 0
	for _, r := range got {
		f := r.Neardup
		if f == nil || deref(f.Fate) == output.FateKept {
			continue
		}
		removed++
		if deref(f.Fate) != output.FateRemoved || !keptIDs[deref(f.Kept)] || deref(f.Cluster) == "" || deref(f.Method) == "" || f.Hamming == nil || (f.Jaccard == nil) == (f.JaccardEstimate == nil) {
			t.Errorf("%s: %s: fate %s, want removed for a kept row, in a cluster, with a method, a hamming and one jaccard", name, r.ID, fateString(f))
		}
	}
	if int64(removed) != counts[summary.StatRemoved] {
		t.Errorf("%s: %d removed, summary removes %d", name, removed, counts[summary.StatRemoved])
	}
	f := openParquetFile(t, filepath.Join(withFates, name))
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
