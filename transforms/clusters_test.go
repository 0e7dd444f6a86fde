package transforms

import (
	"fmt"
	"testing"

	"github.com/apache/beam/sdks/v2/go/pkg/beam"
	"github.com/apache/beam/sdks/v2/go/pkg/beam/testing/passert"

	"github.com/neardup/neardup/transforms/format/output"
	"github.com/neardup/neardup/transforms/format/wire"
)

// TestClustersStage: the matches a-b, b-c and d-e give the clusters
// {a, b, c} and {d, e}, each line keyed by the file of its smallest
// document and named after it; each cluster keeps its longest document (c;
// of d and e, of equal length, the first: d) and removes the others; with
// the star rounds or without (the one-worker remainder takes every edge);
// with the matches and Clusters' own shuffles spilled (Spill) or not.
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
	}{{0, false}, {DefaultCCRounds, false}, {0, true}, {DefaultCCRounds, true}} {
		t.Run(fmt.Sprintf("rounds=%d,spill=%v", v.rounds, v.spill), func(t *testing.T) {
			cfg := stageConfig(t)
			cfg.CCRounds, cfg.Spill = v.rounds, v.spill
			p, s := beam.NewPipelineWithRoot()
			// Matches grouped by the file of A, as a run groups them; b-c
			// comes twice (from two files' chunks), as from two stages.
			matches := GroupMatches(s, cfg, stageChunks(s,
				stageMatchChunk(match("a", "b"), match("c", "b")),
				stageMatchChunk(match("b", "c")),
				stageMatchChunk(match("d", "e"))))
			clusters, removes, st := Clusters(s, cfg, matches)
			passert.Equals(s, stageDecode(s, "cluster", 0, clusters), "0/a:3:c:a,c,b", "1/d:2:d:d,e")
			passert.Equals(s, stageDecode(s, "lines", 0, removes), "0:0", "1:2", "1:1")
			passert.Equals(s, stageStats(s, st, output.StatClusters, output.StatClustered, output.StatRemoved),
				"clusters=2", "clustered_documents=5", "removed=3")
			stageShuffled(s, st, output.ShuffleOutLines, 0, 0, clusters)
			stageShuffled(s, st, output.ShuffleRemoved, 0, 0, removes)
			stageRun(t, p)
			stageSpillKinds(t, cfg, "matches", "edges", "members")
		})
	}
}
