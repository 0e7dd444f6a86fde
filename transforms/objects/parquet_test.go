package objects

import (
	"bytes"
	"fmt"
	"io"
	"math/rand/v2"
	"strings"
	"testing"

	"github.com/parquet-go/parquet-go"

	"github.com/neardup/neardup/transforms/format/record"
)

// TestParquetRequests: record.ReadParquet reads a Parquet object through
// an Object, rows of one range or of the whole file, with the documents
// of the same file read from memory, in a number of requests bounded by
// its pages: each ReadAt is one request, and the decoder's reads are of
// pages, not of bytes.
func TestParquetRequests(t *testing.T) {
	type row struct {
		ID   string `parquet:"id"`
		Text string `parquet:"text"`
		N    int64  `parquet:"n"`
	}
	words := strings.Fields("the quick brown fox jumps over a lazy dog while seven wizards box and judge it")
	var buf bytes.Buffer
	w := parquet.NewGenericWriter[row](&buf, parquet.Compression(&parquet.Snappy), parquet.PageBufferSize(64<<10))
	const groups, per = 8, 2000
	for g := range groups {
		rows := make([]row, per)
		for i := range rows {
			var sb strings.Builder
			for range 150 {
				sb.WriteString(words[rand.N(len(words))] + " ")
			}
			rows[i] = row{fmt.Sprint("d", g*per+i), sb.String(), int64(i)}
		}
		if _, err := w.Write(rows); err != nil {
			t.Fatal(err)
		}
		if err := w.Flush(); err != nil {
			t.Fatal(err)
		}
	}
	if err := w.Close(); err != nil {
		t.Fatal(err)
	}
	data := buf.Bytes()
	f, err := parquet.OpenFile(bytes.NewReader(data), int64(len(data)))
	if err != nil {
		t.Fatal(err)
	}
	pages := 0 // of the id and text columns
	// At most a few reads for the footer, then a read of ReadSize bytes
	// or one page, whichever is longer, at a time through each column
	// chunk of the id and text columns.
	limit := int64(4)
	for _, rg := range f.Metadata().RowGroups {
		for _, cc := range rg.Columns[:2] {
			limit += cc.MetaData.TotalCompressedSize/ReadSize + 1
		}
	}
	for _, rg := range f.RowGroups() {
		for c, cc := range rg.ColumnChunks() {
			if c > 1 {
				continue
			}
			pp := cc.Pages()
			for {
				p, err := pp.ReadPage()
				if err != nil {
					break
				}
				parquet.Release(p)
				pages++
			}
			pp.Close()
		}
	}
	emulators(t, func(t *testing.T, e *emulator) {
		e.put(t, "f.parquet", data)
		read := func(ra io.ReaderAt, opt record.Options) (ids []string) {
			err := record.ReadParquet(ra, int64(len(data)), "f.parquet", opt, func(d record.Doc) error {
				ids = append(ids, d.ID)
				return nil
			}, func(r record.Reject) error { return fmt.Errorf("reject %+v", r) })
			if err != nil {
				t.Fatal(err)
			}
			return ids
		}
		for _, c := range []struct {
			workers int
			rows    *record.RowRange
		}{{1, nil}, {4, nil}, {2, &record.RowRange{First: 4000, End: 8000}}} {
			o, err := Open(t.Context(), e.scheme+"://b/f.parquet")
			if err != nil {
				t.Fatal(err)
			}
			opt := record.Options{Workers: c.workers, Rows: c.rows}
			got, want := read(o, opt), read(bytes.NewReader(data), opt)
			if !slicesEqual(got, want) || len(want) == 0 {
				t.Fatalf("workers %d, rows %v: %d documents through the Object, %d from memory", c.workers, c.rows, len(got), len(want))
			}
			t.Logf("workers %d, rows %v: %d documents, %d requests for %d bytes, %d pages of id and text in the file",
				c.workers, c.rows, len(got), o.Requests(), len(data), pages)
			if o.Requests() > limit {
				t.Errorf("workers %d, rows %v: %d requests, want at most %d", c.workers, c.rows, o.Requests(), limit)
			}
		}
		// Without the Object's preferred read size, the decoder's buffer
		// of 4 KiB makes about two requests a page.
		o, err := Open(t.Context(), e.scheme+"://b/f.parquet")
		if err != nil {
			t.Fatal(err)
		}
		read(struct{ io.ReaderAt }{o}, record.Options{})
		t.Logf("with parquet-go's own 4 KiB buffers: %d requests", o.Requests())
		if o.Requests() <= limit {
			t.Errorf("with 4 KiB buffers, %d requests: the test's file is too small to tell", o.Requests())
		}
	})
}

func slicesEqual(a, b []string) bool {
	return fmt.Sprint(a) == fmt.Sprint(b)
}
