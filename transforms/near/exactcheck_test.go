package near

import (
	"testing"

	"github.com/apache/beam/sdks/v2/go/pkg/beam"
	"github.com/apache/beam/sdks/v2/go/pkg/beam/testing/passert"

	"github.com/neardup/neardup/transforms/format/summary"
	"github.com/neardup/neardup/transforms/format/wire"
	"github.com/neardup/neardup/transforms/internal/tally"
	"github.com/neardup/neardup/transforms/job"
	"github.com/neardup/neardup/transforms/jobfiles/filelist"
	"github.com/neardup/neardup/transforms/sign"
	"github.com/neardup/neardup/transforms/stagetest"
)

// TestExactChecksStage: of the unsure matches (a, a2), near-duplicates in
// two files, and (a, c), unrelated, with placeholder Jaccards, ExactChecks
// re-reads the files and keeps (a, a2) alone, with its exact Jaccard (at
// or above the threshold), keyed by the file of a.
func TestExactChecksStage(t *testing.T) {
	cfg := stagetest.Config(t)
	in := t.TempDir()
	text := stagetest.Text(1, 60)
	l0 := []string{stagetest.JSON("x", stagetest.Text(3, 60)), stagetest.JSON("a", text), stagetest.JSON("c", stagetest.Text(2, 60))}
	l1 := []string{stagetest.JSON("a2", stagetest.Near(text, 10)), stagetest.JSON("c2", stagetest.Near(stagetest.Text(2, 60), 10))}
	paths := map[int]string{0: stagetest.Input(t, in, "f0.jsonl", l0...), 1: stagetest.Input(t, in, "f1.jsonl", l1...)}
	x, a, c, a2, c2 := wire.DocNum(0, 0), wire.DocNum(0, 1), wire.DocNum(0, 2), wire.DocNum(1, 0), wire.DocNum(1, 1)
	unsure := []stagetest.Chunk{
		stagetest.MatchChunk(wire.Match{A: a, B: c, IDA: "a", IDB: "c", LenA: int64(len(l0[1])), LenB: int64(len(l0[2])), Jaccard: 0.5, Method: wire.MinHash}),
		stagetest.MatchChunk(wire.Match{A: a, B: a2, IDA: "a", IDB: "a2", LenA: int64(len(l0[1])), LenB: int64(len(l1[0])), Jaccard: 0.5, Method: wire.MinHash}),
		stagetest.MatchChunk(wire.Match{A: x, B: a2, IDA: "x", IDB: "a2", LenA: int64(len(l0[0])), LenB: int64(len(l1[0])), Jaccard: 0.5, Method: wire.MinHash}),
		stagetest.MatchChunk(wire.Match{A: c, B: c2, IDA: "c", IDB: "c2", LenA: int64(len(l0[2])), LenB: int64(len(l1[1])), Jaccard: 0.5, Method: wire.MinHash}),
	}
	// A limit of one byte checks each chunk as a batch of its own, reading
	// the segment's documents again for each: the same matches.
	for _, limit := range []int64{DefaultBatches().CheckBytes, 1} {
		o := OptionsFor(cfg)
		o.Batches.CheckBytes = limit
		p, s := beam.NewPipelineWithRoot()
		matches, st := ExactChecks(s, o, stagetest.Manifest(t, []filelist.Ref{{Index: 0, Path: paths[0]}, {Index: 1, Path: paths[1]}}), stagetest.Chunks(s, unsure...), stagetest.EmptyStats(s))
		passert.Equals(s, beam.ParDo(s, &stagetest.DecodeFn{Kind: "match", MinJ: cfg.Threshold}, matches), "0/a-a2:minhash", "0/c-c2:minhash")
		passert.Equals(s, stagetest.Stats(s, st, summary.StatByExact), "verified_exactly=2")
		stagetest.Shuffled(s, st, tally.ShuffleMatches, 0, 0, matches)
		stagetest.Run(t, p)
	}
}

// TestSharedSigners: the exact-check DoFns of one configuration share one
// pool of signers in the process; another configuration gets its own, and
// a bad one an error.
func TestSharedSigners(t *testing.T) {
	cfg := job.DefaultConfig()
	a, err := sign.SharedSigners(cfg.Signing())
	if err != nil {
		t.Fatal(err)
	}
	b, err := sign.SharedSigners(cfg.Signing())
	if err != nil || a != b {
		t.Fatalf("same configuration: pools %p and %p (%v), want one", a, b, err)
	}
	other := cfg
	other.Shingle++
	if c, err := sign.SharedSigners(other.Signing()); err != nil || c == a {
		t.Errorf("another shingle size: pool %p (%v), want a pool of its own", c, err)
	}
	bad := cfg
	bad.Shingle = 0
	if _, err := sign.SharedSigners(bad.Signing()); err == nil {
		t.Error("bad configuration: no error")
	}
	s, err := a.Get()
	if err != nil {
		t.Fatal(err)
	}
	a.Put(s)
	if s2, _ := b.Get(); s2 != s {
		t.Error("a signer put back in one DoFn's pool is not the next one another DoFn gets")
	}
}
