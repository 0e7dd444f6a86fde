package audit

import (
	"os"
	"path/filepath"
	"slices"
	"testing"

	"github.com/apache/beam/sdks/v2/go/pkg/beam"

	"github.com/neardup/neardup/transforms/exact"
	"github.com/neardup/neardup/transforms/format/index"
	"github.com/neardup/neardup/transforms/indexing"
	"github.com/neardup/neardup/transforms/ingest"
	"github.com/neardup/neardup/transforms/jobfiles/filelist"
	"github.com/neardup/neardup/transforms/sign"
	"github.com/neardup/neardup/transforms/stagetest"
)

// TestWriteIndexStage: WriteIndex writes one shard per input file with the
// documents kept (not the exact duplicates left out of the signature
// pass, not the documents removed), with their keys and sketches, then
// index.json describing them, and removes the pre-shards. UpdateIndex
// then writes a manifest that lists the old generation where it is, and a
// new generation of the new files' shards alone; removing the old
// generation is then an error of OpenIndex naming it.
func TestWriteIndexStage(t *testing.T) {
	cfg := stagetest.Config(t)
	cfg.IndexOut = t.TempDir()
	in := t.TempDir()
	paths := []string{
		stagetest.Input(t, in, "f0.jsonl", stagetest.JSON("a", stagetest.Text(1, 30)), stagetest.JSON("b", stagetest.Text(1, 30)), stagetest.JSON("c", stagetest.Text(2, 30))),
		stagetest.Input(t, in, "f1.jsonl", stagetest.JSON("d", stagetest.Text(3, 30)), stagetest.JSON("e", stagetest.Text(4, 30))),
	}
	man := stageIndex(t, cfg, paths, stagetest.LineChunk(1, 1)) // e removed
	checkManifest := func(man *index.Manifest, dir string, sources []string, ids [][]string) {
		t.Helper()
		if len(man.Shards) != len(ids) {
			t.Fatalf("%s: %d shards, want %d", dir, len(man.Shards), len(ids))
		}
		var docs int64
		first := 0 // of the shard's generation
		for i, sh := range man.Shards {
			if i > 0 && sh.Gen != man.Shards[i-1].Gen {
				first = i
			}
			got := stageShardIDs(t, cfg, man.Generations[sh.Gen].Path, sh.Name)
			if sh.Name != index.ShardName(i-first) || sh.Source != sources[i] || sh.Records != int64(len(ids[i])) || !slices.Equal(got, ids[i]) {
				t.Errorf("%s: shard %d: %+v holding %v; want %s of %s holding %v", dir, i, sh, got, index.ShardName(i-first), sources[i], ids[i])
			}
			docs += int64(len(ids[i]))
		}
		if man.Documents != docs || man.Config != cfg.IndexConfig() {
			t.Errorf("%s: manifest documents %d, config %+v; want %d, %+v", dir, man.Documents, man.Config, docs, cfg.IndexConfig())
		}
		if pre, _ := filepath.Glob(filepath.Join(dir, ".sig-*")); len(pre) > 0 {
			t.Errorf("%s: pre-shards left: %v", dir, pre)
		}
	}
	checkManifest(man, cfg.IndexOut, paths, [][]string{{"a", "c"}, {"d"}})

	// UpdateIndex: a new file, of which h is removed.
	cfg2 := cfg
	cfg2.Output, cfg2.Work, cfg2.IndexOut = t.TempDir(), t.TempDir(), t.TempDir()
	newPaths := []string{stagetest.Input(t, in, "f2.jsonl", stagetest.JSON("g", stagetest.Text(5, 30)), stagetest.JSON("h", stagetest.Text(6, 30)))}
	p, s := beam.NewPipelineWithRoot()
	files := stagetest.Files(t, s, newPaths, cfg2.Branches)
	keys, _, _, segs, _ := ingest.Read(s, ingest.OptionsFor(cfg2), files)
	_, skips, _ := exact.ExactDuplicates(s, exact.OptionsFor(cfg2), keys)
	entries := sign.Signatures(s, sign.OptionsFor(cfg2), segs, skips)
	indexing.UpdateIndex(s, indexing.OptionsFor(cfg2), cfg.IndexOut, files,
		beam.Flatten(s, stagetest.Chunks(s, stagetest.LineChunk(0, 1)), beam.ParDo(s, filelist.WaitFor, beam.Flatten(s, entries...))))
	stagetest.Run(t, p)
	man2, err := indexing.ReadManifest(t.Context(), cfg2.IndexOut)
	if err != nil {
		t.Fatal(err)
	}
	checkManifest(man2, cfg2.IndexOut, append(slices.Clone(paths), newPaths...), [][]string{{"a", "c"}, {"d"}, {"g"}})
	if len(man2.Generations) != 2 || man2.Generations[0].Dir != cfg.IndexOut || man2.Generations[1].Dir != "" {
		t.Fatalf("generations %+v, want %s then the new directory's", man2.Generations, cfg.IndexOut)
	}
	if names, _ := filepath.Glob(filepath.Join(cfg2.IndexOut, "index-*.bin")); len(names) != 1 {
		t.Errorf("the new generation holds shards %v, want index-00000.bin alone", names)
	}
	if _, err := indexing.OpenIndex(t.Context(), cfg2.IndexOut); err != nil {
		t.Fatal(err)
	}
	if err := os.Remove(filepath.Join(cfg.IndexOut, index.ShardName(0))); err != nil {
		t.Fatal(err)
	}
	want := "index " + cfg2.IndexOut + " needs generation " + cfg.IndexOut + " (" + filepath.Join(cfg.IndexOut, index.ShardName(0)) + " is missing)"
	if _, err := indexing.OpenIndex(t.Context(), cfg2.IndexOut); err == nil || err.Error() != want {
		t.Fatalf("old generation removed: got %v, want %s", err, want)
	}
}
