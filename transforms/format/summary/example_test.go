package summary_test

import (
	"os"

	"github.com/neardup/neardup/transforms/format/summary"
)

// A run's report of where its time went, from its summary.
func ExampleSummary_WriteStages() {
	s := summary.Summary{
		StageSeconds: map[string]float64{"Read": 1.25, "Signatures": 3.5},
		StageSpans:   map[string][2]float64{"Read": {0, 1.3}, "Signatures": {1.3, 3.1}},
		WorkBytes:    map[string]int64{"doc_shards": 1_200_000, "spool": 400_000},
	}
	s.WriteStages(os.Stdout)
	// Output:
	//   busy seconds per stage: Read 1.2 Signatures 3.5
	//   stage spans (s since start): Read 0.0-1.3 Signatures 1.3-3.1
	//   work files written 1.6 MB: doc_shards 1.2 spool 0.4
}
