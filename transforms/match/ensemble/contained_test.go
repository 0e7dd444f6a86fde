package ensemble

import (
	"cmp"
	"math"
	"math/rand/v2"
	"slices"
	"testing"

	"github.com/neardup/neardup/transforms/format/wire"
	"github.com/neardup/neardup/transforms/match/candidates"
)

// Levels is the size rule of the containment buckets.
var _ candidates.SizeRule = (*Levels)(nil)

// sizedEntries returns the SizedEntry of every key of docs under l, with
// the keys' low wire.KeyBits bits as the shuffle carries them; document i
// is number i.
func sizedEntries(l *Levels, docs []Doc) []wire.SizedEntry {
	var es []wire.SizedEntry
	var keys []Key
	for i, d := range docs {
		keys = l.AppendKeys(keys[:0], d.Sig, d.Size)
		for _, k := range keys {
			es = append(es, wire.SizedEntry{Key: k.Hash & (1<<wire.KeyBits - 1), Doc: wire.Doc(i), Size: uint32(d.Size), Band: k.Band})
		}
	}
	return es
}

// TestLevelsContained runs containment candidates end to end, Levels keys
// through SortSizedBuf and AppendContained: a random set of 200 elements
// inside one of 1000 (documents 2i+1 and 2i) is a candidate, at C = 0.8
// and 0.9, in each of 20 trials; the unrelated pairs (across trials) are
// rarely.
func TestLevelsContained(t *testing.T) {
	for _, c := range []float64{0.8, 0.9} {
		l := testLevels(t, c, 5)
		r := rand.New(rand.NewPCG(7, uint64(c*10)))
		docs := containedDocs(t, r, 20, 200, 1000, 1)
		sorted, _ := candidates.SortSizedBuf(sizedEntries(l, docs), nil)
		var st candidates.Stats
		pairs := candidates.Unique(candidates.AppendContained(nil, sorted, l, candidates.Limits{MaxBucket: 256, Window: 16}, &st))
		hits := 0
		for i := 0; i < len(docs); i += 2 {
			if _, ok := slices.BinarySearchFunc(pairs, wire.Pair{A: wire.Doc(i), B: wire.Doc(i + 1)}, cmpPair); ok {
				hits++
			}
		}
		if hits != 20 {
			t.Errorf("C=%v: %d of 20 contained pairs found", c, hits)
		}
		if unrelated := len(pairs) - hits; unrelated > 2 {
			t.Errorf("C=%v: %d unrelated pairs (%+v)", c, unrelated, st)
		}
	}
}

func cmpPair(x, y wire.Pair) int { return cmp.Or(cmp.Compare(x.A, y.A), cmp.Compare(x.B, y.B)) }

// BenchmarkAppendContained pairs a partition of 100k containment entries
// under Levels at C = 0.8, MaxLevel 5: buckets of 2.5 documents on
// average, sizes log-uniform in [10, 10^4), every band, and one hot
// bucket of 5000 documents.
func BenchmarkAppendContained(b *testing.B) {
	const n = 100_000
	l := testLevels(b, 0.8, 5)
	r := rand.New(rand.NewPCG(1, 2))
	size := func() uint32 { return uint32(10 * math.Pow(1000, r.Float64())) }
	es := make([]wire.SizedEntry, 0, n)
	for range n - 5000 {
		es = append(es, wire.SizedEntry{Key: r.Uint64N(n * 2 / 5), Doc: r.Uint64N(1 << 30), Size: size(), Band: uint8(r.IntN(l.KeysPerDoc()))})
	}
	for i := range 5000 {
		es = append(es, wire.SizedEntry{Key: 1 << 39, Doc: uint64(i), Size: size(), Band: 0})
	}
	sorted, _ := candidates.SortSizedBuf(es, nil)
	lim := candidates.Limits{MaxBucket: 256, Window: 16}
	var st candidates.Stats
	dst := candidates.AppendContained(nil, sorted, l, lim, &st)
	b.ReportAllocs()
	b.ResetTimer()
	for b.Loop() {
		dst = candidates.AppendContained(dst[:0], sorted, l, lim, &st)
	}
	b.ReportMetric(float64(len(dst)), "pairs/op")
	b.ReportMetric(float64(b.Elapsed().Nanoseconds())/float64(b.N)/n, "ns/entry")
}
