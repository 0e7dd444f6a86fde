package main

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"flag"
	"maps"
	"math"
	"os"
	"os/exec"
	"path/filepath"
	"runtime/debug"
	"slices"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/apache/beam/sdks/v2/go/pkg/beam/core/metrics"

	"github.com/neardup/neardup/cmd/neardup/internal/inputs"
	"github.com/neardup/neardup/pipeline/plan"
	"github.com/neardup/neardup/transforms/format/summary"
	"github.com/neardup/neardup/transforms/job"
	"github.com/neardup/neardup/transforms/jobstate"
)

// TestMain doubles as the neardup command: with NEARDUP_TEST_MAIN=1 the test
// binary runs main() on its arguments (after setting the fault named by
// NEARDUP_TEST_FAIL_ONCE, the stall named by NEARDUP_TEST_STALL, and with the slow:// filesystem of slowfs_test.go:
// test hooks the real command does not have), so that the tests can check
// exit codes and messages of whole runs.
func TestMain(m *testing.M) {
	if os.Getenv("NEARDUP_TEST_MAIN") == "1" {
		jobstate.SetFailOnce(os.Getenv("NEARDUP_TEST_FAIL_ONCE"))
		registerSlowFS()
		stallOnce(os.Getenv("NEARDUP_TEST_STALL")) // engines_test.go
		if p := os.Getenv("NEARDUP_TEST_MEMLIMIT_FILE"); p != "" {
			setMemoryLimit = func(n int64) int64 { // memory_test.go
				_ = os.WriteFile(p, []byte(strconv.FormatInt(n, 10)), 0o644)
				return debug.SetMemoryLimit(n)
			}
		}
		main()
		if p := os.Getenv("NEARDUP_TEST_PEAK_FILE"); p != "" { // rejectmem_test.go
			writePeak(p)
		}
		os.Exit(0)
	}
	code := m.Run()
	stopEngines()
	os.Exit(code)
}

// neardup runs the command in a child process and returns its exit code and
// standard error.
func neardup(t *testing.T, failOnce string, args ...string) (int, string) {
	t.Helper()
	return neardupEnv(t, []string{"NEARDUP_TEST_FAIL_ONCE=" + failOnce}, args...)
}

// neardupCmd returns the command in a child process with env added to the
// environment; its standard error goes to stderr.
func neardupCmd(env []string, stderr *bytes.Buffer, args ...string) *exec.Cmd {
	cmd := exec.Command(os.Args[0], args...)
	cmd.Env = append(append(os.Environ(), "NEARDUP_TEST_MAIN=1"), env...)
	cmd.Stderr = stderr
	return cmd
}

// neardupEnv is neardup with env added to the environment.
func neardupEnv(t *testing.T, env []string, args ...string) (int, string) {
	t.Helper()
	var stderr bytes.Buffer
	return exitCode(t, neardupCmd(env, &stderr, args...).Run()), stderr.String()
}

// exitCode is the exit code of a command that ended with err.
func exitCode(t *testing.T, err error) int {
	t.Helper()
	var exit *exec.ExitError
	switch {
	case err == nil:
		return 0
	case errors.As(err, &exit):
		return exit.ExitCode()
	}
	t.Fatal(err)
	return 0
}

func writeFiles(t *testing.T, dir string, names ...string) {
	t.Helper()
	if err := os.MkdirAll(dir, 0o755); err != nil {
		t.Fatal(err)
	}
	for _, n := range names {
		if err := os.MkdirAll(filepath.Dir(filepath.Join(dir, n)), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(filepath.Join(dir, n), []byte(n+"\n"), 0o644); err != nil {
			t.Fatal(err)
		}
	}
}

func listDir(t *testing.T, dir string) []string {
	t.Helper()
	entries, err := os.ReadDir(dir)
	if err != nil {
		t.Fatal(err)
	}
	var names []string
	for _, e := range entries {
		names = append(names, e.Name())
	}
	return names
}

func TestExpandInputs(t *testing.T) {
	dir := t.TempDir()
	writeFiles(t, dir, "a.jsonl", "b.jsonl", "c.tsv", "x,y.jsonl")
	if err := os.Mkdir(filepath.Join(dir, "sub.jsonl"), 0o755); err != nil {
		t.Fatal(err)
	}
	p := func(n string) string { return filepath.Join(dir, n) }
	tests := []struct {
		name  string
		spec  string
		want  []string
		size  int64
		error string // a substring of the error; "" for none
	}{
		{"one glob", p("*.tsv"), []string{p("c.tsv")}, 6, ""},
		{"globs overlap", p("a.*") + " , " + p("*.jsonl"), []string{p("a.jsonl"), p("b.jsonl"), p("sub.jsonl"), p("x,y.jsonl")}, -1, ""},
		{"a comma written \\,", p(`x\,y.jsonl`), []string{p("x,y.jsonl")}, 10, ""},
		{"a comma written \\, in a glob, beside another", p(`*\,*`) + "," + p("a.jsonl"), []string{p("a.jsonl"), p("x,y.jsonl")}, 18, ""},
		{"a comma not escaped", p("x,y.jsonl"), nil, 0, `--input "` + p("x") + `" matches no file (commas separate inputs: write a comma in a file name as \,)`},
		{"directory kept, rejected by the job", p("sub*"), []string{p("sub.jsonl")}, -1, ""},
		{"plain path", p("b.jsonl"), []string{p("b.jsonl")}, 8, ""},
		{"no match", p("*.csv"), nil, 0, "matches no file"},
		{"one of two globs matches nothing", p("*.jsonl") + "," + p("nothing-*"), nil, 0, "matches no file"},
		{"missing file", p("missing.jsonl"), nil, 0, "matches no file"},
		{"empty", " , ", nil, 0, "matches no file"},
		{"bad pattern", p("[a"), nil, 0, "syntax error"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			files, size, err := inputs.Expand(context.Background(), tt.spec)
			if tt.error != "" {
				if err == nil || !strings.Contains(err.Error(), tt.error) {
					t.Fatalf("inputs.Expand(%q) = %v, %v; want an error with %q", tt.spec, files, err, tt.error)
				}
				return
			}
			if err != nil || !slices.Equal(files, tt.want) || (tt.size >= 0 && size != tt.size) {
				t.Errorf("inputs.Expand(%q) = %v, %d, %v; want %v, %d", tt.spec, files, size, err, tt.want, tt.size)
			}
		})
	}
}

// TestRunNoInput: an input glob that matches nothing fails the command
// before any work, with a clear message; no output directory is created.
func TestRunNoInput(t *testing.T) {
	dir := t.TempDir()
	out := filepath.Join(dir, "out")
	code, stderr := neardup(t, "", "run", "--input", filepath.Join(dir, "nothing-*.jsonl"), "--output", out)
	if code == 0 || !strings.Contains(stderr, "matches no file") {
		t.Errorf("exit code %d, stderr %q; want a failure saying the glob matches no file", code, stderr)
	}
	if _, err := os.Stat(out); !errors.Is(err, os.ErrNotExist) {
		t.Errorf("the output directory was created (%v)", err)
	}
}

// TestRunFault injects a failure into each stage that has a fault hook:
// the command exits 1 with one line naming the fault, and the output
// directory is as it was (the job's outputs stay in its staging directory,
// whatever later stages wrote on the part of the input a failed runner
// let through: see TestFault in package pipeline).
func TestRunFault(t *testing.T) {
	input, err := filepath.Abs("../../testdata/sample/sample-*")
	if err != nil {
		t.Fatal(err)
	}
	for _, stage := range []string{"Read", "Signatures", "Write"} {
		t.Run(stage, func(t *testing.T) {
			out := t.TempDir()
			writeFiles(t, out, "notes.txt")
			code, stderr := neardup(t, stage, "run", "--input", input, "--output", out, "--overwrite")
			if code != 1 || !strings.Contains(stderr, "injected fault") || strings.Count(stderr, "\n") != 1 {
				t.Fatalf("exit code %d with an injected fault in %s; want 1 and one line naming it; stderr:\n%.2000s", code, stage, stderr)
			}
			if left := listDir(t, out); !slices.Equal(left, []string{"notes.txt"}) {
				t.Errorf("after the failed run: %q, want the directory as before", left)
			}
		})
	}
}

// TestRunFaultThenOverwrite runs the command three times into one directory
// holding an unrelated file and a stale shard of an earlier run: with an
// injected fault and --overwrite (fails, naming the fault on one line: the
// directory is as before, no partial output), without --overwrite
// (refused: the directory is not empty), and with --overwrite and no fault:
// the same files as a run into a fresh directory, the shards byte for byte
// and the same counts.
func TestRunFaultThenOverwrite(t *testing.T) {
	input, err := filepath.Abs("../../testdata/sample/sample-*")
	if err != nil {
		t.Fatal(err)
	}
	out := t.TempDir()
	writeFiles(t, out, "notes.txt", "pairs-00007.jsonl")

	code, stderr := neardup(t, "Read", "run", "--input", input, "--output", out, "--overwrite")
	if code != 1 || !strings.Contains(stderr, "injected fault") || strings.Count(stderr, "\n") != 1 {
		t.Fatalf("exit code %d with an injected fault; want 1 and one line naming it; stderr:\n%.2000s", code, stderr)
	}
	if left := listDir(t, out); !slices.Equal(left, []string{"notes.txt", "pairs-00007.jsonl"}) {
		t.Errorf("after the failed run: %q, want the directory as before", left)
	}

	code, stderr = neardup(t, "", "run", "--input", input, "--output", out)
	if code == 0 || !strings.Contains(stderr, "not empty") {
		t.Errorf("exit code %d, stderr %q; want a refusal of the non-empty directory", code, stderr)
	}

	if code, stderr = neardup(t, "", "run", "--input", input, "--output", out, "--overwrite"); code != 0 {
		t.Fatalf("exit code %d after the fault was gone; stderr:\n%.2000s", code, stderr)
	}
	fresh := filepath.Join(t.TempDir(), "fresh")
	if code, stderr = neardup(t, "", "run", "--input", input, "--output", fresh); code != 0 {
		t.Fatalf("exit code %d; stderr:\n%.2000s", code, stderr)
	}
	checkSpans(t, fresh)
	s, err := summary.ReadSummary(fresh)
	if err != nil {
		t.Fatal(err)
	}
	checkWorkBytes(t, s, "spool", "doc_shards", "info_shards", "seen", "manifest") // sample-1 is compressed
	want := append(listDir(t, fresh), "notes.txt")
	slices.Sort(want)
	if got := listDir(t, out); !slices.Equal(got, want) {
		t.Errorf("files %q, want %q", got, want)
	}
	sameOutputs(t, out, fresh, "from a fresh run")
}

// checkSpans: summary.json has a span for every stage with busy time, from
// Beam's metrics, and each lies within the job's wall time.
func checkSpans(t *testing.T, dir string) {
	t.Helper()
	s, err := summary.ReadSummary(dir)
	if err != nil {
		t.Fatal(err)
	}
	if len(s.StageSpans) == 0 || len(s.StageSpans) != len(s.StageSeconds) {
		t.Fatalf("spans of %d stages, busy times of %d", len(s.StageSpans), len(s.StageSeconds))
	}
	for name, sp := range s.StageSpans {
		if _, ok := s.StageSeconds[name]; !ok || sp[0] < 0 || sp[0] > sp[1] || sp[1] > s.WallSeconds+0.01 {
			t.Errorf("stage %s: span %v (busy %v) in a job of %.3f s", name, sp, ok, s.WallSeconds)
		}
	}
	if s.StageSpans["Read"][0] > s.StageSpans["Signatures"][0] || s.StageSpans["Summary"][1] < s.StageSpans["WriteDedup"][1] {
		t.Errorf("spans out of the job's order: %v", s.StageSpans)
	}
	if s.FirstWorkSeconds != s.StageSpans["Read"][0] {
		t.Errorf("first_work_seconds %v, want Read's start %v", s.FirstWorkSeconds, s.StageSpans["Read"][0])
	}
}

// checkWorkBytes: summary.json counts bytes written to each of kinds of
// work file, and none to a kind the product does not write.
func checkWorkBytes(t *testing.T, s summary.Summary, kinds ...string) {
	t.Helper()
	for _, k := range kinds {
		if s.WorkBytes[k] <= 0 {
			t.Errorf("work bytes written %v: none of kind %s", s.WorkBytes, k)
		}
	}
	known := []string{"spool", "doc_shards", "info_shards", "seen", "signature_shards", "spilled_shuffles",
		"output_parts", "decide_spill", "sort_runs", "parquet_copies", "index_parts", "manifest"}
	for k := range s.WorkBytes {
		if !slices.Contains(known, k) {
			t.Errorf("work bytes written %v: unknown kind %s", s.WorkBytes, k)
		}
	}
}

func summaryCounts(t *testing.T, b []byte) []byte {
	t.Helper()
	var s summary.Summary
	if err := json.Unmarshal(b, &s); err != nil {
		t.Fatal(err)
	}
	c, _ := json.Marshal(s.Counts)
	return c
}

// TestRunFlagGroups: every flag of 'neardup run' is listed in exactly one
// group of its help, so a new flag cannot go missing from it.
func TestRunFlagGroups(t *testing.T) {
	fs := flag.NewFlagSet("run", flag.ContinueOnError)
	registerRunFlags(fs)
	count := map[string]int{}
	for _, g := range runFlagGroups {
		for _, n := range g.names {
			if fs.Lookup(n) == nil {
				t.Errorf("group %q names unknown flag %q", g.title, n)
			}
			count[n]++
		}
	}
	fs.VisitAll(func(f *flag.Flag) {
		if count[f.Name] != 1 {
			t.Errorf("flag %q is in %d groups, want 1", f.Name, count[f.Name])
		}
	})
}

// TestStageSpans: a stage's span runs from the earliest start to the latest
// end over all its steps; other namespaces and metrics are ignored.
func TestStageSpans(t *testing.T) {
	start := time.UnixMilli(1_000_000)
	dist := func(step, name string, lo, hi int64) metrics.DistributionResult {
		return metrics.DistributionResult{
			Key:       metrics.StepKey{Step: step, Name: name, Namespace: jobstate.MetricsNamespace},
			Attempted: metrics.DistributionValue{Count: 2, Sum: lo + hi, Min: lo, Max: hi},
		}
	}
	other := dist("s9", jobstate.SpanPrefix+"Read", 0, 9_999_999)
	other.Key.Namespace = "beam"
	got := stageSpans([]metrics.DistributionResult{
		dist("s1", jobstate.SpanPrefix+"Clusters", 1_003_000, 1_004_000),
		dist("s2", jobstate.SpanPrefix+"Clusters", 1_001_500, 1_002_000),
		dist("s3", jobstate.SpanPrefix+"Clusters", 1_002_500, 1_006_250),
		dist("s4", jobstate.SpanPrefix+"Read", 1_000_000, 1_000_700),
		dist("s4", "something_else", 0, 1),
		other,
	}, start)
	want := map[string][2]float64{"Clusters": {1.5, 6.25}, "Read": {0, 0.7}}
	if !maps.Equal(got, want) {
		t.Errorf("stageSpans = %v, want %v", got, want)
	}
	if got := stageSpans(nil, start); got != nil {
		t.Errorf("stageSpans(nil) = %v, want nil", got)
	}
}

// fakeClock is a stage record with fixed contents.
type fakeClock struct {
	busy  map[string]time.Duration
	spans map[string][2]time.Time
}

func (c fakeClock) Busy() map[string]time.Duration { return c.busy }
func (c fakeClock) Spans() map[string][2]time.Time { return c.spans }

// TestLocalStages: a local run's stage times come from the DoFns' own
// record, in seconds since the job's start.
func TestLocalStages(t *testing.T) {
	start := time.UnixMilli(1_000_000)
	busy, spans := localStages(fakeClock{
		busy:  map[string]time.Duration{"Read": 2500 * time.Millisecond, "Clusters": 750 * time.Millisecond},
		spans: map[string][2]time.Time{"Read": {start.Add(3 * time.Millisecond), start.Add(1750 * time.Millisecond)}},
	}, start)
	if want := map[string]float64{"Read": 2.5, "Clusters": 0.75}; !maps.Equal(busy, want) {
		t.Errorf("busy = %v, want %v", busy, want)
	}
	if want := map[string][2]float64{"Read": {0.003, 1.75}}; !maps.Equal(spans, want) {
		t.Errorf("spans = %v, want %v", spans, want)
	}
	if b, s := localStages(fakeClock{}, start); b != nil || s != nil {
		t.Errorf("empty record gave %v, %v", b, s)
	}
}

// TestTuneLocalGC: a local run gets a soft memory limit of nine tenths of
// its budget, unless GOMEMLIMIT sets one and --memory was not given, and
// the collector's pace is left to GOGC. The limit is read back from the
// runtime.
func TestTuneLocalGC(t *testing.T) {
	restore := func(percent int, limit int64) {
		debug.SetGCPercent(percent)
		debug.SetMemoryLimit(limit)
	}
	defer restore(debug.SetGCPercent(100), debug.SetMemoryLimit(math.MaxInt64))

	const budget = 3 << 30
	for _, tt := range []struct {
		gomemlimit string
		budget     int64
		given      bool
		want       int64
	}{
		{"", budget, false, budget - budget/10},
		{"", budget, true, budget - budget/10},
		{"3GiB", budget, false, math.MaxInt64}, // GOMEMLIMIT wins over the default
		{"3GiB", 1 << 30, true, 1<<30 - (1<<30)/10},
		{"", 0, false, math.MaxInt64}, // no budget (memory unknown)
	} {
		t.Setenv("GOMEMLIMIT", tt.gomemlimit)
		restore(80, math.MaxInt64)
		tuneLocalGC(true, tt.budget, tt.given)
		if got := debug.SetGCPercent(100); got != 80 {
			t.Errorf("%+v: GC percent %d, want 80 (left alone)", tt, got)
		}
		if got := debug.SetMemoryLimit(-1); got != tt.want {
			t.Errorf("%+v: memory limit %d, want %d", tt, got, tt.want)
		}
	}
}

// TestRunAutoSettings: on one machine, spilled, 'neardup run' picks one
// shuffle round (plan.AutoRounds) and runs no
// large-star/small-star rounds, so the sample's components that are not
// stars go to the one-worker remainder, and summary.json says so; with
// --rounds 3 --cc-rounds 3 none do. The clusters are the same either way.
func TestRunAutoSettings(t *testing.T) {
	pattern, err := filepath.Abs("../../testdata/sample/sample-*")
	if err != nil {
		t.Fatal(err)
	}
	files, err := filepath.Glob(pattern)
	if err != nil || len(files) == 0 {
		t.Fatalf("no sample files (%v)", err)
	}
	var size int64
	for _, f := range files {
		fi, err := os.Stat(f)
		if err != nil {
			t.Fatal(err)
		}
		size += fi.Size()
	}
	auto, three := filepath.Join(t.TempDir(), "auto"), filepath.Join(t.TempDir(), "three")
	for _, args := range [][]string{{"--output", auto}, {"--output", three, "--rounds", "3", "--cc-rounds", "3"}} {
		if code, stderr := neardup(t, "", append([]string{"run", "--quiet", "--input", pattern}, args...)...); code != 0 {
			t.Fatalf("%q: exit code %d; stderr:\n%.2000s", args, code, stderr)
		}
	}
	for _, tt := range []struct {
		dir              string
		rounds, ccRounds int
		remainder        bool
	}{
		{auto, plan.AutoRounds(size, job.DefaultConfig().Branches, false), 0, true}, // spilled: 1 round
		{three, 3, 3, false},
	} {
		s, err := summary.ReadSummary(tt.dir)
		if err != nil {
			t.Fatal(err)
		}
		if s.Settings == nil {
			t.Fatalf("%s: no settings in summary.json", tt.dir)
		}
		if got := s.Settings; got.Rounds != tt.rounds || got.CCRounds != tt.ccRounds || got.Runner != "direct" {
			t.Errorf("%s: rounds %d, cc_rounds %d, runner %q; want %d, %d, direct", filepath.Base(tt.dir), got.Rounds, got.CCRounds, got.Runner, tt.rounds, tt.ccRounds)
		}
		if n := s.Counts[summary.StatRemainder]; (n > 0) != tt.remainder {
			t.Errorf("%s: components_remainder_edges %d, want some: %v", filepath.Base(tt.dir), n, tt.remainder)
		}
	}
	names, err := filepath.Glob(filepath.Join(three, "clusters-*"))
	if err != nil || len(names) == 0 {
		t.Fatalf("no cluster shards in %s (%v)", three, err)
	}
	for _, name := range names {
		a, errA := os.ReadFile(filepath.Join(auto, filepath.Base(name)))
		b, errB := os.ReadFile(name)
		if errA != nil || errB != nil || !bytes.Equal(a, b) {
			t.Errorf("%s differs between the automatic settings and --rounds 3 --cc-rounds 3 (%v, %v)", filepath.Base(name), errA, errB)
		}
	}
}

// TestExpandInputsNotAFile (issue 19, D8): a named pipe and a dangling
// symlink among the inputs are listed, for the job to reject, without
// opening them (opening a pipe blocks); only regular files count in the
// size.
func TestExpandInputsNotAFile(t *testing.T) {
	dir := t.TempDir()
	writeFiles(t, dir, "a.jsonl")
	if err := syscall.Mkfifo(filepath.Join(dir, "fifo.jsonl"), 0o644); err != nil {
		t.Skipf("no FIFO here: %v", err)
	}
	if err := os.Symlink(filepath.Join(dir, "nowhere"), filepath.Join(dir, "dangling.jsonl")); err != nil {
		t.Fatal(err)
	}
	type result struct {
		files []string
		size  int64
		err   error
	}
	done := make(chan result, 1)
	go func() {
		files, size, err := inputs.Expand(context.Background(), filepath.Join(dir, "*.jsonl"))
		done <- result{files, size, err}
	}()
	select {
	case r := <-done:
		want := []string{filepath.Join(dir, "a.jsonl"), filepath.Join(dir, "dangling.jsonl"), filepath.Join(dir, "fifo.jsonl")}
		if r.err != nil || !slices.Equal(r.files, want) || r.size != int64(len("a.jsonl\n")) {
			t.Errorf("expandInputs = %v, %d, %v; want %v, %d", r.files, r.size, r.err, want, len("a.jsonl\n"))
		}
	case <-time.After(10 * time.Second):
		if f, err := os.OpenFile(filepath.Join(dir, "fifo.jsonl"), os.O_WRONLY, 0); err == nil {
			f.Close() // let the blocked open go
		}
		t.Fatal("expandInputs hangs on a named pipe")
	}
}

// TestDefaultRunner: without --runner a run uses the direct runner; a
// --runner the user gave is kept, by any of the names Beam knows it by; a
// runner neardup does not know is a usage mistake.
func TestDefaultRunner(t *testing.T) {
	r := flag.Lookup("runner")
	if r == nil {
		t.Fatal("no --runner flag")
	}
	saved := r.Value.String()
	defer r.Value.Set(saved)
	for given, want := range map[string]plan.Engine{"": plan.Direct, "prism": plan.Prism, "universal": plan.Universal, "FlinkRunner": plan.Flink, "DirectRunner": plan.Direct, "portable": plan.Universal} {
		if err := r.Value.Set(given); err != nil {
			t.Fatal(err)
		}
		got, err := runnerEngine()
		if err != nil || got != want {
			t.Errorf("--runner %q: engine %v, %v; want %v", given, got, err, want)
		}
		if got.Local() != (want == plan.Direct || want == plan.Prism) {
			t.Errorf("--runner %q: Local() = %v", given, got.Local())
		}
	}
	if err := r.Value.Set("samza"); err != nil {
		t.Fatal(err)
	}
	if _, err := runnerEngine(); err == nil || err.Error() != `--runner "samza": want direct, prism, flink, spark, universal or dataflow` {
		t.Errorf("--runner samza: error %v", err)
	}
}
