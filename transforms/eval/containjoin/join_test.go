package containjoin

import (
	"fmt"
	"math/rand/v2"
	"slices"
	"strings"
	"testing"

	"github.com/neardup/neardup/transforms/sketch/similarity"
)

// naive is the all-pairs join Join must equal: every pair compared with
// similarity.Overlap, and kept when the smaller document's
// similarity.Containment in the larger reaches t.
func naive(docs []Doc, t float64) []Pair {
	var out []Pair
	for x := range docs {
		for y := x + 1; y < len(docs); y++ {
			a, b := docs[x], docs[y]
			if len(b.Set) < len(a.Set) || (len(b.Set) == len(a.Set) && b.ID < a.ID) {
				a, b = b, a
			}
			if len(a.Set) == 0 || similarity.Containment(a.Set, b.Set) < t {
				continue
			}
			inter, _ := similarity.Overlap(a.Set, b.Set)
			out = append(out, Pair{A: a.ID, B: b.ID, SizeA: len(a.Set), SizeB: len(b.Set), Inter: inter})
		}
	}
	slices.SortFunc(out, func(x, y Pair) int { return strings.Compare(x.A+"\x00"+x.B, y.A+"\x00"+y.B) })
	return out
}

func TestJoin(t *testing.T) {
	docs := []Doc{
		{"big", []uint64{1, 2, 3, 4, 5, 6, 7, 8, 9, 10}},
		{"half", []uint64{1, 2, 3, 40, 50, 60}},                 // 3 of 6 in big
		{"inside", []uint64{2, 4, 6, 8}},                        // wholly in big
		{"copy", []uint64{2, 4, 6, 8}},                          // same set as inside
		{"apart", []uint64{100, 200, 300}},                      // in nothing
		{"empty", nil},                                          // never paired
		{"tiny", []uint64{8}},                                   // in big, inside and copy
		{"mostly", []uint64{1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11}}, // big is 10/11 in it
	}
	tests := []struct {
		t    float64
		want []Pair
	}{
		{0.5, []Pair{
			{"big", "mostly", 10, 11, 10},
			{"copy", "big", 4, 10, 4}, {"copy", "inside", 4, 4, 4}, {"copy", "mostly", 4, 11, 4},
			{"half", "big", 6, 10, 3}, {"half", "mostly", 6, 11, 3},
			{"inside", "big", 4, 10, 4}, {"inside", "mostly", 4, 11, 4},
			{"tiny", "big", 1, 10, 1}, {"tiny", "copy", 1, 4, 1}, {"tiny", "inside", 1, 4, 1}, {"tiny", "mostly", 1, 11, 1},
		}},
		{1, []Pair{
			{"big", "mostly", 10, 11, 10},
			{"copy", "big", 4, 10, 4}, {"copy", "inside", 4, 4, 4}, {"copy", "mostly", 4, 11, 4},
			{"inside", "big", 4, 10, 4}, {"inside", "mostly", 4, 11, 4},
			{"tiny", "big", 1, 10, 1}, {"tiny", "copy", 1, 4, 1}, {"tiny", "inside", 1, 4, 1}, {"tiny", "mostly", 1, 11, 1},
		}},
	}
	for _, tt := range tests {
		got, err := Join(docs, tt.t)
		if err != nil {
			t.Fatal(err)
		}
		if !slices.Equal(got, tt.want) {
			t.Errorf("Join(t=%v) =\n%v\nwant\n%v", tt.t, got, tt.want)
		}
		if n := naive(docs, tt.t); !slices.Equal(got, n) {
			t.Errorf("Join(t=%v) differs from the naive join:\n%v\n%v", tt.t, got, n)
		}
	}
}

func TestJoinErrors(t *testing.T) {
	tests := []struct {
		name string
		docs []Doc
		t    float64
		want string
	}{
		{"zero threshold", nil, 0, "threshold 0 out of (0, 1]"},
		{"above one", nil, 1.5, "threshold 1.5 out of (0, 1]"},
		{"same id", []Doc{{"a", []uint64{1}}, {"b", nil}, {"a", []uint64{2}}}, 0.5, `documents 0 and 2 have the same id "a"`},
		{"unsorted", []Doc{{"a", []uint64{1, 3, 2}}}, 0.5, `document "a": set not sorted without repeats at 2`},
		{"repeat", []Doc{{"a", []uint64{1, 1}}}, 0.5, `document "a": set not sorted without repeats at 1`},
	}
	for _, tt := range tests {
		if _, err := Join(tt.docs, tt.t); err == nil || !strings.Contains(err.Error(), tt.want) {
			t.Errorf("%s: Join error %v, want %q", tt.name, err, tt.want)
		}
	}
}

func TestMinOverlap(t *testing.T) {
	for size := 1; size <= 300; size++ {
		for _, th := range []float64{0.01, 0.3, 0.5, 0.7, 0.8, 0.85, 0.9, 0.95, 0.99, 1} {
			k := MinOverlap(size, th)
			if k > size || float64(k)/float64(size) < th {
				t.Fatalf("MinOverlap(%d, %v) = %d does not reach it", size, th, k)
			}
			if k > 0 && float64(k-1)/float64(size) >= th {
				t.Fatalf("MinOverlap(%d, %v) = %d, but %d reaches it", size, th, k, k-1)
			}
		}
	}
	if k := MinOverlap(10, 1.1); k != 11 {
		t.Errorf("MinOverlap(10, 1.1) = %d, want 11 (none reaches it)", k)
	}
}

// randomDocs returns n documents of up to maxSize shingles from a small
// universe, with shingle 0 in most of them (a hot shingle), some copies
// and some documents cut from others (contained ones).
func randomDocs(r *rand.Rand, n, maxSize, universe int) []Doc {
	docs := make([]Doc, n)
	for i := range docs {
		var set []uint64
		switch {
		case i > 0 && r.IntN(5) == 0: // a part of an earlier document
			src := docs[r.IntN(i)].Set
			for _, v := range src {
				if r.IntN(4) > 0 {
					set = append(set, v)
				}
			}
		case i > 0 && r.IntN(10) == 0: // a copy
			set = slices.Clone(docs[r.IntN(i)].Set)
		default:
			for k := r.IntN(maxSize + 1); k > 0; k-- {
				set = append(set, uint64(r.IntN(universe))*0x9e3779b97f4a7c15)
			}
			if r.IntN(4) > 0 {
				set = append(set, 0)
			}
		}
		docs[i] = Doc{ID: fmt.Sprintf("d%03d-%d", r.IntN(1000), i), Set: similarity.Set(set)}
	}
	return docs
}

func TestJoinMatchesNaive(t *testing.T) {
	r := rand.New(rand.NewPCG(44, 1))
	for iter := range 300 {
		docs := randomDocs(r, 1+r.IntN(60), 1+r.IntN(30), 1+r.IntN(80))
		for _, th := range []float64{0.2, 0.5, 0.8, 0.9, 1} {
			got, err := Join(docs, th)
			if err != nil {
				t.Fatal(err)
			}
			if want := naive(docs, th); !slices.Equal(got, want) {
				t.Fatalf("iteration %d, t=%v: Join gives %d pairs, the naive join %d:\n%v\n%v", iter, th, len(got), len(want), got, want)
			}
		}
	}
}

func TestJoinHotShingle(t *testing.T) {
	// 2,000 documents share shingle 0 and have 20 of their own: no pair
	// reaches 0.5, and the hot shingle is in no prefix.
	docs := make([]Doc, 2000)
	for i := range docs {
		set := []uint64{0}
		for k := range 20 {
			set = append(set, uint64(1+i*20+k))
		}
		docs[i] = Doc{ID: fmt.Sprint(i), Set: set}
	}
	got, err := Join(docs, 0.5)
	if err != nil || len(got) != 0 {
		t.Errorf("Join = %d pairs, %v; want none", len(got), err)
	}
}

func TestPairMeasures(t *testing.T) {
	p := Pair{A: "a", B: "b", SizeA: 4, SizeB: 10, Inter: 3}
	if p.ContainA() != 0.75 || p.ContainB() != 0.3 || p.Union() != 11 || p.Jaccard() != 3.0/11 {
		t.Errorf("%+v: ContainA %v ContainB %v Union %v Jaccard %v", p, p.ContainA(), p.ContainB(), p.Union(), p.Jaccard())
	}
}

func ExampleJoin() {
	docs := []Doc{
		{"story", []uint64{1, 2, 3, 4, 5, 6, 7, 8}},
		{"reprint", []uint64{1, 2, 3, 4, 5, 6, 7, 8, 20, 21, 22, 23}}, // the story and a local paragraph
		{"other", []uint64{30, 31, 32}},
	}
	pairs, _ := Join(docs, 0.8)
	for _, p := range pairs {
		fmt.Printf("%s in %s: %.2f, back %.2f, Jaccard %.2f\n", p.A, p.B, p.ContainA(), p.ContainB(), p.Jaccard())
	}
	// Output:
	// story in reprint: 1.00, back 0.67, Jaccard 0.67
}

func BenchmarkJoin(b *testing.B) {
	r := rand.New(rand.NewPCG(9, 9))
	docs := randomDocs(r, 5000, 200, 1<<20)
	for _, th := range []float64{0.5, 0.8} {
		b.Run(fmt.Sprintf("t=%v", th), func(b *testing.B) {
			for b.Loop() {
				if _, err := Join(docs, th); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
}
