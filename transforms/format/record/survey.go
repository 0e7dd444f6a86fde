package record

import (
	"bufio"
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"strings"

	"github.com/parquet-go/parquet-go"
	"github.com/parquet-go/parquet-go/format"

	"github.com/neardup/neardup/transforms/format/rank"
)

// SurveyRecords is how many records of an input a survey looks at.
const SurveyRecords = 1000

// A Survey is what the first records of an input say about its fields:
// which fields they have, so that a field option that names none of them
// can be refused before a run, with the names it could have meant.
type Survey struct {
	Records int // JSON objects looked at, or 0 for a Parquet file (its schema is its fields)
	// Fields are the fields the records have: a JSONL record's top-level
	// keys in the order first seen; a Parquet file's leaf columns as
	// dotted paths.
	Fields []string
	seen   map[string]bool // Fields, as a set
	found  map[string]bool // the names asked for that some record has
	// The values of the names asked for, as Doc.Keep has them (JSONL), and
	// the types of their columns (Parquet).
	values map[string][]string
	types  map[string]rank.Type
}

// Type is the type of the values of the field name (rank.Detect): of a
// Parquet column, its type's (a DATE or TIMESTAMP column is rank.Time,
// another number or a boolean rank.Number, bytes rank.String); of JSONL
// records, the values the survey saw. Surveys of inputs that disagree
// give rank.String.
func (s *Survey) Type(name string) rank.Type {
	if t, ok := s.types[name]; ok {
		if vs := s.values[name]; len(vs) > 0 && rank.Detect(vs) != t {
			return rank.String
		}
		return t
	}
	return rank.Detect(s.values[name])
}

// value notes v, a value of the field name.
func (s *Survey) value(name, v string) {
	if s.values == nil {
		s.values = map[string][]string{}
	}
	if len(s.values[name]) < SurveyRecords {
		s.values[name] = append(s.values[name], v)
	}
}

// columnType notes t, the type of the column name.
func (s *Survey) columnType(name string, t rank.Type) {
	if s.types == nil {
		s.types = map[string]rank.Type{}
	}
	if old, ok := s.types[name]; ok && old != t {
		t = rank.String
	}
	s.types[name] = t
}

// Has reports whether some record surveyed has the field name, looked up
// as a read looks it up: a top-level field of that name or, for a name
// with dots, the path of nested fields it names.
func (s *Survey) Has(name string) bool { return s.found[name] }

// Add adds t, a survey of another input, to s.
func (s *Survey) Add(t Survey) {
	s.Records += t.Records
	for _, f := range t.Fields {
		s.field(f)
	}
	for k := range t.found {
		s.has(k)
	}
	for k, vs := range t.values {
		for _, v := range vs {
			s.value(k, v)
		}
	}
	for k, typ := range t.types {
		s.columnType(k, typ)
	}
}

func (s *Survey) field(name string) {
	if s.seen == nil {
		s.seen = map[string]bool{}
	}
	if !s.seen[name] {
		s.seen[name] = true
		s.Fields = append(s.Fields, name)
	}
}

func (s *Survey) has(name string) {
	if s.found == nil {
		s.found = map[string]bool{}
	}
	s.found[name] = true
}

// FieldList is s.Fields for a message: at most 20, comma-separated, or
// "no fields".
func (s *Survey) FieldList() string {
	var names []string
	for _, f := range s.Fields {
		if len(names) == 20 {
			names = append(names, "...")
			break
		}
		names = append(names, f)
	}
	if len(names) == 0 {
		return "no fields"
	}
	return strings.Join(names, ", ")
}

// SurveyJSONL looks at the first n JSON objects of r, a decompressed JSONL
// stream, for the fields names. Lines that are not JSON objects, and lines
// longer than maxLine bytes (read through, not kept), are passed over.
func SurveyJSONL(r io.Reader, n, maxLine int, names ...string) (Survey, error) {
	var s Survey
	br := bufio.NewReaderSize(r, 64<<10)
	var line []byte
	for s.Records < n {
		chunk, err := br.ReadSlice('\n')
		if len(line)+len(chunk) <= maxLine {
			line = append(line, chunk...)
		} else {
			line = append(line[:0], '!') // too long: not an object
		}
		if errors.Is(err, bufio.ErrBufferFull) {
			continue
		}
		if len(bytes.TrimSpace(line)) > 0 {
			s.record(line, names)
		}
		line = line[:0]
		if err == io.EOF {
			break
		}
		if err != nil {
			return s, err
		}
	}
	return s, nil
}

// record adds the JSON object line to s, if it is one.
func (s *Survey) record(line []byte, names []string) {
	var obj map[string]json.RawMessage
	if json.Unmarshal(line, &obj) != nil || obj == nil {
		return
	}
	s.Records++
	for _, k := range orderedKeys(line) {
		s.field(k)
	}
	for _, name := range names {
		if v, ok := fieldValue(obj, name); ok {
			s.has(name)
			if text, ok := jsonKeep(bytes.TrimSpace(v)); ok {
				s.value(name, text)
			}
		}
	}
}

// orderedKeys returns the top-level keys of the JSON object line in the
// order they first occur in it.
func orderedKeys(line []byte) []string {
	dec := json.NewDecoder(bytes.NewReader(line))
	var out []string
	seen := map[string]bool{}
	depth := 0
	expectKey := false
	for {
		tok, err := dec.Token()
		if err != nil {
			break
		}
		switch t := tok.(type) {
		case json.Delim:
			switch t {
			case '{', '[':
				depth++
				expectKey = depth == 1 && t == '{'
				continue
			case '}', ']':
				depth--
			}
		case string:
			if depth == 1 && expectKey {
				if !seen[t] {
					seen[t] = true
					out = append(out, t)
				}
				expectKey = false
				continue
			}
		}
		if depth == 1 {
			expectKey = true
		}
	}
	return out
}

// fieldValue returns the value of the field name of obj, and whether obj
// has it: a top-level key, or the path of nested objects a dotted name
// gives.
func fieldValue(obj map[string]json.RawMessage, name string) (json.RawMessage, bool) {
	if v, ok := obj[name]; ok {
		return v, true
	}
	if !strings.Contains(name, ".") {
		return nil, false
	}
	segs := strings.Split(name, ".")
	cur := obj
	for i, seg := range segs {
		v, ok := cur[seg]
		if !ok {
			return nil, false
		}
		if i == len(segs)-1 {
			return v, true
		}
		var next map[string]json.RawMessage
		if json.Unmarshal(v, &next) != nil || next == nil {
			return nil, false
		}
		cur = next
	}
	return nil, false
}

// SurveyParquet looks at the schema of the Parquet file of size bytes in
// ra for the fields names, as leaf columns (see ReadParquet).
func SurveyParquet(ra io.ReaderAt, size int64, names ...string) (Survey, error) {
	f, err := parquet.OpenFile(ra, size, openOptions(ra)...)
	if err != nil {
		return Survey{}, fmt.Errorf("not a Parquet file: %w", err)
	}
	var s Survey
	for _, path := range f.Schema().Columns() {
		s.field(strings.Join(path, "."))
	}
	for _, name := range names {
		c, ok := lookupColumn(f.Schema(), name)
		if ok || isGroup(f.Schema(), name) {
			s.has(name)
		}
		if ok {
			s.columnType(name, columnRank(c.Node.Type()))
		}
	}
	return s, nil
}

// columnRank is the rank.Type of the values of a column of type t.
func columnRank(t parquet.Type) rank.Type {
	if lt := t.LogicalType(); lt != nil {
		switch lt.Value.(type) {
		case *format.DateType, *format.TimestampType:
			return rank.Time
		}
	}
	switch t.Kind() {
	case parquet.Boolean, parquet.Int32, parquet.Int64, parquet.Float, parquet.Double:
		return rank.Number
	}
	return rank.String
}
