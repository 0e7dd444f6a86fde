package output

import (
	"encoding/json"
	"fmt"
	"reflect"
	"strconv"
	"strings"
	"testing"

	"github.com/parquet-go/parquet-go"
)

func TestAppendFateJSONL(t *testing.T) {
	fate := []byte(`{"fate":"kept"}`)
	for _, c := range []struct{ raw, want string }{
		{`{"id":"a","text":"x"}`, `{"id":"a","text":"x","neardup":{"fate":"kept"}}`},
		{`{"id":"a","text":"x"}` + "\r", `{"id":"a","text":"x","neardup":{"fate":"kept"}}` + "\r"},
		{`{"id":"a", "text":"}" } ` + "\t", `{"id":"a", "text":"}" ,"neardup":{"fate":"kept"}} ` + "\t"},
		{`{ }`, `{ "neardup":{"fate":"kept"}}`},
		{`{"a":{"b":1}}`, `{"a":{"b":1},"neardup":{"fate":"kept"}}`},
	} {
		got, err := AppendFateJSONL([]byte("prefix "), []byte(c.raw), fate)
		if err != nil || string(got) != "prefix "+c.want {
			t.Errorf("AppendFateJSONL(%q) = %q (%v), want %q", c.raw, got, err, "prefix "+c.want)
		}
		var v map[string]any
		if err := json.Unmarshal(got[len("prefix "):], &v); err != nil || v[FateKey] == nil {
			t.Errorf("AppendFateJSONL(%q) = %q: not an object with %q (%v)", c.raw, got, FateKey, err)
		}
	}
	for _, raw := range []string{``, `[1,2]`, `{"a":1} x`} {
		if got, err := AppendFateJSONL(nil, []byte(raw), fate); err == nil {
			t.Errorf("AppendFateJSONL(%q) = %q, want an error", raw, got)
		}
	}
}

func TestHasFateKey(t *testing.T) {
	for _, c := range []struct {
		raw  string
		want bool
	}{
		{`{"id":"a","text":"x"}`, false},
		{`{"id":"a","neardup":{"fate":"kept"}}`, true},
		{`{"id":"a","neard\u0075p":1}`, true},
		{`{"id":"neardup","text":"neardup"}`, false},
		{`{"meta":{"neardup":1},"text":"x"}`, false},
		{`{"text":"\u4e2d","neardup":null}`, true},
	} {
		if got := HasFateKey([]byte(c.raw)); got != c.want {
			t.Errorf("HasFateKey(%s) = %v, want %v", c.raw, got, c.want)
		}
	}
}

func TestFateJSON(t *testing.T) {
	for _, c := range []struct {
		f    Fate
		want string
	}{
		{Fate{Fate: FateKept}, `{"fate":"kept"}`},
		{Fate{Fate: FateKept, Cluster: "a"}, `{"fate":"kept","cluster":"a"}`},
		{Fate{Fate: FateRemoved, Kept: "a", Cluster: "a"}, `{"fate":"removed","kept":"a","cluster":"a"}`},
		{Fate{Fate: FateRemoved, Kept: "a", Cluster: "a", Match: &RemovedMember{Method: "minhash", Jaccard: 0.83, Estimated: true, Hamming: 3, Via: "c"}},
			`{"fate":"removed","kept":"a","cluster":"a","method":"minhash","jaccard_estimate":0.83,"hamming":3,"via":"c"}`},
		{Fate{Fate: FateRemoved, Kept: "x", Match: &RemovedMember{Method: "containment", Jaccard: 0.5, Containment: 0.9, Hamming: 0}},
			`{"fate":"removed","kept":"x","method":"containment","jaccard":0.5,"hamming":0,"containment":0.9}`},
	} {
		b, err := json.Marshal(c.f)
		if err != nil || string(b) != c.want {
			t.Errorf("%+v: %s (%v), want %s", c.f, b, err, c.want)
			continue
		}
		var back Fate
		if err := json.Unmarshal(b, &back); err != nil || !reflect.DeepEqual(back, c.f) {
			t.Errorf("%s read back as %+v (%v), want %+v", b, back, err, c.f)
		}
	}
}

// fateCases are fates and their FateTSVColumns as AppendTSV writes them.
var fateCases = []struct {
	f    Fate
	want []string
}{
	{Fate{Fate: FateKept}, []string{"kept", "", "", "", "", "", "", "", "", ""}},
	{Fate{Fate: FateRemoved, Kept: "a", Cluster: "a", Match: &RemovedMember{Method: "minhash", Jaccard: 0.83, Estimated: true, Hamming: 3, Via: "c"}},
		[]string{"removed", "a", "a", "minhash", "", "0.83", "3", "", "", "c"}},
	{Fate{Fate: FateRemoved, Kept: "x", Match: &RemovedMember{Method: "containment", Jaccard: 0.5, Containment: 0.9}},
		[]string{"removed", "x", "", "containment", "0.5", "", "0", "0.9", "", ""}},
	{Fate{Fate: FateRemoved, Kept: "y", Cluster: "y", Match: &RemovedMember{Method: "containment", Jaccard: 0.4, Containment: 0.85, Estimated: true}},
		[]string{"removed", "y", "y", "containment", "", "0.4", "0", "", "0.85", ""}},
}

func TestFateTSV(t *testing.T) {
	for _, c := range fateCases {
		got := strings.Split(string(c.f.AppendTSV([]byte("url"))), "\t")
		if len(got) != 1+len(FateTSVColumns) || got[0] != "url" || !reflect.DeepEqual(got[1:], c.want) {
			t.Errorf("%+v: columns %q, want url and %q", c.f, got, c.want)
		}
	}
}

// TestFateParquet checks that FateParquet's fields are FateTSVColumns and
// that ParquetValues gives each the TSV column's value, of the field's
// type, null where the column is empty.
func TestFateParquet(t *testing.T) {
	g := FateParquet(nil)
	if g.Name != FateKey || len(g.Fields) != len(FateTSVColumns) {
		t.Fatalf("group %q of %d fields, want %q of %d", g.Name, len(g.Fields), FateKey, len(FateTSVColumns))
	}
	for _, c := range fateCases {
		vals := make([]parquet.Value, len(g.Fields))
		c.f.ParquetValues(vals)
		for i, v := range vals {
			f := g.Fields[i]
			got := ""
			switch {
			case v.IsNull():
			case v.Kind() != f.Node.Type().Kind():
				t.Errorf("%+v: %s is a %v, its field a %v", c.f, f.Name, v.Kind(), f.Node.Type().Kind())
			case v.Kind() == parquet.Double:
				got = strconv.FormatFloat(v.Double(), 'f', -1, 64)
			default:
				got = v.String()
			}
			if f.Name != FateTSVColumns[i] || got != c.want[i] {
				t.Errorf("%+v: field %d %s = %q, want %s = %q", c.f, i, f.Name, got, FateTSVColumns[i], c.want[i])
			}
		}
	}
}

// A record's fate under --fates: the record as read, with "neardup" added
// as its last key.
func ExampleAppendFateJSONL() {
	fate, _ := json.Marshal(Fate{Fate: FateRemoved, Kept: "doc-1", Cluster: "doc-1", Match: &RemovedMember{Method: "exact", Jaccard: 1}})
	line, _ := AppendFateJSONL(nil, []byte(`{"id":"doc-2","text":"..."}`), fate)
	fmt.Println(string(line))
	// Output:
	// {"id":"doc-2","text":"...","neardup":{"fate":"removed","kept":"doc-1","cluster":"doc-1","method":"exact","jaccard":1,"hamming":0}}
}
