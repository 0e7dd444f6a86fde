package cluster

import (
	"fmt"
	"testing"

	"github.com/apache/beam/sdks/v2/go/pkg/beam"
	"github.com/apache/beam/sdks/v2/go/pkg/beam/testing/passert"

	"github.com/neardup/neardup/transforms/format/summary"
	"github.com/neardup/neardup/transforms/format/wire"
	"github.com/neardup/neardup/transforms/internal/tally"
	"github.com/neardup/neardup/transforms/job"
	"github.com/neardup/neardup/transforms/stagetest"
)

// TestClustersStage: the matches a-b, b-c and d-e give the components
// {a, b, c} and {d, e}. Decided longest first, c is kept, b removed for c,
// and a, whose only match is b, kept; d is kept (of d and e, of equal
// length, the first) and e removed. With --clusters components each
// component is one cluster that keeps its longest document and removes the
// others. Each line is keyed by the file of its smallest document and named
// after it; with the star rounds or without (the one-worker remainder takes
// every edge); with the matches and Clusters' own shuffles spilled (Spill)
// or not.
func TestClustersStage(t *testing.T) {
	docs := map[string]wire.Doc{
		"a": wire.DocNum(0, 0), "c": wire.DocNum(0, 1), "b": wire.DocNum(1, 2), // b after c in document order
		"d": wire.DocNum(1, 0), "e": wire.DocNum(1, 1),
	}
	lens := map[string]int64{"a": 10, "b": 20, "c": 30, "d": 15, "e": 15}
	match := func(x, y string) wire.Match {
		if docs[x] > docs[y] {
			x, y = y, x
		}
		return wire.Match{A: docs[x], B: docs[y], IDA: x, IDB: y, LenA: lens[x], LenB: lens[y], Jaccard: 0.9, Method: wire.MinHash}
	}
	for _, v := range []struct {
		rounds int
		spill  bool
		rule   job.ClusterRule
	}{{0, false, job.ClustersKept}, {job.DefaultCCRounds, false, job.ClustersKept}, {0, true, job.ClustersKept}, {job.DefaultCCRounds, true, job.ClustersKept},
		{0, false, job.ClustersComponents}, {job.DefaultCCRounds, true, job.ClustersComponents}} {
		t.Run(fmt.Sprintf("rounds=%d,spill=%v,clusters=%v", v.rounds, v.spill, v.rule), func(t *testing.T) {
			cfg := stagetest.Config(t)
			cfg.CCRounds, cfg.Spill, cfg.Clusters = v.rounds, v.spill, v.rule
			p, s := beam.NewPipelineWithRoot()
			// Matches grouped by the file of A, as a run groups them; b-c
			// comes twice (from two files' chunks), as from two stages.
			matches := GroupMatches(s, cfg.WorkDir(), stagetest.Chunks(s,
				stagetest.MatchChunk(match("a", "b"), match("c", "b")),
				stagetest.MatchChunk(match("b", "c")),
				stagetest.MatchChunk(match("d", "e"))))
			clusters, removes, _, st := Clusters(s, OptionsFor(cfg), matches)
			if v.rule == job.ClustersComponents {
				passert.Equals(s, stagetest.Decode(s, "cluster", 0, clusters), "0/a:3:c:a,c,b", "1/d:2:d:d,e")
				passert.Equals(s, stagetest.Decode(s, "lines", 0, removes), "0:0", "1:2", "1:1")
				passert.Equals(s, stagetest.Stats(s, st, summary.StatClusters, summary.StatClustered, summary.StatRemoved, summary.StatComponents),
					"clusters=2", "clustered_documents=5", "removed=3", "components=2")
			} else {
				passert.Equals(s, stagetest.Decode(s, "cluster", 0, clusters), "0/c:2:c:c,b", "1/d:2:d:d,e")
				passert.Equals(s, stagetest.Decode(s, "lines", 0, removes), "1:2", "1:1")
				passert.Equals(s, stagetest.Stats(s, st, summary.StatClusters, summary.StatClustered, summary.StatRemoved, summary.StatComponents),
					"clusters=2", "clustered_documents=4", "removed=2", "components=2")
			}
			stagetest.Shuffled(s, st, tally.ShuffleOutLines, 0, 0, clusters)
			stagetest.Shuffled(s, st, tally.ShuffleRemoved, 0, 0, removes)
			stagetest.Run(t, p)
			if v.rule == job.ClustersComponents {
				stagetest.SpillKinds(t, cfg, "matches", "edges", "members")
			} else {
				stagetest.SpillKinds(t, cfg, "matches", "edges", "members", "links")
			}
		})
	}
}
