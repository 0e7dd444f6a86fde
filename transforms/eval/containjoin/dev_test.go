package containjoin

import (
	"errors"
	"slices"
	"testing"

	"github.com/neardup/neardup/transforms/eval/devcorpus"
	"github.com/neardup/neardup/transforms/sketch/signature"
	"github.com/neardup/neardup/transforms/text/normalize"
)

// TestJoinDevCorpus compares Join with the naive join on the first
// documents of the shared dev corpus, shingled as the pipeline shingles
// them (skipped without the corpus, or with -short).
func TestJoinDevCorpus(t *testing.T) {
	if testing.Short() {
		t.Skip("-short")
	}
	all, err := devcorpus.Docs()
	if errors.Is(err, devcorpus.ErrMissing) {
		t.Skip(err)
	}
	if err != nil {
		t.Fatal(err)
	}
	s, err := signature.New(signature.DefaultConfig())
	if err != nil {
		t.Fatal(err)
	}
	docs := make([]Doc, 0, 1200)
	for _, d := range all[:min(len(all), cap(docs))] {
		docs = append(docs, Doc{ID: d.ID, Set: slices.Clone(s.ShingleSet(normalize.Text(d.Text)))})
	}
	for _, th := range []float64{0.5, 0.8} {
		got, err := Join(docs, th)
		if err != nil {
			t.Fatal(err)
		}
		want := naive(docs, th)
		if !slices.Equal(got, want) {
			t.Errorf("t=%v: Join gives %d pairs, the naive join %d", th, len(got), len(want))
		}
		t.Logf("t=%v: %d pairs among %d documents", th, len(got), len(docs))
	}
}
