package audit

import (
	"cmp"
	"math/rand/v2"
	"slices"
	"testing"

	"github.com/neardup/neardup/transforms/format/index"
	"github.com/neardup/neardup/transforms/job"
	"github.com/neardup/neardup/transforms/match/ensemble"
)

// TestContains checks batchKeys.contains, which searches a key's entries
// by size, against a walk over all of them with ensemble.Levels.Pairs, on
// batches whose few keys are each held by many new documents of every
// size (hot keys), at two thresholds.
func TestContains(t *testing.T) {
	for _, threshold := range []float64{0.8, 0.5} {
		cfg := job.DefaultConfig()
		cfg.Containment = threshold
		levels, err := ensemble.NewLevels(cfg.ContainOptions())
		if err != nil {
			t.Fatal(err)
		}
		bands := levels.KeysPerDoc()
		rng := rand.New(rand.NewPCG(uint64(bands), 7))
		randSize := func() int64 { return int64(1 + rng.IntN(1<<rng.IntN(14))) } // 1 to 16k, most small
		bk := batchKeys{levels: levels}
		for range 3000 {
			bk.contain = append(bk.contain, containKey{uint64(rng.IntN(5)), index.ContainFP(randSize(), uint8(rng.IntN(bands)))})
		}
		slices.SortFunc(bk.contain, func(a, b containKey) int { return cmp.Or(cmp.Compare(a.key, b.key), cmp.Compare(a.fp, b.fp)) })
		bk.contain = slices.Compact(bk.contain)
		walk := func(k, fp uint64) bool {
			u, band := index.ContainOf(fp)
			for _, c := range bk.contain {
				q, b := index.ContainOf(c.fp)
				if c.key == k && b == band && levels.Pairs(band, int(min(q, u)), int(max(q, u))) {
					return true
				}
			}
			return false
		}
		found := 0
		for range 20000 {
			k, fp := uint64(rng.IntN(6)), index.ContainFP(randSize(), uint8(rng.IntN(bands+1)))
			got, want := bk.contains(k, fp), walk(k, fp)
			if got != want {
				u, band := index.ContainOf(fp)
				t.Fatalf("threshold %v: contains(key %d, size %d, band %d) = %v, a walk says %v", threshold, k, u, band, got, want)
			}
			if want {
				found++
			}
		}
		if found < 1000 || found > 19000 {
			t.Errorf("threshold %v: %d of 20,000 lookups pair: the test does not try both answers", threshold, found)
		}
	}
}

// BenchmarkContains looks up an entry of a key that 100,000 new documents
// hold, of a size and band that pair with none of them.
func BenchmarkContains(b *testing.B) {
	cfg := job.DefaultConfig()
	cfg.Containment = 0.8
	levels, err := ensemble.NewLevels(cfg.ContainOptions())
	if err != nil {
		b.Fatal(err)
	}
	band := uint8(0) // a band whose size ratios end before 1,000
	for ; int(band) < levels.KeysPerDoc(); band++ {
		if _, hi := levels.SizeRange(band, 10); hi < 1000 {
			break
		}
	}
	bk := batchKeys{levels: levels}
	for i := range 100_000 {
		bk.contain = append(bk.contain, containKey{1, index.ContainFP(int64(1000+i), band)})
	}
	fp := index.ContainFP(10, band)
	if bk.contains(1, fp) {
		b.Fatalf("size 10 pairs with sizes from 1,000 in band %d", band)
	}
	for b.Loop() {
		bk.contains(1, fp)
	}
}
