package write

import (
	"encoding/json"
	"fmt"
	"slices"
	"strings"
	"testing"

	"github.com/apache/beam/sdks/v2/go/pkg/beam"
	"github.com/apache/beam/sdks/v2/go/pkg/beam/testing/passert"

	"github.com/neardup/neardup/transforms/cluster"
	"github.com/neardup/neardup/transforms/exact"
	"github.com/neardup/neardup/transforms/format/output"
	"github.com/neardup/neardup/transforms/format/summary"
	"github.com/neardup/neardup/transforms/ingest"
	"github.com/neardup/neardup/transforms/job"
	"github.com/neardup/neardup/transforms/stagetest"
)

// TestWriteStage: after Read, ExactDuplicates and Clusters over two files
// (a = b and c = d exact duplicates, one bad line), Write writes each
// file's deduplicated copy byte for byte without the removed and rejected
// lines, and the pairs, clusters and rejects shards of the files that have
// any, and counts what it wrote; with its shuffles spilled (Spill) or not.
func TestWriteStage(t *testing.T) {
	for _, spill := range []bool{false, true} {
		t.Run(fmt.Sprintf("spill=%v", spill), func(t *testing.T) {
			cfg := stagetest.Config(t)
			cfg.Spill = spill
			testWriteStage(t, cfg)
			stagetest.SpillKinds(t, cfg, "keys", "matches", "edges", "members", "parts")
		})
	}
}

func testWriteStage(t *testing.T, cfg job.Config) {
	in := t.TempDir()
	ta, tc := stagetest.Text(1, 20), stagetest.Text(2, 20)
	f0 := []string{stagetest.JSON("a", ta), stagetest.JSON("b", ta), `{"id":"bad"`, stagetest.JSON("c", tc)}
	f1 := []string{stagetest.JSON("d", tc), stagetest.JSON("e", stagetest.Text(3, 20))}
	paths := []string{stagetest.Input(t, in, "f0.jsonl", f0...), stagetest.Input(t, in, "f1.jsonl", f1...)}

	p, s := beam.NewPipelineWithRoot()
	files := stagetest.Files(t, s, paths, cfg.Branches)
	keys, rejects, _, _, _ := ingest.Read(s, ingest.OptionsFor(cfg), files)
	exact, _, _ := exact.ExactDuplicates(s, exact.OptionsFor(cfg), keys)
	matches := cluster.GroupMatches(s, cfg.WorkDir(), exact)
	clusters, removes, fates, _ := cluster.Clusters(s, cluster.OptionsFor(cfg), matches)
	st := Write(s, OptionsFor(cfg), files, exact, clusters, rejects, removes, fates)
	passert.Equals(s, stagetest.Stats(s, st, summary.StatKept, "pairs_lines", "clusters_lines", "rejects_lines"),
		"kept=3", "pairs_lines=2", "clusters_lines=2", "rejects_lines=1")
	stagetest.Run(t, p)

	out := cfg.Output
	want := []string{"clusters-00000.jsonl", "dedup-00000.jsonl", "dedup-00001.jsonl", "pairs-00000.jsonl", "rejects-00000.jsonl"}
	if got := stagetest.DirNames(t, out); !slices.Equal(got, want) {
		t.Errorf("output files %v, want %v", got, want)
	}
	if got, want := stagetest.ReadFile(t, out, "dedup-00000.jsonl"), f0[0]+"\n"+f0[3]+"\n"; got != want {
		t.Errorf("dedup-00000.jsonl:\n%s\nwant:\n%s", got, want)
	}
	if got, want := stagetest.ReadFile(t, out, "dedup-00001.jsonl"), f1[1]+"\n"; got != want {
		t.Errorf("dedup-00001.jsonl:\n%s\nwant:\n%s", got, want)
	}
	wantPairs := []output.PairLine{{A: "a", B: "b", Jaccard: 1, Method: "exact"}, {A: "c", B: "d", Jaccard: 1, Method: "exact"}}
	var pairs []output.PairLine
	for _, l := range strings.Split(strings.TrimSuffix(stagetest.ReadFile(t, out, "pairs-00000.jsonl"), "\n"), "\n") {
		var pl output.PairLine
		if err := json.Unmarshal([]byte(l), &pl); err != nil {
			t.Fatal(err)
		}
		pairs = append(pairs, pl)
	}
	if !slices.Equal(pairs, wantPairs) {
		t.Errorf("pairs-00000.jsonl: %+v, want %+v", pairs, wantPairs)
	}
	if got := stagetest.ReadFile(t, out, "clusters-00000.jsonl"); strings.Count(got, "\n") != 2 ||
		!strings.Contains(got, `"members":["a","b"]`) || !strings.Contains(got, `"members":["c","d"]`) {
		t.Errorf("clusters-00000.jsonl:\n%s", got)
	}
	var rej output.RejectLine
	if err := json.Unmarshal([]byte(stagetest.ReadFile(t, out, "rejects-00000.jsonl")), &rej); err != nil || rej.Line != 3 || rej.Reason != "bad_json" {
		t.Errorf("rejects-00000.jsonl: %+v (%v), want line 3, bad_json", rej, err)
	}
}
