package jobstate

import (
	"context"
	"maps"
	"os"
	"strconv"
	"sync"
	"sync/atomic"
	"time"

	"github.com/apache/beam/sdks/v2/go/pkg/beam"

	"github.com/neardup/neardup/transforms/internal/workfiles"
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
	Skipped  atomic.Int64 // documents the signature pass skips: exact duplicates of another
	Verified atomic.Int64 // candidate pairs verified (accepted or not)
	Matched  atomic.Int64 // pairs accepted
	Bytes    atomic.Int64 // stored bytes of the input files read by the first pass
	// Stages holds when each stage started and last ended a piece of work
	// (a bundle's element: a file, a partition) in this process.
	Stages stageClock
}

// stageClock records, per stage, the start of its first piece of work, the
// end of its latest and the time spent in all of them. On a local runner it
// is the complete record: the runner's metrics are not, since the direct
// runner keeps one set of metrics per DoFn type and drops those of the other
// branches of a stage.
type stageClock struct {
	mu    sync.Mutex
	spans map[string][2]time.Time
	busy  map[string]time.Duration
}

func (c *stageClock) note(stage string, from, to time.Time) {
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.spans == nil {
		c.spans = map[string][2]time.Time{}
		c.busy = map[string]time.Duration{}
	}
	c.busy[stage] += to.Sub(from)
	s, ok := c.spans[stage]
	if !ok || from.Before(s[0]) {
		s[0] = from
	}
	if to.After(s[1]) {
		s[1] = to
	}
	c.spans[stage] = s
}

// Spans returns a copy of each stage's first start and latest end so far.
func (c *stageClock) Spans() map[string][2]time.Time {
	c.mu.Lock()
	defer c.mu.Unlock()
	return maps.Clone(c.spans)
}

// Busy returns a copy of each stage's time in its pieces of work so far
// (summed over concurrent pieces).
func (c *stageClock) Busy() map[string]time.Duration {
	c.mu.Lock()
	defer c.mu.Unlock()
	return maps.Clone(c.busy)
}

// Reset forgets every stage, for the next job of this process.
func (c *stageClock) Reset() {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.spans, c.busy = nil, nil
}

// WorkerID names this process in the per-worker metrics: host:pid.
var WorkerID = func() string {
	host, err := os.Hostname()
	if err != nil {
		host = "localhost"
	}
	return host + ":" + strconv.Itoa(os.Getpid())
}()

// Running counts the DoFn calls under way in this process (see begin):
// process-wide by nature, as Progress.
var Running atomic.Int64

// Begin marks the start of a DoFn call and returns the time, for busy:
// defer busy(ctx, "Stage", begin()).
func Begin() time.Time {
	Running.Add(1)
	return time.Now()
}

// Busy ends a DoFn call begun with begin: it adds the time since start to
// stage's busy-time counter and the start and end to its span.
func Busy(ctx context.Context, stage string, start time.Time) {
	Running.Add(-1)
	AddBusy(ctx, stage, time.Since(start), start)
}

// idleSettle is how long WaitIdle wants no DoFn call under way: the next
// element of a bundle starts right after the last one ends.
const idleSettle = 50 * time.Millisecond

// WaitIdle waits until no DoFn call of this process has been under way for
// a moment, or until timeout, and reports whether it was. A local runner
// reports a job's failure as soon as one bundle fails, while the DoFns of
// other bundles go on in this process and may still write files: wait for
// them before removing the job's directories.
func WaitIdle(timeout time.Duration) bool {
	deadline := time.Now().Add(timeout)
	var idleSince time.Time
	for {
		now := time.Now()
		switch {
		case Running.Load() != 0:
			idleSince = time.Time{}
		case idleSince.IsZero():
			idleSince = now
		case now.Sub(idleSince) >= idleSettle:
			return true
		}
		if now.After(deadline) {
			return false
		}
		time.Sleep(5 * time.Millisecond)
	}
}

// AddBusy adds d to stage's busy-time counter, and the times from and now
// to its span.
func AddBusy(ctx context.Context, stage string, d time.Duration, from time.Time) {
	now := time.Now()
	beam.NewCounter(MetricsNamespace, BusyPrefix+stage).Inc(ctx, d.Milliseconds())
	beam.NewCounter(MetricsNamespace, WorkerBusyPrefix+WorkerID+"/"+stage).Inc(ctx, d.Milliseconds())
	span := beam.NewDistribution(MetricsNamespace, SpanPrefix+stage)
	span.Update(ctx, from.UnixMilli())
	span.Update(ctx, now.UnixMilli())
	Progress.Stages.note(stage, from, now)
	for kind, n := range workfiles.TakeUnsent() {
		beam.NewCounter(MetricsNamespace, WorkBytesPrefix+kind).Inc(ctx, n)
	}
	if n := workfiles.TakeUnsentNames(); n > 0 {
		beam.NewCounter(MetricsNamespace, SpillNamesCounter).Inc(ctx, n)
	}
}

// SpillNames returns the bytes of spill file names the DoFns of this
// process have handed to the runner since the last ResetWork.
func SpillNames() int64 { return workfiles.Names() }

// WorkWritten returns the bytes the DoFns of this process have written to
// work files since the last ResetWork, by kind (the Kind constants of
// package workfiles).
func WorkWritten() map[string]int64 { return workfiles.Written() }

// ResetWork forgets the work bytes written, for the next job of this
// process.
func ResetWork() { workfiles.ResetWritten() }

// BusyIn returns addBusy for stage, for work done ahead of the runner
// (docpool.AheadEmits).
func BusyIn(ctx context.Context, stage string) func(took time.Duration, began time.Time) {
	return func(took time.Duration, began time.Time) { AddBusy(ctx, stage, took, began) }
}
