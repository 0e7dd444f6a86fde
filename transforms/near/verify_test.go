package near

import (
	"testing"

	"github.com/apache/beam/sdks/v2/go/pkg/beam"
	"github.com/apache/beam/sdks/v2/go/pkg/beam/testing/passert"

	"github.com/neardup/neardup/transforms/exact"
	"github.com/neardup/neardup/transforms/format/output"
	"github.com/neardup/neardup/transforms/format/wire"
	"github.com/neardup/neardup/transforms/ingest"
	"github.com/neardup/neardup/transforms/jobfiles"
	"github.com/neardup/neardup/transforms/match/verify"
	"github.com/neardup/neardup/transforms/sign"
	"github.com/neardup/neardup/transforms/stagetest"
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
			cfg := stagetest.Config(t)
			cfg.Verify = stagetest.Must(verify.ParseMode(tc.mode))
			in := t.TempDir()
			text := stagetest.Text(1, 60)
			paths := []string{
				stagetest.Input(t, in, "f0.jsonl", stagetest.JSON("a", text), stagetest.JSON("c", stagetest.Text(2, 60))),
				stagetest.Input(t, in, "f1.jsonl", stagetest.JSON("x", stagetest.Text(3, 60)), stagetest.JSON("a2", stagetest.Near(text, 30))),
			}
			var pairs []byte
			var prev wire.Doc
			for _, p := range []wire.Pair{{A: wire.DocNum(0, 0), B: wire.DocNum(0, 1)}, {A: wire.DocNum(0, 0), B: wire.DocNum(1, 1)}} {
				pairs = wire.AppendCandidate(pairs, p, &prev)
			}

			p, s := beam.NewPipelineWithRoot()
			files := stagetest.Files(t, s, paths, cfg.Branches)
			keys, _, _, segs, _ := ingest.Read(s, ingest.OptionsFor(cfg), files)
			_, skips, _ := exact.ExactDuplicates(s, exact.OptionsFor(cfg), keys)
			entries := sign.Signatures(s, sign.OptionsFor(cfg), segs, skips)
			// The pairs wait for the signature pass, which writes the info
			// shards Verify reads (in a run, they come from its entries).
			cands := beam.Flatten(s, stagetest.Chunks(s, stagetest.Chunk{Key: 0, Chunk: pairs}), beam.ParDo(s, jobfiles.WaitFor, beam.Flatten(s, entries...)))
			matches, st := Verify(s, OptionsFor(cfg), files, cands)
			passert.Equals(s, beam.ParDo(s, &stagetest.DecodeFn{Kind: "match", MinJ: cfg.Threshold}, matches), "0/a-a2:minhash")
			passert.Equals(s, stagetest.Stats(s, st, output.StatCandidates, output.StatUnsure, output.StatByEstimate, output.StatByExact), tc.stats...)
			stagetest.Shuffled(s, st, output.ShuffleMatches, 0, 0, matches)
			stagetest.Run(t, p)
		})
	}
}
