package near

import (
	"fmt"
	"math/bits"
	"testing"

	"github.com/apache/beam/sdks/v2/go/pkg/beam"
	"github.com/apache/beam/sdks/v2/go/pkg/beam/testing/passert"
	"github.com/apache/beam/sdks/v2/go/pkg/beam/transforms/filter"

	"github.com/neardup/neardup/transforms/format/summary"
	"github.com/neardup/neardup/transforms/format/wire"
	"github.com/neardup/neardup/transforms/internal/rounds"
	"github.com/neardup/neardup/transforms/internal/tally"
	"github.com/neardup/neardup/transforms/job"
	"github.com/neardup/neardup/transforms/jobfiles"
	"github.com/neardup/neardup/transforms/jobfiles/spilled"
	"github.com/neardup/neardup/transforms/match/blocking"
	"github.com/neardup/neardup/transforms/match/blockkeys"
	"github.com/neardup/neardup/transforms/stagetest"
)

type testBand struct {
	key uint64
	doc wire.Doc
}

type testSim struct {
	doc wire.Doc
	fp  uint64
}

// TestCandidatesStage: Candidates proposes exactly the pairs of documents
// that share a MinHash band key, and of those that share a SimHash table
// key within Hamming bits, each keyed by the segment of its first document
// (here of 4 lines, so that a file has several);
// it counts the buckets (keys with two or more documents) and the SimHash
// pairs too far apart.
func TestCandidatesStage(t *testing.T) {
	cfg := stagetest.Config(t)
	cfg.SegmentBits = 2
	tables, err := cfg.SimTables()
	if err != nil {
		t.Fatal(err)
	}
	doc := wire.DocNum
	// Band keys: k1 in two documents, k2 in one, k3 in three.
	const k1, k2, k3 = 0x1234_5678_9abc, 0x0fed_cba9_8765, 0x0bad_cafe_f00d
	bands := []testBand{
		{k1, doc(0, 0)}, {k1, doc(1, 3)},
		{k2, doc(0, 1)},
		{k3, doc(0, 2)}, {k3, doc(0, 5)}, {k3, doc(1, 1)},
	}
	// Fingerprints: fp2 is 2 bits from fp1 (within Hamming 3, so they share
	// a table key); fp3 is 8 bits from both but shares a key with fp1 in
	// some table.
	fp1 := uint64(0x0123_4567_89ab_cdef)
	fp3 := fp1
	for sh := 3; fp3 == fp1 && sh <= 56; sh++ {
		mask := uint64(0xff) << sh
		for i := range tables.Len() {
			if tables.Key(i, fp1) == tables.Key(i, fp1^mask) {
				fp3 = fp1 ^ mask
			}
		}
	}
	sims := []testSim{{doc(0, 4), fp1}, {doc(1, 2), fp1 ^ 0b101}, {doc(1, 4), fp3}}

	// What Candidates must find, from the buckets of the entries.
	pairs := map[string]bool{"0:0-1:3": true, "0:2-0:5": true, "0:2-1:1": true, "0:5-1:1": true}
	buckets, far := 2, 0 // k1 and k3
	for i := range tables.Len() {
		byKey := map[uint64][]testSim{}
		for _, d := range sims {
			k := tables.Key(i, d.fp)
			byKey[k] = append(byKey[k], d)
		}
		for _, ds := range byKey {
			if len(ds) > 1 {
				buckets++
			}
			for a := range ds {
				for _, b := range ds[a+1:] {
					if bits.OnesCount64(ds[a].fp^b.fp) > cfg.Hamming {
						far++
					} else {
						pairs[stagetest.DocStr(ds[a].doc)+"-"+stagetest.DocStr(b.doc)] = true
					}
				}
			}
		}
	}
	if !pairs["0:4-1:2"] || far == 0 {
		t.Fatalf("test fingerprints: pairs %v, far %d", pairs, far)
	}
	var want []string
	for p := range pairs {
		want = append(want, p)
	}

	for _, spilled := range []bool{false, true} {
		t.Run(fmt.Sprintf("spill=%v", spilled), func(t *testing.T) {
			cfg := cfg
			cfg.Spill = spilled
			cfg.Work = t.TempDir()
			testCandidates(t, cfg, tables, bands, sims, want, buckets, far)
		})
	}
}

// testCandidates runs Candidates on the entries of bands and sims, sent as
// the signature pass sends them (through spill files with cfg.Spill), and
// checks it finds the pairs want.
func testCandidates(t *testing.T, cfg job.Config, tables *blocking.Tables, bands []testBand, sims []testSim, want []string, buckets, far int) {
	var chunks []stagetest.Chunk
	collect := func(part int64, c []byte) { chunks = append(chunks, stagetest.Chunk{Key: int(part), Chunk: c}) }
	for file := range 2 {
		spilled := spilled.To(cfg.WorkDir(), "entries")
		snd := blockkeys.NewSender(blockkeys.KeySpace{P: cfg.Partitions}, spilled.Wrap(collect))
		for _, b := range bands {
			if wire.File(b.doc) == file {
				snd.Band(b.key, b.doc)
			}
		}
		for _, d := range sims {
			if wire.File(d.doc) == file {
				for i := range tables.Len() {
					snd.Table(i, tables.Key(i, d.fp), d.doc, d.fp)
				}
			}
		}
		snd.Flush()
		if err := spilled.Finish(collect); err != nil {
			t.Fatal(err)
		}
	}
	for _, c := range chunks {
		if isSpill := jobfiles.IsWorkFile(string(c.Chunk)); isSpill != cfg.Spill {
			t.Fatalf("spill %v, but a chunk shuffled is %q", cfg.Spill, c.Chunk)
		}
	}

	p, s := beam.NewPipelineWithRoot()
	entries := rounds.Split(s, cfg.ShuffleRounds(), stagetest.Chunks(s, chunks...))
	got, st := Candidates(s, OptionsFor(cfg), entries)
	got = stagetest.Unspill(s, cfg, got)
	// A pair met in buckets of several partitions comes once from each;
	// Verify drops the repeats.
	passert.Equals(s, filter.Distinct(s, beam.ParDo(s, &stagetest.DecodeFn{Kind: "pair", Bits: cfg.SegmentBits}, got)), stagetest.Any(want)...)
	passert.Equals(s, stagetest.Stats(s, st, summary.StatBuckets, summary.StatHot, summary.StatFar),
		fmt.Sprintf("buckets=%d", buckets), "hot_buckets=0", fmt.Sprintf("simhash_far_pairs=%d", far))
	stagetest.Shuffled(s, st, tally.ShuffleCandidates, 0, 0, got)
	stagetest.Run(t, p)
}
