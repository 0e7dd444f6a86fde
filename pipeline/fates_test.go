package pipeline

import (
	"fmt"
	"strings"
	"testing"

	"github.com/neardup/neardup/transforms/format/output"
	"github.com/neardup/neardup/transforms/job"
)

// TestFatesDeterministic: with --fates, the outputs, fates files included
// (JSONL, and Parquet: the sample without ids, 100 rows to a row group,
// whose rows are exact duplicates of the JSONL records), are byte-identical on Prism and the direct runner, with 1 and 2 workers,
// with and without spilled shuffles, and with a budget small enough that
// the clusters decide spilled and each file's fates are sorted in runs on
// disk.
func TestFatesDeterministic(t *testing.T) {
	files := inputs(t, append([]string{"../testdata/bad/bad.jsonl"}, sampleFiles...)...)
	pq, _ := sampleParquet(t, t.TempDir(), 100, false)
	files = append(files, pq...)
	variants := []struct {
		runner  string
		workers int
		spill   bool
		budget  int64 // Config.DecideBytes, which the fates' sort shares
	}{
		{"direct", 1, false, 0}, // the reference
		{"direct", 2, false, 0},
		{"direct", 2, true, 0},
		{"direct", 1, true, 8 << 10},
		{"", 2, false, 8 << 10},
	}
	var want map[string][]byte
	for i, v := range variants {
		cfg := job.DefaultConfig()
		cfg.Fates, cfg.Workers, cfg.Spill, cfg.DecideBytes = true, v.workers, v.spill, v.budget
		dir := t.TempDir()
		if err := runInto(t, v.runner, cfg, files, dir); err != nil {
			t.Fatalf("%+v: %v", v, err)
		}
		got := outputs(t, dir)
		if i == 0 {
			fates := 0
			for name := range got {
				if strings.HasPrefix(name, output.KindFates+"-") {
					fates++
				}
				if strings.HasPrefix(name, output.KindDedup+"-") {
					t.Errorf("%s written with --fates", name)
				}
			}
			if fates != len(files) {
				t.Fatalf("%d fates files for %d inputs", fates, len(files))
			}
			want = got
			continue
		}
		sameOutputs(t, fmt.Sprintf("%+v", v), want, got)
	}
}
