package quality

import (
	"bytes"
	"compress/gzip"
	"fmt"
	"io"
	"maps"
	"math"
	"os"
	"path/filepath"
	"reflect"
	"slices"
	"strings"
	"testing"

	"github.com/neardup/neardup/transforms/format/record"
)

// The hand-made corpus of TestEvaluate (en: a1 a2 b f g h k; zh: c d e i j
// m; ru: x y):
//
//	a1 = a2 (exact), b like both (0.9); c-d 0.85, c-e 0.8, d-e 0.75; f-g 0.7,
//	f-h 0.6; i-j 0.95; k-m 0.82 (en and zh: a cross-language pair).
//
// The run reports a1-a2 as exact, a1-b, d-c, f-g, k-m and two false pairs
// g-h and x-y. It finds a2-b directly through the exact group of a1; c-e,
// d-e and f-h only through their clusters; i-j not at all.
var (
	truthPairs = []TruePair{
		{"a1", "a2", 10, 10}, // 1.0
		{"a2", "b", 9, 10},   // 0.9
		{"a1", "b", 9, 10},   // 0.9
		{"c", "d", 17, 20},   // 0.85
		{"c", "e", 8, 10},    // 0.8
		{"d", "e", 15, 20},   // 0.75
		{"f", "g", 7, 10},    // 0.7
		{"f", "h", 6, 10},    // 0.6
		{"i", "j", 19, 20},   // 0.95
		{"k", "m", 41, 50},   // 0.82
	}
	runPairs = []Pair{
		{"a1", "a2", 1, "exact"},
		{"a1", "b", 0.9, "minhash"},
		{"d", "c", 0.86, "minhash"},
		{"f", "g", 0.81, "minhash"},
		{"g", "h", 0.8, "minhash"},
		{"x", "y", 0.5, "simhash"},
		{"k", "m", 0.8, "minhash"},
	}
	runClusters = []Cluster{
		{"k1", "a1", []string{"a1", "a2", "b"}},
		{"k2", "c", []string{"c", "d", "e"}},
		{"k3", "f", []string{"f", "g", "h"}},
		{"k4", "x", []string{"x", "y"}},
		{"k5", "k", []string{"k", "m"}},
	}
	langs = map[string]string{
		"a1": "en", "a2": "en", "b": "en", "f": "en", "g": "en", "h": "en", "k": "en",
		"c": "zh", "d": "zh", "e": "zh", "i": "zh", "j": "zh", "m": "zh",
		"x": "ru", "y": "ru",
	}
	synthetic = []Synthetic{
		{"i", "j", "typo", "zh", 19, 20},
		{"c", "e", "shuffle", "zh", 8, 10},
		{"a1", "b", "typo", "en", 9, 10},
		{"z1", "z2", "drop", "en", 0, 0}, // no union: ignored
	}
)

// rc is a Recall of n pairs, d found directly and l linked.
func rc(band string, n, d, l int) Recall {
	r := Recall{Band: band, Pairs: n, FoundDirect: d, Linked: l}
	r.finish()
	return r
}

// bands builds a per-band recall list from (pairs, direct, linked) per
// DefaultBands entry.
func bands(pdl ...int) []Recall {
	out := newBands()
	for i := range out {
		out[i] = rc(out[i].Band, pdl[3*i], pdl[3*i+1], pdl[3*i+2])
	}
	return out
}

// figures builds Figures from its counts.
func figures(bs []Recall, at, head [3]int, reported, strict, lenient int) Figures {
	f := Figures{
		Bands:       bs,
		AtThreshold: rc(">=0.80", at[0], at[1], at[2]),
		AtHeadline:  rc(">=0.85", head[0], head[1], head[2]),
		Reported:    reported, StrictCorrect: strict, LenientCorrect: lenient,
	}
	f.finish()
	return f
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
	if r.Threshold != 0.8 || r.HeadlineThreshold != 0.85 || r.LenientThreshold != 0.7 {
		t.Errorf("thresholds %v %v %v, want 0.8 0.85 0.7", r.Threshold, r.HeadlineThreshold, r.LenientThreshold)
	}
	//                    0.5-0.7  0.7-0.8  0.8-0.85  0.85-0.9  0.9-1    1.0
	want := figures(bands(1, 0, 1, 2, 1, 2, 2, 1, 2, 1, 1, 1, 3, 2, 2, 1, 1, 1),
		// J >= 0.8: c-e (linked), k-m, c-d, a2-b, a1-b, i-j (missed), a1-a2;
		// J >= 0.85: c-d (exactly 0.85), a2-b, a1-b, i-j, a1-a2.
		[3]int{7, 5, 6}, [3]int{5, 4, 4},
		// Strict: a1-a2, a1-b, d-c, k-m; lenient also f-g (0.7 = t - 0.1);
		// g-h and x-y are absent from the truth.
		7, 4, 5)
	if !reflect.DeepEqual(r.All, want) {
		t.Errorf("All = %+v\nwant %+v", r.All, want)
	}
	// F1 = 2·(4/7)·(5/7) / (4/7 + 5/7).
	if want := 40.0 / 63; math.Abs(r.All.F1Strict-want) > 1e-12 {
		t.Errorf("F1Strict = %v, want %v", r.All.F1Strict, want)
	}
	wantLang := map[string]Figures{
		"en": figures(bands(1, 0, 1, 1, 1, 1, 0, 0, 0, 0, 0, 0, 2, 2, 2, 1, 1, 1),
			[3]int{3, 3, 3}, [3]int{3, 3, 3}, 4, 2, 3),
		"zh": figures(bands(0, 0, 0, 1, 0, 1, 1, 0, 1, 1, 1, 1, 1, 0, 0, 0, 0, 0),
			[3]int{3, 1, 2}, [3]int{2, 1, 1}, 1, 1, 1),
		"ru": figures(bands(0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0),
			[3]int{}, [3]int{}, 1, 0, 0),
		// k-m, en and zh: not under the language of k.
		"cross": figures(bands(0, 0, 0, 0, 0, 0, 1, 1, 1, 0, 0, 0, 0, 0, 0, 0, 0, 0),
			[3]int{1, 1, 1}, [3]int{}, 1, 1, 1),
	}
	if !reflect.DeepEqual(r.ByLang, wantLang) {
		t.Errorf("ByLang = %+v\nwant %+v", r.ByLang, wantLang)
	}
	wantEdit := map[string][]Recall{
		"typo":    bands(0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 2, 1, 1, 0, 0, 0),
		"shuffle": bands(0, 0, 0, 0, 0, 0, 1, 0, 1, 0, 0, 0, 0, 0, 0, 0, 0, 0),
	}
	if !reflect.DeepEqual(r.ByEdit, wantEdit) {
		t.Errorf("ByEdit = %+v\nwant %+v", r.ByEdit, wantEdit)
	}
	// Removed: a2 (partner 1.0), b (0.9), d (0.85), e (0.8), g (0.7: not
	// false), h (0.6: false), y (none: false), m (0.82).
	if r.FalseRemovals != 2 {
		t.Errorf("FalseRemovals = %d, want 2", r.FalseRemovals)
	}
	// J >= 0.8 with both kept: i-j.
	if r.MissedRemovals != 1 {
		t.Errorf("MissedRemovals = %d, want 1", r.MissedRemovals)
	}
	// k3 holds g-h and k4 x-y, neither in the truth.
	if r.Chained != 2 {
		t.Errorf("Chained = %d, want 2", r.Chained)
	}
	// Removed for their representative: a2 (1.0), b (0.9), d (0.85), e
	// (0.8), m (0.82); below 0.8: g (0.7), h (0.6: below 0.7 too), y (not
	// in the truth: below both). J >= 0.85 with both kept: i-j of a1-a2,
	// a2-b, a1-b, c-d and i-j.
	wantRemovals := Removals{Removed: 8, Below: 3, BelowLenient: 2, Precision: 1 - 3.0/8, HeadPairs: 5, LeftBehind: 1}
	if r.Removals != wantRemovals {
		t.Errorf("Removals = %+v, want %+v", r.Removals, wantRemovals)
	}
	wantEx := map[string][]string{
		"missed":        {"c e 0.800", "i j 0.950"},
		"unlinked":      {"i j 0.950"},
		"below_strict":  {"f g run 0.810 true 0.700", "g h run 0.800 true 0.000", "x y run 0.500 true 0.000"},
		"below_lenient": {"g h run 0.800 true 0.000", "x y run 0.500 true 0.000"},
		"removed_below": {"g for f (true J 0.700)", "h for f (true J 0.600)", "y for x (true J 0.000)"},
		"left_behind":   {"i j (true J 0.950)"},
	}
	if !reflect.DeepEqual(r.Examples, wantEx) {
		t.Errorf("Examples = %q, want %q", r.Examples, wantEx)
	}
}

// TestEvaluateLinked pins which true pairs are found directly and which are
// linked.
func TestEvaluateLinked(t *testing.T) {
	tests := []struct {
		name           string
		pairs          []Pair
		clusters       [][]string
		direct, linked bool
	}{
		{"reported", []Pair{{"x", "y", 0.9, "minhash"}}, nil, true, true},
		{"reported, in other clusters", []Pair{{"x", "y", 0.9, "minhash"}}, [][]string{{"x"}, {"y"}}, true, true},
		{"one cluster, not reported", nil, [][]string{{"x", "m", "y"}}, false, true},
		{"one cluster, reversed", nil, [][]string{{"y", "x"}}, false, true},
		{"exact group", []Pair{{"x", "y", 1, "exact"}}, nil, true, true},
		{"other clusters", nil, [][]string{{"x", "m"}, {"y", "n"}}, false, false},
		{"x alone in a cluster", nil, [][]string{{"x", "m"}}, false, false},
		{"neither in a cluster", nil, [][]string{{"m", "n"}}, false, false},
		{"chained through reported pairs", []Pair{{"x", "m", 0.9, "minhash"}, {"m", "y", 0.9, "minhash"}}, nil, false, false},
	}
	for _, tt := range tests {
		var cs []Cluster
		for i, m := range tt.clusters {
			cs = append(cs, Cluster{fmt.Sprint("k", i), m[0], m})
		}
		r := Evaluate(tt.pairs, cs, Truth{Pairs: []TruePair{{"x", "y", 9, 10}}}, 0.8)
		want := func(b bool) int {
			if b {
				return 1
			}
			return 0
		}
		d, l := want(tt.direct), want(tt.linked)
		for _, got := range []Recall{r.All.AtThreshold, r.All.AtHeadline, r.All.Bands[4]} {
			if got.FoundDirect != d || got.Linked != l {
				t.Errorf("%s: %s direct %d linked %d, want %d %d", tt.name, got.Band, got.FoundDirect, got.Linked, d, l)
			}
		}
	}
}

// TestEvaluatePrecision pins strict and lenient precision and the F1 made
// from the strict one.
func TestEvaluatePrecision(t *testing.T) {
	tests := []struct {
		name            string
		t               float64
		reported        [][2]int // inter, union of each reported pair's truth; 0/0: absent
		missed          int      // true pairs >= t not reported
		strict, lenient float64
		f1              float64
	}{
		{"all above t", 0.8, [][2]int{{9, 10}, {8, 10}}, 0, 1, 1, 1},
		// Strict 1/2, lenient 2/2, recall 1: F1 from the strict precision
		// is 2/3 where the lenient one would give 1.
		{"one in t-0.1..t", 0.8, [][2]int{{9, 10}, {75, 100}}, 0, 0.5, 1, 2.0 / 3},
		{"exactly t and t-0.1", 0.8, [][2]int{{4, 5}, {7, 10}}, 0, 0.5, 1, 2.0 / 3},
		{"below t-0.1", 0.8, [][2]int{{9, 10}, {69, 100}}, 0, 0.5, 0.5, 2.0 / 3},
		{"absent from the truth", 0.8, [][2]int{{9, 10}, {0, 0}}, 0, 0.5, 0.5, 2.0 / 3},
		// Recall 1/2, strict 1, lenient 1.
		{"recall 1/2", 0.8, [][2]int{{9, 10}}, 1, 1, 1, 2.0 / 3},
		// t = 0.9: 0.85 is lenient only; recall 1/1 (0.95).
		{"t 0.9", 0.9, [][2]int{{19, 20}, {17, 20}, {4, 5}}, 0, 1.0 / 3, 1, 0.5},
		{"t 0.7, exactly t-0.1", 0.7, [][2]int{{3, 5}, {7, 10}}, 0, 0.5, 1, 2.0 / 3},
		{"nothing reported", 0.8, nil, 1, 0, 0, 0},
	}
	for _, tt := range tests {
		var pairs []Pair
		var truth []TruePair
		for i, iu := range tt.reported {
			a, b := fmt.Sprint("r", i), fmt.Sprint("s", i)
			pairs = append(pairs, Pair{a, b, 0.9, "minhash"})
			if iu[1] > 0 {
				truth = append(truth, TruePair{a, b, iu[0], iu[1]})
			}
		}
		for i := range tt.missed {
			truth = append(truth, TruePair{fmt.Sprint("m", i), fmt.Sprint("n", i), 99, 100})
		}
		r := Evaluate(pairs, nil, Truth{Pairs: truth}, tt.t).All
		if r.StrictPrecision != tt.strict || r.LenientPrecision != tt.lenient || math.Abs(r.F1Strict-tt.f1) > 1e-12 {
			t.Errorf("%s: strict %v lenient %v F1 %v, want %v %v %v", tt.name, r.StrictPrecision, r.LenientPrecision, r.F1Strict, tt.strict, tt.lenient, tt.f1)
		}
	}
}

// TestEvaluatePairLang pins the language a pair is filed under.
func TestEvaluatePairLang(t *testing.T) {
	tests := []struct {
		la, lb, want string
	}{
		{"en", "en", "en"},
		{"zh", "zh", "zh"},
		{"zh", "en", "cross"},
		{"en", "zh", "cross"},
		{"en", "", "unknown"},
		{"", "", "unknown"},
	}
	for _, tt := range tests {
		langs := map[string]string{"p": tt.la, "q": tt.lb}
		truth := Truth{Pairs: []TruePair{{"p", "q", 9, 10}}, Lang: langs}
		r := Evaluate([]Pair{{"p", "q", 0.9, "minhash"}}, nil, truth, 0.8)
		for l, f := range r.ByLang {
			n := 0
			if l == tt.want {
				n = 1
			}
			if f.AtThreshold.Pairs != n || f.Reported != n || f.Bands[4].Pairs != n {
				t.Errorf("%s/%s: %s holds %d true, %d reported pairs; want %d", tt.la, tt.lb, l, f.AtThreshold.Pairs, f.Reported, n)
			}
		}
		if _, ok := r.ByLang[tt.want]; !ok {
			t.Errorf("%s/%s: no figures for %s: %v", tt.la, tt.lb, tt.want, slices.Collect(maps.Keys(r.ByLang)))
		}
	}
}

func TestEvaluateBoundaries(t *testing.T) {
	// Thresholds whose t - 0.1 or t + 0.05 is not exact in binary: a true
	// pair at exactly t - 0.1 is lenient-correct, a partner at exactly
	// t - 0.1 makes a removal right, and a true pair at exactly t + 0.05 is
	// in the headline band.
	tests := []struct {
		t                    float64
		inter, union         int // t - 0.1
		headInter, headUnion int // t + 0.05
	}{
		{0.8, 7, 10, 17, 20},
		{0.8, 70, 100, 85, 100},
		{0.7, 3, 5, 3, 4},
		{0.9, 4, 5, 19, 20},
		{0.85, 3, 4, 9, 10},
		{0.95, 17, 20, 1, 1},
		{0.6, 1, 2, 13, 20},
	}
	for _, tt := range tests {
		truth := Truth{Pairs: []TruePair{{"p", "q", tt.inter, tt.union}, {"h", "k", tt.headInter, tt.headUnion}}}
		r := Evaluate([]Pair{{"p", "q", 0.9, "minhash"}}, []Cluster{{"c", "p", []string{"p", "q"}}}, truth, tt.t)
		if r.All.LenientCorrect != 1 || r.All.StrictCorrect != 0 {
			t.Errorf("t=%v, true J %d/%d: lenient %d strict %d, want 1, 0", tt.t, tt.inter, tt.union, r.All.LenientCorrect, r.All.StrictCorrect)
		}
		if r.FalseRemovals != 0 {
			t.Errorf("t=%v, true J %d/%d: FalseRemovals = %d, want 0", tt.t, tt.inter, tt.union, r.FalseRemovals)
		}
		if r.All.AtHeadline.Pairs != 1 {
			t.Errorf("t=%v, true J %d/%d: %d pairs in the headline band, want 1", tt.t, tt.headInter, tt.headUnion, r.All.AtHeadline.Pairs)
		}
	}
	// Just below the boundary is wrong.
	truth := Truth{Pairs: []TruePair{{"p", "q", 699, 1000}}}
	r := Evaluate([]Pair{{"p", "q", 0.9, "minhash"}}, []Cluster{{"c", "p", []string{"p", "q"}}}, truth, 0.8)
	if r.All.LenientCorrect != 0 || r.FalseRemovals != 1 {
		t.Errorf("true J 0.699 at t=0.8: lenient %d, FalseRemovals %d; want 0, 1", r.All.LenientCorrect, r.FalseRemovals)
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
		if r.All.AtThreshold.FoundDirect != want || r.All.Bands[4].FoundDirect != want || r.All.AtThreshold.Linked != want {
			t.Errorf("%s: found %d (band 0.9-1: %d, linked %d), want %d", tt.name, r.All.AtThreshold.FoundDirect, r.All.Bands[4].FoundDirect, r.All.AtThreshold.Linked, want)
		}
	}
}

func TestEvaluateEmpty(t *testing.T) {
	r := Evaluate(nil, nil, Truth{}, 0.8)
	f := r.All
	if f.Reported != 0 || f.StrictPrecision != 0 || f.LenientPrecision != 0 || f.F1Strict != 0 || f.AtThreshold.Pairs != 0 || f.AtThreshold.RecallDirect != 0 {
		t.Errorf("empty Evaluate = %+v", r)
	}
	if !reflect.DeepEqual(f.Bands, bands(0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0)) {
		t.Errorf("empty Bands = %+v", f.Bands)
	}
	if len(r.ByLang) != 0 || len(r.ByEdit) != 0 {
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
	want := `threshold t = 0.80; headline band J >= 0.85
direct: the pair or the pair of its exact-duplicate groups is reported; linked: direct, or both documents in one cluster
strict precision: reported pairs with true J >= 0.80; lenient: true J >= 0.70; F1 from strict precision and direct recall at J >= 0.80

recall by true Jaccard band, direct/linked (true pairs):
  group         0.50-0.70        0.70-0.80        0.80-0.85        0.85-0.90        0.90-1.00        1.0
  all           0.000/1.000 (1)  0.500/1.000 (2)  0.500/1.000 (2)  1.000/1.000 (1)  0.667/0.667 (3)  1.000/1.000 (1)
  en            0.000/1.000 (1)  1.000/1.000 (1)  -                -                1.000/1.000 (2)  1.000/1.000 (1)
  ru            -                -                -                -                -                -
  zh            -                0.000/1.000 (1)  0.000/1.000 (1)  1.000/1.000 (1)  0.000/0.000 (1)  -
  cross         -                -                1.000/1.000 (1)  -                -                -
  edit shuffle  -                -                0.000/1.000 (1)  -                -                -
  edit typo     -                -                -                -                0.500/0.500 (2)  -

recall at J >= t and in the headline band, precision, F1:
  group  pairs J>=0.80  direct  linked  pairs J>=0.85  direct  linked  reported  strict P  lenient P  F1 (strict)
  all                7  0.7143  0.8571              5  0.8000  0.8000         7    0.5714     0.7143       0.6349
  en                 3  1.0000  1.0000              3  1.0000  1.0000         4    0.5000     0.7500       0.6667
  ru                 0       -       -              0       -       -         1    0.0000     0.0000       0.0000
  zh                 3  0.3333  0.6667              2  0.5000  0.5000         1    1.0000     1.0000       0.5000
  cross              1  1.0000  1.0000              0       -       -         1    1.0000     1.0000       1.0000

clusters: false removals 2 (removed, no true partner >= 0.70), missed removals 1 (true J >= 0.80, both kept), chained clusters 2 (two members with true J < 0.5)
removals: 8 removed; kept document below J 0.80: 3 (37.50%), below 0.70: 2 (25.00%); removal precision 0.6250
left behind: 1 of 5 true pairs J >= 0.85 have both documents kept (20.00%)

which copy is kept, of the synthetic (original, variant) pairs: decided, one removed for the other; the original's share of them
undecided: both kept, the original or the variant removed for another document (the other kept), both removed for others
  edit     pairs  decided  original kept  variant kept  original share  undecided  both kept  original for other  variant for other  both for others
  all          4        2              2             0          100.0%          2          2                   0                  0                0
  drop         1        0              0             0               -          1          1                   0                  0                0
  shuffle      1        1              1             0          100.0%          0          0                   0                  0                0
  typo         2        1              1             0          100.0%          1          1                   0                  0                0
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
	// Files as a run writes them (output.PairLine, output.ClusterLine);
	// files are read in name order, a similarity exact or estimated.
	writeFile(t, dir, "pairs-00001.jsonl", `{"a":"d","b":"c","jaccard_estimate":0.86,"hamming":4,"method":"minhash"}`+"\n")
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

// TestReadRunCompressed: the outputs of a run with --compress read the same.
func TestReadRunCompressed(t *testing.T) {
	dir := t.TempDir()
	for _, f := range []struct {
		name, text string
		c          record.Compression
	}{
		{"pairs-00000.jsonl.zst", `{"a":"a1","b":"b","jaccard":0.9,"hamming":3,"method":"minhash"}` + "\n", record.Zstd},
		{"clusters-00000.jsonl.gz", `{"cluster":"k1","size":2,"representative":"a1","members":["a1","b"]}` + "\n", record.Gzip},
	} {
		var buf bytes.Buffer
		w, err := record.NewWriter(&buf, f.c)
		if err != nil {
			t.Fatal(err)
		}
		io.WriteString(w, f.text)
		if err := w.Close(); err != nil {
			t.Fatal(err)
		}
		writeFile(t, dir, f.name, buf.String())
	}
	pairs, clusters, err := ReadRun(filepath.Join(dir, "pairs-*"))
	if err != nil {
		t.Fatal(err)
	}
	if want := []Pair{{"a1", "b", 0.9, "minhash"}}; !reflect.DeepEqual(pairs, want) {
		t.Errorf("pairs = %+v, want %+v", pairs, want)
	}
	if want := []Cluster{{"k1", "a1", []string{"a1", "b"}}}; !reflect.DeepEqual(clusters, want) {
		t.Errorf("clusters = %+v, want %+v", clusters, want)
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
		{"bad pair line", filepath.Join(dir, "pairs-*.jsonl"), "pairs-00000.jsonl: record 2"},
		{"bad cluster line", filepath.Join(bad, "pairs-*.jsonl"), "clusters-00000.jsonl: record 2"},
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
		{"inter above union", "id_a\tid_b\tjaccard\tinter\tunion\nd1\td2\t9\t9\t1\n", "bad.tsv:2: inter 9 more than union 1"},
		{"negative inter", "d1\td2\t0.5\t-1\t2\n", "bad.tsv:1: negative inter/union -1/2"},
		{"pair twice", "d1\td2\t0.5\t1\t2\nd3\td4\t0.5\t1\t2\nd2\td1\t0.5\t1\t2\n", "bad.tsv:3: the pair d2 d1 again (first at line 1)"},
	}
	for _, tt := range tests {
		p := writeFile(t, dir, "bad.tsv", tt.text)
		if _, err := ReadTruth(p); err == nil || !strings.Contains(err.Error(), tt.want) {
			t.Errorf("%s: ReadTruth error %v, want one containing %q", tt.name, err, tt.want)
		}
	}
	// A byte order mark and gzip, as --corpus and --pairs take them.
	var gz bytes.Buffer
	zw := gzip.NewWriter(&gz)
	zw.Write([]byte("\xEF\xBB\xBFid_a\tid_b\tjaccard\tinter\tunion\nd1\td2\t0.5\t1\t2\n"))
	zw.Close()
	p = writeFile(t, dir, "truth.tsv.gz", gz.String())
	if got, err := ReadTruth(p); err != nil || !reflect.DeepEqual(got, []TruePair{{"d1", "d2", 1, 2}}) {
		t.Errorf("ReadTruth of gzip with a BOM = %+v, %v", got, err)
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
	p = writeFile(t, dir, "bad.tsv", "o1\tv1\ttypo\ten\t0.9\t11\t10\n")
	if _, err := ReadSynthetic(p); err == nil || !strings.Contains(err.Error(), "bad.tsv:1: inter 11 more than union 10") {
		t.Errorf("ReadSynthetic of inter above union: error %v", err)
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

// TestUnknown: with the corpus, a document of the pairs in neither it nor
// the truth is reported; without it, only pairs none of whose documents is
// in the truth are.
func TestUnknown(t *testing.T) {
	truth := map[string]bool{"a": true, "b": true}
	corpus := map[string]bool{"a": true, "b": true, "c": true, "d": true}
	for _, tt := range []struct {
		name   string
		pairs  []Pair
		corpus map[string]bool
		want   string // in the message; "": none
	}{
		{"all in the truth", []Pair{{A: "a", B: "b"}}, corpus, ""},
		{"in the corpus only", []Pair{{A: "c", B: "d"}}, corpus, ""},
		{"one in neither", []Pair{{A: "a", B: "z"}, {A: "z", B: "c"}}, corpus, `the pairs name 1 of 3 documents in neither --corpus nor --truth ("z" the first)`},
		{"no corpus, a false positive", []Pair{{A: "a", B: "z"}}, nil, ""},
		{"no corpus, none in the truth", []Pair{{A: "y", B: "z"}, {A: "z", B: "x"}}, nil, `none of the 3 documents the pairs name is in --truth ("y" the first)`},
		{"no pairs", nil, nil, ""},
	} {
		got := Unknown(tt.pairs, truth, tt.corpus)
		if (tt.want == "") != (got == "") || !strings.Contains(got, tt.want) {
			t.Errorf("%s: Unknown = %q, want %q", tt.name, got, tt.want)
		}
	}
}
