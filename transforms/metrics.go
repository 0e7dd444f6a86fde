package transforms

import (
	"context"
	"sync/atomic"
	"time"

	"github.com/apache/beam/sdks/v2/go/pkg/beam"

	"github.com/neardup/neardup/transforms/format/output"
)

// Progress counts work done by the DoFns of this process, for the
// command's progress lines on local runs (Prism and the direct runner run
// the DoFns in the command's own process). On a cluster the counts stay on
// the workers; the runner's metrics (busy_ms.<stage>) are the way to follow
// a job there. The counts are approximate under retries; summary.json has
// the exact ones.
var Progress struct {
	Read     atomic.Int64 // documents read by the first pass
	Signed   atomic.Int64 // documents signed
	Verified atomic.Int64 // candidate pairs verified (accepted or not)
	Matched  atomic.Int64 // pairs accepted
}

// busy adds the time since start to stage's busy-time counter and the start
// and end to its span. Call it as defer busy(ctx, "Stage", time.Now()).
func busy(ctx context.Context, stage string, start time.Time) {
	addBusy(ctx, stage, time.Since(start), start)
}

// addBusy adds d to stage's busy-time counter, and the times from and now
// to its span.
func addBusy(ctx context.Context, stage string, d time.Duration, from time.Time) {
	beam.NewCounter(output.MetricsNamespace, output.BusyPrefix+stage).Inc(ctx, d.Milliseconds())
	span := beam.NewDistribution(output.MetricsNamespace, output.SpanPrefix+stage)
	span.Update(ctx, from.UnixMilli())
	span.Update(ctx, time.Now().UnixMilli())
}
