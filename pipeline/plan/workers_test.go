package plan

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/neardup/neardup/transforms/format/record"
)

// TestFitWorkers: on a local runner New lowers --workers, then --branches,
// to what the budget leaves beside the input's peak, and says so once;
// workers that fit, or a cluster, keep them; and the room the workers get
// grows as the square of their number.
func TestFitWorkers(t *testing.T) {
	const gib = int64(1) << 30
	spilled := Runner{Engine: Direct, Spill: true, MachineMemory: 24 * gib}
	plan := func(r Runner, memory string, workers, branches int) (Plan, error) {
		t.Helper()
		o := defaults()
		o.Memory, o.Config.Workers, o.Config.Branches = memory, workers, branches
		if err := Check(&o, r); err != nil {
			t.Fatal(err)
		}
		return New(o, r, []string{"gs://b/x.jsonl"}, 1<<20)
	}
	p, err := plan(spilled, "50%", 2, 2)
	if err != nil || p.Config.Workers != 2 || p.Config.Branches != 2 || p.Note != "" {
		t.Errorf("2 workers, 2 branches in 12 GiB: %d, %d, note %q, %v; want them kept, no note", p.Config.Workers, p.Config.Branches, p.Note, err)
	}
	p, err = plan(spilled, "50%", 1000, 2)
	room := 12*gib - spilled.Peak(1<<20, 1, false)
	w := p.Config.Workers
	switch {
	case err != nil:
		t.Fatal(err)
	case w < 2 || w >= 1000 || p.Config.Branches != 2:
		t.Errorf("1000 workers in 12 GiB: %d workers, %d branches; want fewer workers, 2 branches", w, p.Config.Branches)
	case workerMemory(w, 2, 0) > room || workerMemory(w+1, 2, 0) <= room:
		t.Errorf("1000 workers in 12 GiB: %d workers, which take %d bytes, %d one more; want the most that fit %d", w, workerMemory(w, 2, 0), workerMemory(w+1, 2, 0), room)
	case !strings.Contains(p.Note, "--workers 1000 with --branches 2 needs about") || !strings.Contains(p.Note, "more than --memory 50% of 24.0 GiB (12.0 GiB) leaves: running with --workers "):
		t.Errorf("1000 workers: note %q", p.Note)
	}
	// Fewer than a worker a branch: the branches go too.
	p, err = plan(spilled, "700MB", 8, 4)
	if err != nil || p.Config.Workers != 1 || p.Config.Branches >= 4 || !strings.Contains(p.Note, " --branches ") {
		t.Errorf("8 workers, 4 branches in 700 MB: %d, %d, note %q, %v; want 1 worker, fewer branches", p.Config.Workers, p.Config.Branches, p.Note, err)
	}
	// A cluster's workers have no budget here.
	p, err = plan(Runner{Engine: Flink}, "50%", 4096, 256)
	if err != nil || p.Config.Workers != 4096 || p.Note != "" {
		t.Errorf("a cluster: %d workers, note %q, %v; want 4096, no note", p.Config.Workers, p.Note, err)
	}
	// Twice the workers, about four times the memory.
	if a, b := WorkerBytes(64, 1), WorkerBytes(128, 1); b < 3*a {
		t.Errorf("WorkerBytes: %d for 64 workers, %d for 128; want about 4 times", a, b)
	}
}

// TestZstdWindow: the window of a zstd input's first frame is counted in
// each file read at once: a 2 GiB window (zstd --long=31) caps the workers
// of a 12 GiB budget, and is refused, naming the file, in 2 GiB.
func TestZstdWindow(t *testing.T) {
	const gib = int64(1) << 30
	long := filepath.Join("..", "..", "testdata", "bad", "long31.jsonl.zst")
	if sc := scanInputs([]string{long}, record.JSONL, 120); sc.window != 1<<31 || sc.windowFile != long {
		t.Fatalf("scanInputs(%s): window %d of %q; want 2 GiB", long, sc.window, sc.windowFile)
	}
	spilled := Runner{Engine: Direct, Spill: true, MachineMemory: 24 * gib}
	plan := func(memory string, workers int) (Plan, error) {
		o := defaults()
		o.Memory, o.Config.Workers = memory, workers
		if err := Check(&o, spilled); err != nil {
			t.Fatal(err)
		}
		fi, err := os.Stat(long)
		if err != nil {
			t.Fatal(err)
		}
		return New(o, spilled, []string{long}, fi.Size())
	}
	p, err := plan("50%", 8)
	if err != nil || p.Config.Workers*p.Config.Branches > 5 || !strings.Contains(p.Note, "a zstd window of 2.0 GiB ("+long+")") {
		t.Errorf("a 2 GiB window, 8 workers in 12 GiB: %d workers, %d branches, note %q, %v; want at most 5 files at once", p.Config.Workers, p.Config.Branches, p.Note, err)
	}
	_, err = plan("2GiB", 1)
	if err == nil || !strings.HasPrefix(err.Error(), long+": its zstd window of 2.0 GiB") || !strings.Contains(err.Error(), "more than --memory 2GiB") {
		t.Errorf("a 2 GiB window in 2 GiB: error %v; want one naming the file and its window", err)
	}
}
