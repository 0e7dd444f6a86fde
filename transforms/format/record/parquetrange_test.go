package record

import (
	"bytes"
	"encoding/binary"
	"fmt"
	"io"
	"reflect"
	"strings"
	"sync"
	"testing"

	"github.com/parquet-go/parquet-go"
	"github.com/parquet-go/parquet-go/encoding/thrift"
	"github.com/parquet-go/parquet-go/format"
)

// readRanges reads data in the ranges that cuts make ([cuts[i],
// cuts[i+1])), with readPQ (serial and parallel), and returns what they
// gave together, in range order.
func readRanges(t *testing.T, data []byte, opt Options, cuts []int64) ([]Doc, []Reject) {
	t.Helper()
	var docs []Doc
	var rejects []Reject
	for i := 0; i+1 < len(cuts); i++ {
		opt.Rows = &RowRange{cuts[i], cuts[i+1]}
		d, r := readPQ(t, data, opt)
		docs, rejects = append(docs, d...), append(rejects, r...)
	}
	return docs, rejects
}

// rangeRows are 40 rows, good and bad, in row groups of 16, 16 and 8.
func rangeRows() []pqRow {
	var rows []pqRow
	for i := range 40 {
		r := pqRow{ID: sp(fmt.Sprint("id", i)), Text: sp(fmt.Sprint("the text of row ", i)), Other: int64(i)}
		switch i % 7 {
		case 3:
			r.Text = nil // text_not_string
		case 5:
			r.ID = nil // missing_id
		}
		rows = append(rows, r)
	}
	return rows
}

// TestReadParquetRows checks that reads of a file in row ranges give
// together what one read of the whole file gives, whatever the ranges:
// ranges that cut row groups, empty ones, ones past the end; with ids and
// without (FILE:ROW ids and OnLineIDs for every range), with Only.
func TestReadParquetRows(t *testing.T) {
	rows := rangeRows()
	var noID []pqText
	for _, r := range rows {
		noID = append(noID, pqText{Text: r.Text})
	}
	files := map[string][]byte{"ids": writePQ(t, rows, 16), "no ids": writePQ(t, noID, 16)}
	splits := [][]int64{
		{0, 40},
		{0, 16, 32, 40},      // at row group boundaries
		{0, 5, 21, 33, 40},   // inside row groups
		{0, 1, 2, 3, 39, 40}, // single rows
		{0, 0, 17, 17, 40},   // empty ranges
		{0, 8, 100},          // past the end
		{0, 24, 40, 50, 60},  // ranges wholly past the end
	}
	for name, data := range files {
		for _, only := range []func(int64) bool{nil, func(i int64) bool { return i%3 != 1 }} {
			opt := Options{Only: only}
			whole, wholeRej := readPQ(t, data, opt)
			if len(whole) == 0 || len(wholeRej) == 0 {
				t.Fatalf("%s: %d docs, %d rejects: want both", name, len(whole), len(wholeRej))
			}
			for _, cuts := range splits {
				lineIDs := 0
				opt.OnLineIDs = func() { lineIDs++ }
				docs, rejects := readRanges(t, data, opt, cuts)
				if !reflect.DeepEqual(docs, whole) || !sameRejects(rejects, wholeRej) {
					t.Errorf("%s, ranges %v: %d docs, %d rejects; the whole read %d, %d\n%+v\n%+v",
						name, cuts, len(docs), len(rejects), len(whole), len(wholeRej), rejects, wholeRej)
				}
				if want := 2 * (len(cuts) - 1); name == "no ids" && lineIDs != want { // readPQ reads twice
					t.Errorf("%s, ranges %v: OnLineIDs called %d times, want %d", name, cuts, lineIDs, want)
				}
			}
		}
	}
}

type pqText struct {
	Text *string `parquet:"text,optional"`
}

// sameRejects compares rejects in order, both nil or empty alike.
func sameRejects(a, b []Reject) bool {
	return len(a) == len(b) && (len(a) == 0 || reflect.DeepEqual(a, b))
}

// TestReadParquetRowsWholeFile checks that a whole-file reject comes from
// the range that starts at row 0 only.
func TestReadParquetRowsWholeFile(t *testing.T) {
	type other struct {
		Body string `parquet:"body"`
	}
	noText := writePQ(t, []other{{"a"}, {"b"}, {"c"}}, 1)
	notParquet := []byte(`{"id":"a","text":"b"}` + "\n")
	for name, data := range map[string][]byte{"no text column": noText, "not Parquet": notParquet} {
		_, whole := readPQ(t, data, Options{})
		if len(whole) != 1 || whole[0].Line != 0 {
			t.Fatalf("%s: %+v, want one whole-file reject", name, whole)
		}
		docs, rejects := readRanges(t, data, Options{}, []int64{0, 1, 2, 3})
		if len(docs) != 0 || !reflect.DeepEqual(rejects, whole) {
			t.Errorf("%s in ranges: %+v, want %+v", name, rejects, whole)
		}
	}
}

// TestReadParquetRowsDamaged damages the second row group of three and
// checks that the damage loses the rest of that row group only, and that
// ranges give what the whole read does: the range holding the damaged row
// reports it, a later range in the same row group loses its rows silently.
func TestReadParquetRowsDamaged(t *testing.T) {
	rows := rangeRows()
	data := writePQ(t, rows, 16)
	text := pqMeta(t, data).Metadata().RowGroups[1].Columns[1].MetaData // id, text, other
	for i := text.DataPageOffset + text.TotalCompressedSize/3; i < text.DataPageOffset+text.TotalCompressedSize*2/3; i++ {
		data[i] ^= 0x5a
	}
	whole, wholeRej := readPQ(t, data, Options{})
	damage := wholeRej[len(wholeRej)-1]
	for _, r := range wholeRej {
		if r.Reason == ReasonCorruptParquet {
			damage = r
		}
	}
	if damage.Reason != ReasonCorruptParquet || damage.Line < 17 || damage.Line > 32 {
		t.Fatalf("rejects %+v: want a corrupt_parquet in rows 17..32", wholeRej)
	}
	if last := whole[len(whole)-1]; last.Index != 39 {
		t.Errorf("last doc at row %d: the third row group is lost", last.Index+1)
	}
	for _, d := range whole {
		if d.Index >= damage.Line-1 && d.Index < 32 {
			t.Errorf("doc at row %d, after the damage at row %d in its row group", d.Index+1, damage.Line)
		}
	}
	for _, cuts := range [][]int64{{0, 16, 32, 40}, {0, 20, 40}, {0, damage.Line - 1, damage.Line, 40}, {0, damage.Line, 40}, {0, 3, 7, 11, 19, 23, 29, 31, 37, 40}} {
		docs, rejects := readRanges(t, data, Options{}, cuts)
		if !reflect.DeepEqual(docs, whole) || !sameRejects(rejects, wholeRej) {
			t.Errorf("ranges %v: %d docs, rejects %+v; the whole read %d, %+v", cuts, len(docs), rejects, len(whole), wholeRej)
		}
	}
}

func pqMeta(t *testing.T, data []byte) *parquet.File {
	t.Helper()
	f, err := parquet.OpenFile(bytes.NewReader(data), int64(len(data)))
	if err != nil {
		t.Fatal(err)
	}
	return f
}

// TestReadParquetRowsSkips checks that a range reads nothing of the row
// groups outside it, and that ParquetRowGroups counts the rows.
func TestReadParquetRowsSkips(t *testing.T) {
	data := writePQ(t, rangeRows(), 16)
	if n, err := ParquetRowGroups(bytes.NewReader(data), int64(len(data))); fmt.Sprint(n) != "[16 16 8]" || err != nil {
		t.Errorf("ParquetRowGroups: %v, %v; want [16 16 8]", n, err)
	}
	if _, err := ParquetRowGroups(bytes.NewReader(data[:100]), 100); err == nil {
		t.Error("ParquetRowGroups of a cut file: no error")
	}
	md := pqMeta(t, data).Metadata().RowGroups
	chunk := func(g int) (int64, int64) { // the row group's column chunks
		cols := md[g].Columns
		first := cols[0].MetaData.DataPageOffset
		if d := cols[0].MetaData.DictionaryPageOffset; d > 0 {
			first = min(first, d)
		}
		last := cols[len(cols)-1].MetaData
		return first, last.DataPageOffset + last.TotalCompressedSize
	}
	for _, workers := range []int{0, 3} {
		ra := &offsetsReader{r: bytes.NewReader(data)}
		var n int
		err := ReadParquet(ra, int64(len(data)), "f.parquet", Options{Workers: workers, Rows: &RowRange{18, 30}},
			func(Doc) error { n++; return nil }, func(Reject) error { return nil })
		if err != nil {
			t.Fatal(err)
		}
		for _, g := range []int{0, 2} {
			lo, hi := chunk(g)
			for _, r := range ra.reads {
				if r[0] < hi && r[0]+r[1] > lo {
					t.Errorf("workers %d: read %d bytes at %d, in row group %d [%d, %d)", workers, r[1], r[0], g, lo, hi)
				}
			}
		}
		if n == 0 {
			t.Errorf("workers %d: no docs in rows 18..30", workers)
		}
	}
}

// offsetsReader records the (offset, length) of every read.
type offsetsReader struct {
	r     io.ReaderAt
	mu    sync.Mutex
	reads [][2]int64
}

func (o *offsetsReader) ReadAt(b []byte, off int64) (int, error) {
	o.mu.Lock()
	o.reads = append(o.reads, [2]int64{off, int64(len(b))})
	o.mu.Unlock()
	return o.r.ReadAt(b, off)
}

// TestReadParquetReadError checks that a failure of the reader in a row
// group is a read_error reject that ends the file (unlike damage, which
// ends its row group), serial and parallel alike.
func TestReadParquetReadError(t *testing.T) {
	data := writePQ(t, rangeRows(), 16)
	text := pqMeta(t, data).Metadata().RowGroups[1].Columns[1].MetaData
	for _, workers := range []int{0, 3} {
		ra := &failingAtReader{r: bytes.NewReader(data), at: text.DataPageOffset}
		var docs []int64
		var rejects []Reject
		err := ReadParquet(ra, int64(len(data)), "f.parquet", Options{Workers: workers},
			func(d Doc) error { docs = append(docs, d.Index); return nil },
			func(r Reject) error { rejects = append(rejects, r); return nil })
		if err != nil {
			t.Fatal(err)
		}
		last := rejects[len(rejects)-1]
		if last.Reason != ReasonReadError || last.Line != 17 || !bytes.Contains([]byte(last.Detail), []byte("rest of file lost")) {
			t.Errorf("workers %d: last reject %+v, want a read_error at row 17", workers, last)
		}
		if docs[len(docs)-1] >= 16 {
			t.Errorf("workers %d: doc at row %d after the read error", workers, docs[len(docs)-1]+1)
		}
	}
}

// failingAtReader fails every read that covers offset at.
type failingAtReader struct {
	r  io.ReaderAt
	at int64
}

func (f *failingAtReader) ReadAt(b []byte, off int64) (int, error) {
	if off <= f.at && f.at < off+int64(len(b)) {
		return 0, fmt.Errorf("disk failed at %d", f.at)
	}
	return f.r.ReadAt(b, off)
}

// TestReadParquetOffsetOutside checks that a column chunk whose metadata
// points before the file's start is damage to its row group, not a failed
// read of the file, and that a parallel read says so as a serial one does
// while an earlier row group is damaged too.
func TestReadParquetOffsetOutside(t *testing.T) {
	var rows []pqRow
	for i := range 6 {
		rows = append(rows, pqRow{ID: sp(fmt.Sprint("id", i)), Text: sp(fmt.Sprint("the text of row ", i)), Other: int64(i)})
	}
	good := writePQ(t, rows, 2)
	n := int(binary.LittleEndian.Uint32(good[len(good)-8:]))
	footer := good[len(good)-8-n : len(good)-8]
	var md format.FileMetaData
	if err := thrift.Unmarshal(new(thrift.CompactProtocol), footer, &md); err != nil {
		t.Fatal(err)
	}
	const text = 1 // the text column
	bad := bytes.Clone(good[:len(good)-8-n])
	// Row group 0's text page header is cut short by a stray stop byte.
	bad[md.RowGroups[0].Columns[text].MetaData.DataPageOffset] = 0
	md.RowGroups[1].Columns[text].MetaData.DataPageOffset = -1 << 20
	md.RowGroups[1].Columns[text].MetaData.DictionaryPageOffset = 0
	footer, err := thrift.Marshal(new(thrift.CompactProtocol), &md)
	if err != nil {
		t.Fatal(err)
	}
	bad = append(append(bad, footer...), binary.LittleEndian.AppendUint32(nil, uint32(len(footer)))...)
	bad = append(bad, "PAR1"...)
	docs, rejects := readPQ(t, bad, Options{})
	var got []string
	for _, d := range docs {
		got = append(got, d.ID)
	}
	for _, r := range rejects {
		got = append(got, fmt.Sprint(r.Line, " ", r.Reason))
	}
	want := "id4 id5 1 corrupt_parquet 3 corrupt_parquet"
	if strings.Join(got, " ") != want {
		t.Errorf("got %q, want %q\nrejects %+v", strings.Join(got, " "), want, rejects)
	}
}
