package record

import (
	"bytes"
	"fmt"
	"slices"
	"strings"
	"testing"

	"github.com/neardup/neardup/transforms/format/rank"
)

func TestSurveyJSONL(t *testing.T) {
	long := `{"late":"` + strings.Repeat("x", 300) + `"}`
	var many strings.Builder
	for range SurveyRecords {
		many.WriteString(`{"id":"a","text":"t"}` + "\n")
	}
	many.WriteString(`{"id":"a","body":"only after the first 1000"}` + "\n")
	for _, c := range []struct {
		name   string
		in     string
		n      int
		ask    []string
		has    []string // of ask
		fields []string
		recs   int
	}{
		{"top level", `{"url":"u","content":"c"}` + "\n" + `{"url":"v","title":"t","content":"c"}`, 10,
			[]string{"id", "url", "text", "content"}, []string{"url", "content"}, []string{"url", "content", "title"}, 2},
		{"nested path", `{"meta":{"url":"u","n":[1,{"x":2}]},"body":{"text":"t"}}`, 10,
			[]string{"meta.url", "body.text", "meta.x", "body.text.more", "meta"}, []string{"meta.url", "body.text", "meta"}, []string{"meta", "body"}, 1},
		{"dotted top-level key", `{"meta.url":"u"}`, 10, []string{"meta.url"}, []string{"meta.url"}, []string{"meta.url"}, 1},
		{"not objects passed over", "[1,2]\nnot json\n\n  \n\"s\"\nnull\n" + `{"text":"t"}`, 10,
			[]string{"text"}, []string{"text"}, []string{"text"}, 1},
		{"no final newline, CRLF", `{"a":1}` + "\r\n" + `{"b":2}`, 10, []string{"b"}, []string{"b"}, []string{"a", "b"}, 2},
		{"long line passed over", long + "\n" + `{"text":"t"}`, 10, []string{"late", "text"}, []string{"text"}, []string{"text"}, 1},
		{"first n records only", many.String(), SurveyRecords, []string{"text", "body"}, []string{"text"}, []string{"id", "text"}, SurveyRecords},
	} {
		t.Run(c.name, func(t *testing.T) {
			s, err := SurveyJSONL(strings.NewReader(c.in), c.n, 100, c.ask...)
			if err != nil {
				t.Fatal(err)
			}
			var has []string
			for _, a := range c.ask {
				if s.Has(a) {
					has = append(has, a)
				}
			}
			if !slices.Equal(has, c.has) || !slices.Equal(s.Fields, c.fields) || s.Records != c.recs {
				t.Errorf("has %q fields %q records %d; want %q %q %d", has, s.Fields, s.Records, c.has, c.fields, c.recs)
			}
		})
	}
}

func TestSurveyAdd(t *testing.T) {
	a, _ := SurveyJSONL(strings.NewReader(`{"url":"u","text":"t"}`), 10, 1<<20, "url", "body")
	b, _ := SurveyJSONL(strings.NewReader(`{"body":"b","url":"u"}`), 10, 1<<20, "url", "body")
	var s Survey
	s.Add(a)
	s.Add(b)
	if !s.Has("url") || !s.Has("body") || s.Records != 2 || s.FieldList() != "url, text, body" {
		t.Errorf("added: %+v, fields %q", s, s.FieldList())
	}
	if (&Survey{}).FieldList() != "no fields" {
		t.Error("an empty survey lists fields")
	}
}

func TestSurveyParquet(t *testing.T) {
	type nested struct {
		Meta struct {
			URL string `parquet:"url"`
		} `parquet:"meta"`
		Body string `parquet:"body"`
	}
	data := writePQ(t, []nested{{Body: "x"}}, 10)
	s, err := SurveyParquet(bytes.NewReader(data), int64(len(data)), "meta.url", "text", "body", "meta")
	if err != nil {
		t.Fatal(err)
	}
	got := fmt.Sprintf("%v %v %v %v %s", s.Has("meta.url"), s.Has("text"), s.Has("body"), s.Has("meta"), s.FieldList())
	if want := "true false true true meta.url, body"; got != want {
		t.Errorf("got %s, want %s", got, want)
	}
	if _, err := SurveyParquet(strings.NewReader("not parquet"), 11, "text"); err == nil {
		t.Error("no error for a file that is not Parquet")
	}
}

// TestSurveyType: a survey gives the type of a keep field from the values
// of its records (JSONL) or from its column (Parquet); inputs that
// disagree give rank.String.
func TestSurveyType(t *testing.T) {
	jsonl := func(lines ...string) Survey {
		s, err := SurveyJSONL(strings.NewReader(strings.Join(lines, "\n")), SurveyRecords, 1000, "k", "m.k")
		if err != nil {
			t.Fatal(err)
		}
		return s
	}
	for _, c := range []struct {
		name string
		s    Survey
		want rank.Type
	}{
		{"numbers and booleans", jsonl(`{"k":1}`, `{"k":"2.5"}`, `{"k":true}`, `{"k":null}`, `{"x":1}`), rank.Number},
		{"dates", jsonl(`{"k":"2024-01-05"}`, `{"k":"2024-01-05T10:00:00Z"}`), rank.Time},
		{"mixed", jsonl(`{"k":"2024-01-05"}`, `{"k":3}`), rank.String},
		{"nested", jsonl(`{"m":{"k":"2024-01-05"}}`), rank.Time},
	} {
		if got := c.s.Type("k"); c.name != "nested" && got != c.want {
			t.Errorf("%s: Type = %v, want %v", c.name, got, c.want)
		}
		if got := c.s.Type("m.k"); c.name == "nested" && got != c.want {
			t.Errorf("%s: Type = %v, want %v", c.name, got, c.want)
		}
	}
	data := writePQ(t, []keepRow{{ID: "a", Text: "x"}}, 1)
	for _, c := range []struct {
		col  string
		want rank.Type
	}{{"n", rank.Number}, {"f", rank.Number}, {"ok", rank.Number}, {"day", rank.Time}, {"at", rank.Time}, {"label", rank.String}, {"meta.score", rank.Number}} {
		s, err := SurveyParquet(bytes.NewReader(data), int64(len(data)), c.col)
		if err != nil {
			t.Fatal(err)
		}
		if got := s.Type(c.col); got != c.want {
			t.Errorf("Parquet column %s: Type = %v, want %v", c.col, got, c.want)
		}
	}
	both, err := SurveyJSONL(strings.NewReader(`{"n":"2024-01-05"}`), SurveyRecords, 1000, "n")
	if err != nil {
		t.Fatal(err)
	}
	pq, _ := SurveyParquet(bytes.NewReader(data), int64(len(data)), "n")
	both.Add(pq)
	if got := both.Type("n"); got != rank.String {
		t.Errorf("a JSONL of dates and a Parquet column of numbers: Type = %v, want string", got)
	}
}
