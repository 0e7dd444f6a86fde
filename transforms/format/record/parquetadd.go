package record

import (
	"fmt"
	"reflect"
	"strconv"
	"strings"

	"github.com/parquet-go/parquet-go"
	"github.com/parquet-go/parquet-go/compress"
	"github.com/parquet-go/parquet-go/encoding"
)

// ParquetGroup is a column that CopyParquetAdding appends to a Parquet
// file's schema, after the file's own columns, and to each row it copies:
// an optional group named Name of the optional leaf fields Fields, in that
// order. The file's own columns keep their order, types and encodings.
//
// The copy leaves out the key-value metadata of SchemaMetadataKeys: each
// describes the writer's schema, without the group, and its reader would
// take it in preference to the file's own schema.
type ParquetGroup struct {
	Name   string
	Fields []ParquetField
	// Values sets vals[i] to the value of Fields[i] in the row of 0-based
	// index row of the input, or leaves it null (parquet.Value{}); it is
	// called for the rows copied, in order.
	Values func(row int64, vals []parquet.Value) error
}

// ParquetField is a leaf field of a ParquetGroup: its name and its type
// (a leaf node: parquet.String(), parquet.Leaf(parquet.DoubleType), ...).
type ParquetField struct {
	Name string
	Node parquet.Node
}

// SchemaMetadataKeys are the key-value metadata that state a Parquet
// file's schema for one reader: Arrow's (pyarrow, Polars) and Spark's.
var SchemaMetadataKeys = []string{"ARROW:schema", "org.apache.spark.sql.parquet.row.metadata"}

// schema returns in's schema with g appended, and the appender of g's
// values (nil when g is nil: in itself). It fails if in has a top-level
// column named g.Name.
func (g *ParquetGroup) schema(in *parquet.Schema) (*parquet.Schema, *groupValues, error) {
	if g == nil {
		return in, nil, nil
	}
	fields := append([]parquet.Field(nil), in.Fields()...)
	for _, f := range fields {
		if f.Name() == g.Name {
			return nil, nil, fmt.Errorf("the file has a column %q of its own, which the copy adds", g.Name)
		}
	}
	leaves := make([]parquet.Field, len(g.Fields))
	for i, f := range g.Fields {
		leaves[i] = namedField{parquet.Optional(f.Node), f.Name}
	}
	fields = append(fields, namedField{parquet.Optional(orderedGroup(leaves)), g.Name})
	v := &groupValues{values: g.Values, first: len(in.Columns()), vals: make([]parquet.Value, len(g.Fields))}
	return parquet.NewSchema(in.Name(), orderedGroup(fields)), v, nil
}

// groupValues appends a ParquetGroup's values to rows. Its leaves are the
// schema's last columns, from column index first on; each is at definition
// level 2 (the group and the leaf present) or 1 (the leaf null).
type groupValues struct {
	values func(int64, []parquet.Value) error
	first  int
	vals   []parquet.Value
}

// append appends to r, the row of index row, the group's values.
func (g *groupValues) append(r parquet.Row, row int64) (parquet.Row, error) {
	clear(g.vals)
	if err := g.values(row, g.vals); err != nil {
		return r, err
	}
	for i, v := range g.vals {
		def := byte(2)
		if v.IsNull() {
			def = 1
		}
		r = append(r, v.Level(0, int(def), g.first+i))
	}
	return r, nil
}

// orderedGroup is a required group node whose fields are in the order
// given (parquet.Group orders its fields by name).
type orderedGroup []parquet.Field

func (g orderedGroup) ID() int                     { return 0 }
func (g orderedGroup) Type() parquet.Type          { return parquet.Group{}.Type() }
func (g orderedGroup) Optional() bool              { return false }
func (g orderedGroup) Repeated() bool              { return false }
func (g orderedGroup) Required() bool              { return true }
func (g orderedGroup) Leaf() bool                  { return false }
func (g orderedGroup) Fields() []parquet.Field     { return g }
func (g orderedGroup) Encoding() encoding.Encoding { return nil }
func (g orderedGroup) Compression() compress.Codec { return nil }
func (g orderedGroup) String() string              { return "group" + g.names() }
func (g orderedGroup) names() string               { return "{" + strings.Join(g.fieldNames(), ", ") + "}" }
func (g orderedGroup) fieldNames() (names []string) {
	for _, f := range g {
		names = append(names, f.Name())
	}
	return names
}

// GoType is a struct of the fields' Go types, each tagged with its name.
func (g orderedGroup) GoType() reflect.Type {
	fields := make([]reflect.StructField, len(g))
	for i, f := range g {
		fields[i] = reflect.StructField{Name: "F" + strconv.Itoa(i), Type: f.GoType(), Tag: reflect.StructTag(`parquet:` + strconv.Quote(f.Name()))}
	}
	return reflect.StructOf(fields)
}

// namedField is a node as a field of a group.
type namedField struct {
	parquet.Node
	name string
}

func (f namedField) Name() string { return f.name }

// Value is not used: rows are written as parquet.Row, not Go values.
func (f namedField) Value(reflect.Value) reflect.Value { return reflect.Value{} }
