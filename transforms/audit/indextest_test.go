package audit

import (
	"context"
	"testing"

	"github.com/apache/beam/sdks/v2/go/pkg/beam"

	"github.com/neardup/neardup/transforms/exact"
	"github.com/neardup/neardup/transforms/format/index"
	"github.com/neardup/neardup/transforms/indexing"
	"github.com/neardup/neardup/transforms/ingest"
	"github.com/neardup/neardup/transforms/job"
	"github.com/neardup/neardup/transforms/jobfiles/filelist"
	"github.com/neardup/neardup/transforms/jobfiles/recshards"
	"github.com/neardup/neardup/transforms/objects"
	"github.com/neardup/neardup/transforms/sign"
	"github.com/neardup/neardup/transforms/stagetest"
)

// stageIndex runs Read, ExactDuplicates, Signatures and WriteIndex over
// paths with cfg (cfg.IndexOut set), removing besides the exact duplicates
// the lines of removes (by file index), and returns the index's manifest.
func stageIndex(t *testing.T, cfg job.Config, paths []string, removes ...stagetest.Chunk) *index.Manifest {
	t.Helper()
	p, s := beam.NewPipelineWithRoot()
	files := stagetest.Files(t, s, paths, cfg.Branches)
	keys, _, _, segs, _ := ingest.Read(s, ingest.OptionsFor(cfg), files)
	_, skips, _ := exact.ExactDuplicates(s, exact.OptionsFor(cfg), keys)
	entries := sign.Signatures(s, sign.OptionsFor(cfg), segs, skips)
	// The index shards copy the pre-shards of the signature pass: wait
	// for it (in a run, the removals come after it).
	rm := beam.Flatten(s, stagetest.Chunks(s, removes...), beam.ParDo(s, filelist.WaitFor, beam.Flatten(s, entries...)))
	indexing.WriteIndex(s, indexing.OptionsFor(cfg), files, rm)
	stagetest.Run(t, p)
	man, err := indexing.ReadManifest(context.Background(), cfg.IndexOut)
	if err != nil {
		t.Fatal(err)
	}
	return man
}

// stageShardIDs reads the ids of the records of index shard name in dir.
func stageShardIDs(t *testing.T, cfg job.Config, dir, name string) []string {
	t.Helper()
	var ids []string
	eachShardRecord(t, objects.JoinPath(dir, name), func(r *index.Record) {
		if r.Exact == 0 || len(r.Sketch) != cfg.Perms || len(r.Bands) != cfg.Bands {
			t.Errorf("%s: record %s: exact key %x, %d sketch values, %d band keys", name, r.ID, r.Exact, len(r.Sketch), len(r.Bands))
		}
		ids = append(ids, r.ID)
	})
	return ids
}

// eachShardRecord calls fn for every record of the index shard at path.
func eachShardRecord(t *testing.T, path string, fn func(*index.Record)) {
	t.Helper()
	rd, c, err := recshards.Open(context.Background(), path)
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	var r index.Record
	for {
		ok, err := rd.Next(&r)
		if err != nil {
			t.Fatal(err)
		}
		if !ok {
			return
		}
		fn(&r)
	}
}
