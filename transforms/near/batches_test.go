package near

import (
	"bytes"
	"fmt"
	"math/rand/v2"
	"os"
	"slices"
	"testing"

	"github.com/neardup/neardup/transforms/format/wire"
	"github.com/neardup/neardup/transforms/internal/workfiles"
	"github.com/neardup/neardup/transforms/match/candidates"
)

// testPairChunks makes candidate-pair chunks of n random pairs among docs
// documents, each pair twice (in different chunks, as from two blocks),
// a few pairs a chunk.
func testPairChunks(n, docs int) (chunks [][]byte, all []wire.Pair) {
	r := rand.New(rand.NewPCG(3, 4))
	for range n {
		a := r.IntN(docs - 1)
		p := wire.Pair{A: wire.DocNum(a%3, int64(a)), B: wire.DocNum(r.IntN(3), int64(a+1+r.IntN(docs-a-1)))}
		all = append(all, p, p)
	}
	r.Shuffle(len(all), func(i, j int) { all[i], all[j] = all[j], all[i] })
	var prev wire.Doc
	for i := 0; i < len(all); i += 7 {
		var c []byte
		for _, p := range all[i:min(i+7, len(all))] {
			c = wire.AppendCandidate(c, p, &prev)
		}
		chunks = append(chunks, c)
	}
	return chunks, all
}

// TestSortPairs: whatever the run bytes (in memory; runs of 16, 100 and
// 1,000 pairs, merged in several passes for the smaller) and the batch
// size, the batches are the pairs of uniquePairs, in order, each batch at
// least the size asked unless the last and ending with every pair of its
// last first document; runs written are counted (sort_runs) and removed.
func TestSortPairs(t *testing.T) {
	chunks, all := testPairChunks(5_000, 400)
	want := candidates.Unique(slices.Clone(all))
	for _, run := range []int64{DefaultBatches().PairRunBytes, 16 * wire.PairSize, 100 * wire.PairSize, 1000 * wire.PairSize} {
		for _, n := range []int{1, 7, 1 << 20} {
			t.Run(fmt.Sprintf("run %d batch %d", run, n), func(t *testing.T) {
				work := t.TempDir()
				before := workfiles.Written()[workfiles.KindSortRuns]
				s, err := sortPairs(iterOf(chunks), work, run)
				if err != nil {
					t.Fatal(err)
				}
				var got []wire.Pair
				for {
					b, err := s.batch(n)
					if err != nil {
						t.Fatal(err)
					}
					if len(b) == 0 {
						break
					}
					if len(got) > 0 && got[len(got)-1].A == b[0].A {
						t.Fatalf("document %d's pairs split between batches", b[0].A)
					}
					got = append(got, b...)
					if len(b) < n && len(got) < len(want) {
						t.Errorf("a batch of %d pairs before the last, want at least %d", len(b), n)
					}
				}
				if !slices.Equal(got, want) {
					t.Errorf("%d pairs, want the %d of uniquePairs in order", len(got), len(want))
				}
				spilled := workfiles.Written()[workfiles.KindSortRuns] - before
				if inMemory := run >= int64(len(all))*wire.PairSize; inMemory != (spilled == 0) {
					t.Errorf("%d bytes of runs written, with runs of %d bytes for %d pairs", spilled, run, len(all))
				}
				if err := s.close(); err != nil {
					t.Fatal(err)
				}
				if left, _ := os.ReadDir(work); len(left) > 0 {
					t.Errorf("%d files left in the work directory", len(left))
				}
			})
		}
	}
}

func iterOf(chunks [][]byte) func(*[]byte) bool {
	return func(c *[]byte) bool {
		if len(chunks) == 0 {
			return false
		}
		*c, chunks = chunks[0], chunks[1:]
		return true
	}
}

// TestHalfJoinBatches: HalfJoin of a segment's sorted pairs in batches
// that do not split a first document's pairs gives each destination the
// same records, in the same order, as one HalfJoin of them all.
func TestHalfJoinBatches(t *testing.T) {
	chunks, _ := testPairChunks(3_000, 300)
	pairs, err := uniquePairs(iterOf(chunks))
	if err != nil {
		t.Fatal(err)
	}
	info := func(d wire.Doc) *wire.Info { return &wire.Info{Doc: d, ID: fmt.Sprint(d), Len: int64(d % 1000)} }
	route := func(d wire.Doc) int { return int(d % 5) }
	join := func(batches ...[]wire.Pair) map[int64][]byte {
		out := map[int64][]byte{}
		for _, b := range batches {
			err := HalfJoin(b, info, route, "test", func(k int64, c []byte) { out[k] = append(out[k], c...) }, func(string, int64) {})
			if err != nil {
				t.Fatal(err)
			}
		}
		return out
	}
	want := join(pairs)
	for _, n := range []int{1, 10, 1000} {
		s, err := sortPairs(iterOf(chunks), t.TempDir(), DefaultBatches().PairRunBytes)
		if err != nil {
			t.Fatal(err)
		}
		var batches [][]wire.Pair
		for b, err := s.batch(n); len(b) > 0 || err != nil; b, err = s.batch(n) {
			if err != nil {
				t.Fatal(err)
			}
			batches = append(batches, b)
		}
		s.close()
		got := join(batches...)
		for k := range want {
			if !bytes.Equal(got[k], want[k]) {
				t.Errorf("batches of %d: destination %d: %d bytes of records, want the %d of one HalfJoin", n, k, len(got[k]), len(want[k]))
			}
		}
		if len(got) != len(want) {
			t.Errorf("batches of %d: %d destinations, want %d", n, len(got), len(want))
		}
	}
}

// TestCollectBatch: the batches are copies of the chunks, in order, each
// of at least the bytes asked unless the last.
func TestCollectBatch(t *testing.T) {
	src := [][]byte{[]byte("ab"), []byte("cde"), []byte("f"), []byte("ghij")}
	for _, tc := range []struct {
		n    int64
		want []string
	}{
		{1, []string{"ab", "cde", "f", "ghij"}},
		{3, []string{"abcde", "fghij"}},
		{6, []string{"abcdef", "ghij"}},
		{100, []string{"abcdefghij"}},
	} {
		buf := []byte{}
		iter := func(c *[]byte) bool { // one buffer, as the runner's iterator
			if len(src) == 0 {
				return false
			}
			buf = append(buf[:0], src[0]...)
			*c, src = buf, src[1:]
			return true
		}
		saved := src
		var got []string
		for more := true; more; {
			var chunks [][]byte
			chunks, more = collectBatch(iter, tc.n)
			if len(chunks) > 0 {
				got = append(got, string(bytes.Join(chunks, nil)))
			}
		}
		src = saved
		if !slices.Equal(got, tc.want) {
			t.Errorf("batches of %d bytes: %q, want %q", tc.n, got, tc.want)
		}
	}
}

// TestSortPairsCorrupt: a corrupt chunk fails the sort, in memory or after
// runs were written, and leaves nothing in the work directory.
func TestSortPairsCorrupt(t *testing.T) {
	chunks, _ := testPairChunks(500, 100)
	for _, run := range []int64{DefaultBatches().PairRunBytes, 16 * wire.PairSize} {
		work := t.TempDir()
		bad := append(slices.Clone(chunks), []byte{0x80})
		if _, err := sortPairs(iterOf(bad), work, run); err == nil {
			t.Errorf("runs of %d bytes: a truncated chunk sorted without an error", run)
		}
		if left, _ := os.ReadDir(work); len(left) > 0 {
			t.Errorf("runs of %d bytes: %d files left in the work directory", run, len(left))
		}
	}
}

// uniquePairs decodes the candidate-pair chunks of iter, sorted and without
// repeats (a pair met in several blocks arrives once per block).
func uniquePairs(iter func(*[]byte) bool) ([]wire.Pair, error) {
	var pairs []wire.Pair
	var chunk []byte
	var err error
	for iter(&chunk) {
		if pairs, err = wire.AppendCandidates(pairs, chunk); err != nil {
			return nil, err
		}
	}
	return candidates.Unique(pairs), nil
}
