package record

import (
	"bytes"
	"fmt"
	"reflect"
	"strings"
	"testing"

	"github.com/parquet-go/parquet-go"
)

// addIn is an input row with a repeated column, so that the added
// group's values follow values of several levels.
type addIn struct {
	ID   *string  `parquet:"id,optional"`
	Tags []string `parquet:"tags"`
	Text string   `parquet:"text"`
}

// addOut is addIn with the group TestCopyParquetAdding adds.
type addOut struct {
	ID   *string  `parquet:"id,optional"`
	Tags []string `parquet:"tags"`
	Text string   `parquet:"text"`
	Mark *struct {
		Name  *string  `parquet:"name,optional"`
		Score *float64 `parquet:"score,optional"`
		N     *int32   `parquet:"n,optional"`
	} `parquet:"mark,optional"`
}

// TestCopyParquetAdding checks that the copy holds the kept rows whole,
// each with the group's values (nulls where Values leaves them), that its
// schema is the input's with the group after it, its fields in their
// order, that it keeps the codec and the metadata but SchemaMetadataKeys,
// that two copies are the same bytes, and that an input with a column of
// the group's name is refused.
func TestCopyParquetAdding(t *testing.T) {
	var rows []addIn
	for i := range 40 {
		rows = append(rows, addIn{ID: sp(fmt.Sprint("id", i)), Tags: strings.Fields(strings.Repeat("t ", i%3)), Text: fmt.Sprint("text ", i)})
	}
	var buf bytes.Buffer
	w := parquet.NewGenericWriter[addIn](&buf, parquet.MaxRowsPerRowGroup(16), parquet.Compression(&parquet.Zstd),
		parquet.KeyValueMetadata("ARROW:schema", "stale"), parquet.KeyValueMetadata("mine", "kept"))
	for i := 0; i < len(rows); i += 16 {
		if _, err := w.Write(rows[i:min(len(rows), i+16)]); err != nil {
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
	keep := []int64{0, 1, 2, 5, 17, 18, 30, 39}
	var calls []int64
	add := &ParquetGroup{Name: "mark", Fields: []ParquetField{
		{"name", parquet.String()}, {"score", parquet.Leaf(parquet.DoubleType)}, {"n", parquet.Int(32)},
	}, Values: func(row int64, vals []parquet.Value) error {
		calls = append(calls, row)
		vals[0] = parquet.ValueOf(fmt.Sprint("m", row))
		if row%2 == 0 {
			vals[1] = parquet.ValueOf(float64(row) / 4)
		}
		if row%3 == 0 {
			vals[2] = parquet.ValueOf(int32(row))
		}
		return nil
	}}
	var out, again bytes.Buffer
	kept, err := CopyParquetAdding(bytes.NewReader(data), int64(len(data)), keep, add, &out)
	if err != nil || kept != int64(len(keep)) {
		t.Fatalf("kept %d, want %d: %v", kept, len(keep), err)
	}
	if !reflect.DeepEqual(calls, keep) {
		t.Errorf("Values called for rows %v, want %v", calls, keep)
	}
	if _, err := CopyParquetAdding(bytes.NewReader(data), int64(len(data)), keep, add, &again); err != nil || !bytes.Equal(out.Bytes(), again.Bytes()) {
		t.Errorf("two copies differ (%v)", err)
	}
	got, err := parquet.Read[addOut](bytes.NewReader(out.Bytes()), int64(out.Len()))
	if err != nil {
		t.Fatal(err)
	}
	if len(got) != len(keep) {
		t.Fatalf("read back %d rows, want %d", len(got), len(keep))
	}
	for i, row := range keep {
		in, g := rows[row], got[i]
		if *g.ID != *in.ID || g.Text != in.Text || fmt.Sprint(g.Tags) != fmt.Sprint(in.Tags) {
			t.Errorf("row %d: own columns %v %v %q, want %v %v %q", row, *g.ID, g.Tags, g.Text, *in.ID, in.Tags, in.Text)
		}
		m := g.Mark
		if m == nil || m.Name == nil || *m.Name != fmt.Sprint("m", row) {
			t.Fatalf("row %d: group %+v, want name m%d", row, m, row)
		}
		if (m.Score != nil) != (row%2 == 0) || (m.Score != nil && *m.Score != float64(row)/4) {
			t.Errorf("row %d: score %v", row, m.Score)
		}
		if (m.N != nil) != (row%3 == 0) || (m.N != nil && *m.N != int32(row)) {
			t.Errorf("row %d: n %v", row, m.N)
		}
	}
	cp, err := parquet.OpenFile(bytes.NewReader(out.Bytes()), int64(out.Len()))
	if err != nil {
		t.Fatal(err)
	}
	var paths []string
	for _, c := range cp.Schema().Columns() {
		paths = append(paths, strings.Join(c, "."))
	}
	if want := "id tags text mark.name mark.score mark.n"; strings.Join(paths, " ") != want {
		t.Errorf("columns %v, want %s", paths, want)
	}
	md := cp.Metadata()
	if c := md.RowGroups[0].Columns[0].MetaData.Codec; c != parquet.Zstd.CompressionCodec() {
		t.Errorf("codec %v, want zstd", c)
	}
	if v, ok := cp.Lookup("mine"); !ok || v != "kept" {
		t.Errorf("metadata mine = %q, %v; want kept", v, ok)
	}
	if v, ok := cp.Lookup("ARROW:schema"); ok {
		t.Errorf("metadata ARROW:schema = %q, want none", v)
	}
	// The copy, copied again adding the group: refused.
	if _, err := CopyParquetAdding(bytes.NewReader(out.Bytes()), int64(out.Len()), []int64{0}, add, &again); err == nil || !strings.Contains(err.Error(), `column "mark"`) {
		t.Errorf("a file with a column mark: %v, want a refusal", err)
	}
}
