package plan

import (
	"fmt"
	"runtime"

	"github.com/neardup/neardup/transforms/job"
)

// The memory that grows with --workers and --branches
// (WorkerBytes) and with the window of a zstd input, which each
// of the files read at once holds (ReadersAtOnce), on top of
// the model's peak of the input (Runner.Peak): a local job with a budget
// gets the most workers, then branches, up to those given or chosen, that
// fit what the budget leaves beside that peak. Fewer workers or branches
// only slow the job: its outputs are the same. A zstd window that does not
// fit even one file at a time is refused.

// workerMemory is what workers and branches hold, a zstd input's window
// of window bytes in each file read at once included.
func workerMemory(workers, branches int, window int64) int64 {
	return WorkerBytes(workers, branches) + int64(ReadersAtOnce(workers, branches))*window
}

// fitWorkers lowers c's workers (0: GOMAXPROCS), then its branches, until
// workerMemory fits room, the budget's bytes left beside the peak of the
// input. It returns a line that says what it lowered, "" if nothing; an
// error if a zstd window does not fit one file at a time. o and r, the
// job's, name the budget in the line.
func fitWorkers(c *job.Config, o Options, r Runner, budget, room int64, sc inputScan) (string, error) {
	workers := c.Workers
	if workers == 0 {
		workers = runtime.GOMAXPROCS(0)
	}
	w, b := workers, c.Branches
	need := workerMemory(w, b, sc.window)
	if need <= room {
		return "", nil
	}
	for w > 1 && workerMemory(w, b, sc.window) > room {
		w--
	}
	for b > 1 && workerMemory(w, b, sc.window) > room {
		b--
	}
	given := o.Memory
	if m, _ := ParseMemory(o.Memory); m.share > 0 {
		given += " of " + gib(r.MachineMemory)
	}
	if workerMemory(w, b, sc.window) > room && sc.window > 0 {
		return "", fmt.Errorf("%s: its zstd window of %s (zstd --long), held while it is read, needs about %s of memory with the input's %s, more than --memory %s (%s): raise --memory, or compress it with a smaller window",
			sc.windowFile, gib(sc.window), gib(budget-room+workerMemory(1, 1, sc.window)), gib(budget-room), given, gib(budget))
	}
	what := fmt.Sprintf("--workers %d", c.Workers)
	if c.Workers == 0 {
		what = fmt.Sprintf("--workers 0 (%d cores)", workers)
	}
	with := fmt.Sprintf("with --branches %d", c.Branches)
	if sc.window > 0 {
		with += fmt.Sprintf(" and a zstd window of %s (%s)", gib(sc.window), sc.windowFile)
	}
	to := fmt.Sprintf("--workers %d", w)
	if b < c.Branches {
		to += fmt.Sprintf(" --branches %d", b)
	}
	c.Workers, c.Branches = w, b
	return fmt.Sprintf("%s %s needs about %s of memory beside the input's %s, more than --memory %s (%s) leaves: running with %s (the outputs are the same)",
		what, with, gib(need), gib(budget-room), given, gib(budget), to), nil
}
