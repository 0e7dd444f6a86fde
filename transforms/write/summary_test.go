package write

import (
	"maps"
	"os"
	"path/filepath"
	"testing"

	"github.com/apache/beam/sdks/v2/go/pkg/beam"

	"github.com/neardup/neardup/transforms/format/summary"
	"github.com/neardup/neardup/transforms/jobfiles"
	"github.com/neardup/neardup/transforms/jobfiles/filelist"
	"github.com/neardup/neardup/transforms/stagetest"
)

// TestSummaryStage: Summary sums the stats of several collections by name
// into summary.json, with verified_pairs the sum of both verifications,
// components_remainder_edges 0 when no stage sent it, and balanced when
// input_records = kept + removed + rejected; and it removes the info
// shards, and the work directory they leave empty.
func TestSummaryStage(t *testing.T) {
	for _, tc := range []struct {
		name     string
		removed  int64
		balanced bool
	}{{"balanced", 2, true}, {"unbalanced", 1, false}} {
		t.Run(tc.name, func(t *testing.T) {
			cfg := stagetest.Config(t)
			for _, name := range []string{jobfiles.InfoShardName(0, 0), jobfiles.InfoShardName(0, 1), jobfiles.InfoShardName(1, 0), jobfiles.OldInfoShardName(3), ".tmp-" + jobfiles.InfoShardName(2, 0) + "-0123"} {
				if err := os.WriteFile(filepath.Join(cfg.Work, name), []byte("x"), 0o644); err != nil {
					t.Fatal(err)
				}
			}
			p, s := beam.NewPipelineWithRoot()
			Summary(s, OptionsFor(cfg), filelist.Files{},
				stagetest.StatCol(s, stagetest.Stat{Name: summary.StatInput, N: 4}, stagetest.Stat{Name: summary.StatRejected, N: 1}, stagetest.Stat{Name: summary.StatInput, N: 3}),
				stagetest.StatCol(s, stagetest.Stat{Name: summary.StatKept, N: 4}, stagetest.Stat{Name: summary.StatRemoved, N: tc.removed},
					stagetest.Stat{Name: summary.StatByEstimate, N: 2}, stagetest.Stat{Name: summary.StatByExact, N: 1}),
				stagetest.EmptyStats(s))
			stagetest.Run(t, p)

			sum, err := summary.ReadSummary(cfg.Output)
			if err != nil {
				t.Fatal(err)
			}
			want := map[string]int64{
				summary.StatInput: 7, summary.StatRejected: 1, summary.StatKept: 4, summary.StatRemoved: tc.removed,
				summary.StatByEstimate: 2, summary.StatByExact: 1, summary.StatVerified: 3, summary.StatRemainder: 0,
			}
			summary.AllCounts(want, false)
			if !maps.Equal(sum.Counts, want) || sum.Balanced != tc.balanced {
				t.Errorf("summary.json: counts %v, balanced %v; want %v, %v", sum.Counts, sum.Balanced, want, tc.balanced)
			}
			if _, err := os.Stat(cfg.Work); !os.IsNotExist(err) {
				t.Errorf("work directory %s left: %v (holds %v)", cfg.Work, err, stagetest.DirNames(t, cfg.Work))
			}
		})
	}
}
