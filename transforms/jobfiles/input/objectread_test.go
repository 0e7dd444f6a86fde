package input

import (
	"bytes"
	"errors"
	"fmt"
	"hash/crc32"
	"io"
	"strings"
	"testing"

	"github.com/parquet-go/parquet-go"

	"github.com/neardup/neardup/transforms/format/fingerprint"
	"github.com/neardup/neardup/transforms/format/record"
	"github.com/neardup/neardup/transforms/format/wire"
	"github.com/neardup/neardup/transforms/objects"
	"github.com/neardup/neardup/transforms/objects/objectstest"
)

// TestReadObject reads a Parquet object of a GCS emulator as the first
// pass's units do (readObject): a file read whole and the first unit of a
// split file take the fingerprint of the object's bytes; a unit that finds
// another version than the splitter saw reads nothing, and one whose
// object is replaced while it reads fails; each fails with a
// *fingerprint.ChangedError naming the object.
func TestReadObject(t *testing.T) {
	store := objectstest.GCS(t, "b", nil)
	type row struct {
		ID   string `parquet:"id"`
		Text string `parquet:"text"`
	}
	var buf bytes.Buffer
	w := parquet.NewGenericWriter[row](&buf)
	for g := range 4 { // row groups of 25 rows
		for i := range 25 {
			if _, err := w.Write([]row{{fmt.Sprint("id", g*25+i), fmt.Sprint("text ", g*25+i)}}); err != nil {
				t.Fatal(err)
			}
		}
		if err := w.Flush(); err != nil {
			t.Fatal(err)
		}
	}
	if err := w.Close(); err != nil {
		t.Fatal(err)
	}
	data := buf.Bytes()
	put := func(b []byte) {
		store.Put(t, "in.parquet", b)
	}
	put(data)
	const path = "gs://b/in.parquet"
	obj, err := objects.Open(t.Context(), path)
	if err != nil {
		t.Fatal(err)
	}
	stat := &fingerprint.Fingerprint{Size: obj.Size, ModTime: obj.ModTime}
	crc := crc32.Checksum(data, crc32.MakeTable(crc32.Castagnoli))
	for _, c := range []struct {
		name    string
		unit    func(rd *FileRead)
		replace bool // the object, once the read has opened it
		docs    int  // read, if it does not fail
		whole   bool // the fingerprint has the count and checksum
	}{
		{"whole file", func(rd *FileRead) {}, false, 100, true},
		{"unit 0", func(rd *FileRead) {
			rd.Stat, rd.Version, rd.Opt.Rows = stat, obj.Version, &record.RowRange{First: 0, End: 50}
		}, false, 50, true},
		{"unit 1", func(rd *FileRead) {
			rd.Stat, rd.Version, rd.Partial, rd.Opt.Rows = stat, obj.Version, true, &record.RowRange{First: 50, End: wire.MaxLines}
		}, false, 50, false},
		{"another version", func(rd *FileRead) {
			rd.Stat, rd.Version, rd.Partial = stat, "generation=1", true
		}, false, -1, false},
		{"replaced while read", func(rd *FileRead) {
			rd.Stat, rd.Version, rd.Partial, rd.Opt.Rows = stat, obj.Version, true, &record.RowRange{First: 50, End: wire.MaxLines}
		}, true, -1, false},
	} {
		t.Run(c.name, func(t *testing.T) {
			docs := 0
			rd := FileRead{Open: path, Name: path}
			c.unit(&rd)
			rd.parquet = func(ra io.ReaderAt, size int64) error {
				if c.replace {
					put(data)
				}
				return record.ReadParquet(ra, size, path, rd.Opt, func(record.Doc) error { docs++; return nil }, func(record.Reject) error { return nil })
			}
			fp, err := Read(t.Context(), rd, nil, nil)
			if c.docs < 0 {
				var ce *fingerprint.ChangedError
				if !errors.As(err, &ce) || ce.Name != path || strings.Contains(err.Error(), "\n") {
					t.Fatalf("error %v, want a one-line ChangedError naming %s", err, path)
				}
				t.Logf("%v", err)
				return
			}
			if err != nil || docs != c.docs {
				t.Fatalf("%d documents, %v; want %d", docs, err, c.docs)
			}
			if fp.Size != int64(len(data)) || !fp.ModTime.Equal(obj.ModTime) {
				t.Errorf("fingerprint %v, want size %d, mtime %v", fp, len(data), obj.ModTime)
			}
			if c.whole && (fp.Read != int64(len(data)) || fp.CRC != crc) {
				t.Errorf("fingerprint %v, want read=%d crc32c=%08x", fp, len(data), crc)
			}
		})
	}
}
