package record

import (
	"testing"

	"github.com/neardup/neardup/transforms/format/rank"
)

// rankOf is the Key a value of type typ has, the smallest first.
func rankOf(typ rank.Type, v string) rank.Key { return rank.Field{Type: typ}.Of(v) }

// TestKeepJSONL: each Doc carries the Key of its keep field's value, a
// nested one through its dotted path, and the zero Key for null, an
// object, an absent field or a value that does not parse; the field does
// not change the ID or the text.
func TestKeepJSONL(t *testing.T) {
	lines := []struct {
		line string
		want string // the value ranked; "" for none
	}{
		{`{"id":"a","text":"x","n":"17.5"}`, "17.5"},
		{`{"id":"b","n":17.5,"text":"x"}`, "17.5"},
		{`{"id":"c","text":"x","n":-3e2}`, "-3e2"},
		{`{"id":"d","text":"x","n":true}`, "1"},
		{`{"id":"e","text":"x","n":false}`, "0"},
		{`{"id":"f","text":"x","n":null}`, ""},
		{`{"id":"g","text":"x","n":{"y":1}}`, ""},
		{`{"id":"h","text":"x"}`, ""},
		{`{"id":"i","text":"x","n":"N/A"}`, ""},
	}
	var in string
	for _, l := range lines {
		in += l.line + "\n"
	}
	res := run(t, []byte(in), "f.jsonl", Options{Keep: rank.Field{Name: "n", Type: rank.Number}})
	if len(res.docs) != len(lines) {
		t.Fatalf("got %v", res.events)
	}
	for i, d := range res.docs {
		if want := rankOf(rank.Number, lines[i].want); d.Rank != want || d.Text != "x" {
			t.Errorf("%s: Rank %v, Text %q; want %v (of %q), x", lines[i].line, d.Rank, d.Text, want, lines[i].want)
		}
	}
	nested := run(t, []byte(`{"id":"a","meta":{"published":"2020-02-02T10:00:00Z"},"text":"x"}`+"\n"), "f.jsonl",
		Options{Keep: rank.Field{Name: "meta.published", Type: rank.Time}})
	if len(nested.docs) != 1 || nested.docs[0].Rank != rankOf(rank.Time, "2020-02-02T10:00:00Z") {
		t.Errorf("nested keep field: %v", nested.events)
	}
	for _, d := range run(t, []byte(in), "f.jsonl", Options{}).docs {
		if !d.Rank.IsZero() {
			t.Errorf("no keep field asked: doc %s has Rank %v", d.ID, d.Rank)
		}
	}
}

func TestKeepTSV(t *testing.T) {
	in := "https://a.example/1\tTitle one\tthe content\n"
	for _, c := range []struct{ field, want string }{{"url", "https://a.example/1"}, {"title", "Title one"}} {
		res := run(t, []byte(in), "f.tsv", Options{Format: TSV, Keep: rank.Field{Name: c.field, Type: rank.String}})
		if len(res.docs) != 1 || res.docs[0].Rank != rankOf(rank.String, c.want) {
			t.Errorf("keep %s: %v", c.field, res.events)
		}
	}
}

type keepRow struct {
	ID    string     `parquet:"id"`
	Text  string     `parquet:"text"`
	N     *int64     `parquet:"n,optional"`
	F     float64    `parquet:"f"`
	Day   int32      `parquet:"day,date"` // days since 1970
	At    int64      `parquet:"at,timestamp(millisecond)"`
	Label string     `parquet:"label"`
	Ok    bool       `parquet:"ok"`
	Meta  keepNested `parquet:"meta"`
}

type keepNested struct {
	Score int32 `parquet:"score"`
}

func TestKeepParquet(t *testing.T) {
	n := int64(-42)
	rows := []keepRow{
		{ID: "a", Text: "x", N: &n, F: 2.5, Day: 19681, At: 1709296200005, Label: "b", Ok: true, Meta: keepNested{Score: 7}},
		{ID: "b", Text: "x", F: -1e-3, Day: -1, At: 1709292600005, Label: "", Meta: keepNested{Score: -1}},
	}
	data := writePQ(t, rows, 1)
	for _, c := range []struct {
		field string
		typ   rank.Type
		want  []string // "" for none
	}{
		{"n", rank.Number, []string{"-42", ""}},
		{"f", rank.Number, []string{"2.5", "-0.001"}},
		{"day", rank.Time, []string{"2023-11-20", "1969-12-31"}},
		{"at", rank.Time, []string{"2024-03-01T12:30:00.005Z", "2024-03-01T11:30:00.005Z"}},
		{"label", rank.String, []string{"b", ""}},
		{"ok", rank.Number, []string{"1", "0"}},
		{"meta.score", rank.Number, []string{"7", "-1"}},
	} {
		docs, rejects := readPQ(t, data, Options{Keep: rank.Field{Name: c.field, Type: c.typ}})
		if len(docs) != 2 || len(rejects) != 0 {
			t.Fatalf("%s: %d docs, rejects %v", c.field, len(docs), rejects)
		}
		for i, d := range docs {
			if want := rankOf(c.typ, c.want[i]); d.Rank != want {
				t.Errorf("%s of row %d: Rank %v, want %v (of %q)", c.field, i, d.Rank, want, c.want[i])
			}
		}
	}
}
