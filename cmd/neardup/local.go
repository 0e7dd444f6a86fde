package main

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"runtime/debug"
	"runtime/pprof"
	"sync"
	"time"

	"github.com/apache/beam/sdks/v2/go/pkg/beam"
	"github.com/apache/beam/sdks/v2/go/pkg/beam/options/jobopts"
	"github.com/apache/beam/sdks/v2/go/pkg/beam/x/beamx"

	"github.com/neardup/neardup/cmd/neardup/internal/jobservice"
	"github.com/neardup/neardup/cmd/neardup/internal/outdir"
	"github.com/neardup/neardup/cmd/neardup/internal/progress"
	"github.com/neardup/neardup/pipeline/plan"
	"github.com/neardup/neardup/transforms/job"
	"github.com/neardup/neardup/transforms/jobfiles"
	"github.com/neardup/neardup/transforms/jobfiles/spool"
	"github.com/neardup/neardup/transforms/jobstate"
)

// startLocal prepares what a job running on one machine needs, for run and
// audit alike: the soft memory limit, the spool of decompressed inputs, the
// CPU and heap profiles and the progress lines. The returned stop ends them;
// call it once the job is done.
func startLocal(f *runFlags, budget int64, cfg *job.Config, files []string) (stop func(), err error) {
	var undo []func()
	var once sync.Once
	stop = func() {
		once.Do(func() {
			for i := len(undo) - 1; i >= 0; i-- {
				undo[i]()
			}
		})
	}
	tuneLocalGC(f.engine.Local(), budget, f.opts.Given["memory"])
	cfg.Spill = f.spill && f.engine.SharesWork(cfg.Output)
	if f.spool && !f.engine.Local() && f.engine.SharesWork(cfg.Output) { // the work directory in the output: pipeline.Build's default
		cfg.Work = filepath.Join(cfg.Output, jobfiles.WorkDirName)
		cfg.Spool = cfg.Work
		undo = append(undo, func() { spool.Forget(cfg.Spool) })
	}
	if f.engine.Local() {
		// One temporary directory holds the job's intermediate files and
		// the spool, and the runner's temporary files (TMPDIR): it goes
		// when the command ends, however it ends but SIGKILL, and a later
		// run removes it then (outdir.SweepWorkDirs).
		outdir.SweepWorkDirs(os.TempDir(), time.Now())
		var dir string
		remove, err := makeAtExit(func() (func(), error) {
			var err error
			dir, err = outdir.MakeWorkDir()
			return func() { outdir.RemoveAll(dir) }, err
		})
		if err != nil {
			return stop, fmt.Errorf("making the work directory in %s: %w", os.TempDir(), err)
		}
		restoreTemp := setTempDir(dir)
		undo = append(undo, func() {
			restoreTemp()
			spool.Forget(dir)
			remove()
		})
		cfg.Work = dir
		if f.spool {
			cfg.Spool = dir
		}
	}
	if f.cpuprofile != "" {
		pf, err := os.Create(f.cpuprofile)
		if err != nil {
			stop()
			return func() {}, err
		}
		if err := pprof.StartCPUProfile(pf); err != nil {
			pf.Close()
			stop()
			return func() {}, err
		}
		undo = append(undo, func() { pprof.StopCPUProfile(); pf.Close() })
	}
	if f.memprofile != "" {
		quit := make(chan struct{})
		done := make(chan error)
		go func() { done <- peakHeapProfile(f.memprofile, time.Second, quit) }()
		undo = append(undo, func() {
			close(quit)
			if err := <-done; err != nil {
				fmt.Fprintln(os.Stderr, "neardup: memprofile:", err)
			}
		})
	}
	if !f.quiet && f.engine.Local() {
		undo = append(undo, progress.Start(files))
	}
	return stop, nil
}

// tuneLocalGC gives the Go runtime a soft memory limit, nine tenths of the
// budget of --memory (softLimit), when the job runs in this process (Prism
// or the direct runner): the runner keeps shuffled data in memory and the
// garbage it leaves would otherwise let the heap grow to twice the live
// data. GOMEMLIMIT, if set, wins over --memory's default, not over a
// --memory given (given). A budget of 0 (a share of a machine whose memory
// is unknown) sets no limit, nor does a job that runs elsewhere (local
// false).
//
// The collector's pace is Go's default (GOGC=100) unless GOGC is set: no
// other pace made a run faster (docs/BENCHMARKS.md).
func tuneLocalGC(local bool, budget int64, given bool) {
	if !local || budget <= 0 || !given && os.Getenv("GOMEMLIMIT") != "" {
		return
	}
	setMemoryLimit(softLimit(budget))
}

// softLimit is the Go runtime's soft memory limit for a budget: nine tenths
// of it. The limit counts only the runtime's own memory, and freed pages
// the kernel has not taken back yet (neardup runs with madvdontneed=0)
// still count in the resident memory, so the collector must start working
// hard a little before the budget is reached.
func softLimit(budget int64) int64 { return budget - budget/10 }

// setMemoryLimit is debug.SetMemoryLimit; a test may watch it.
var setMemoryLimit = debug.SetMemoryLimit

// runPipeline runs p and closes jobDone when it ends. If the job failed on
// a local runner, it returns once the DoFns of the bundles other than the
// failed one, which go on in this process, have stopped writing into the
// directories the caller's cleanups remove: it waits for them a moment
// (jobstate.WaitIdle; not when the job was cancelled), then stops every
// writer (jobfiles.StopWriters).
func runPipeline(ctx context.Context, e plan.Engine, p *beam.Pipeline, jobDone chan struct{}) (beam.PipelineResult, error) {
	jobstate.Progress.Stages.Reset()
	stopProxy, err := jobservice.Use(ctx, e.Portable())
	if err != nil {
		return nil, err
	}
	defer stopProxy()
	if jobopts.IsLoopback() && !e.Local() {
		restore, err := privateTempDir()
		if err != nil {
			return nil, err
		}
		defer restore()
	}
	res, err := beamx.RunWithMetrics(ctx, p)
	close(jobDone)
	progress.End(err == nil)
	if err != nil {
		if e.Local() {
			// The caller's cleanups run next (deferred), also when a
			// signal cancelled the job, before the signal handler does.
			if ctx.Err() == nil {
				jobstate.WaitIdle(30 * time.Second)
			}
			jobfiles.StopWriters(stopWritersTimeout)
		}
		return nil, fmt.Errorf("pipeline failed: %s", rootCause(err))
	}
	return res, nil
}

// privateTempDir points TMPDIR at a new directory inside os.TempDir() and
// returns the function that removes it and restores TMPDIR. A job whose
// workers run in this process (Beam's loopback environment) on a runner
// that is not local runs in one: Beam's universal runner leaves an empty
// beamloopbackworker-* file in os.TempDir() for each such job, which it
// never removes. (A local job's TMPDIR is its work directory already, see
// startLocal.)
func privateTempDir() (restore func(), err error) {
	var dir string
	remove, err := makeAtExit(func() (func(), error) {
		var err error
		dir, err = os.MkdirTemp("", "neardup-job-*")
		return func() { os.RemoveAll(dir) }, err
	})
	if err != nil {
		return nil, fmt.Errorf("making a temporary directory for the job in %s: %w", os.TempDir(), err)
	}
	restoreTemp := setTempDir(dir)
	return func() { restoreTemp(); remove() }, nil
}

// setTempDir points TMPDIR at dir and returns what puts it back.
func setTempDir(dir string) (restore func()) {
	old, had := os.LookupEnv("TMPDIR")
	os.Setenv("TMPDIR", dir)
	if !had {
		return func() { os.Unsetenv("TMPDIR") }
	}
	return func() { os.Setenv("TMPDIR", old) }
}
