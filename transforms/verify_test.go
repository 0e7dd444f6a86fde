package transforms

import (
	"testing"

	"github.com/apache/beam/sdks/v2/go/pkg/beam"
	"github.com/apache/beam/sdks/v2/go/pkg/beam/testing/passert"

	"github.com/neardup/neardup/transforms/format/output"
	"github.com/neardup/neardup/transforms/format/wire"
	"github.com/neardup/neardup/transforms/internal/rounds"
)

// TestVerifyStage: given the candidate pairs (a, a2), a near-duplicate,
// and (a, c), two unrelated texts, with the infos the signature pass wrote,
// Verify accepts (a, a2) with a Jaccard at or above the threshold and
// drops (a, c): decided by the MinHash estimate (verify=estimate), or by
// the exact Jaccard of both pairs (verify=exact, through ExactChecks).
func TestVerifyStage(t *testing.T) {
	for _, tc := range []struct {
		mode  string
		stats []any
	}{
		{"estimate", []any{"candidate_pairs=2", "exact_checks=0", "verified_by_estimate=1"}}, // no exact check: no verified_exactly,
		{"exact", []any{"candidate_pairs=2", "exact_checks=2", "verified_by_estimate=0", "verified_exactly=1"}},
	} {
		t.Run(tc.mode, func(t *testing.T) {
			cfg := stageConfig(t)
			cfg.Verify = tc.mode
			in := t.TempDir()
			text := stageText(1, 60)
			paths := []string{
				stageInput(t, in, "f0.jsonl", stageJSON("a", text), stageJSON("c", stageText(2, 60))),
				stageInput(t, in, "f1.jsonl", stageJSON("x", stageText(3, 60)), stageJSON("a2", stageNear(text, 30))),
			}
			var pairs []byte
			var prev wire.Doc
			for _, p := range []wire.Pair{{A: wire.DocNum(0, 0), B: wire.DocNum(0, 1)}, {A: wire.DocNum(0, 0), B: wire.DocNum(1, 1)}} {
				pairs = wire.AppendCandidate(pairs, p, &prev)
			}

			p, s := beam.NewPipelineWithRoot()
			files := stageFiles(t, s, paths, cfg.Branches)
			keys, _, _, segs, _ := Read(s, cfg, files)
			_, skips, _ := ExactDuplicates(s, cfg, keys)
			_, signStats := Signatures(s, cfg, segs, skips)
			// The pairs wait for the signature pass, which writes the info
			// shards Verify reads (in a run, they come from its entries).
			cands := beam.Flatten(s, stageChunks(s, stageChunk{Key: 0, Chunk: pairs}), beam.ParDo(s, rounds.After, signStats))
			matches, st := Verify(s, cfg, files, cands)
			passert.Equals(s, beam.ParDo(s, &stageDecodeFn{Kind: "match", MinJ: cfg.Threshold}, matches), "0/a-a2:minhash")
			passert.Equals(s, stageStats(s, st, output.StatCandidates, output.StatUnsure, output.StatByEstimate, output.StatByExact), tc.stats...)
			stageShuffled(s, st, output.ShuffleMatches, 0, 0, matches)
			stageRun(t, p)
		})
	}
}
