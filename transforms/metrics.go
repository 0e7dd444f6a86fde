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

// SpanPrefix starts the names of the distributions of the times (Unix
// milliseconds) at which a stage's work started and ended: their minimum is
// when the stage first started and their maximum when it last ended.
const SpanPrefix = "span_ms."

// busy adds the time since start to stage's busy-time counter and the start
// and end to its span. Call it as defer busy(ctx, "Stage", time.Now()).
func busy(ctx context.Context, stage string, start time.Time) {
	addBusy(ctx, stage, time.Since(start), start)
}

// addBusy adds d to stage's busy-time counter, and the times from and now
// to its span.
func addBusy(ctx context.Context, stage string, d time.Duration, from time.Time) {
	beam.NewCounter(MetricsNamespace, BusyPrefix+stage).Inc(ctx, d.Milliseconds())
	span := beam.NewDistribution(MetricsNamespace, SpanPrefix+stage)
	span.Update(ctx, from.UnixMilli())
	span.Update(ctx, time.Now().UnixMilli())
}
