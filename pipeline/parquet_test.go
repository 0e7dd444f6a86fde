package pipeline

import (
	"bytes"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"testing"

	"github.com/parquet-go/parquet-go"

	"github.com/neardup/neardup/transforms/format/output"
	"github.com/neardup/neardup/transforms/format/record"
	"github.com/neardup/neardup/transforms/format/summary"
	"github.com/neardup/neardup/transforms/job"
)

// pqWithID and pqNoID are the rows of the sample converted to Parquet; N
// is the row's position in its file, a column neardup does not read, to
// recognize the rows of the dedup copy.
type pqWithID struct {
	ID   string `parquet:"id"`
	Text string `parquet:"text"`
	N    int64  `parquet:"n"`
}

type pqNoID struct {
	Text string `parquet:"text"`
	N    int64  `parquet:"n"`
}

// writeParquetFile writes rows to path, 100 rows to a row group, zstd.
func writeParquetFile[T any](t *testing.T, path string, rows []T) {
	t.Helper()
	writeParquetGroups(t, path, rows, 100, parquet.Compression(&parquet.Zstd))
}

// pos is a document's position: input file index and row (record) number.
type pos struct{ file, row int }

// TestParquetSample converts the bundled sample to Parquet, with id and
// text columns and without an id column, and checks that both runs find
// what the JSONL run finds: the same counts and the same clusters by
// position with the same representatives (with --keep longest too: a
// record's length is its text's bytes in both formats), and that each
// dedup copy is Parquet with the input's columns holding exactly the rows
// its own run kept, in input order.
func TestParquetSample(t *testing.T) {
	dir := t.TempDir()
	byID := map[string]pos{}
	var withID, noID []string
	for fi, name := range sampleFiles {
		f, err := os.Open(name)
		if err != nil {
			t.Fatal(err)
		}
		r, _ := record.Decompress(name, f)
		var a []pqWithID
		var b []pqNoID
		err = record.Read(r, name, record.Options{}, func(d record.Doc) error {
			byID[d.ID] = pos{fi, len(a)}
			a = append(a, pqWithID{d.ID, d.Text, int64(len(a))})
			b = append(b, pqNoID{d.Text, int64(len(b))})
			return nil
		}, func(rj record.Reject) error { return fmt.Errorf("sample reject %+v", rj) })
		f.Close()
		if err != nil {
			t.Fatal(err)
		}
		withID = append(withID, filepath.Join(dir, fmt.Sprintf("with-%d.parquet", fi)))
		noID = append(noID, filepath.Join(dir, fmt.Sprintf("noid-%d.parquet", fi)))
		writeParquetFile(t, withID[fi], a)
		writeParquetFile(t, noID[fi], b)
	}
	noIDPos := func(id string) pos {
		path, row, ok := strings.Cut(id, ".parquet:")
		n, err := strconv.Atoi(row)
		fi := slices.Index(noID, path+".parquet")
		if !ok || err != nil || fi < 0 {
			t.Fatalf("id %q is not FILE:ROW of an input", id)
		}
		return pos{fi, n - 1}
	}
	idPos := func(id string) pos {
		p, ok := byID[id]
		if !ok {
			t.Fatalf("unknown id %q", id)
		}
		return p
	}
	for _, keep := range []string{"first", "longest"} {
		cfg := job.DefaultConfig()
		cfg.Keep = must(job.ParseKeep(keep))
		jsonl := runJob(t, "", cfg, sampleFiles)
		want, wantCounts := clustersAt(t, jsonl, idPos), readSummary(t, jsonl).Counts
		for _, run := range []struct {
			name  string
			files []string
			at    func(string) pos
		}{{"parquet", withID, idPos}, {"parquet without ids", noID, noIDPos}} {
			out := runJob(t, "", cfg, run.files)
			what := fmt.Sprintf("%s, --keep %s", run.name, keep)
			got := clustersAt(t, out, run.at)
			c := readSummary(t, out).Counts
			for _, k := range []string{summary.StatInput, summary.StatKept, summary.StatRemoved, summary.StatRejected, "clusters", "verified_pairs"} {
				if c[k] != wantCounts[k] {
					t.Errorf("%s: %s = %d, JSONL %d", what, k, c[k], wantCounts[k])
				}
			}
			if len(got) != len(want) {
				t.Errorf("%s: %d clusters, JSONL %d", what, len(got), len(want))
			}
			removed := map[pos]bool{}
			for root, cl := range got {
				w, ok := want[root]
				if !ok || !slices.Equal(cl.members, w.members) || cl.rep != w.rep {
					t.Errorf("%s: cluster %v: members %v rep %v, JSONL %v rep %v", what, root, cl.members, cl.rep, w.members, w.rep)
				}
				for _, m := range cl.members {
					if m != cl.rep {
						removed[m] = true
					}
				}
			}
			for fi := range run.files {
				rows := dedupRows(t, filepath.Join(out, output.DedupName("parquet", fi)), run.name == "parquet")
				var wantRows []int64
				for row := range byIDCount(byID, fi) {
					if !removed[pos{fi, row}] {
						wantRows = append(wantRows, int64(row))
					}
				}
				if !slices.Equal(rows, wantRows) {
					t.Errorf("%s: dedup copy of file %d holds rows %d..., want %d... (%d rows, want %d)", what, fi,
						rows[:min(5, len(rows))], wantRows[:min(5, len(wantRows))], len(rows), len(wantRows))
				}
			}
		}
	}
}

// byIDCount is the number of documents of file fi.
func byIDCount(byID map[string]pos, fi int) int {
	n := 0
	for _, p := range byID {
		if p.file == fi {
			n++
		}
	}
	return n
}

type posCluster struct {
	members []pos
	rep     pos
}

// clustersAt reads a run's clusters with their members at their positions,
// keyed by the first member's position.
func clustersAt(t *testing.T, dir string, at func(string) pos) map[pos]posCluster {
	t.Helper()
	out := map[pos]posCluster{}
	for _, cl := range clusterLines(t, dir) {
		var c posCluster
		for _, m := range cl.Members {
			c.members = append(c.members, at(m))
		}
		slices.SortFunc(c.members, func(a, b pos) int {
			if a.file != b.file {
				return a.file - b.file
			}
			return a.row - b.row
		})
		c.rep = at(cl.Representative)
		out[c.members[0]] = c
	}
	return out
}

// dedupRows reads the N column of a dedup copy, checking that it has the
// input's columns.
func dedupRows(t *testing.T, path string, withID bool) []int64 {
	t.Helper()
	var ns []int64
	if withID {
		rows, err := parquet.ReadFile[pqWithID](path)
		if err != nil {
			t.Fatal(err)
		}
		for _, r := range rows {
			ns = append(ns, r.N)
		}
	} else {
		rows, err := parquet.ReadFile[pqNoID](path)
		if err != nil {
			t.Fatal(err)
		}
		for _, r := range rows {
			ns = append(ns, r.N)
		}
	}
	f, err := os.Open(path)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	st, _ := f.Stat()
	pf, err := parquet.OpenFile(f, st.Size())
	if err != nil {
		t.Fatal(err)
	}
	cols := fmt.Sprint(pf.Schema().Columns())
	if want := map[bool]string{true: "[[id] [text] [n]]", false: "[[text] [n]]"}[withID]; cols != want {
		t.Errorf("%s: columns %s, want %s", path, cols, want)
	}
	return ns
}

// TestParquetDamaged runs a Parquet file damaged in its second row group
// (of three) and a cut one: the job goes on; the damaged file is its rows
// but those of the damaged row group from the damage on, and one
// corrupt_parquet reject at the row where reading stopped, the cut one a
// single whole-file reject; the damaged file's dedup copy holds none of
// the lost rows, the cut one's is empty.
func TestParquetDamaged(t *testing.T) {
	dir := t.TempDir()
	var rows []pqNoID
	for i := range 300 {
		rows = append(rows, pqNoID{fmt.Sprintf("document %d: %s", i, strings.Repeat(fmt.Sprint(" word", i*7919%1000), 20)), int64(i)})
	}
	damaged, cut := filepath.Join(dir, "a-damaged.parquet"), filepath.Join(dir, "b-cut.parquet")
	writeParquetFile(t, damaged, rows)
	data, err := os.ReadFile(damaged)
	if err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(cut, data[:len(data)/2], 0o644); err != nil {
		t.Fatal(err)
	}
	pf, err := parquet.OpenFile(bytes.NewReader(data), int64(len(data)))
	if err != nil {
		t.Fatal(err)
	}
	text := pf.Metadata().RowGroups[1].Columns[0].MetaData // the text column of row group 2
	for i := text.DataPageOffset + text.TotalCompressedSize/3; i < text.DataPageOffset+text.TotalCompressedSize*2/3; i++ {
		data[i] ^= 0x5a
	}
	if err := os.WriteFile(damaged, data, 0o644); err != nil {
		t.Fatal(err)
	}
	out := runJob(t, "", job.DefaultConfig(), []string{damaged, cut})
	rejects := readRejects(t, out)
	if len(rejects) != 2 || rejects[0].Reason != record.ReasonCorruptParquet || rejects[1].Reason != record.ReasonCorruptParquet {
		t.Fatalf("rejects %+v, want one corrupt_parquet for each file", rejects)
	}
	stop := rejects[0].Line
	if rejects[0].shard != 0 || stop < 101 || stop > 200 || rejects[1].shard != 1 || rejects[1].Line != 0 {
		t.Errorf("rejects %+v: want file 0 stopped in rows 101..200, file 1 at line 0", rejects)
	}
	t.Logf("damaged file: %s", rejects[0].Detail)
	c := readSummary(t, out).Counts
	// The rows of the damaged row group from the damage on are lost, the
	// third row group is read (and the cut file is one reject).
	if c[summary.StatInput] != stop+101 || c[summary.StatRejected] != 2 {
		t.Errorf("input %d, rejected %d; want %d and 2", c[summary.StatInput], c[summary.StatRejected], stop+101)
	}
	kept := dedupRows(t, filepath.Join(out, output.DedupName("parquet", 0)), false)
	if int64(len(kept)) != c[summary.StatKept] || len(kept) == 0 || kept[len(kept)-1] != 299 {
		t.Errorf("dedup copy of the damaged file: %d rows (kept %d), last %v; want up to row 300", len(kept), c[summary.StatKept], kept[len(kept)-1:])
	}
	for _, n := range kept {
		if n >= stop-1 && n < 200 {
			t.Errorf("dedup copy of the damaged file holds row %d, after the damage at row %d in its row group", n+1, stop)
		}
	}
	if b, err := os.ReadFile(filepath.Join(out, output.DedupName("parquet", 1))); err != nil || len(b) != 0 {
		t.Errorf("dedup copy of the cut file: %d bytes, %v; want empty", len(b), err)
	}
}
