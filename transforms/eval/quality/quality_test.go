package quality

import (
	"bytes"
	"math"
	"os"
	"path/filepath"
	"reflect"
	"slices"
	"strings"
	"testing"
)

// The hand-made corpus of TestEvaluate:
//
//	a1 = a2 (exact), b like both (0.9); c-d 0.85, c-e 0.8; f-g 0.7, f-h 0.6;
//	i-j 0.95.
//
// The run reports a1-a2 as exact, a1-b, d-c, f-g, and two false pairs g-h
// and x-y; it misses a2-b directly but finds it through the exact group of
// a1, misses c-e, f-h and i-j.
var (
	truthPairs = []TruePair{
		{"a1", "a2", 10, 10}, // 1.0
		{"a2", "b", 9, 10},   // 0.9
		{"a1", "b", 9, 10},   // 0.9
		{"c", "d", 17, 20},   // 0.85
		{"c", "e", 8, 10},    // 0.8
		{"f", "g", 7, 10},    // 0.7
		{"f", "h", 6, 10},    // 0.6
		{"i", "j", 19, 20},   // 0.95
	}
	runPairs = []Pair{
		{"a1", "a2", 1, "exact"},
		{"a1", "b", 0.9, "minhash"},
		{"d", "c", 0.86, "minhash"},
		{"f", "g", 0.81, "minhash"},
		{"g", "h", 0.8, "minhash"},
		{"x", "y", 0.5, "simhash"},
	}
	runClusters = []Cluster{
		{"k1", "a1", []string{"a1", "a2", "b"}},
		{"k2", "c", []string{"c", "d"}},
		{"k3", "f", []string{"f", "g", "h"}},
		{"k4", "x", []string{"x", "y"}},
	}
	langs = map[string]string{
		"a1": "en", "a2": "en", "b": "en", "f": "en", "g": "en", "h": "en",
		"c": "zh", "d": "zh", "e": "zh", "i": "zh", "j": "zh",
		"x": "ru", "y": "ru",
	}
	synthetic = []Synthetic{
		{"i", "j", "typo", "zh", 19, 20},
		{"c", "e", "shuffle", "zh", 8, 10},
		{"a1", "b", "typo", "en", 9, 10},
		{"z1", "z2", "drop", "en", 0, 0}, // no union: ignored
	}
)

// recalls builds a per-band recall list from (pairs, found) per DefaultBands
// entry.
func recalls(pf ...int) []Recall {
	names := []string{"0.50-0.70", "0.70-0.80", "0.80-0.85", "0.85-0.90", "0.90-1.00", "1.0"}
	out := make([]Recall, len(names))
	for i, n := range names {
		out[i] = Recall{Band: n, Pairs: pf[2*i], Found: pf[2*i+1]}
		if out[i].Pairs > 0 {
			out[i].Recall = float64(out[i].Found) / float64(out[i].Pairs)
		}
	}
	return out
}

func TestBandString(t *testing.T) {
	var got []string
	for _, b := range DefaultBands {
		got = append(got, b.String())
	}
	want := []string{"0.50-0.70", "0.70-0.80", "0.80-0.85", "0.85-0.90", "0.90-1.00", "1.0"}
	if !slices.Equal(got, want) {
		t.Errorf("DefaultBands = %v, want %v", got, want)
	}
}

func TestEvaluate(t *testing.T) {
	r := Evaluate(runPairs, runClusters, Truth{Pairs: truthPairs, Lang: langs, Synthetic: synthetic}, 0.8)

	//                  0.5-0.7  0.7-0.8  0.8-0.85  0.85-0.9  0.9-1  1.0
	wantBands := recalls(1, 0, 1, 1, 1, 0, 1, 1, 3, 2, 1, 1)
	if !reflect.DeepEqual(r.Bands, wantBands) {
		t.Errorf("Bands = %+v\nwant %+v", r.Bands, wantBands)
	}
	wantLang := map[string][]Recall{
		"en": recalls(1, 0, 1, 1, 0, 0, 0, 0, 2, 2, 1, 1),
		"zh": recalls(0, 0, 0, 0, 1, 0, 1, 1, 1, 0, 0, 0),
	}
	if !reflect.DeepEqual(r.ByLang, wantLang) {
		t.Errorf("ByLang = %+v\nwant %+v", r.ByLang, wantLang)
	}
	wantEdit := map[string][]Recall{
		"typo":    recalls(0, 0, 0, 0, 0, 0, 0, 0, 2, 1, 0, 0),
		"shuffle": recalls(0, 0, 0, 0, 1, 0, 0, 0, 0, 0, 0, 0),
	}
	if !reflect.DeepEqual(r.ByEdit, wantEdit) {
		t.Errorf("ByEdit = %+v\nwant %+v", r.ByEdit, wantEdit)
	}
	// J >= 0.8: a1-a2, a2-b, a1-b, c-d found; c-e, i-j missed.
	if want := (Recall{Band: ">=0.80", Pairs: 6, Found: 4, Recall: 4.0 / 6}); r.AtThreshold != want {
		t.Errorf("AtThreshold = %+v, want %+v", r.AtThreshold, want)
	}
	// Correct: a1-a2 (1.0), a1-b (0.9), d-c (0.85), f-g (0.7 = t - 0.1,
	// on the boundary). False: g-h and x-y, absent from the truth.
	if r.Reported != 6 || r.Correct != 4 || r.Precision != 4.0/6 {
		t.Errorf("precision %d/%d = %v, want 4/6", r.Correct, r.Reported, r.Precision)
	}
	if want := 2.0 / 3; math.Abs(r.F1-want) > 1e-12 {
		t.Errorf("F1 = %v, want %v", r.F1, want)
	}
	// By the language of A: en a1-a2, a1-b, f-g, g-h (3 of 4); zh d-c; ru x-y.
	wantPL := map[string]float64{"en": 0.75, "zh": 1, "ru": 0}
	if !reflect.DeepEqual(r.PrecisionLang, wantPL) {
		t.Errorf("PrecisionLang = %v, want %v", r.PrecisionLang, wantPL)
	}
	// Removed: a2 (partner 1.0), b (0.9), d (0.85), g (0.7: not false), h
	// (0.6: false), y (none: false).
	if r.FalseRemovals != 2 {
		t.Errorf("FalseRemovals = %d, want 2", r.FalseRemovals)
	}
	// J >= 0.8 with both kept: c-e, i-j.
	if r.MissedRemovals != 2 {
		t.Errorf("MissedRemovals = %d, want 2", r.MissedRemovals)
	}
	// k3 holds g-h and k4 x-y, neither in the truth.
	if r.Chained != 2 {
		t.Errorf("Chained = %d, want 2", r.Chained)
	}
	wantEx := map[string][]string{
		"missed": {"c e 0.800", "i j 0.950"},
		"false":  {"g h est 0.800 true 0.000", "x y est 0.500 true 0.000"},
	}
	if !reflect.DeepEqual(r.Examples, wantEx) {
		t.Errorf("Examples = %q, want %q", r.Examples, wantEx)
	}
}

func TestEvaluateBoundaries(t *testing.T) {
	// Thresholds whose t - 0.1 is not exact in binary: a true pair at
	// exactly t - 0.1 is correct and a partner at exactly t - 0.1 makes a
	// removal right.
	tests := []struct {
		t            float64
		inter, union int
	}{
		{0.8, 7, 10},
		{0.8, 70, 100},
		{0.7, 3, 5},
		{0.9, 4, 5},
		{0.85, 3, 4},
		{0.95, 17, 20},
		{0.6, 1, 2},
	}
	for _, tt := range tests {
		truth := Truth{Pairs: []TruePair{{"p", "q", tt.inter, tt.union}}}
		r := Evaluate([]Pair{{"p", "q", 0.9, "minhash"}}, []Cluster{{"c", "p", []string{"p", "q"}}}, truth, tt.t)
		if r.Correct != 1 {
			t.Errorf("t=%v, true J %d/%d: Correct = %d, want 1", tt.t, tt.inter, tt.union, r.Correct)
		}
		if r.FalseRemovals != 0 {
			t.Errorf("t=%v, true J %d/%d: FalseRemovals = %d, want 0", tt.t, tt.inter, tt.union, r.FalseRemovals)
		}
	}
	// Just below the boundary is wrong.
	truth := Truth{Pairs: []TruePair{{"p", "q", 699, 1000}}}
	r := Evaluate([]Pair{{"p", "q", 0.9, "minhash"}}, []Cluster{{"c", "p", []string{"p", "q"}}}, truth, 0.8)
	if r.Correct != 0 || r.FalseRemovals != 1 {
		t.Errorf("true J 0.699 at t=0.8: Correct %d, FalseRemovals %d; want 0, 1", r.Correct, r.FalseRemovals)
	}
}

func TestEvaluateExactGroups(t *testing.T) {
	// Which true pairs count as found through groups of exact duplicates.
	tests := []struct {
		name  string
		pairs []Pair
		a, b  string
		found bool
	}{
		{"reported directly", []Pair{{"x", "y", 0.9, "minhash"}}, "x", "y", true},
		{"reported reversed", []Pair{{"y", "x", 0.9, "minhash"}}, "x", "y", true},
		{"not reported", []Pair{{"x", "z", 0.9, "minhash"}}, "x", "y", false},
		{"exact duplicates", []Pair{{"x", "y", 1, "exact"}}, "x", "y", true},
		{"exact through a chain", []Pair{{"x", "m", 1, "exact"}, {"m", "y", 1, "exact"}}, "x", "y", true},
		{"exact chain in any order", []Pair{{"m", "y", 1, "exact"}, {"n", "x", 1, "exact"}, {"m", "n", 1, "exact"}}, "x", "y", true},
		{"group of x reported with y", []Pair{{"x", "x2", 1, "exact"}, {"x2", "y", 0.9, "minhash"}}, "x", "y", true},
		{"pair of groups reported", []Pair{{"x", "x2", 1, "exact"}, {"y2", "y", 1, "exact"}, {"y2", "x2", 0.9, "simhash"}}, "x", "y", true},
		{"reported before the exact pair", []Pair{{"y", "x2", 0.9, "minhash"}, {"x2", "x", 1, "exact"}}, "x", "y", true},
		{"non-exact pairs make no group", []Pair{{"x", "m", 0.95, "minhash"}, {"m", "y", 0.95, "minhash"}}, "x", "y", false},
		{"other groups do not help", []Pair{{"x", "x2", 1, "exact"}, {"y", "y2", 1, "exact"}, {"x2", "z", 0.9, "minhash"}}, "x", "y", false},
	}
	for _, tt := range tests {
		truth := Truth{Pairs: []TruePair{{tt.a, tt.b, 9, 10}}}
		r := Evaluate(tt.pairs, nil, truth, 0.8)
		want := 0
		if tt.found {
			want = 1
		}
		if r.AtThreshold.Found != want || r.Bands[4].Found != want {
			t.Errorf("%s: found %d (band 0.9-1: %d), want %d", tt.name, r.AtThreshold.Found, r.Bands[4].Found, want)
		}
	}
}

func TestEvaluateEmpty(t *testing.T) {
	r := Evaluate(nil, nil, Truth{}, 0.8)
	if r.Reported != 0 || r.Precision != 0 || r.F1 != 0 || r.AtThreshold.Pairs != 0 || r.AtThreshold.Recall != 0 {
		t.Errorf("empty Evaluate = %+v", r)
	}
	if !reflect.DeepEqual(r.Bands, recalls(0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0)) {
		t.Errorf("empty Bands = %+v", r.Bands)
	}
	if len(r.ByLang) != 0 || len(r.ByEdit) != 0 || len(r.PrecisionLang) != 0 {
		t.Errorf("empty Evaluate has per-language or per-edit figures: %+v", r)
	}
}

func TestEvaluateChained(t *testing.T) {
	truth := Truth{Pairs: []TruePair{{"a", "b", 9, 10}, {"b", "c", 9, 10}, {"a", "c", 6, 10}}}
	tests := []struct {
		name    string
		members []string
		want    int
	}{
		{"single", []string{"a"}, 0},
		{"all pairs known", []string{"a", "b", "c"}, 0},
		{"a-d unknown", []string{"a", "b", "d"}, 1},
		{"known pairs reversed", []string{"c", "b", "a"}, 0},
		// Clusters over 2000 members are not checked.
		{"huge", append([]string{"a", "b"}, bigMembers(1999)...), 0},
		{"2000 members", append([]string{"a", "b"}, bigMembers(1998)...), 1},
	}
	for _, tt := range tests {
		r := Evaluate(nil, []Cluster{{"k", tt.members[0], tt.members}}, truth, 0.8)
		if r.Chained != tt.want {
			t.Errorf("%s: Chained = %d, want %d", tt.name, r.Chained, tt.want)
		}
	}
}

func bigMembers(n int) []string {
	out := make([]string, n)
	for i := range out {
		out[i] = "m" + strings.Repeat("x", i%7) + string(rune('A'+i%26)) + string(rune('0'+i/26%10)) + string(rune('a'+i/260))
	}
	return out
}

func TestPrint(t *testing.T) {
	r := Evaluate(runPairs, runClusters, Truth{Pairs: truthPairs, Lang: langs, Synthetic: synthetic}, 0.8)
	var buf bytes.Buffer
	r.Print(&buf)
	want := `pair recall by true Jaccard band:
  all           0.50-0.70: 0.000 (1)  0.70-0.80: 1.000 (1)  0.80-0.85: 0.000 (1)  0.85-0.90: 1.000 (1)  0.90-1.00: 0.667 (3)  1.0: 1.000 (1)
  en            0.50-0.70: 0.000 (1)  0.70-0.80: 1.000 (1)  0.80-0.85: -  0.85-0.90: -  0.90-1.00: 1.000 (2)  1.0: 1.000 (1)
  zh            0.50-0.70: -  0.70-0.80: -  0.80-0.85: 0.000 (1)  0.85-0.90: 1.000 (1)  0.90-1.00: 0.000 (1)  1.0: -

recall by synthetic edit type:
  shuffle       0.50-0.70: -  0.70-0.80: -  0.80-0.85: 0.000 (1)  0.85-0.90: -  0.90-1.00: -  1.0: -
  typo          0.50-0.70: -  0.70-0.80: -  0.80-0.85: -  0.85-0.90: -  0.90-1.00: 0.500 (2)  1.0: -

recall at J >= 0.80: 4/6 = 0.6667
precision (true J >= 0.70): 4/6 = 0.6667  en 0.7500  ru 0.0000  zh 1.0000
F1 0.6667
false removals 2, missed removals 2, chained clusters 2
`
	if got := buf.String(); got != want {
		t.Errorf("Print wrote\n%s\nwant\n%s", got, want)
	}
}

func writeFile(t *testing.T, dir, name, text string) string {
	t.Helper()
	p := filepath.Join(dir, name)
	if err := os.WriteFile(p, []byte(text), 0o644); err != nil {
		t.Fatal(err)
	}
	return p
}

func TestReadRun(t *testing.T) {
	dir := t.TempDir()
	// Files as transforms.WritePairs and the cluster writer produce them;
	// files are read in name order.
	writeFile(t, dir, "pairs-00001.jsonl", `{"a":"d","b":"c","jaccard":0.86,"hamming":4,"method":"minhash"}`+"\n")
	writeFile(t, dir, "pairs-00000.jsonl",
		`{"a":"a1","b":"a2","jaccard":1,"hamming":0,"method":"exact"}`+"\n"+
			`{"a":"a1","b":"b","jaccard":0.9,"hamming":3,"method":"minhash"}`+"\n")
	writeFile(t, dir, "clusters-00000.jsonl",
		`{"cluster":"k1","size":3,"representative":"a1","members":["a1","a2","b"]}`+"\n"+
			`{"cluster":"k2","size":2,"representative":"c","members":["c","d"]}`+"\n")
	writeFile(t, dir, "other.jsonl", "not json\n")

	pairs, clusters, err := ReadRun(filepath.Join(dir, "pairs-*.jsonl"))
	if err != nil {
		t.Fatal(err)
	}
	wantPairs := []Pair{{"a1", "a2", 1, "exact"}, {"a1", "b", 0.9, "minhash"}, {"d", "c", 0.86, "minhash"}}
	if !reflect.DeepEqual(pairs, wantPairs) {
		t.Errorf("pairs = %+v, want %+v", pairs, wantPairs)
	}
	wantClusters := []Cluster{{"k1", "a1", []string{"a1", "a2", "b"}}, {"k2", "c", []string{"c", "d"}}}
	if !reflect.DeepEqual(clusters, wantClusters) {
		t.Errorf("clusters = %+v, want %+v", clusters, wantClusters)
	}
}

func TestReadRunErrors(t *testing.T) {
	dir := t.TempDir()
	writeFile(t, dir, "pairs-00000.jsonl", `{"a":"x","b":"y","jaccard":0.9,"method":"minhash"}`+"\n"+`{"a":`+"\n")
	bad := t.TempDir()
	writeFile(t, bad, "pairs-00000.jsonl", `{"a":"x","b":"y"}`+"\n")
	writeFile(t, bad, "clusters-00000.jsonl", `{"cluster":"k","members":["x","y"]}`+"\n"+`{"members":"x"}`+"\n")
	tests := []struct {
		name, glob, want string
	}{
		{"no file", filepath.Join(t.TempDir(), "pairs-*.jsonl"), "matches no file"},
		{"bad glob", filepath.Join(dir, "pairs-[.jsonl"), "syntax error"},
		{"bad pair line", filepath.Join(dir, "pairs-*.jsonl"), "pairs-00000.jsonl:2:"},
		{"bad cluster line", filepath.Join(bad, "pairs-*.jsonl"), "clusters-00000.jsonl:2:"},
	}
	for _, tt := range tests {
		_, _, err := ReadRun(tt.glob)
		if err == nil || !strings.Contains(err.Error(), tt.want) {
			t.Errorf("%s: ReadRun error %v, want one containing %q", tt.name, err, tt.want)
		}
	}
}

func TestReadTruth(t *testing.T) {
	dir := t.TempDir()
	p := writeFile(t, dir, "truth.tsv", "id_a\tid_b\tjaccard\tinter\tunion\nd1\td2\t0.623656\t174\t279\nd3\td4\t1.000000\t5\t5\textra\n")
	got, err := ReadTruth(p)
	if err != nil {
		t.Fatal(err)
	}
	want := []TruePair{{"d1", "d2", 174, 279}, {"d3", "d4", 5, 5}}
	if !reflect.DeepEqual(got, want) {
		t.Errorf("ReadTruth = %+v, want %+v", got, want)
	}
	if j := got[0].Jaccard(); j != 174.0/279 {
		t.Errorf("Jaccard = %v, want %v", j, 174.0/279)
	}
	// Without a header line every line is a pair.
	p = writeFile(t, dir, "noheader.tsv", "d1\td2\t0.5\t1\t2\n")
	if got, err := ReadTruth(p); err != nil || !reflect.DeepEqual(got, []TruePair{{"d1", "d2", 1, 2}}) {
		t.Errorf("ReadTruth without header = %+v, %v", got, err)
	}

	tests := []struct {
		name, text, want string
	}{
		{"few columns", "id_a\tid_b\tjaccard\tinter\tunion\nd1\td2\t0.5\t1\n", "bad.tsv:2: want 5 columns, got 4"},
		{"zero union", "d1\td2\t0.5\t1\t2\nd3\td4\t0\t0\t0\n", "bad.tsv:2: bad inter/union"},
		{"not a number", "id_a\tid_b\tjaccard\tinter\tunion\nd1\td2\t0.5\tx\t2\n", "bad.tsv:2: bad inter/union"},
		{"space separated", "d1 d2 0.5 1 2\n", "bad.tsv:1: want 5 columns, got 1"},
	}
	for _, tt := range tests {
		p := writeFile(t, dir, "bad.tsv", tt.text)
		if _, err := ReadTruth(p); err == nil || !strings.Contains(err.Error(), tt.want) {
			t.Errorf("%s: ReadTruth error %v, want one containing %q", tt.name, err, tt.want)
		}
	}
	if _, err := ReadTruth(filepath.Join(dir, "missing.tsv")); !os.IsNotExist(err) {
		t.Errorf("ReadTruth of a missing file: error %v, want not exist", err)
	}
}

func TestReadSynthetic(t *testing.T) {
	dir := t.TempDir()
	p := writeFile(t, dir, "dev_synthetic.tsv",
		"id_a\tid_b\tedit_type\tlang\tjaccard\tinter\tunion\tparams\n"+
			"o1\tv1\ttypo\ten\t0.9\t9\t10\trate=0.01\n"+
			"o2\tv2\tdrop\tzh\t0\t0\t0\t\n")
	got, err := ReadSynthetic(p)
	if err != nil {
		t.Fatal(err)
	}
	want := []Synthetic{{"o1", "v1", "typo", "en", 9, 10}, {"o2", "v2", "drop", "zh", 0, 0}}
	if !reflect.DeepEqual(got, want) {
		t.Errorf("ReadSynthetic = %+v, want %+v", got, want)
	}
	p = writeFile(t, dir, "bad.tsv", "o1\tv1\ttypo\ten\t0.9\tnine\t10\n")
	if _, err := ReadSynthetic(p); err == nil || !strings.Contains(err.Error(), "bad.tsv:1: bad inter/union") {
		t.Errorf("ReadSynthetic of a bad line: error %v", err)
	}
	p = writeFile(t, dir, "short.tsv", "o1\tv1\ttypo\ten\t0.9\t9\n")
	if _, err := ReadSynthetic(p); err == nil || !strings.Contains(err.Error(), "want 7 columns, got 6") {
		t.Errorf("ReadSynthetic of a short line: error %v", err)
	}
}

func TestReadLangs(t *testing.T) {
	dir := t.TempDir()
	p := writeFile(t, dir, "dev.jsonl",
		`{"id":"d1","text":"hello","source":"s","lang":"en"}`+"\n"+
			`{"id":"d2","text":"你好","lang":"zh"}`+"\n"+
			`{"id":"d3","text":"no language"}`+"\n")
	got, err := ReadLangs(p)
	if err != nil {
		t.Fatal(err)
	}
	want := map[string]string{"d1": "en", "d2": "zh", "d3": ""}
	if !reflect.DeepEqual(got, want) {
		t.Errorf("ReadLangs = %v, want %v", got, want)
	}
	p = writeFile(t, dir, "bad.jsonl", `{"id":"d1","lang":"en"}`+"\n"+`{"id":`+"\n")
	if _, err := ReadLangs(p); err == nil || !strings.Contains(err.Error(), "bad.jsonl:2:") {
		t.Errorf("ReadLangs of a bad line: error %v, want one naming bad.jsonl:2", err)
	}
}
