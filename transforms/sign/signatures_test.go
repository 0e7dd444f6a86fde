package sign

import (
	"context"
	"fmt"
	"slices"
	"testing"

	"github.com/apache/beam/sdks/v2/go/pkg/beam"
	"github.com/apache/beam/sdks/v2/go/pkg/beam/register"
	"github.com/apache/beam/sdks/v2/go/pkg/beam/testing/passert"
	"github.com/apache/beam/sdks/v2/go/pkg/beam/transforms/stats"

	"github.com/neardup/neardup/transforms/exact"
	"github.com/neardup/neardup/transforms/format/summary"
	"github.com/neardup/neardup/transforms/format/wire"
	"github.com/neardup/neardup/transforms/ingest"
	"github.com/neardup/neardup/transforms/internal/tally"
	"github.com/neardup/neardup/transforms/job"
	"github.com/neardup/neardup/transforms/jobfiles/recshards"
	"github.com/neardup/neardup/transforms/jobfiles/spilled"
	"github.com/neardup/neardup/transforms/match/blocking"
	"github.com/neardup/neardup/transforms/match/blockkeys"
	"github.com/neardup/neardup/transforms/stagetest"
)

func init() {
	register.DoFn3x1[int64, []byte, func(string), error](&stageEntryFn{})
	register.DoFn3x1[int64, []byte, func(string, int64), error](&stageStatsFn{})
	register.Function2x1(stageCountStr)
}

// stageEntryFn decodes block entry chunks into "band/file:line" (MinHash
// band entries, partitions below Partitions) and "sim/file:line"
// (SimHash table entries), and fails on a table entry keyed to another
// partition than its key's.
type stageEntryFn struct {
	Partitions int
	Tables     blocking.Design

	tables *blocking.Tables
}

func (fn *stageEntryFn) Setup() (err error) {
	fn.tables, err = job.NewTables(fn.Tables)
	return err
}

// stageStatsFn emits the stats Signatures sends with the entries, under
// Key (blockkeys.KeySpace's StatsKey).
type stageStatsFn struct{ Key int }

func (fn *stageStatsFn) ProcessElement(k int64, chunk []byte, emit func(string, int64)) error {
	if int(k) != fn.Key {
		return nil
	}
	return PassStats(spilled.IterOf([][]byte{chunk}), emit)
}

func (fn *stageEntryFn) ProcessElement(k int64, chunk []byte, emit func(string)) error {
	part := int(k)
	P := fn.Partitions
	if part == (blockkeys.KeySpace{P: P}).StatsKey() {
		return nil
	}
	if part < P {
		es, err := wire.AppendEntries(nil, chunk)
		if err != nil {
			return err
		}
		for _, e := range es { // the partition is of the whole key, of which e.Key has the low bits
			emit("band/" + stagetest.DocStr(e.Doc))
		}
		return nil
	}
	es, err := job.SimEntries(nil, chunk, fn.tables)
	if err != nil {
		return err
	}
	for _, e := range es {
		if P+wire.Partition(e.Key, P) != part {
			return fmt.Errorf("table entry of %s in partition %d", stagetest.DocStr(e.Doc), part)
		}
		emit("sim/" + stagetest.DocStr(e.Doc))
	}
	return nil
}

func stageCountStr(s string, n int) string { return fmt.Sprintf("%s=%d", s, n) }

// stageEntryCounts counts the entries of each kind and document of the
// block entry collections cols: "band/file:line=n".
func stageEntryCounts(s beam.Scope, cfg job.Config, cols ...beam.PCollection) beam.PCollection {
	docs := beam.ParDo(s, &stageEntryFn{Partitions: cfg.Partitions, Tables: cfg.SimDesign()}, beam.Flatten(s, cols...))
	return beam.ParDo(s, stageCountStr, stats.Count(s, docs))
}

// TestSignaturesStage: after Read and ExactDuplicates, Signatures gives
// every document it signs, but for the exact duplicates left out and the
// documents without shingles, one band entry per band and one table entry
// per SimHash table, counts them, and writes their infos to the info shard
// of their file. AuditSignatures gives the same entries and shuffles the
// infos instead (keyed by partition of the document).
func TestSignaturesStage(t *testing.T) {
	cfg := stagetest.Config(t)
	in := t.TempDir()
	paths := []string{
		stagetest.Input(t, in, "f0.jsonl",
			stagetest.JSON("a", stagetest.Text(1, 40)),
			stagetest.JSON("b", stagetest.Text(1, 40)), // exact duplicate of a: skipped
			stagetest.JSON("c", "!!! ... ???"),         // no token, no shingle
			stagetest.JSON("e", stagetest.Text(4, 40))),
		stagetest.Input(t, in, "f1.jsonl", stagetest.JSON("d", stagetest.Text(2, 40))),
	}
	tables, err := cfg.SimTables()
	if err != nil {
		t.Fatal(err)
	}
	B, T := cfg.Bands, tables.Len()
	var want []string
	for _, d := range []string{"0:0", "0:3", "1:0"} {
		want = append(want, fmt.Sprintf("band/%s=%d", d, B), fmt.Sprintf("sim/%s=%d", d, T))
	}

	p, s := beam.NewPipelineWithRoot()
	files := stagetest.Files(t, s, paths, cfg.Branches)
	keys, _, _, segs, _ := ingest.Read(s, ingest.OptionsFor(cfg), files)
	_, skips, _ := exact.ExactDuplicates(s, exact.OptionsFor(cfg), keys)
	entries := Signatures(s, OptionsFor(cfg), segs, skips)
	st := beam.ParDo(s, &stageStatsFn{Key: (blockkeys.KeySpace{P: cfg.Partitions}).StatsKey()}, beam.Flatten(s, entries...))
	if len(entries) != cfg.ShuffleRounds() {
		t.Fatalf("Signatures gave %d rounds of entries, want %d", len(entries), cfg.ShuffleRounds())
	}
	passert.Equals(s, stageEntryCounts(s, cfg, entries...), stagetest.Any(want)...)
	passert.Equals(s, stagetest.Stats(s, st, summary.StatSigned, summary.StatNoShingles, summary.StatTruncated, summary.StatKeys),
		"signed=4", "no_shingles=1", "truncated=0", fmt.Sprintf("block_keys=%d", 3*(B+T)))
	stagetest.Shuffled(s, st, tally.ShuffleBands, 0, cfg.Partitions, entries...)
	stagetest.Shuffled(s, st, tally.ShuffleTables, cfg.Partitions, (blockkeys.KeySpace{P: cfg.Partitions}).StatsKey(), entries...)

	s2 := s.Scope("audit")
	auditEntries, infos, auditStats := AuditSignatures(s2, OptionsFor(cfg), segs, skips)
	stagetest.Shuffled(s2, auditStats, tally.ShuffleInfos, 0, 0, infos)
	passert.Equals(s2, stageEntryCounts(s2, cfg, auditEntries), stagetest.Any(want)...)
	passert.Equals(s2, stagetest.Decode(s2, "infodoc", cfg.Partitions, infos), "0:0:a", "0:3:e", "1:0:d")
	stagetest.Run(t, p)

	for file, ids := range map[int][]string{0: {"a", "e"}, 1: {"d"}} {
		tab, err := recshards.ReadInfoShard(context.Background(), cfg.WorkDir(), cfg.WorkDir().Segment(wire.DocNum(file, 0)))
		if err != nil {
			t.Fatal(err)
		}
		var got []string
		for _, in := range tab.Infos {
			if wire.File(in.Doc) != file || len(in.Sketch) != cfg.Perms {
				t.Errorf("info shard %d: info %+v", file, in)
			}
			got = append(got, in.ID)
		}
		if !slices.Equal(got, ids) {
			t.Errorf("info shard %d holds %v, want %v", file, got, ids)
		}
	}
}
