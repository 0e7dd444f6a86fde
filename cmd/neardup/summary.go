package main

import (
	"context"
	"crypto/rand"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"math"
	"os"
	"path/filepath"
	"strings"
	"time"

	"github.com/apache/beam/sdks/v2/go/pkg/beam"
	"github.com/apache/beam/sdks/v2/go/pkg/beam/core/metrics"
	"github.com/apache/beam/sdks/v2/go/pkg/beam/io/filesystem"

	"github.com/neardup/neardup/transforms/format/summary"
	"github.com/neardup/neardup/transforms/jobstate"
	"github.com/neardup/neardup/transforms/objects"
)

// completeSummary adds the wall time, the busy time and span of each stage
// (from the runner's metrics, where it reports them) and the job's settings
// to the summary.json the job wrote in dir, and returns it. Times vary from
// run to run and the shape of the job from runner to runner; the counts
// beside them do not.
func completeSummary(ctx context.Context, dir string, local bool, res beam.PipelineResult, start time.Time, wall time.Duration, settings summary.Settings) (summary.Summary, error) {
	return updateJSON(ctx, dir, summary.FileName, func(sum *summary.Summary) {
		defer sum.NoteFirstWork()
		sum.WallSeconds = wall.Seconds()
		sum.Settings = &settings
		if res == nil {
			return
		}
		if local { // the DoFns ran here: their own record is complete
			sum.StageSeconds, sum.StageSpans = localStages(&jobstate.Progress.Stages, start)
			sum.Signed = jobstate.Progress.Signed.Load()
			sum.Workers = map[string]summary.WorkerStats{jobstate.WorkerID: {
				Signed: sum.Signed, StageSeconds: sum.StageSeconds}}
			sum.WorkBytes = jobstate.WorkWritten()
			sum.SpillNameBytes = jobstate.SpillNames()
			return
		}
		all := res.Metrics().AllMetrics()
		sum.StageSeconds = map[string]float64{}
		for _, c := range all.Counters() {
			if c.Namespace() == jobstate.MetricsNamespace && strings.HasPrefix(c.Name(), jobstate.BusyPrefix) {
				sum.StageSeconds[strings.TrimPrefix(c.Name(), jobstate.BusyPrefix)] += float64(c.Result()) / 1000
			} else if c.Namespace() == jobstate.MetricsNamespace && c.Name() == jobstate.SignedCounter {
				sum.Signed += c.Result()
			} else if c.Namespace() == jobstate.MetricsNamespace && c.Name() == jobstate.SpillNamesCounter {
				sum.SpillNameBytes += c.Result()
			}
		}
		sum.StageSpans = stageSpans(all.Distributions(), start)
		sum.WorkBytes = workBytes(all.Counters())
		sum.Workers = workerStats(all.Counters())
	})
}

// updateJSON reads the JSON file name the job wrote in dir (through Beam's
// filesystems: dir need not be on this machine), applies update to it and
// writes it back, indented.
func updateJSON[T any](ctx context.Context, dir, name string, update func(*T)) (T, error) {
	var v T
	path := objects.JoinPath(dir, name)
	b, err := readAny(ctx, path)
	if err == nil {
		err = json.Unmarshal(b, &v)
	}
	if err != nil {
		return v, fmt.Errorf("the job wrote no readable %s: %w", name, err)
	}
	update(&v)
	if b, err = json.MarshalIndent(v, "", "  "); err != nil {
		return v, err
	}
	return v, writeAny(ctx, path, append(b, '\n'))
}

// readAny reads a file on any Beam filesystem.
func readAny(ctx context.Context, path string) ([]byte, error) {
	fsys, err := filesystem.New(ctx, path)
	if err != nil {
		return nil, err
	}
	defer fsys.Close()
	return filesystem.Read(ctx, fsys, path)
}

// writeAny writes a file on any Beam filesystem: a local one through a
// temporary file and a rename.
func writeAny(ctx context.Context, path string, b []byte) error {
	if !strings.Contains(path, "://") {
		tmp := filepath.Join(filepath.Dir(path), ".tmp-"+filepath.Base(path)+"-"+randomHex())
		if err := os.WriteFile(tmp, b, 0o644); err != nil {
			os.Remove(tmp)
			return err
		}
		return os.Rename(tmp, path)
	}
	fsys, err := filesystem.New(ctx, path)
	if err != nil {
		return err
	}
	defer fsys.Close()
	return filesystem.Write(ctx, fsys, path, b)
}

// stageClock is the record of the stages' work kept by the DoFns of this
// process (jobstate.Progress.Stages).
type stageClock interface {
	Busy() map[string]time.Duration
	Spans() map[string][2]time.Time
}

// localStages returns, per stage, the seconds of work and the seconds
// since start at which its work first started and last ended, from the
// record the DoFns of this process kept. It returns nils if there is none.
func localStages(c stageClock, start time.Time) (busy map[string]float64, spans map[string][2]float64) {
	since := func(t time.Time) float64 { return math.Round(float64(t.Sub(start).Milliseconds())) / 1000 }
	for name, d := range c.Busy() {
		if busy == nil {
			busy = map[string]float64{}
		}
		busy[name] = math.Round(float64(d.Milliseconds())) / 1000
	}
	for name, s := range c.Spans() {
		if spans == nil {
			spans = map[string][2]float64{}
		}
		spans[name] = [2]float64{since(s[0]), since(s[1])}
	}
	return busy, spans
}

// workerStats returns the work of each worker process from the per-worker
// counters (jobstate.WorkerBusyPrefix, jobstate.WorkerSignedPrefix), or nil if
// the runner reported none.
func workerStats(counters []metrics.CounterResult) map[string]summary.WorkerStats {
	var ws map[string]summary.WorkerStats
	add := func(worker string, f func(*summary.WorkerStats)) {
		if ws == nil {
			ws = map[string]summary.WorkerStats{}
		}
		w := ws[worker]
		f(&w)
		ws[worker] = w
	}
	for _, c := range counters {
		if c.Namespace() != jobstate.MetricsNamespace {
			continue
		}
		if worker, ok := strings.CutPrefix(c.Name(), jobstate.WorkerSignedPrefix); ok {
			add(worker, func(w *summary.WorkerStats) { w.Signed += c.Result() })
		} else if rest, ok := strings.CutPrefix(c.Name(), jobstate.WorkerBusyPrefix); ok {
			worker, stage, _ := strings.Cut(rest, "/")
			add(worker, func(w *summary.WorkerStats) {
				if w.StageSeconds == nil {
					w.StageSeconds = map[string]float64{}
				}
				w.StageSeconds[stage] += float64(c.Result()) / 1000
			})
		}
	}
	return ws
}

// stageSpans returns, per stage, the seconds since start at which its work
// first started and last ended, from the span_ms distributions: the runner
// reports one per step, and a stage may have several (branches, rounds).
// It returns nil if there are none.
func stageSpans(dists []metrics.DistributionResult, start time.Time) map[string][2]float64 {
	since := func(ms int64) float64 { return math.Round(float64(ms-start.UnixMilli())) / 1000 }
	var spans map[string][2]float64
	for _, d := range dists {
		if d.Namespace() != jobstate.MetricsNamespace || !strings.HasPrefix(d.Name(), jobstate.SpanPrefix) {
			continue
		}
		if spans == nil {
			spans = map[string][2]float64{}
		}
		r := d.Result()
		name := strings.TrimPrefix(d.Name(), jobstate.SpanPrefix)
		span := [2]float64{since(r.Min), since(r.Max)}
		if old, ok := spans[name]; ok {
			span = [2]float64{min(old[0], span[0]), max(old[1], span[1])}
		}
		spans[name] = span
	}
	return spans
}

func randomHex() string {
	var b [8]byte
	_, _ = rand.Read(b[:])
	return hex.EncodeToString(b[:])
}

// workBytes returns the bytes written to work files by kind, from the
// counters jobstate.WorkBytesPrefix+KIND, or nil if the runner reported
// none.
func workBytes(counters []metrics.CounterResult) map[string]int64 {
	var wb map[string]int64
	for _, c := range counters {
		kind, ok := strings.CutPrefix(c.Name(), jobstate.WorkBytesPrefix)
		if !ok || c.Namespace() != jobstate.MetricsNamespace {
			continue
		}
		if wb == nil {
			wb = map[string]int64{}
		}
		wb[kind] += c.Result()
	}
	return wb
}
