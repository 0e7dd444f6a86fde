package near

import (
	"fmt"
	"testing"

	"github.com/apache/beam/sdks/v2/go/pkg/beam"
	"github.com/apache/beam/sdks/v2/go/pkg/beam/testing/passert"

	"github.com/neardup/neardup/transforms/exact"
	"github.com/neardup/neardup/transforms/format/summary"
	"github.com/neardup/neardup/transforms/format/wire"
	"github.com/neardup/neardup/transforms/ingest"
	"github.com/neardup/neardup/transforms/internal/tally"
	"github.com/neardup/neardup/transforms/jobfiles/filelist"
	"github.com/neardup/neardup/transforms/match/verify"
	"github.com/neardup/neardup/transforms/sign"
	"github.com/neardup/neardup/transforms/stagetest"
)

// TestVerifyStage: given the candidate pairs (a, a2), a near-duplicate,
// met twice, and (a, c) and (c, a2), unrelated texts, with the infos the
// signature pass wrote, Verify accepts (a, a2) with a Jaccard at or above
// the threshold and drops the others: decided by the MinHash estimate
// (verify=estimate), or by the exact Jaccard of every pair (verify=exact,
// through ExactChecks). So too with the smallest batches: runs of two
// pairs sorted on disk, a first document a join batch, a chunk of half
// joins a verify batch.
func TestVerifyStage(t *testing.T) {
	for _, tc := range []struct {
		mode  string
		small bool
		stats []any
	}{
		{"estimate", false, []any{"candidate_pairs=3", "exact_checks=0", "verified_by_estimate=1"}}, // no exact check: no verified_exactly,
		{"exact", false, []any{"candidate_pairs=3", "exact_checks=3", "verified_by_estimate=0", "verified_exactly=1"}},
		{"estimate", true, []any{"candidate_pairs=3", "exact_checks=0", "verified_by_estimate=1"}},
		{"exact", true, []any{"candidate_pairs=3", "exact_checks=3", "verified_by_estimate=0", "verified_exactly=1"}},
	} {
		t.Run(fmt.Sprintf("%s small %v", tc.mode, tc.small), func(t *testing.T) {
			cfg := stagetest.Config(t)
			cfg.Verify = stagetest.Must(verify.ParseMode(tc.mode))
			o := OptionsFor(cfg)
			if tc.small {
				o.Batches = Batches{PairRunBytes: 1, JoinPairs: 1, VerifyBytes: 1}
			}
			in := t.TempDir()
			text := stagetest.Text(1, 60)
			paths := []string{
				stagetest.Input(t, in, "f0.jsonl", stagetest.JSON("a", text), stagetest.JSON("c", stagetest.Text(2, 60))),
				stagetest.Input(t, in, "f1.jsonl", stagetest.JSON("x", stagetest.Text(3, 60)), stagetest.JSON("a2", stagetest.Near(text, 30))),
			}
			var pairs, again []byte
			var prev, prevAgain wire.Doc
			a, c, a2 := wire.DocNum(0, 0), wire.DocNum(0, 1), wire.DocNum(1, 1)
			for _, p := range []wire.Pair{{A: a, B: a2}, {A: a, B: c}, {A: c, B: a2}} {
				pairs = wire.AppendCandidate(pairs, p, &prev)
			}
			again = wire.AppendCandidate(again, wire.Pair{A: a, B: a2}, &prevAgain)

			p, s := beam.NewPipelineWithRoot()
			files := stagetest.Files(t, s, paths, cfg.Branches)
			keys, _, _, segs, _ := ingest.Read(s, ingest.OptionsFor(cfg), files)
			_, skips, _ := exact.ExactDuplicates(s, exact.OptionsFor(cfg), keys)
			entries := sign.Signatures(s, sign.OptionsFor(cfg), segs, skips)
			// The pairs wait for the signature pass, which writes the info
			// shards Verify reads (in a run, they come from its entries).
			cands := beam.Flatten(s, stagetest.Chunks(s, stagetest.Chunk{Key: 0, Chunk: pairs}, stagetest.Chunk{Key: 0, Chunk: again}), beam.ParDo(s, filelist.WaitFor, beam.Flatten(s, entries...)))
			matches, st := Verify(s, o, files, cands)
			passert.Equals(s, beam.ParDo(s, &stagetest.DecodeFn{Kind: "match", MinJ: cfg.Threshold}, matches), "0/a-a2:minhash")
			passert.Equals(s, stagetest.Stats(s, st, summary.StatCandidates, summary.StatUnsure, summary.StatByEstimate, summary.StatByExact), tc.stats...)
			stagetest.Shuffled(s, st, tally.ShuffleMatches, 0, 0, matches)
			stagetest.Run(t, p)
		})
	}
}
