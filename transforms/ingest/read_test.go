package ingest

import (
	"fmt"
	"testing"

	"github.com/apache/beam/sdks/v2/go/pkg/beam"
	"github.com/apache/beam/sdks/v2/go/pkg/beam/testing/passert"

	"github.com/neardup/neardup/transforms/format/summary"
	"github.com/neardup/neardup/transforms/internal/tally"
	"github.com/neardup/neardup/transforms/stagetest"
)

// TestReadStage: Read emits one exact-key record per good document (its
// file, line and id, keyed by the partition of its key), one reject line
// per bad record under its file with its 1-based line and reason, and the
// counts of the first pass.
func TestReadStage(t *testing.T) {
	cfg := stagetest.Config(t)
	in := t.TempDir()
	f0 := []string{
		stagetest.JSON("a", stagetest.Text(1, 40)),
		`not json`,
		stagetest.JSON("b", stagetest.Text(1, 40)),
		stagetest.JSON("c", stagetest.Text(2, 40)),
	}
	f1 := []string{
		stagetest.JSON("d", stagetest.Text(3, 40)),
		`{"id":"e","text":"   "}`,
	}
	paths := []string{stagetest.Input(t, in, "f0.jsonl", f0...), stagetest.Input(t, in, "f1.jsonl", f1...)}
	var nbytes int
	for _, l := range []string{f0[0], f0[2], f0[3], f1[0]} {
		nbytes += len(l)
	}

	p, s := beam.NewPipelineWithRoot()
	keys, rejects, _, _, st := Read(s, OptionsFor(cfg), stagetest.Files(t, s, paths, cfg.Branches))
	passert.Equals(s, stagetest.Decode(s, "info", cfg.Partitions, keys), "0:0:a", "0:2:b", "0:3:c", "1:0:d")
	passert.Equals(s, stagetest.Decode(s, "reject", 0, rejects), "0/2:bad_json:f0.jsonl", "1/2:empty_text:f1.jsonl")
	stagetest.Shuffled(s, st, tally.ShuffleExactKeys, 0, 0, keys)
	stagetest.Shuffled(s, st, tally.ShuffleOutLines, 0, 0, rejects)
	passert.Equals(s, stagetest.Stats(s, st, summary.StatInput, summary.StatRejected, summary.StatDocuments, summary.StatBytes),
		"input_records=6", "rejected=2", "documents=4", fmt.Sprintf("input_bytes=%d", nbytes))
	stagetest.Run(t, p)
}
