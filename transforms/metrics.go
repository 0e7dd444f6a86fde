package transforms

import (
	"context"
	"time"

	"github.com/apache/beam/sdks/v2/go/pkg/beam"
)

// MetricsNamespace holds neardup's Beam metrics.
const MetricsNamespace = "neardup"

// BusyPrefix starts the names of the counters of busy time per stage, in
// milliseconds summed over workers.
const BusyPrefix = "busy_ms."

// busy adds the time since start to stage's busy-time counter. Call it as
// defer busy(ctx, "Stage", time.Now()).
func busy(ctx context.Context, stage string, start time.Time) {
	addBusy(ctx, stage, time.Since(start))
}

// addBusy adds d to stage's busy-time counter.
func addBusy(ctx context.Context, stage string, d time.Duration) {
	beam.NewCounter(MetricsNamespace, BusyPrefix+stage).Inc(ctx, d.Milliseconds())
}
