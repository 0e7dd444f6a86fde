package tune

import (
	"bytes"
	"fmt"
	"math/rand/v2"
	"strings"
	"testing"
)

// corpus returns n unrelated 200-word documents plus, for the first k of
// them, a copy with one word in fifty replaced (Jaccard about 0.8-0.9 at
// 5-word shingles).
func corpus(n, k int) []string {
	r := rand.New(rand.NewPCG(1, 2))
	word := func() string { return fmt.Sprintf("w%d", r.IntN(20000)) }
	var docs []string
	for i := 0; i < n; i++ {
		w := make([]string, 200)
		for j := range w {
			w[j] = word()
		}
		docs = append(docs, strings.Join(w, " "))
	}
	for i := 0; i < k; i++ {
		w := strings.Fields(docs[i])
		for j := 0; j < len(w); j += 50 {
			w[j] = word()
		}
		docs = append(docs, strings.Join(w, " "))
	}
	return docs
}

func TestRun(t *testing.T) {
	docs := corpus(300, 40)
	r, err := Run(docs, DefaultOptions(0.8))
	if err != nil {
		t.Fatal(err)
	}
	// Four replaced words of 200 change at most 20 of 196 shingles: every
	// planted pair has J >= 0.8, and unrelated random documents share none.
	if r.Pairs != 40 || r.ShingleSizes[0].PairsAbove != 40 {
		t.Errorf("found %d pairs (%d >= 0.8), want 40 planted pairs", r.Pairs, r.ShingleSizes[0].PairsAbove)
	}
	var chosen int
	for _, b := range r.Bands {
		if b.Chosen {
			chosen++
			if b.Perms == 128 && (b.Bands != 18 || b.Rows != 7) {
				t.Errorf("chosen banding for 128 permutations %dx%d, want 18x7", b.Bands, b.Rows)
			}
		}
		if b.ExpectedRecall < 0 || b.ExpectedRecall > 1 || b.MeasuredRecall < 0 || b.MeasuredRecall > 1 {
			t.Errorf("%dx%d: recall out of range: %+v", b.Bands, b.Rows, b)
		}
	}
	total := 0
	for _, l := range r.Lengths {
		total += l.Pairs
		if l.MeasuredRecall < 0 || l.MeasuredRecall > 1 || l.ExpectedRecall < 0 || l.ExpectedRecall > 1 {
			t.Errorf("length class %s: recall out of range: %+v", l.Class, l)
		}
	}
	if total != r.ShingleSizes[0].PairsAbove {
		t.Errorf("the length classes hold %d pairs, want all %d at J >= 0.8", total, r.ShingleSizes[0].PairsAbove)
	}
	if chosen != len(DefaultOptions(0.8).Perms) {
		t.Errorf("%d chosen designs, want one per permutation count", chosen)
	}
	// Precision of SimHash at k = 0 is 1 (only identical fingerprints) and
	// recall grows with k.
	for k := 1; k < len(r.Hamming); k++ {
		if r.Hamming[k].Recall < r.Hamming[k-1].Recall || r.Hamming[k].Pairs < r.Hamming[k-1].Pairs {
			t.Errorf("k=%d: recall or pairs decreased: %+v after %+v", k, r.Hamming[k], r.Hamming[k-1])
		}
	}
	var out bytes.Buffer
	r.Print(&out, 0.8)
	for _, want := range []string{"<- chosen", "recommended: --shingle char:5", "SimHash alone"} {
		if !strings.Contains(out.String(), want) {
			t.Errorf("report lacks %q", want)
		}
	}
}
