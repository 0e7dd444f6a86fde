package quality

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"testing"
)

// cp is a containment truth pair of inter shared shingles and sizes sa, sb.
func cp(a, b string, inter, sa, sb int) ContainPair {
	return ContainPair{A: a, B: b, Inter: inter, Union: sa + sb - inter, SizeA: sa, SizeB: sb,
		ContainA: float64(inter) / float64(sa), ContainB: float64(inter) / float64(sb)}
}

func TestContainment(t *testing.T) {
	for _, tc := range []struct {
		name  string
		p     ContainPair
		want  float64
		small int
	}{
		{"a smaller", cp("a", "b", 9, 10, 100), 0.9, 10},
		{"b smaller", cp("a", "b", 9, 100, 10), 0.9, 10},
		{"equal sizes", cp("a", "b", 17, 20, 20), 0.85, 20},
		// The larger document's containment is not the pair's.
		{"not the larger's", cp("a", "b", 40, 100, 50), 0.8, 50},
	} {
		c, small := tc.p.Containment()
		if c != tc.want || small != tc.small {
			t.Errorf("%s: got %v, %d; want %v, %d", tc.name, c, small, tc.want, tc.small)
		}
	}
}

func TestEvaluateContainment(t *testing.T) {
	langs := map[string]string{"a": "en", "b": "en", "c": "zh", "d": "zh", "e": "en", "f": "zh"}
	for _, tc := range []struct {
		name    string
		pairs   []Pair
		truth   []ContainPair
		minSize int
		check   func(t *testing.T, r ContainReport)
	}{
		{
			name:  "found by minhash, exact or containment",
			pairs: []Pair{{A: "a", B: "b", Method: "minhash"}, {A: "c", B: "x", Method: "exact"}, {A: "x", B: "d", Method: "containment"}},
			// c-d found through c's exact-duplicate group {c, x}.
			truth:   []ContainPair{cp("a", "b", 18, 20, 100), cp("c", "d", 18, 20, 100), cp("e", "f", 18, 20, 100)},
			minSize: 10,
			check: func(t *testing.T, r ContainReport) {
				if h := r.All.Headline; h.Pairs != 3 || h.FoundDirect != 2 {
					t.Errorf("headline %+v, want 2 of 3 found", h)
				}
				if h := r.ByLang["en"].Headline; h.Pairs != 1 || h.FoundDirect != 1 {
					t.Errorf("en headline %+v, want 1 of 1", h)
				}
				if h := r.ByLang["cross"].Headline; h.Pairs != 1 || h.FoundDirect != 0 {
					t.Errorf("cross headline %+v, want 0 of 1", h)
				}
			},
		},
		{
			name:  "band and headline, below C left out",
			pairs: []Pair{{A: "a", B: "b", Method: "containment"}},
			// 0.85 is the headline (not the band); 0.84 the band; 0.79 neither.
			truth:   []ContainPair{cp("a", "b", 17, 20, 40), cp("c", "d", 84, 100, 200), cp("e", "f", 79, 100, 200)},
			minSize: 10,
			check: func(t *testing.T, r ContainReport) {
				if r.All.Headline.Pairs != 1 || r.All.Headline.FoundDirect != 1 || r.All.Band.Pairs != 1 || r.All.Band.FoundDirect != 0 {
					t.Errorf("headline %+v band %+v", r.All.Headline, r.All.Band)
				}
			},
		},
		{
			name:  "min size excluded",
			pairs: nil,
			// The smaller document (9 shingles) is under the minimum even
			// though the larger is not; a pair below C is not counted.
			truth:   []ContainPair{cp("a", "b", 9, 100, 9), cp("c", "d", 84, 100, 100), cp("e", "f", 4, 9, 100)},
			minSize: 10,
			check: func(t *testing.T, r ContainReport) {
				if r.All.SmallExcluded != 1 || r.All.Headline.Pairs != 0 || r.All.Band.Pairs != 1 {
					t.Errorf("small %d headline %d band %d, want 1, 0, 1", r.All.SmallExcluded, r.All.Headline.Pairs, r.All.Band.Pairs)
				}
			},
		},
		{
			name: "precision counts containment pairs only",
			pairs: []Pair{
				{A: "a", B: "b", Method: "containment"}, // c 0.80: correct
				{A: "c", B: "d", Method: "containment"}, // c 0.75: wrong, not far
				{A: "e", B: "f", Method: "containment"}, // c 0.69: far below
				{A: "a", B: "f", Method: "containment"}, // absent: below 0.5, far below
				{A: "c", B: "e", Method: "minhash"},     // not counted
			},
			truth:   []ContainPair{cp("a", "b", 80, 100, 200), cp("c", "d", 75, 100, 200), cp("e", "f", 69, 100, 200), cp("c", "e", 10, 100, 200)},
			minSize: 10,
			check: func(t *testing.T, r ContainReport) {
				if f := r.All; f.Reported != 4 || f.Correct != 1 || f.FarBelow != 2 || f.Precision != 0.25 {
					t.Errorf("reported %d correct %d far %d precision %v, want 4, 1, 2, 0.25", f.Reported, f.Correct, f.FarBelow, f.Precision)
				}
				if f := r.ByLang["cross"]; f.Reported != 2 || f.FarBelow != 2 {
					t.Errorf("cross: reported %d far %d, want 2, 2", f.Reported, f.FarBelow)
				}
				if len(r.Examples["far_below"]) != 2 {
					t.Errorf("far below examples %q", r.Examples["far_below"])
				}
			},
		},
	} {
		t.Run(tc.name, func(t *testing.T) {
			tc.check(t, EvaluateContainment(tc.pairs, nil, tc.truth, langs, 0.8, 0.8, tc.minSize))
		})
	}
}

func TestReadContainTruth(t *testing.T) {
	dir := t.TempDir()
	write := func(name, text string) string {
		p := filepath.Join(dir, name)
		if err := os.WriteFile(p, []byte(text), 0o644); err != nil {
			t.Fatal(err)
		}
		return p
	}
	good := write("c.tsv", "id_a\tid_b\tjaccard\tinter\tunion\tsize_a\tsize_b\tcontain_a\tcontain_b\n"+
		"a\tb\t0.4\t8\t20\t10\t18\t0.8\t0.444444\n")
	ps, err := ReadContainTruth(good)
	if err != nil || len(ps) != 1 || ps[0].SizeA != 10 || ps[0].SizeB != 18 {
		t.Fatalf("got %+v, %v", ps, err)
	}
	if c, small := ps[0].Containment(); c != 0.8 || small != 10 {
		t.Errorf("containment %v of %d, want 0.8 of 10", c, small)
	}
	jaccard := write("j.tsv", "id_a\tid_b\tjaccard\tinter\tunion\na\tb\t0.9\t9\t10\n")
	if _, err := ReadContainTruth(jaccard); !errors.Is(err, ErrNoContainColumns) {
		t.Errorf("a Jaccard truth: %v, want ErrNoContainColumns", err)
	}
	bad := write("b.tsv", "id_a\tid_b\tjaccard\tinter\tunion\tsize_a\tsize_b\tcontain_a\tcontain_b\n"+
		"a\tb\t0.4\t12\t20\t10\t18\t1.2\t0.6\n")
	if _, err := ReadContainTruth(bad); err == nil {
		t.Error("inter above a size: no error")
	}
}

func ExampleContainReport_Print() {
	langs := map[string]string{"a": "en", "b": "en", "c": "zh", "d": "zh", "e": "en", "f": "en"}
	truth := []ContainPair{cp("a", "b", 18, 20, 100), cp("c", "d", 83, 100, 200), cp("e", "f", 5, 5, 50)}
	pairs := []Pair{{A: "a", B: "b", Jaccard: 0.18, Method: "containment"}, {A: "c", B: "e", Jaccard: 0.3, Method: "containment"}}
	clusters := []Cluster{{Cluster: "b", Representative: "b", Members: []string{"a", "b"}}} // a removed, inside b
	EvaluateContainment(pairs, clusters, truth, langs, 0.8, 0.8, 10).Print(os.Stdout)
	// Output:
	// containment C = 0.80; headline c >= 0.85, band [0.80, 0.85); c: the share of the smaller document's shingles in the larger
	// found: the run reports the pair (any method) or the pair of its exact-duplicate groups; true pairs c >= 0.80 whose smaller document has < 10 shingles are left out of recall (small)
	// precision: reported containment pairs with true c >= 0.80; far below: true c < 0.70 (absent from the truth: < 0.5)
	//
	//   group  pairs c>=0.85  found  recall  pairs [0.80,0.85)  found  recall  small  reported  c>=0.80  precision  far below
	//     all              1      1  1.0000                  1      0  0.0000      1         2        1     0.5000          1
	//      en              1      1  1.0000                  0      0       -      1         1        1     1.0000          0
	//      zh              0      0       -                  1      0  0.0000      0         0        0          -          0
	//   cross              0      0       -                  0      0       -      0         1        0     0.0000          1
	//
	// removals: 1 removed, 1 of them inside the kept document (true J < 0.80, containment >= 0.80); neither: 0, below 0.70 and 0.70: 0; removal precision 1.0000
	//
	// reported containment pairs with true c < 0.70 (1 of 1):
	//   c e true c 0.000 (run J 0.300)
}

func TestContainRemovals(t *testing.T) {
	truth := []ContainPair{
		cp("k1", "m1", 90, 100, 100), // J 0.818: a near-duplicate
		cp("k2", "m2", 18, 200, 20),  // m2 inside k2 at 0.9 (J 0.088)
		cp("m3", "k3", 15, 20, 200),  // m3 inside k3 at 0.75: right by neither
		cp("k4", "m4", 18, 20, 200),  // k4 inside m4 at 0.9, not m4 in k4
		cp("k5", "m5", 70, 100, 100), // J 0.538
	}
	clusters := []Cluster{
		{Cluster: "k1", Representative: "k1", Members: []string{"k1", "m1"}},
		{Cluster: "k2", Representative: "k2", Members: []string{"k2", "m2", "m6"}}, // m6: absent from the truth
		{Cluster: "k3", Representative: "k3", Members: []string{"m3", "k3"}},
		{Cluster: "k4", Representative: "k4", Members: []string{"k4", "m4"}},
		{Cluster: "k5", Representative: "k5", Members: []string{"k5", "m5"}},
	}
	var examples []string
	r := containRemovals(clusters, truth, 0.8, 0.8, func(_, format string, args ...any) {
		examples = append(examples, fmt.Sprintf(format, args...))
	})
	// Right: m1 (Jaccard), m2 (inside). Wrong: m6, m3, m4, m5; within
	// 0.1 of a threshold: m3 (0.75 inside) and m5 (0.70 inside).
	removed, below := 6.0, 4.0
	want := ContainRemovals{Removed: 6, Inside: 1, Below: 4, BelowLenient: 2, Precision: 1 - below/removed}
	if r != want {
		t.Errorf("got %+v, want %+v", r, want)
	}
	if len(examples) != 4 {
		t.Errorf("examples %q, want the 4 below", examples)
	}
	if r := containRemovals(nil, truth, 0.8, 0.8, func(string, string, ...any) {}); r.Precision != 1 || r.Removed != 0 {
		t.Errorf("nothing removed: %+v", r)
	}
}
