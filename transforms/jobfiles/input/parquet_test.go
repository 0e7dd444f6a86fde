package input

import (
	"bytes"
	"fmt"
	"hash/crc32"
	"io"
	"os"
	"testing"

	"github.com/parquet-go/parquet-go"

	"github.com/neardup/neardup/transforms/format/fingerprint"
	"github.com/neardup/neardup/transforms/format/record"
)

// TestReadParquetFile reads a Parquet input through each of the ways
// readParquetFile has: a local file (an io.ReaderAt), a stream read into
// memory, and a stream of unknown or large size copied to a temporary file;
// each gives every document, and the fingerprint's reader has read the
// whole file, its CRC that of the file's bytes.
func TestReadParquetFile(t *testing.T) {
	type row struct {
		ID   string `parquet:"id"`
		Text string `parquet:"text"`
	}
	var rows []row
	for i := range 50 {
		rows = append(rows, row{fmt.Sprint("id", i), fmt.Sprint("text ", i)})
	}
	var buf bytes.Buffer
	if err := parquet.Write(&buf, rows); err != nil {
		t.Fatal(err)
	}
	data := buf.Bytes()
	path := t.TempDir() + "/in.parquet"
	if err := os.WriteFile(path, data, 0o644); err != nil {
		t.Fatal(err)
	}
	tmp := t.TempDir() // the copies' directory, os.TempDir
	t.Setenv("TMPDIR", tmp)
	for _, tt := range []struct {
		name string
		size int64
		open func() io.Reader
	}{
		{"local file", int64(len(data)), func() io.Reader { f, _ := os.Open(path); t.Cleanup(func() { f.Close() }); return f }},
		{"stream in memory", int64(len(data)), func() io.Reader { return io.MultiReader(bytes.NewReader(data)) }},
		{"stream of unknown size", -1, func() io.Reader { return io.MultiReader(bytes.NewReader(data)) }},
		{"large stream", parquetInMemory + 1, func() io.Reader { return io.MultiReader(bytes.NewReader(data)) }},
	} {
		t.Run(tt.name, func(t *testing.T) {
			rc := tt.open()
			fr := fingerprint.NewReader(rc)
			var ids []string
			rd := FileRead{Open: path, Name: path, Opt: record.Options{}}
			err := readParquetFile(rc, fr, tt.size, rd, func(d record.Doc) error {
				ids = append(ids, d.ID)
				return nil
			}, func(r record.Reject) error { return fmt.Errorf("reject %+v", r) })
			if err != nil {
				t.Fatal(err)
			}
			if len(ids) != len(rows) || ids[49] != "id49" {
				t.Errorf("read %d docs, want %d", len(ids), len(rows))
			}
			n, crc, err := fr.Finish()
			if err != nil || n != int64(len(data)) || crc != crc32.Checksum(data, crc32.MakeTable(crc32.Castagnoli)) {
				t.Errorf("fingerprint: %d bytes, crc %08x, %v; want %d bytes and the file's crc", n, crc, err, len(data))
			}
		})
	}
	if left, _ := os.ReadDir(tmp); len(left) > 0 {
		t.Errorf("temporary files left: %v", left)
	}
}
