package main

import (
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"

	"github.com/neardup/neardup/pipeline/plan"
	"github.com/neardup/neardup/transforms/format/record"
	"github.com/neardup/neardup/transforms/format/summary"
	"github.com/neardup/neardup/transforms/job"
)

// TestMemoryBudgetRun runs the command on the sample: with a --memory too
// small for the model's fixed part it refuses on one line, exit code 2,
// before creating the output directory; so it does with --rounds 1 and a
// budget that only more rounds meet, saying so; with a budget that the automatic
// rounds exceed but 6 rounds meet, it runs with 6 rounds, and sets the Go
// runtime's soft memory limit to nine tenths of the budget (seen through
// setMemoryLimit, which the test binary's main records); the outputs are
// those of the automatic rounds. --workers 4096 in 2 GiB runs with fewer
// workers, said once on stderr, and the same outputs.
func TestMemoryBudgetRun(t *testing.T) {
	pattern := sampleFile(t, "sample-*")
	files, err := filepath.Glob(pattern)
	if err != nil || len(files) == 0 {
		t.Fatalf("no sample files (%v)", err)
	}
	var stored int64
	for _, f := range files {
		stored += size0(f)
	}
	out := filepath.Join(t.TempDir(), "out")
	code, stderr := neardup(t, "", "run", "--quiet", "--input", pattern, "--output", out, "--memory", "64MiB")
	if code != 2 || !strings.Contains(stderr, "needs about") || !strings.Contains(stderr, "--memory 64MiB (64 MiB)") || !strings.Contains(stderr, "raise --memory") {
		t.Errorf("--memory 64MiB: exit %d, stderr %q; want exit 2 and the estimate, the budget and what to do", code, stderr)
	}
	checkOneLine(t, stderr)
	if _, err := os.Stat(out); !os.IsNotExist(err) {
		t.Errorf("a refused run left %s (%v)", out, err)
	}

	input := plan.DecompressedBytes(files, record.JSONL, stored)
	auto := plan.AutoRounds(stored, job.DefaultConfig().Branches, true)
	if auto >= 6 {
		t.Fatalf("the sample has %d automatic rounds; the test needs fewer than 6", auto)
	}
	// --rounds 1 does not fit a budget that 8 rounds meet: the error says
	// to raise them.
	eight := strconv.FormatInt(plan.Runner{Engine: plan.Direct}.Peak(input, 8, false), 10) + "B"
	code, stderr = neardup(t, "", "run", "--quiet", "--input", pattern, "--output", out, "--spill=false", "--rounds", "1", "--memory", eight)
	if code != 2 || !strings.Contains(stderr, "with --rounds 1,") || !strings.Contains(stderr, "raise --rounds") {
		t.Errorf("--rounds 1 --memory %s: exit %d, stderr %q; want exit 2, saying to raise --rounds", eight, code, stderr)
	}

	// Spilled (the default), rounds do not help: a budget a byte below the
	// model's peak is refused, saying so.
	spilled := plan.Runner{Engine: plan.Direct, Spill: true}.Peak(input, 1, false)
	code, stderr = neardup(t, "", "run", "--quiet", "--input", pattern, "--output", out, "--memory", strconv.FormatInt(spilled-1, 10)+"B")
	if code != 2 || !strings.Contains(stderr, "with the large shuffles spilled to disk") || !strings.Contains(stderr, "raise --memory") {
		t.Errorf("--memory %dB: exit %d, stderr %q; want exit 2, the shuffles spilled", spilled-1, code, stderr)
	}

	budget := plan.Runner{Engine: plan.Direct}.Peak(input, 6, false)
	limitFile := filepath.Join(t.TempDir(), "limit")
	budgeted, plain := filepath.Join(t.TempDir(), "budgeted"), filepath.Join(t.TempDir(), "plain")
	code, stderr = neardupEnv(t, []string{"NEARDUP_TEST_MEMLIMIT_FILE=" + limitFile}, "run", "--quiet", "--input", pattern, "--output", budgeted, "--spill=false", "--memory", strconv.FormatInt(budget, 10)+"B")
	if code != 0 {
		t.Fatalf("--memory %dB: exit %d, stderr:\n%.2000s", budget, code, stderr)
	}
	b, err := os.ReadFile(limitFile)
	if got, _ := strconv.ParseInt(string(b), 10, 64); err != nil || got != softLimit(budget) {
		t.Errorf("soft memory limit set to %q (%v), want %d (nine tenths of %d)", b, err, softLimit(budget), budget)
	}
	s, err := summary.ReadSummary(budgeted)
	if err != nil || s.Settings == nil || s.Settings.Rounds != 6 {
		t.Fatalf("--memory %dB: summary %+v (%v), want 6 rounds", budget, s.Settings, err)
	}
	if code, stderr := neardup(t, "", "run", "--quiet", "--input", pattern, "--output", plain); code != 0 {
		t.Fatalf("default --memory: exit %d, stderr:\n%.2000s", code, stderr)
	}
	// Spilled (the default), the runner holds file names: 1 round.
	if s, err := summary.ReadSummary(plain); err != nil || s.Settings == nil || s.Settings.Rounds != 1 {
		t.Fatalf("default --memory: summary %+v (%v), want 1 round (spilled)", s.Settings, err)
	}
	if n := sameOutputs(t, budgeted, plain, "6 rounds against the automatic ones"); n == 0 {
		t.Error("no outputs compared")
	}

	// --workers 4096 takes more than 2 GiB leaves beside the input: the
	// run says so once and runs with fewer, the outputs the same.
	capped := filepath.Join(t.TempDir(), "capped")
	code, stderr = neardup(t, "", "run", "--quiet", "--input", pattern, "--output", capped, "--workers", "4096", "--memory", "2GiB")
	if code != 0 {
		t.Fatalf("--workers 4096: exit %d, stderr:\n%.2000s", code, stderr)
	}
	if !strings.HasPrefix(stderr, "neardup: --workers 4096 with --branches ") || !strings.Contains(stderr, "more than --memory 2GiB (2.0 GiB) leaves: running with --workers ") || strings.Count(stderr, "\n") != 1 {
		t.Errorf("--workers 4096 --memory 2GiB: stderr %q; want one line saying the workers were lowered", stderr)
	}
	if n := sameOutputs(t, capped, plain, "--workers 4096, lowered, against the default"); n == 0 {
		t.Error("no outputs compared")
	}
}

// size0 is the size of a file, 0 if it has none.
func size0(p string) int64 {
	if fi, err := os.Stat(p); err == nil {
		return fi.Size()
	}
	return 0
}
