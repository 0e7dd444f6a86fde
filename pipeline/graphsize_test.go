package pipeline

import (
	"context"
	"fmt"
	"testing"

	"github.com/apache/beam/sdks/v2/go/pkg/beam"
	"github.com/apache/beam/sdks/v2/go/pkg/beam/core/runtime/graphx"
	pipepb "github.com/apache/beam/sdks/v2/go/pkg/beam/model/pipeline_v1"
	"google.golang.org/protobuf/proto"

	"github.com/neardup/neardup/transforms/job"
)

// graphBytes builds the job for n input paths (gs://, never read) and
// returns the size of its marshalled pipeline, as a runner receives it.
func graphBytes(t *testing.T, n int) int {
	t.Helper()
	files := make([]string, n)
	for i := range files {
		files[i] = fmt.Sprintf("gs://bucket/shard-%06d.jsonl.gz", i)
	}
	cfg := job.DefaultConfig()
	cfg.Output, cfg.Work, cfg.IndexOut = "gs://bucket/out", t.TempDir(), "gs://bucket/index"
	cfg.Rounds, cfg.CCRounds = 1, 3
	pb, err := marshalled(func(s beam.Scope) error { return Build(context.Background(), s, cfg, files) })
	if err != nil {
		t.Fatal(err)
	}
	return proto.Size(pb)
}

// marshalled builds a job with build and returns its pipeline, marshalled
// as a runner receives it.
func marshalled(build func(beam.Scope) error) (*pipepb.Pipeline, error) {
	p, s := beam.NewPipelineWithRoot()
	if err := build(s); err != nil {
		return nil, err
	}
	edges, _, err := p.Build()
	if err != nil {
		return nil, err
	}
	return graphx.Marshal(edges, &graphx.Options{})
}

// TestGraphSize: the file list travels as data (a manifest in the work
// directory), so the job graph does not grow with the number of input
// files: 100,000 paths stay far under Dataflow's 10 MB limit (1 MB here),
// and the same size as 10.
func TestGraphSize(t *testing.T) {
	small, large := graphBytes(t, 10), graphBytes(t, 100_000)
	t.Logf("marshalled pipeline: %d bytes for 10 files, %d for 100,000", small, large)
	if large > 1<<20 {
		t.Errorf("the pipeline for 100,000 files is %d bytes, over 1 MB", large)
	}
	if large != small {
		t.Errorf("the pipeline grows with the file list: %d bytes for 10 files, %d for 100,000", small, large)
	}
}
