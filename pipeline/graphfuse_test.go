package pipeline

import (
	"context"
	"testing"

	"github.com/apache/beam/sdks/v2/go/pkg/beam"
	pipepb "github.com/apache/beam/sdks/v2/go/pkg/beam/model/pipeline_v1"

	"github.com/neardup/neardup/transforms/format/index"
	"github.com/neardup/neardup/transforms/job"
)

// flattensBesideGroups returns the Flattens of p that read a collection a
// GroupByKey reads too. Beam's portable job servers (GreedyPipelineFuser,
// which Flink's and Spark's use) fuse such a Flatten into a stage and
// also run it on its own, so its output has two producers and the job is
// refused ("A PCollectionNode should have exactly one producing
// PTransformNode").
func flattensBesideGroups(p *pipepb.Pipeline) []string {
	const flatten, gbk = "beam:transform:flatten:v1", "beam:transform:group_by_key:v1"
	grouped := map[string]bool{}
	for _, t := range p.GetComponents().GetTransforms() {
		if t.GetSpec().GetUrn() == gbk {
			for _, in := range t.GetInputs() {
				grouped[in] = true
			}
		}
	}
	var bad []string
	for _, t := range p.GetComponents().GetTransforms() {
		if t.GetSpec().GetUrn() != flatten || len(t.GetSubtransforms()) > 0 {
			continue
		}
		for _, in := range t.GetInputs() {
			if grouped[in] {
				bad = append(bad, t.GetUniqueName())
				break
			}
		}
	}
	return bad
}

// TestGraphFuses checks that the graphs of a run and of audits (lookups
// and a scan, with and without --containment, in 2 branches) have no
// Flatten that Beam's portable job servers refuse (flattensBesideGroups):
// the engine tests run them on Flink and Spark, this test wherever Go is.
func TestGraphFuses(t *testing.T) {
	files := []string{"gs://bucket/a.jsonl", "gs://bucket/b.jsonl"}
	for _, contain := range []float64{0, 0.8} {
		cfg := job.DefaultConfig()
		cfg.Output, cfg.Work, cfg.Branches, cfg.Containment = "gs://bucket/out", t.TempDir(), 2, contain
		build := map[string]func(beam.Scope) error{
			"run": func(s beam.Scope) error { return Build(context.Background(), s, cfg, files) },
		}
		for _, scan := range []bool{false, true} {
			name := map[bool]string{false: "audit by lookups", true: "audit by a scan"}[scan]
			build[name] = func(s beam.Scope) error {
				m := index.NewManifest(cfg.IndexConfig(), nil)
				return BuildAudit(context.Background(), s, cfg, files, AuditOptions{Index: "gs://bucket/index", Manifest: &m, Scan: scan})
			}
		}
		for name, b := range build {
			pb, err := marshalled(b)
			if err != nil {
				t.Fatalf("%s, containment %v: %v", name, contain, err)
			}
			if bad := flattensBesideGroups(pb); len(bad) > 0 {
				t.Errorf("%s, containment %v: Flattens that read what a GroupByKey reads: %q", name, contain, bad)
			}
		}
	}
}
