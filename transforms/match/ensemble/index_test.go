package ensemble

import (
	"fmt"
	"math/rand/v2"
	"slices"
	"testing"

	"github.com/neardup/neardup/transforms/sketch/minhash"
)

// sketch returns the classic 128-value MinHash of set.
func sketch(tb testing.TB, set []uint64) []uint64 {
	tb.Helper()
	h, err := minhash.New(128, minhash.Classic, minhash.DefaultSeed)
	if err != nil {
		tb.Fatal(err)
	}
	return h.Sketch(make([]uint64, 128), set)
}

// containedDocs returns pairs of documents: a large random set of large
// elements and a small set of small elements of which a fraction contain
// is drawn from the large one (documents 2i and 2i+1), with fresh elements
// for the rest.
func containedDocs(tb testing.TB, r *rand.Rand, n, small, large int, contain float64) []Doc {
	var docs []Doc
	for range n {
		big := make([]uint64, large)
		for i := range big {
			big[i] = r.Uint64()
		}
		in := int(contain * float64(small))
		sub := append([]uint64(nil), big[:in]...)
		for len(sub) < small {
			sub = append(sub, r.Uint64())
		}
		docs = append(docs, Doc{sketch(tb, big), large}, Doc{sketch(tb, sub), small})
	}
	return docs
}

func found(pairs []Pair, a, b int32) bool {
	_, ok := slices.BinarySearchFunc(pairs, Pair{a, b}, func(p, q Pair) int {
		if p.Query != q.Query {
			return int(p.Query - q.Query)
		}
		return int(p.Set - q.Set)
	})
	return ok
}

// TestCandidatesRecall checks the recall Prob promises on sets contained
// at 0.9 in sets 1, 3 and 10 times larger, at threshold 0.8, and that
// unrelated sets are rarely candidates.
func TestCandidatesRecall(t *testing.T) {
	for _, c := range []struct {
		small, large int
		minRecall    float64
	}{{40, 40, 0.99}, {40, 120, 0.99}, {40, 400, 0.95}} {
		t.Run(fmt.Sprintf("%dx%d", c.small, c.large), func(t *testing.T) {
			r := rand.New(rand.NewPCG(1, uint64(c.large)))
			docs := containedDocs(t, r, 200, c.small, c.large, 0.9)
			sizes := make([]int, len(docs))
			for i, d := range docs {
				sizes[i] = d.Size
			}
			p, err := NewPlan(DefaultConfig(0.8), sizes)
			if err != nil {
				t.Fatal(err)
			}
			pairs, st := Candidates(p, docs, DefaultLimits)
			hits := 0
			for i := 0; i < len(docs); i += 2 {
				q, s := int32(i+1), int32(i)
				if c.small == c.large {
					q, s = min(q, s), max(q, s)
				}
				if found(pairs, q, s) {
					hits++
				}
			}
			if got := float64(hits) / 200; got < c.minRecall {
				t.Errorf("recall %v, want >= %v", got, c.minRecall)
			}
			if unrelated := len(pairs) - hits; unrelated > 20 {
				t.Errorf("%d candidates of unrelated sets (%+v)", unrelated, st)
			}
		})
	}
}

// TestCandidatesHotBucket checks that a bucket of many sets gives each
// query at most Window of them, the smallest at least as large, and that
// the result does not depend on the order of the documents' keys.
func TestCandidatesHotBucket(t *testing.T) {
	sig := make([]uint64, 128) // every document the same signature
	var docs []Doc
	for i := range 50 {
		docs = append(docs, Doc{sig, 10 + i})
	}
	p, err := NewPlan(DefaultConfig(0.8), []int{10, 59})
	if err != nil {
		t.Fatal(err)
	}
	lim := Limits{MaxBucket: 8, Window: 3}
	pairs, st := Candidates(p, docs, lim)
	if st.HotBuckets == 0 || st.Skipped == 0 {
		t.Fatalf("no hot bucket: %+v", st)
	}
	for _, pr := range pairs {
		if gap := docs[pr.Set].Size - docs[pr.Query].Size; gap < 1 || gap > lim.Window {
			t.Errorf("pair %v: sizes %d and %d", pr, docs[pr.Query].Size, docs[pr.Set].Size)
		}
	}
	if want := 49 + 48 + 47*3; len(pairs) > want || len(pairs) < 49 {
		t.Errorf("%d pairs, want 49 to %d", len(pairs), want)
	}
	again, _ := Candidates(p, docs, lim)
	if !slices.Equal(pairs, again) {
		t.Error("two runs differ")
	}
}

func ExampleCandidates() {
	// Document 0 holds the 40 elements of document 1 and 80 more;
	// document 2 is unrelated.
	var big, small, other []uint64
	for i := range uint64(120) {
		big = append(big, i)
		other = append(other, i+1000)
	}
	small = big[:40]
	h, _ := minhash.New(128, minhash.Classic, minhash.DefaultSeed)
	docs := []Doc{
		{h.Sketch(make([]uint64, 128), big), 120},
		{h.Sketch(make([]uint64, 128), small), 40},
		{h.Sketch(make([]uint64, 128), other), 120},
	}
	p, _ := NewPlan(DefaultConfig(0.8), []int{120, 40, 120})
	pairs, _ := Candidates(p, docs, DefaultLimits)
	fmt.Println(p.Uppers(), pairs)
	// Output: [40 120] [{1 0}]
}

func BenchmarkCandidates(b *testing.B) {
	r := rand.New(rand.NewPCG(1, 2))
	docs := containedDocs(b, r, 500, 40, 200, 0.9)
	sizes := make([]int, len(docs))
	for i, d := range docs {
		sizes[i] = d.Size
	}
	p, err := NewPlan(DefaultConfig(0.8), sizes)
	if err != nil {
		b.Fatal(err)
	}
	b.ResetTimer()
	for b.Loop() {
		Candidates(p, docs, DefaultLimits)
	}
	b.ReportMetric(float64(len(docs)), "docs/op")
}

func BenchmarkNewPlan(b *testing.B) {
	sizes := []int{10, 20, 40, 80, 160, 320, 640, 1280, 2560, 5120}
	for b.Loop() {
		if _, err := NewPlan(DefaultConfig(0.8), sizes); err != nil {
			b.Fatal(err)
		}
	}
}
