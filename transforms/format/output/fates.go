package output

import (
	"bytes"
	"encoding/json"
	"fmt"
	"strconv"

	"github.com/parquet-go/parquet-go"

	"github.com/neardup/neardup/transforms/format/record"
)

// KindFates is the file name prefix of the copies --fates writes.
const KindFates = "fates"

// FatesName is the name of the copy of every good record of input file
// index file in format, each with its fate (--fates), named as DedupName
// names the kept ones: fates-NNNNN.jsonl or .tsv.
func FatesName(format string, file int) string {
	return fmt.Sprintf("%s-%05d%s", KindFates, file, DedupExt[format])
}

// FateKey is the top-level key of the object a JSONL record's fate is.
const FateKey = "neardup"

// Fate.Fate: a record kept or removed.
const (
	FateKept    = "kept"
	FateRemoved = "removed"
)

// Fate is what a run or an audit decided of one record, as --fates adds
// it to the record. A kept record has Cluster when it is the kept member of
// a cluster. A removed one has Kept, the ID of the document it was removed
// for (its cluster's representative, or an indexed document in an audit),
// Cluster when it is in a cluster, and the match that removes it as its
// cluster line has it (Match.ID unused; nil with --clusters components,
// whose lines have none).
type Fate struct {
	Fate    string
	Kept    string
	Cluster string
	Match   *RemovedMember
}

// fateJSON is Fate as a record has it, its keys in this order.
type fateJSON struct {
	Fate                string   `json:"fate"`
	Kept                string   `json:"kept,omitempty"`
	Cluster             string   `json:"cluster,omitempty"`
	Method              string   `json:"method,omitempty"`
	Jaccard             *float64 `json:"jaccard,omitempty"`
	JaccardEstimate     *float64 `json:"jaccard_estimate,omitempty"`
	Hamming             *int     `json:"hamming,omitempty"`
	Containment         float64  `json:"containment,omitempty"`
	ContainmentEstimate float64  `json:"containment_estimate,omitempty"`
	Via                 string   `json:"via,omitempty"`
}

// MarshalJSON writes f as the object under FateKey:
// {"fate","kept","cluster","method","jaccard"|"jaccard_estimate","hamming",
// "containment"|"containment_estimate","via"}, each when it applies.
func (f Fate) MarshalJSON() ([]byte, error) {
	l := fateJSON{Fate: f.Fate, Kept: f.Kept, Cluster: f.Cluster}
	if m := f.Match; m != nil {
		l.Method, l.Via, l.Hamming = m.Method, m.Via, &m.Hamming
		l.Jaccard, l.JaccardEstimate = labeled(m.Jaccard, m.Estimated)
		l.Containment, l.ContainmentEstimate = labeledOmit(m.Containment, m.Estimated)
	}
	return json.Marshal(l)
}

// UnmarshalJSON reads a fate as MarshalJSON writes it.
func (f *Fate) UnmarshalJSON(b []byte) error {
	var l fateJSON
	if err := json.Unmarshal(b, &l); err != nil {
		return err
	}
	*f = Fate{Fate: l.Fate, Kept: l.Kept, Cluster: l.Cluster}
	if l.Method != "" {
		m := &RemovedMember{Method: l.Method, Via: l.Via}
		if l.Hamming != nil {
			m.Hamming = *l.Hamming
		}
		m.Jaccard, m.Estimated = unlabeled(l.Jaccard, l.JaccardEstimate)
		m.Containment = max(l.Containment, l.ContainmentEstimate)
		f.Match = m
	}
	return nil
}

// FateTSVColumns are the columns --fates appends to a TSV record, in this
// order, each empty where it does not apply: the keys of Fate's JSON.
var FateTSVColumns = []string{"fate", "kept", "cluster", "method", "jaccard", "jaccard_estimate", "hamming", "containment", "containment_estimate", "via"}

// AppendTSV appends f's FateTSVColumns to dst, each after a tab. IDs hold
// no tab or line break: they are TSV columns themselves.
func (f *Fate) AppendTSV(dst []byte) []byte {
	cols := [10]string{f.Fate, f.Kept, f.Cluster}
	if m := f.Match; m != nil {
		num := func(v float64) string { return strconv.FormatFloat(v, 'f', -1, 64) }
		cols[3], cols[6], cols[9] = m.Method, strconv.Itoa(m.Hamming), m.Via
		j, c := 4, 7
		if m.Estimated {
			j, c = 5, 8
		}
		cols[j] = num(m.Jaccard)
		if m.Containment != 0 {
			cols[c] = num(m.Containment)
		}
	}
	for _, c := range cols {
		dst = append(append(dst, '\t'), c...)
	}
	return dst
}

// AppendFateJSONL appends to dst the JSONL record raw (a line as read,
// without its "\n") with the member "neardup":fate added as its last key,
// before its closing brace: its own bytes otherwise as they are, a "\r"
// or white space after the brace too. fate is the JSON of a Fate. It fails
// if raw does not end in a JSON object's brace.
func AppendFateJSONL(dst, raw, fate []byte) ([]byte, error) {
	end := len(bytes.TrimRight(raw, " \t\r"))
	if end == 0 || raw[end-1] != '}' {
		return dst, fmt.Errorf("the record does not end in '}'")
	}
	body := bytes.TrimRight(raw[:end-1], " \t\r\n")
	dst = append(dst, raw[:end-1]...)
	if len(body) > 0 && body[len(body)-1] != '{' {
		dst = append(dst, ',')
	}
	dst = append(dst, `"`+FateKey+`":`...)
	dst = append(dst, fate...)
	return append(dst, raw[end-1:]...), nil
}

// HasFateKey reports whether the JSON object raw has a top-level key
// FateKey (as written or with escapes); raw is a record a read accepted.
func HasFateKey(raw []byte) bool {
	if !bytes.Contains(raw, []byte(FateKey)) && !bytes.Contains(raw, []byte(`\u`)) {
		return false
	}
	dec := json.NewDecoder(bytes.NewReader(raw))
	if t, err := dec.Token(); err != nil || t != json.Delim('{') {
		return false
	}
	for dec.More() {
		t, err := dec.Token()
		if err != nil {
			return false
		}
		if t == FateKey {
			return true
		}
		var skip json.RawMessage
		if err := dec.Decode(&skip); err != nil {
			return false
		}
	}
	return false
}

// FateParquet is the column --fates appends to a Parquet input's rows: an
// optional group named FateKey whose optional fields are the keys of
// Fate's JSON, in its order (FateTSVColumns): the IDs and the method
// strings, the similarities doubles, hamming a 32-bit integer.
func FateParquet(values func(row int64, vals []parquet.Value) error) *record.ParquetGroup {
	g := &record.ParquetGroup{Name: FateKey, Values: values}
	for _, c := range FateTSVColumns {
		n := parquet.String()
		switch c {
		case "jaccard", "jaccard_estimate", "containment", "containment_estimate":
			n = parquet.Leaf(parquet.DoubleType)
		case "hamming":
			n = parquet.Int(32)
		}
		g.Fields = append(g.Fields, record.ParquetField{Name: c, Node: n})
	}
	return g
}

// ParquetValues sets vals, one for each of FateTSVColumns, to f's values,
// each null (parquet.Value{}) where it does not apply, as AppendTSV leaves
// a column empty.
func (f *Fate) ParquetValues(vals []parquet.Value) {
	str := func(i int, s string) {
		if s != "" {
			vals[i] = parquet.ByteArrayValue([]byte(s))
		}
	}
	str(0, f.Fate)
	str(1, f.Kept)
	str(2, f.Cluster)
	m := f.Match
	if m == nil {
		return
	}
	str(3, m.Method)
	str(9, m.Via)
	vals[6] = parquet.Int32Value(int32(m.Hamming))
	j, c := 4, 7
	if m.Estimated {
		j, c = 5, 8
	}
	vals[j] = parquet.DoubleValue(m.Jaccard)
	if m.Containment != 0 {
		vals[c] = parquet.DoubleValue(m.Containment)
	}
}
