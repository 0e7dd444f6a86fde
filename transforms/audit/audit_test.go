package audit

import (
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"

	"github.com/apache/beam/sdks/v2/go/pkg/beam"
	"github.com/apache/beam/sdks/v2/go/pkg/beam/testing/passert"
	"github.com/apache/beam/sdks/v2/go/pkg/beam/transforms/filter"

	"github.com/neardup/neardup/transforms/exact"
	"github.com/neardup/neardup/transforms/format/index"
	"github.com/neardup/neardup/transforms/format/output"
	"github.com/neardup/neardup/transforms/format/summary"
	"github.com/neardup/neardup/transforms/format/wire"
	"github.com/neardup/neardup/transforms/ingest"
	"github.com/neardup/neardup/transforms/jobfiles/filelist"
	"github.com/neardup/neardup/transforms/sign"
	"github.com/neardup/neardup/transforms/stagetest"
)

// TestAuditMatchStages audits a batch against an index of a, b and c
// (built by stageIndex): n1 has a's text, n2 is a near-duplicate of b, n4
// of n3, and c matches nothing. As BuildAudit chains them:
//
//   - IndexScan passes on a's exact-key record alone (n1 shares its key),
//     the infos of a and b alone (the indexed documents sharing block keys
//     with the batch), and counts the indexed documents;
//   - AuditExact matches n1 to a;
//   - AuditCandidates proposes (n1, a), (n2, b) and (n3, n4), keyed by
//     partition of the first (new) document, and no pair of two indexed
//     documents;
//   - AuditVerify splits the matches into the batch's, (n3, n4), and the
//     (new, indexed) ones, (n1, a) and (n2, b).
func TestAuditMatchStages(t *testing.T) {
	cfg := stagetest.Config(t)
	cfg.Branches, cfg.Rounds = 1, 1 // fewer stages
	cfg.IndexOut = t.TempDir()
	in := t.TempDir()
	ta, tb, tn3 := stagetest.Text(1, 60), stagetest.Text(2, 60), stagetest.Text(4, 60)
	idxPath := stagetest.Input(t, in, "old.jsonl", stagetest.JSON("a", ta), stagetest.JSON("b", tb), stagetest.JSON("c", stagetest.Text(3, 60)))
	stageIndex(t, cfg, []string{idxPath})
	idxDir := cfg.IndexOut

	cfg.IndexOut, cfg.Output, cfg.Work = "", t.TempDir(), t.TempDir()
	newLines := []string{stagetest.JSON("n1", ta), stagetest.JSON("n2", stagetest.Near(tb, 20)), stagetest.JSON("n3", tn3), stagetest.JSON("n4", stagetest.Near(tn3, 40))}
	paths := []string{stagetest.Input(t, in, "new.jsonl", newLines...)}
	idx := func(line int) string { return fmt.Sprintf("%d:%d", filelist.IndexFileBase, line) }

	p, s := beam.NewPipelineWithRoot()
	files := stagetest.Files(t, s, paths, cfg.Branches)
	keys, _, _, segs, _ := ingest.Read(s, ingest.OptionsFor(cfg), files)
	_, skips, _ := exact.ExactDuplicates(s, exact.OptionsFor(cfg), keys)
	entries, infos, _ := sign.AuditSignatures(s, sign.OptionsFor(cfg), segs, skips)

	idxKeys, idxEntries, idxInfos, scanStats := IndexScan(s, OptionsFor(cfg, idxDir), keys, entries)
	passert.Equals(s, stagetest.Decode(s, "info", cfg.Partitions, idxKeys), idx(0)+":a")
	passert.Equals(s, stagetest.Decode(s, "infodoc", cfg.Partitions, idxInfos), idx(0)+":a", idx(1)+":b")
	passert.Equals(s, stagetest.Stats(s, scanStats, summary.StatIndexDocs, summary.StatIndexJoined), "index_documents=3", "index_documents_joined=2")

	idxExact, _ := AuditExact(s, OptionsFor(cfg, ""), keys, idxKeys)
	passert.Equals(s, stagetest.Decode(s, "match", 0, idxExact), "0/n1-a:exact")

	pairs, _ := AuditCandidates(s, OptionsFor(cfg, ""), entries, idxEntries)
	passert.Equals(s, filter.Distinct(s, stagetest.Decode(s, "pair", cfg.Partitions, pairs)), "0:0-"+idx(0), "0:1-"+idx(1), "0:2-0:3")

	batch, idxMatches, _ := AuditVerify(s, OptionsFor(cfg, ""), files, "", beam.Flatten(s, infos, idxInfos), pairs)
	passert.Equals(s, beam.ParDo(s, &stagetest.DecodeFn{Kind: "match", MinJ: cfg.Threshold}, batch), "0/n3-n4:minhash")
	passert.Equals(s, beam.ParDo(s, &stagetest.DecodeFn{Kind: "match", MinJ: cfg.Threshold}, idxMatches), "0/n1-a:minhash", "0/n2-b:minhash")
	stagetest.Run(t, p)
}

// TestWriteAuditStage: WriteAudit writes one audit line per new document
// with indexed matches, in input order, its matches best first (exact,
// then by Jaccard) with the source of their shard, each indexed document
// once; it removes the union of those documents and the batch's removals
// and writes the outputs of a run without them. RenameStat renames one
// stat; AuditSummary writes audit-summary.json, balanced.
func TestWriteAuditStage(t *testing.T) {
	cfg := stagetest.Config(t)
	cfg.Branches = 1
	in := t.TempDir()
	lines := []string{stagetest.JSON("n1", stagetest.Text(1, 20)), stagetest.JSON("n2", stagetest.Text(2, 20)), stagetest.JSON("n3", stagetest.Text(3, 20)), stagetest.JSON("n4", stagetest.Text(4, 20))}
	paths := []string{stagetest.Input(t, in, "new.jsonl", lines...)}
	sources := []string{"/idx/src0.jsonl", "/idx/src1.jsonl"}
	idxDir := t.TempDir()                                                                       // an index whose manifest names the sources
	keys := index.KeyFile{Name: index.KeyFileName(0), Bytes: 116, Sections: [...]index.Section{ // the 2 exact keys the manifest requires, the footer
		{Entries: 2, Start: 24, Dir: 40}, {Start: 64, Dir: 64}, {Start: 88, Dir: 88}}}
	man, err := index.NewManifest(cfg.IndexConfig(), []index.Generation{{Shards: []index.Shard{{Name: index.ShardName(0), Source: sources[0], Records: 1, Bytes: 100}, {Name: index.ShardName(1), Source: sources[1], Records: 1, Bytes: 100}},
		Keys: []index.KeyFile{keys}}}).Marshal()
	if err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(idxDir, index.ManifestName), man, 0o644); err != nil {
		t.Fatal(err)
	}
	n1, n2, n3, n4 := wire.DocNum(0, 0), wire.DocNum(0, 1), wire.DocNum(0, 2), wire.DocNum(0, 3)
	a, b, z := wire.DocNum(filelist.IndexFileBase, 0), wire.DocNum(filelist.IndexFileBase, 1), wire.DocNum(filelist.IndexFileBase+1, 5)
	idxMatches := []stagetest.Chunk{
		stagetest.MatchChunk(
			wire.Match{A: n2, B: z, IDA: "n2", IDB: "z", Jaccard: 0.85, Method: wire.MinHash},
			wire.Match{A: n1, B: a, IDA: "n1", IDB: "a", Jaccard: 1, Method: wire.MinHash}),
		stagetest.MatchChunk(
			wire.Match{A: n1, B: a, IDA: "n1", IDB: "a", Jaccard: 1, Method: wire.Exact},
			wire.Match{A: n2, B: b, IDA: "n2", IDB: "b", Jaccard: 0.9, Method: wire.MinHash}),
	}
	batchMatch := stagetest.MatchChunk(wire.Match{A: n3, B: n4, IDA: "n3", IDB: "n4", Jaccard: 0.9, Method: wire.MinHash})
	cl, _ := json.Marshal(output.ClusterLine{Cluster: "n3", Size: 2, Representative: "n3", Members: []string{"n3", "n4"}})
	cluster := stagetest.Chunk{Key: 0, Chunk: wire.AppendLine(nil, n3, 0, cl)}

	p, s := beam.NewPipelineWithRoot()
	files := stagetest.Files(t, s, paths, cfg.Branches)
	// The batch removed n4 (its cluster) and n2 (say, of a cluster with a
	// document of another file).
	removes := stagetest.Chunks(s, stagetest.LineChunk(0, 1, 3))
	allRemoves, writeStats := WriteAudit(s, OptionsFor(cfg, idxDir), files, stagetest.Chunks(s, batchMatch),
		stagetest.Chunks(s, idxMatches...), stagetest.Chunks(s, cluster), stagetest.Chunks(s), removes, stagetest.Chunks(s))
	passert.Equals(s, stagetest.Decode(s, "lines", 0, allRemoves), "0:0", "0:1", "0:3")
	passert.Equals(s, stagetest.Stats(s, writeStats, summary.StatDupOfIndex, summary.StatExactOfIndex, summary.StatIndexMatches,
		summary.StatBatchOnly, summary.StatRemoved, summary.StatKept, "pairs_lines", "clusters_lines"),
		"duplicates_of_index=2", "exact_duplicates_of_index=1", "index_matches=3", "removed_in_batch_only=1", "removed=3", "kept=1",
		"pairs_lines=1", "clusters_lines=1")
	clusterStats := RenameStat(s, stagetest.StatCol(s, stagetest.Stat{Name: summary.StatRemoved, N: 2}, stagetest.Stat{Name: summary.StatClusters, N: 1}),
		summary.StatRemoved, summary.StatRemovedInBatch)
	passert.Equals(s, stagetest.Stats(s, clusterStats, summary.StatRemoved, summary.StatRemovedInBatch, summary.StatClusters),
		"removed_in_batch=2", "clusters=1")
	AuditSummary(s, OptionsFor(cfg, "/idx"), filelist.Files{}, stagetest.StatCol(s, stagetest.Stat{Name: summary.StatInput, N: 4}, stagetest.Stat{Name: summary.StatRejected, N: 0}), clusterStats, writeStats)
	stagetest.Run(t, p)

	var got []output.AuditLine
	for _, l := range strings.Split(strings.TrimSuffix(stagetest.ReadFile(t, cfg.Output, "audit-00000.jsonl"), "\n"), "\n") {
		var al output.AuditLine
		if err := json.Unmarshal([]byte(l), &al); err != nil {
			t.Fatal(err)
		}
		got = append(got, al)
	}
	want := []output.AuditLine{
		{Doc: "n1", Matches: []output.AuditMatch{{ID: "a", Jaccard: 1, Method: "exact", Source: sources[0]}}},
		{Doc: "n2", Matches: []output.AuditMatch{{ID: "b", Jaccard: 0.9, Method: "minhash", Source: sources[0]},
			{ID: "z", Jaccard: 0.85, Method: "minhash", Source: sources[1]}}},
	}
	if !reflect.DeepEqual(got, want) {
		t.Errorf("audit-00000.jsonl:\n%+v\nwant\n%+v", got, want)
	}
	if dedup := stagetest.ReadFile(t, cfg.Output, "dedup-00000.jsonl"); dedup != lines[2]+"\n" {
		t.Errorf("dedup-00000.jsonl:\n%s\nwant\n%s", dedup, lines[2])
	}
	var sum summary.AuditSummary
	if err := json.Unmarshal([]byte(stagetest.ReadFile(t, cfg.Output, summary.AuditFileName)), &sum); err != nil {
		t.Fatal(err)
	}
	if c := sum.Counts; !sum.Balanced || sum.Index != "/idx" || c[summary.StatRemoved] != 3 || c[summary.StatKept] != 1 || c[summary.StatRemovedInBatch] != 2 {
		t.Errorf("audit-summary.json: %+v", sum)
	}
}
