package audit

import (
	"context"
	"fmt"
	"maps"
	"slices"
	"strings"
	"testing"

	"github.com/neardup/neardup/transforms/cluster"
	"github.com/neardup/neardup/transforms/format/summary"
	"github.com/neardup/neardup/transforms/format/wire"
	"github.com/neardup/neardup/transforms/internal/tally"
	"github.com/neardup/neardup/transforms/job"
	"github.com/neardup/neardup/transforms/jobfiles/filelist"
	"github.com/neardup/neardup/transforms/jobfiles/spilled"
	"github.com/neardup/neardup/transforms/match/verify"
	"github.com/neardup/neardup/transforms/near"
	"github.com/neardup/neardup/transforms/stagetest"
)

// shuffleTap runs DoFns by hand, as a runner would, and checks their
// shuffle tallies: every output chunk is measured as emitted and kept by
// key for the next step, and every stat is summed.
type shuffleTap struct {
	measured map[string][2]int64 // by shuffle: bytes, elements
	stats    map[string]int64
}

func newShuffleTap() *shuffleTap {
	return &shuffleTap{measured: map[string][2]int64{}, stats: map[string]int64{}}
}

// emit returns an emitter into shuffle name that keeps the chunks in into
// (nil: measured only).
func (tp *shuffleTap) emit(name string, into map[int][][]byte) func(int64, []byte) {
	return func(k int64, c []byte) {
		m := tp.measured[name]
		m[0] += int64(len(c))
		m[1]++
		tp.measured[name] = m
		if into != nil {
			into[int(k)] = append(into[int(k)], slices.Clone(c))
		}
	}
}

func (tp *shuffleTap) emitStat(name string, v int64) { tp.stats[name] += v }

// check fails unless the tallies equal what was measured, for every
// shuffle measured or tallied, and every shuffle in want was used.
func (tp *shuffleTap) check(t *testing.T, want ...string) {
	t.Helper()
	tallied := map[string][2]int64{}
	for name, v := range tp.stats {
		if s, ok := strings.CutPrefix(name, summary.ShuffleBytesPrefix); ok {
			x := tallied[s]
			x[0] = v
			tallied[s] = x
		} else if s, ok := strings.CutPrefix(name, summary.ShuffleElementsPrefix); ok {
			x := tallied[s]
			x[1] = v
			tallied[s] = x
		}
	}
	if !maps.Equal(tallied, tp.measured) {
		t.Errorf("shuffle tallies (bytes, elements) %v, measured %v", tallied, tp.measured)
	}
	for _, name := range want {
		if m := tp.measured[name]; m[0] <= 0 || m[1] <= 0 {
			t.Errorf("nothing emitted into shuffle %s", name)
		}
	}
}

// TestClustersShuffleTallies runs the steps of Clusters by hand over a
// chain of matches long enough that the star rounds leave edges for the
// remainder, and checks every step's tallies of the edges, assignments,
// members, cluster lines and removed lines against the chunks it emitted.
func TestClustersShuffleTallies(t *testing.T) {
	var ms []wire.Match
	for i := range 40 { // a path 0-1-2-...-40 in document order, then a star around 100
		a, b := wire.DocNum(0, int64(i)), wire.DocNum(0, int64(i+1))
		ms = append(ms, wire.Match{A: a, B: b, IDA: "x", IDB: "y", LenA: 10, LenB: 10, Jaccard: 0.9, Method: wire.MinHash})
	}
	for i := range 10 {
		ms = append(ms, wire.Match{A: wire.DocNum(0, 100), B: wire.DocNum(1, int64(100+i)), IDA: "c", IDB: "l", LenA: 5, LenB: 5, Jaccard: 1, Method: wire.Exact})
	}
	slices.SortFunc(ms, func(x, y wire.Match) int { return int(x.A) - int(y.A) })
	for _, tc := range []struct {
		rounds int
		rule   job.ClusterRule
	}{{0, job.ClustersKept}, {1, job.ClustersKept}, {job.DefaultCCRounds, job.ClustersKept}, {0, job.ClustersComponents}, {job.DefaultCCRounds, job.ClustersComponents}} {
		rounds := tc.rounds
		t.Run(fmt.Sprintf("rounds=%d,clusters=%v", rounds, tc.rule), func(t *testing.T) {
			ctx := context.Background()
			cfg := stagetest.Config(t)
			cfg.CCRounds = rounds
			cfg.Clusters = tc.rule
			tp := newShuffleTap()
			edges, members, links := map[int][][]byte{}, map[int][][]byte{}, map[int][][]byte{}
			if err := (&cluster.EdgesFn{Work: cfg.WorkDir(), Partitions: cfg.CCPartitions, Links: tc.rule == job.ClustersKept}).ProcessElement(ctx, 0, spilled.IterOf([][]byte{stagetest.MatchChunk(ms...).Chunk}),
				tp.emit(tally.ShuffleEdges, edges), tp.emit(tally.ShuffleMembers, members), tp.emit(tally.ShuffleLinks, links), tp.emitStat); err != nil {
				t.Fatal(err)
			}
			step := func(large bool) {
				next := map[int][][]byte{}
				for _, k := range slices.Sorted(maps.Keys(edges)) {
					if err := (&cluster.StarFn{Work: cfg.WorkDir(), Partitions: cfg.CCPartitions, Large: large}).ProcessElement(ctx, int64(k), spilled.IterOf(edges[k]), tp.emit(tally.ShuffleEdges, next), tp.emitStat); err != nil {
						t.Fatal(err)
					}
				}
				edges = next
			}
			for range rounds {
				step(true)
				step(false)
			}
			stars, leaves, rest := map[int][][]byte{}, map[int][][]byte{}, map[int][][]byte{}
			for _, k := range slices.Sorted(maps.Keys(edges)) {
				if err := (&cluster.SettleFn{Work: cfg.WorkDir(), Partitions: cfg.CCPartitions}).ProcessElement(ctx, int64(k), spilled.IterOf(edges[k]), tp.emit(tally.ShuffleEdges, stars),
					tp.emit(tally.ShuffleEdges, leaves), tp.emit(tally.ShuffleEdges, rest), tp.emitStat); err != nil {
					t.Fatal(err)
				}
			}
			assigns := map[int][][]byte{}
			for k := range cfg.CCPartitions {
				if err := (&cluster.ResolveFn{Work: cfg.WorkDir(), Partitions: cfg.CCPartitions}).ProcessElement(ctx, int64(k), spilled.IterOf(stars[k]), spilled.IterOf(leaves[k]),
					tp.emit(tally.ShuffleAssignments, assigns), tp.emit(tally.ShuffleEdges, rest), tp.emitStat); err != nil {
					t.Fatal(err)
				}
			}
			if err := (&cluster.RemainderFn{Work: cfg.WorkDir(), Partitions: cfg.CCPartitions}).ProcessElement(ctx, 0, spilled.IterOf(rest[0]), tp.emit(tally.ShuffleAssignments, assigns), tp.emitStat); err != nil {
				t.Fatal(err)
			}
			rooted, rootLinks := map[int][][]byte{}, map[int][][]byte{}
			for k := range cfg.CCPartitions {
				if err := (&cluster.MembersFn{Work: cfg.WorkDir(), Partitions: cfg.CCPartitions}).ProcessElement(ctx, int64(k), spilled.IterOf(members[k]), spilled.IterOf(assigns[k]), spilled.IterOf(links[k]),
					tp.emit(tally.ShuffleMembers, rooted), tp.emit(tally.ShuffleLinks, rootLinks), tp.emitStat); err != nil {
					t.Fatal(err)
				}
			}
			for _, k := range slices.Sorted(maps.Keys(rooted)) {
				if err := (&cluster.ClusterFn{Work: cfg.WorkDir(), Partitions: cfg.CCPartitions, Lines: cluster.OptionsFor(cfg).Lines}).ProcessElement(ctx, int64(k), spilled.IterOf(rooted[k]), spilled.IterOf(rootLinks[k]),
					tp.emit(tally.ShuffleOutLines, nil), tp.emit(tally.ShuffleRemoved, nil), func(int64, []byte) {}, tp.emitStat); err != nil {
					t.Fatal(err)
				}
			}
			if tp.stats[summary.StatComponents] != 2 {
				t.Errorf("%d components, want 2", tp.stats[summary.StatComponents])
			}
			// The path of 41 documents of one length keeps every other one:
			// 20 clusters of a kept document and the next, removed for it
			// (the last, 40, is kept with nothing removed for it); the star
			// keeps its centre.
			wantClusters, wantClustered, wantRemoved := int64(20+1), int64(40+11), int64(20+10)
			shuffles := []string{tally.ShuffleEdges, tally.ShuffleAssignments, tally.ShuffleMembers, tally.ShuffleLinks, tally.ShuffleOutLines, tally.ShuffleRemoved}
			if tc.rule == job.ClustersComponents {
				wantClusters, wantClustered, wantRemoved = 2, 41+11, 40+10
				shuffles = slices.DeleteFunc(shuffles, func(s string) bool { return s == tally.ShuffleLinks })
			}
			if c, n, r := tp.stats[summary.StatClusters], tp.stats[summary.StatClustered], tp.stats[summary.StatRemoved]; c != wantClusters || n != wantClustered || r != wantRemoved {
				t.Errorf("clusters %d covering %d documents, %d removed; want %d covering %d, %d removed", c, n, r, wantClusters, wantClustered, wantRemoved)
			}
			tp.check(t, shuffles...)
		})
	}
}

// TestVerifyShuffleTallies checks the tallies of the join's half records,
// the matches and the unsure pairs of halfJoin and verifyHalves (the steps
// Verify and an audit share) against the chunks they emit.
func TestVerifyShuffleTallies(t *testing.T) {
	cfg := stagetest.Config(t)
	cfg.Verify = verify.Auto
	infos := map[wire.Doc]*wire.Info{}
	var pairs []wire.Pair
	for i := range 300 {
		a, b := wire.DocNum(i%2, int64(i)), wire.DocNum(2+i%3, int64(i))
		var ia, ib wire.Info
		ia.Doc, ia.ID, ia.Len = a, fmt.Sprint("a", i), 100
		ib.Doc, ib.ID, ib.Len = b, fmt.Sprint("b", i), 100
		ia.Sketch, ib.Sketch = make([]uint8, 128), make([]uint8, 128)
		for k := range ia.Sketch { // agreeing on i of the sketch's bytes: accepted, unsure and rejected pairs
			ia.Sketch[k] = byte(k)
			ib.Sketch[k] = byte(k)
			if k >= i*len(ia.Sketch)/300 {
				ib.Sketch[k]++
			}
		}
		infos[a], infos[b] = &ia, &ib
		pairs = append(pairs, wire.Pair{A: a, B: b})
	}
	slices.SortFunc(pairs, func(x, y wire.Pair) int { return int(x.A) - int(y.A) })
	info := func(d wire.Doc) *wire.Info { return infos[d] }
	tp := newShuffleTap()
	halves := map[int][][]byte{}
	if err := near.HalfJoin(pairs, info, wire.File, "test", tp.emit(tally.ShuffleHalves, halves), tp.emitStat); err != nil {
		t.Fatal(err)
	}
	for _, k := range slices.Sorted(maps.Keys(halves)) {
		if err := near.VerifyHalves(cfg.VerifyConfig(), cfg.WorkDir().SegmentBits, spilled.IterOf(halves[k]), info, "test", tp.emit(tally.ShuffleMatches, nil), tp.emit(tally.ShuffleUnsure, nil), tp.emitStat); err != nil {
			t.Fatal(err)
		}
	}
	tp.check(t, tally.ShuffleHalves, tally.ShuffleMatches, tally.ShuffleUnsure)
}

// TestExactCheckShuffleTallies runs the two halves of the exact check by
// hand (their work on other goroutines, emitted when drained) and checks
// the tallies of the shingle sets and of the matches they emit.
func TestExactCheckShuffleTallies(t *testing.T) {
	ctx := context.Background()
	cfg := stagetest.Config(t)
	in := t.TempDir()
	text := stagetest.Text(1, 60)
	l0 := []string{stagetest.JSON("a", text), stagetest.JSON("c", stagetest.Text(2, 60))}
	l1 := []string{stagetest.JSON("a2", stagetest.Near(text, 10)), stagetest.JSON("c2", stagetest.Near(stagetest.Text(2, 60), 10))}
	manifest := stagetest.Manifest(t, []filelist.Ref{{Index: 0, Path: stagetest.Input(t, in, "f0.jsonl", l0...)}, {Index: 1, Path: stagetest.Input(t, in, "f1.jsonl", l1...)}})
	unsure := stagetest.MatchChunk(
		wire.Match{A: wire.DocNum(0, 0), B: wire.DocNum(1, 0), IDA: "a", IDB: "a2", LenA: 1, LenB: 1, Jaccard: 0.5, Method: wire.MinHash},
		wire.Match{A: wire.DocNum(0, 1), B: wire.DocNum(1, 1), IDA: "c", IDB: "c2", LenA: 1, LenB: 1, Jaccard: 0.5, Method: wire.MinHash},
		wire.Match{A: wire.DocNum(0, 0), B: wire.DocNum(1, 1), IDA: "a", IDB: "c2", LenA: 1, LenB: 1, Jaccard: 0.5, Method: wire.MinHash})
	tp := newShuffleTap()
	sets := map[int][][]byte{}
	first := &near.ShingleSetsFn{Check: near.ShingleChecks{Work: cfg.WorkDir(), Sign: cfg.Signing(), Read: cfg.Reading(), Manifest: manifest}}
	if err := first.Setup(ctx); err != nil {
		t.Fatal(err)
	}
	emitSet := tp.emit(tally.ShuffleSets, sets)
	if err := first.ProcessElement(ctx, 0, spilled.IterOf([][]byte{unsure.Chunk}), emitSet, tp.emitStat); err != nil {
		t.Fatal(err)
	}
	if err := first.FinishBundle(ctx, emitSet, tp.emitStat); err != nil {
		t.Fatal(err)
	}
	second := &near.ExactJaccardFn{Check: near.ShingleChecks{Work: cfg.WorkDir(), Sign: cfg.Signing(), Read: cfg.Reading(), Manifest: manifest}, Verify: cfg.VerifyConfig()}
	if err := second.Setup(ctx); err != nil {
		t.Fatal(err)
	}
	emitMatch := tp.emit(tally.ShuffleMatches, nil)
	for _, k := range slices.Sorted(maps.Keys(sets)) {
		if err := second.ProcessElement(ctx, int64(k), spilled.IterOf(sets[k]), emitMatch, tp.emitStat); err != nil {
			t.Fatal(err)
		}
	}
	if err := second.FinishBundle(ctx, emitMatch, tp.emitStat); err != nil {
		t.Fatal(err)
	}
	if tp.stats[summary.StatByExact] != 2 {
		t.Errorf("verified exactly %d, want 2 (a-a2, c-c2)", tp.stats[summary.StatByExact])
	}
	tp.check(t, tally.ShuffleSets, tally.ShuffleMatches)
}
