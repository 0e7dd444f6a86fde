package main

import (
	"bytes"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/neardup/neardup/cmd/neardup/internal/outdir"
	"github.com/neardup/neardup/transforms/format/index"
	"github.com/neardup/neardup/transforms/format/summary"
)

// sampleFile returns the absolute path of a file of testdata/sample.
func sampleFile(t *testing.T, name string) string {
	t.Helper()
	p, err := filepath.Abs(filepath.Join("../../testdata/sample", name))
	if err != nil {
		t.Fatal(err)
	}
	return p
}

// copyFile copies src to dst.
func copyFile(t *testing.T, src, dst string) {
	t.Helper()
	b, err := os.ReadFile(src)
	if err != nil {
		t.Fatal(err)
	}
	if err := os.MkdirAll(filepath.Dir(dst), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(dst, b, 0o644); err != nil {
		t.Fatal(err)
	}
}

// snapshot maps every file under dir to its content ("<dir>" for a
// directory); nil if dir does not exist.
func snapshot(t *testing.T, dir string) map[string]string {
	t.Helper()
	if _, err := os.Stat(dir); errors.Is(err, os.ErrNotExist) {
		return nil
	}
	m := map[string]string{}
	err := filepath.WalkDir(dir, func(p string, d os.DirEntry, err error) error {
		if err != nil || p == dir {
			return err
		}
		rel, _ := filepath.Rel(dir, p)
		if d.IsDir() {
			m[rel] = "<dir>"
			return nil
		}
		b, err := os.ReadFile(p)
		m[rel] = string(b)
		return err
	})
	if err != nil {
		t.Fatal(err)
	}
	return m
}

func sameSnapshot(a, b map[string]string) bool {
	if len(a) != len(b) {
		return false
	}
	for k, v := range a {
		if w, ok := b[k]; !ok || w != v {
			return false
		}
	}
	return true
}

func keys(m map[string]string) []string {
	var ks []string
	for k := range m {
		ks = append(ks, k)
	}
	slices.Sort(ks)
	return ks
}

// waitFor polls until path exists.
func waitFor(t *testing.T, path string) {
	t.Helper()
	for deadline := time.Now().Add(2 * time.Minute); time.Now().Before(deadline); time.Sleep(20 * time.Millisecond) {
		if _, err := os.Stat(path); err == nil {
			return
		}
	}
	t.Fatalf("%s did not appear", path)
}

func checkOneLine(t *testing.T, stderr string) {
	t.Helper()
	if strings.Count(stderr, "\n") != 1 {
		t.Errorf("stderr is not one line:\n%.2000s", stderr)
	}
}

// TestRunLock (D3): a second run into an output directory that a first
// run is writing refuses at once, naming the lock, and changes nothing;
// the first run completes. Two runs into the same absent directory can
// thus not both succeed.
func TestRunLock(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	out := filepath.Join(dir, "out") // absent
	mark, release := filepath.Join(dir, "reading"), filepath.Join(dir, "go-on")
	var stderrA bytes.Buffer
	a := neardupCmd([]string{"TMPDIR=" + dir, "NEARDUP_TEST_SLOW_UNTIL=" + release, "NEARDUP_TEST_SLOW_MARK=" + mark}, &stderrA,
		"run", "--quiet", "--input", "slow://"+sampleFile(t, "sample-0.jsonl"), "--output", out)
	if err := a.Start(); err != nil {
		t.Fatal(err)
	}
	waitFor(t, mark)
	code, stderr := neardup(t, "", "run", "--quiet", "--input", sampleFile(t, "sample-0.jsonl"), "--output", out)
	if code != 1 || !strings.Contains(stderr, "is in use by another neardup run (pid") || !strings.Contains(stderr, filepath.Join(out, lockName)) {
		t.Errorf("second run: exit code %d, stderr %q; want 1 and a refusal naming the lock", code, stderr)
	}
	checkOneLine(t, stderr)
	copyBytes(t, release, "")
	if code := exitCode(t, a.Wait()); code != 0 {
		t.Fatalf("first run: exit code %d; stderr:\n%.2000s", code, stderrA.String())
	}
	want := []string{"clusters-00000.jsonl", "dedup-00000.jsonl", "pairs-00000.jsonl", "report.html", "summary.json"}
	if got := listDir(t, out); !slices.Equal(got, want) {
		t.Errorf("outputs %q, want %q", got, want)
	}
}

// TestStaleLock (D3): the lock of a run of this host that is gone is
// refused without --overwrite and broken with it; a live one is refused
// even with --overwrite.
func TestStaleLock(t *testing.T) {
	t.Parallel()
	host, _ := os.Hostname()
	input := sampleFile(t, "sample-0.jsonl")
	out := t.TempDir()
	lock := filepath.Join(out, lockName)
	os.WriteFile(lock, fmt.Appendf(nil, "pid %d\nhost %s\n", os.Getpid(), host), 0o644) // this test: alive
	for _, overwrite := range []bool{false, true} {
		args := []string{"run", "--quiet", "--input", input, "--output", out}
		if overwrite {
			args = append(args, "--overwrite")
		}
		code, stderr := neardup(t, "", args...)
		if code != 1 || !strings.Contains(stderr, fmt.Sprintf("is in use by another neardup run (pid %d on %s", os.Getpid(), host)) {
			t.Errorf("live lock, overwrite %v: exit code %d, stderr %q", overwrite, code, stderr)
		}
	}
	stale := fmt.Appendf(nil, "pid %d\nhost %s\n", 1<<30, host) // above any pid_max: gone
	os.WriteFile(lock, stale, 0o644)
	code, stderr := neardup(t, "", "run", "--quiet", "--input", input, "--output", out)
	if code != 1 || !strings.Contains(stderr, "which is gone (use --overwrite to break it") {
		t.Errorf("stale lock: exit code %d, stderr %q", code, stderr)
	}
	if got := listDir(t, out); !slices.Equal(got, []string{lockName}) {
		t.Errorf("after the refusal: %q", got)
	}
	if code, stderr := neardup(t, "", "run", "--quiet", "--input", input, "--output", out, "--overwrite"); code != 0 {
		t.Fatalf("stale lock, --overwrite: exit code %d, stderr %q", code, stderr)
	}
	if _, err := os.Stat(lock); !errors.Is(err, os.ErrNotExist) {
		t.Errorf("lock left after the run: %v", err)
	}
}

// TestReusedPIDLock: a lock whose PID now belongs to another program (a
// lock of an older neardup, which recorded no identity, or one whose
// identity differs) is stale: refused without --overwrite as a run that is
// gone, broken with it.
func TestReusedPIDLock(t *testing.T) {
	t.Parallel()
	sleep := exec.Command("sleep", "60")
	if err := sleep.Start(); err != nil {
		t.Skip(err)
	}
	defer func() { sleep.Process.Kill(); sleep.Wait() }()
	host, _ := os.Hostname()
	boot, err := os.ReadFile("/proc/sys/kernel/random/boot_id")
	if err != nil {
		t.Skip("no /proc")
	}
	input := sampleFile(t, "sample-0.jsonl")
	for name, lock := range map[string]string{
		"another program":            fmt.Sprintf("pid %d\nhost %s\n", sleep.Process.Pid, host),
		"this PID, another identity": fmt.Sprintf("pid %d\nhost %s\nproc %s 1\n", os.Getpid(), host, strings.TrimSpace(string(boot))),
	} {
		out := t.TempDir()
		copyBytes(t, filepath.Join(out, lockName), lock)
		code, stderr := neardup(t, "", "run", "--quiet", "--input", input, "--output", out)
		if code != 1 || !strings.Contains(stderr, "which is gone (use --overwrite to break it") {
			t.Errorf("%s: exit code %d, stderr %q; want a stale lock", name, code, stderr)
		}
		if code, stderr := neardup(t, "", "run", "--quiet", "--input", input, "--output", out, "--overwrite"); code != 0 {
			t.Errorf("%s, --overwrite: exit code %d, stderr %q", name, code, stderr)
		}
		if _, err := os.Stat(filepath.Join(out, lockName)); !errors.Is(err, os.ErrNotExist) {
			t.Errorf("%s: lock left after the run: %v", name, err)
		}
	}
}

// TestOverwriteInputs (D5): --overwrite refuses, removing nothing, when a
// file it would replace is an input, also through a symbolic link.
func TestOverwriteInputs(t *testing.T) {
	t.Parallel()
	root := t.TempDir()
	data := filepath.Join(root, "data")
	copyFile(t, sampleFile(t, "sample-0.jsonl"), filepath.Join(data, "input.jsonl"))
	// A first run writes its outputs beside its input.
	if code, stderr := neardup(t, "", "run", "--quiet", "--input", filepath.Join(data, "input.jsonl"), "--output", data, "--overwrite"); code != 0 {
		t.Fatalf("first run: exit code %d, stderr %q", code, stderr)
	}
	before := snapshot(t, data)
	if _, ok := before["pairs-00000.jsonl"]; !ok {
		t.Fatalf("no outputs in %q", keys(before))
	}
	link := filepath.Join(root, "link")
	if err := os.Symlink(data, link); err != nil {
		t.Fatal(err)
	}
	for _, input := range []string{filepath.Join(data, "*.jsonl"), filepath.Join(link, "pairs-*.jsonl")} {
		code, stderr := neardup(t, "", "run", "--quiet", "--input", input, "--output", data, "--overwrite")
		if code != 1 || !strings.Contains(stderr, "--overwrite would remove "+data) || !strings.Contains(stderr, "which is the input") {
			t.Errorf("--input %s: exit code %d, stderr %q; want a refusal", input, code, stderr)
		}
		checkOneLine(t, stderr)
		if after := snapshot(t, data); !sameSnapshot(before, after) {
			t.Errorf("--input %s: the directory changed: %q, was %q", input, keys(after), keys(before))
		}
	}
}

// TestAuditOverwriteNextIndex (D6): 'audit --overwrite' clears an
// --update-index directory that a failed audit left (pre-shards, shards,
// temporary files, its staging directory and stale lock); a failed audit
// leaves the next index's directory and the output as they were.
func TestAuditOverwriteNextIndex(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	idx, next := filepath.Join(dir, "idx"), filepath.Join(dir, "next")
	if code, stderr := neardup(t, "", "run", "--quiet", "--input", sampleFile(t, "sample-0.jsonl"),
		"--output", filepath.Join(dir, "run"), "--index-out", idx); code != 0 {
		t.Fatalf("run: exit code %d: %s", code, stderr)
	}
	audit := func(failOnce, out string, extra ...string) (int, string) {
		return neardup(t, failOnce, append([]string{"audit", "--quiet", "--index", idx, "--input", sampleFile(t, "sample-1.jsonl.gz"),
			"--output", filepath.Join(dir, out), "--update-index", next}, extra...)...)
	}
	if code, stderr := audit("Read", "failed"); code != 1 || !strings.Contains(stderr, "injected fault") {
		t.Fatalf("audit with a fault: exit code %d: %s", code, stderr)
	}
	for _, d := range []string{next, filepath.Join(dir, "failed")} {
		if _, err := os.Stat(d); !errors.Is(err, os.ErrNotExist) {
			t.Errorf("a failed audit left %s (%v)", d, err)
		}
	}
	// What an audit killed on its way leaves (or one of an older neardup).
	shard, err := os.ReadFile(filepath.Join(idx, index.ShardName(0)))
	if err != nil {
		t.Fatal(err)
	}
	host, _ := os.Hostname()
	for name, content := range map[string]string{
		".sig-00000.bin": "pre", index.ShardName(0): string(shard), ".tmp-index.json-0a1b": "{",
		".tmp-run-123/.sig-00001.bin": "pre", ".tmp-run-123/.tmp-work/info-00000-000000.bin": "info",
		lockName: fmt.Sprintf("pid %d\nhost %s\n", 1<<30, host),
	} {
		copyBytes(t, filepath.Join(next, name), content)
	}
	if code, stderr := audit("", "a1"); code != 1 || !strings.Contains(stderr, "use --overwrite") {
		t.Errorf("without --overwrite: exit code %d, stderr %q; want a refusal", code, stderr)
	}
	if code, stderr := audit("", "a2", "--overwrite"); code != 0 {
		t.Fatalf("audit --overwrite: exit code %d: %s", code, stderr)
	}
	want := slices.Sorted(slices.Values([]string{index.ManifestName, index.ShardName(0), index.KeyFileName(0)}))
	if got := listDir(t, next); !slices.Equal(got, want) {
		t.Errorf("next index: %q, want %q", got, want)
	}
}

func copyBytes(t *testing.T, path, content string) {
	t.Helper()
	if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(path, []byte(content), 0o644); err != nil {
		t.Fatal(err)
	}
}

// TestInterrupt (D9): SIGINT, SIGTERM or SIGHUP while the job runs ends the
// command with exit code 130, 143 or 129 and one line saying what it left; the
// temporary directory holds nothing new, and the output directory is as
// before (absent, or with a previous run's files and the user's).
func TestInterrupt(t *testing.T) {
	input := "slow://" + sampleFile(t, "sample-0.jsonl")
	for _, tt := range []struct {
		sig    syscall.Signal
		code   int
		exists bool // the output directory holds files before the run
	}{
		{syscall.SIGINT, 130, false},
		{syscall.SIGTERM, 143, true},
		{syscall.SIGHUP, 129, false},
	} {
		t.Run(tt.sig.String(), func(t *testing.T) {
			t.Parallel()
			dir := t.TempDir()
			tmp, out, mark := filepath.Join(dir, "tmp"), filepath.Join(dir, "out"), filepath.Join(dir, "reading")
			if err := os.Mkdir(tmp, 0o755); err != nil {
				t.Fatal(err)
			}
			args := []string{"run", "--quiet", "--input", input, "--output", out}
			if tt.exists {
				writeFiles(t, out, "notes.txt", "summary.json", "pairs-00003.jsonl")
				args = append(args, "--overwrite")
			}
			before := snapshot(t, out)
			var stderr bytes.Buffer
			cmd := neardupCmd([]string{"TMPDIR=" + tmp, "NEARDUP_TEST_SLOW_UNTIL=" + filepath.Join(dir, "never"), "NEARDUP_TEST_SLOW_MARK=" + mark}, &stderr, args...)
			if err := cmd.Start(); err != nil {
				t.Fatal(err)
			}
			waitFor(t, mark)
			// The job is reading: its work and staging directories exist.
			if work, _ := filepath.Glob(filepath.Join(tmp, "neardup-work-*")); len(work) != 1 {
				t.Errorf("work directories %q while the job runs", work)
			}
			if stage, _ := filepath.Glob(filepath.Join(out, ".tmp-run-*")); len(stage) != 1 {
				t.Errorf("staging directories %q while the job runs", stage)
			}
			if err := cmd.Process.Signal(tt.sig); err != nil {
				t.Fatal(err)
			}
			code := exitCode(t, cmd.Wait())
			want := fmt.Sprintf("neardup: interrupted; removed the work files, %s is as before\n", out)
			if code != tt.code || stderr.String() != want {
				t.Errorf("exit code %d, stderr %q; want %d, %q", code, stderr.String(), tt.code, want)
			}
			if left := listDir(t, tmp); len(left) > 0 {
				t.Errorf("left in TMPDIR: %q", left)
			}
			if after := snapshot(t, out); !sameSnapshot(before, after) {
				t.Errorf("output directory %q, was %q", keys(after), keys(before))
			}
		})
	}
}

// TestNohup: a run started with SIGHUP ignored (nohup) goes on when it
// gets one, and completes.
func TestNohup(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	out, mark, release := filepath.Join(dir, "out"), filepath.Join(dir, "reading"), filepath.Join(dir, "go-on")
	var stderr bytes.Buffer
	cmd := neardupCmd([]string{"NEARDUP_TEST_SLOW_UNTIL=" + release, "NEARDUP_TEST_SLOW_MARK=" + mark}, &stderr,
		"run", "--quiet", "--input", "slow://"+sampleFile(t, "sample-0.jsonl"), "--output", out)
	cmd.Args = append([]string{"sh", "-c", `trap "" HUP; exec "$0" "$@"`, cmd.Path}, cmd.Args[1:]...)
	cmd.Path = "/bin/sh"
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	waitFor(t, mark)
	if err := cmd.Process.Signal(syscall.SIGHUP); err != nil {
		t.Fatal(err)
	}
	time.Sleep(100 * time.Millisecond)
	copyBytes(t, release, "")
	if code := exitCode(t, cmd.Wait()); code != 0 {
		t.Fatalf("exit code %d; stderr:\n%.2000s", code, stderr.String())
	}
	if _, err := os.Stat(filepath.Join(out, "summary.json")); err != nil {
		t.Errorf("no summary: %v", err)
	}
}

// TestClosedPipe: a run whose standard output and error are a pipe nobody
// reads ('neardup run ... 2>&1 | true') commits its outputs and exits 0,
// leaving no lock, staging directory or work directory; with --quiet too.
func TestClosedPipe(t *testing.T) {
	for _, quiet := range []bool{false, true} {
		t.Run(fmt.Sprint("quiet=", quiet), func(t *testing.T) {
			t.Parallel()
			dir := t.TempDir()
			tmp, out := filepath.Join(dir, "tmp"), filepath.Join(dir, "out")
			if err := os.Mkdir(tmp, 0o755); err != nil {
				t.Fatal(err)
			}
			r, w, err := os.Pipe()
			if err != nil {
				t.Fatal(err)
			}
			r.Close()
			args := []string{"run", "--input", sampleFile(t, "sample-1.jsonl.gz"), "--output", out}
			if quiet {
				args = append(args, "--quiet")
			}
			cmd := neardupCmd([]string{"TMPDIR=" + tmp}, nil, args...)
			cmd.Stdout, cmd.Stderr = w, w
			err = cmd.Run()
			w.Close()
			if code := exitCode(t, err); code != 0 {
				t.Errorf("exit code %d, want 0", code)
			}
			want := []string{"clusters-00000.jsonl", "dedup-00000.jsonl.gz", "pairs-00000.jsonl", "report.html", "summary.json"}
			if got := listDir(t, out); !slices.Equal(got, want) {
				t.Errorf("output directory %q, want %q", got, want)
			}
			if left := listDir(t, tmp); len(left) > 0 {
				t.Errorf("left in TMPDIR: %q", left)
			}
		})
	}
}

// TestCommitInTheWay: --overwrite into an output directory holding a
// directory where a final file goes (summary.json) fails before it moves
// anything: the output directory is as it was, and no index is written.
func TestCommitInTheWay(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	out, idx := filepath.Join(dir, "out"), filepath.Join(dir, "idx")
	writeFiles(t, out, "pairs-00000.jsonl", "clusters-00000.jsonl", "summary.json/notes.txt")
	before := snapshot(t, out)
	code, stderr := neardup(t, "", "run", "--quiet", "--input", sampleFile(t, "sample-0.jsonl"), "--output", out, "--overwrite", "--index-out", idx)
	if code != 1 || !strings.Contains(stderr, "holds summary.json (a directory), which is not neardup's to replace") {
		t.Errorf("exit code %d, stderr %q; want 1 and the directory in the way", code, stderr)
	}
	checkOneLine(t, stderr)
	if after := snapshot(t, out); !sameSnapshot(before, after) {
		t.Errorf("output directory %q, was %q", keys(after), keys(before))
	}
	if _, err := os.Stat(idx); !errors.Is(err, os.ErrNotExist) {
		t.Errorf("the failed run left %s (%v)", idx, err)
	}
}

// TestSweepWorkDirs (D9): a run removes the work directories that
// neardup's runs killed before they could clean up left in TMPDIR (those
// with its marker, of a process of this host that is gone, its PID free or
// another program's): older than a day, or at once when the marker gives
// the process's identity; and nothing else;
// it leaves nothing there itself.
func TestSweepWorkDirs(t *testing.T) {
	t.Parallel()
	tmp := t.TempDir()
	host, _ := os.Hostname()
	old := time.Now().Add(-48 * time.Hour)
	sleep := exec.Command("sleep", "60")
	if err := sleep.Start(); err != nil {
		t.Skip(err)
	}
	defer func() { sleep.Process.Kill(); sleep.Wait() }()
	dirs := map[string]struct {
		marker string // "" for none
		age    time.Time
		kept   bool
	}{
		"neardup-work-killed":   {fmt.Sprintf("neardup work directory\npid %d\nhost %s\n", 1<<30, host), old, false},
		"neardup-work-young":    {fmt.Sprintf("neardup work directory\npid %d\nhost %s\n", 1<<30, host), time.Now(), true},
		"neardup-work-running":  {fmt.Sprintf("neardup work directory\npid %d\nhost %s\n", os.Getpid(), host), old, true},
		"neardup-work-nomarker": {"", old, true},
		"other":                 {fmt.Sprintf("neardup work directory\npid %d\nhost %s\n", 1<<30, host), old, true},
		// Of another host: whether its run is alive cannot be told.
		"neardup-work-otherhost": {fmt.Sprintf("neardup work directory\npid %d\nhost other-%s\n", 1<<30, host), old, true},
		// Its PID is another program's now.
		"neardup-work-reused": {fmt.Sprintf("neardup work directory\npid %d\nhost %s\n", sleep.Process.Pid, host), old, false},
		// With the identity of its process, which is gone: removed young.
		"neardup-work-gone": {fmt.Sprintf("neardup work directory\npid %d\nhost %s\nproc %s\n", sleep.Process.Pid, host, "boot-of-another-process 1"), time.Now(), false},
		// With the identity of a live process: kept however old.
		"neardup-work-alive": {fmt.Sprintf("neardup work directory\npid %d\nhost %s\nproc %s\n", os.Getpid(), host, selfIdentity(t)), old, true},
	}
	for name, d := range dirs {
		p := filepath.Join(tmp, name)
		copyBytes(t, filepath.Join(p, "input-00000"), "spooled")
		if d.marker != "" {
			copyBytes(t, filepath.Join(p, ".neardup-work"), d.marker)
			os.Chtimes(filepath.Join(p, ".neardup-work"), d.age, d.age)
		}
		os.Chtimes(p, d.age, d.age)
	}
	out := filepath.Join(t.TempDir(), "out")
	if code, stderr := neardupEnv(t, []string{"TMPDIR=" + tmp}, "run", "--quiet", "--input", sampleFile(t, "sample-0.jsonl"), "--output", out); code != 0 {
		t.Fatalf("exit code %d: %s", code, stderr)
	}
	var want []string
	for name, d := range dirs {
		if d.kept {
			want = append(want, name)
		}
	}
	slices.Sort(want)
	if got := listDir(t, tmp); !slices.Equal(got, want) {
		t.Errorf("TMPDIR holds %q, want %q", got, want)
	}
}

// TestAuditSources (D4): the index records its sources as absolute paths
// with their size, so that an audit run from another directory, where the
// same relative name is another file, reads the indexed documents from the
// right file (the same outputs as an audit from the run's directory); an
// audit whose source has changed since falls back to the estimate with
// one warning naming it.
func TestAuditSources(t *testing.T) {
	t.Parallel()
	root := t.TempDir()
	a, b := filepath.Join(root, "a"), filepath.Join(root, "b")
	copyFile(t, sampleFile(t, "sample-0.jsonl"), filepath.Join(a, "day1.jsonl"))
	// In b, day1.jsonl holds the same records in reverse order.
	lines := strings.SplitAfter(strings.TrimSuffix(snapshot(t, a)["day1.jsonl"], "\n"), "\n")
	slices.Reverse(lines)
	copyBytes(t, filepath.Join(b, "day1.jsonl"), strings.Join(lines, "\n")+"\n")
	idx := filepath.Join(root, "idx")
	run := func(wd string, args ...string) string {
		t.Helper()
		var stderr bytes.Buffer
		cmd := neardupCmd(nil, &stderr, args...)
		cmd.Dir = wd
		if code := exitCode(t, cmd.Run()); code != 0 {
			t.Fatalf("%q in %s: exit code %d: %s", args, wd, code, stderr.String())
		}
		return stderr.String()
	}
	run(a, "run", "--quiet", "--input", "day1.jsonl", "--output", "run", "--index-out", idx)
	man := readManifest(t, idx)
	fi, err := os.Stat(filepath.Join(a, "day1.jsonl"))
	if err != nil {
		t.Fatal(err)
	}
	if sh := man.Shards[0]; sh.Source != filepath.Join(a, "day1.jsonl") || sh.SourceBytes != fi.Size() || sh.SourceMtime == "" {
		t.Errorf("index shard %+v; want the absolute source with its size %d and time", sh, fi.Size())
	}
	batch := sampleFile(t, "sample-1.jsonl.gz")
	for _, wd := range []string{a, b} {
		if stderr := run(wd, "audit", "--quiet", "--index", idx, "--input", batch, "--output", "audit", "--verify", "exact"); stderr != "" {
			t.Errorf("audit in %s: stderr %q", wd, stderr)
		}
	}
	for _, name := range []string{"audit-00000.jsonl", "dedup-00000.jsonl.gz"} { // the batch is gzipped
		x, y := snapshot(t, filepath.Join(a, "audit"))[name], snapshot(t, filepath.Join(b, "audit"))[name]
		if x == "" || x != y {
			t.Errorf("%s differs between audits from the run's directory and another (%d, %d bytes)", name, len(x), len(y))
		}
	}
	// The source changes: a line appended.
	f, err := os.OpenFile(filepath.Join(a, "day1.jsonl"), os.O_APPEND|os.O_WRONLY, 0)
	if err != nil {
		t.Fatal(err)
	}
	late := `{"id": "late", "text": "appended after the index was written"}` + "\n"
	f.WriteString(late)
	f.Close()
	stderr := run(b, "audit", "--quiet", "--index", idx, "--input", batch, "--output", "audit2")
	want := fmt.Sprintf("neardup audit: index source %s has %d bytes, the index recorded %d:", filepath.Join(a, "day1.jsonl"), fi.Size()+int64(len(late)), fi.Size())
	if !strings.HasPrefix(stderr, want) || !strings.Contains(stderr, "decided by the MinHash estimate") {
		t.Errorf("stderr %q; want a warning starting %q", stderr, want)
	}
	checkOneLine(t, stderr)
}

// TestWrongShapeInput: input of the wrong shape (CSV read as JSONL, a
// directory without input files, a directory a glob matches; JSON lines without
// the text field: TestFieldsChecked) fails the run with one line
// naming the file, the reason and a hint, and writes no output; with
// --max-reject-ratio 1 the run completes and its report shows the rejects
// by reason.
func TestWrongShapeInput(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	copyBytes(t, filepath.Join(dir, "wrong.csv"), "id,text\n1,hello\n2,world\n")
	if err := os.Mkdir(filepath.Join(dir, "shards.jsonl"), 0o755); err != nil {
		t.Fatal(err)
	}
	many := strings.Repeat("not json\n", 700) // with the 600 records of sample-0: 54% rejected
	copyBytes(t, filepath.Join(dir, "many.txt"), many)
	tests := []struct {
		input string
		want  string
	}{
		{filepath.Join(dir, "wrong.csv"), "all 3 records of " + filepath.Join(dir, "wrong.csv") + " rejected: bad_json; is it JSONL? see --format"},
		{filepath.Join(dir, "shards.jsonl"), "all 1 records of " + filepath.Join(dir, "shards.jsonl") + " rejected: not_a_file; not a regular file (a directory, a named pipe, a dangling symlink...): check --input"},
		{filepath.Join(dir, "shards.js*"), "all 1 records of " + filepath.Join(dir, "shards.jsonl") + " rejected: not_a_file; not a regular file (a directory, a named pipe, a dangling symlink...): check --input"},
		{filepath.Join(dir, "many.txt") + "," + sampleFile(t, "sample-0.jsonl"), "bad_json; is it JSONL? see --format"},
	}
	for _, tt := range tests {
		out := filepath.Join(dir, "out")
		code, stderr := neardup(t, "", "run", "--quiet", "--input", tt.input, "--output", out)
		if code != 1 || !strings.Contains(stderr, tt.want) {
			t.Errorf("--input %s: exit code %d, stderr %q; want 1 and %q", tt.input, code, stderr, tt.want)
		}
		checkOneLine(t, stderr)
		if _, err := os.Stat(out); !errors.Is(err, os.ErrNotExist) {
			t.Errorf("--input %s: output directory left (%v)", tt.input, err)
		}
	}
	out := filepath.Join(dir, "accepted")
	if code, stderr := neardup(t, "", "run", "--quiet", "--input", filepath.Join(dir, "wrong.csv"), "--output", out, "--max-reject-ratio", "1"); code != 0 {
		t.Fatalf("--max-reject-ratio 1: exit code %d: %s", code, stderr)
	}
	s, err := summary.ReadSummary(out)
	if err != nil || s.Counts[summary.StatRejected] != 3 {
		t.Fatalf("summary %+v, %v", s.Counts, err)
	}
	html := snapshot(t, out)["report.html"]
	for _, want := range []string{"Rejected records by reason", "<code>bad_json</code></td><td class=\"num\">3</td><td class=\"num\">100.0%</td><td>is it JSONL? see --format</td>"} {
		if !strings.Contains(html, want) {
			t.Errorf("report lacks %q", want)
		}
	}
}

// TestRootCause: a failed job's error is the DoFn's, on one line.
func TestRootCause(t *testing.T) {
	err := errors.New("job job-001 failed:\nbundle inst002 stage-001 failed:process bundle failed for instruction inst002 using plan stage-001 : while executing Process for Plan[stage-001]:\n" +
		"1: DataSource[S[stage-001_source@localhost:39015], i0] Out:23 Coder:W;cwv_n4<bytes;c0>!GWC \n18: ParDo[transforms.readKeysFn] Out:[8 15 16]\n\tcaused by:\n" +
		"DoFn[UID:18, PID:e7, Name: github.com/neardup/neardup/transforms.readKeysFn] failed:\nreading /data/x.jsonl: input changed\nsince the first pass")
	if got, want := rootCause(err), "reading /data/x.jsonl: input changed since the first pass"; got != want {
		t.Errorf("rootCause = %q, want %q", got, want)
	}
	if got := rootCause(errors.New("no runner")); got != "no runner" {
		t.Errorf("rootCause = %q", got)
	}
}

// TestRunURLOutput: an output directory on a remote filesystem (here
// slow://, which has no rename, like gs://) gets the same files, staged and
// moved in with summary.json last, and no staging directory is left.
func TestRunURLOutput(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	input := sampleFile(t, "sample-0.jsonl")
	url, local := filepath.Join(dir, "url"), filepath.Join(dir, "local")
	for _, out := range []string{"slow://" + url, local} {
		if code, stderr := neardup(t, "", "run", "--quiet", "--input", input, "--output", out); code != 0 {
			t.Fatalf("--output %s: exit code %d: %s", out, code, stderr)
		}
	}
	got, want := snapshot(t, url), snapshot(t, local)
	delete(want, "report.html") // not written for remote outputs
	if len(got) != len(want) || got["dedup-00000.jsonl"] != want["dedup-00000.jsonl"] || got[summary.FileName] == "" {
		t.Errorf("remote output holds %q, want %q", keys(got), keys(want))
	}
}

// TestRunURLOverwrite: an output directory on a remote filesystem gets the
// emptiness check and --overwrite of a local one: a second run into it
// refuses without --overwrite and leaves it as it was; with --overwrite it
// replaces neardup's files (a stale dedup shard of an earlier, larger run
// included) and the staging leftovers of a killed run, and keeps a file
// neardup did not write; a staging leftover holding a foreign file makes
// it refuse before anything is removed.
func TestRunURLOverwrite(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	input := sampleFile(t, "sample-0.jsonl")
	local := filepath.Join(dir, "local")
	if code, stderr := neardup(t, "", "run", "--quiet", "--input", input, "--output", local); code != 0 {
		t.Fatalf("exit code %d: %s", code, stderr)
	}
	want := snapshot(t, local)
	delete(want, "report.html")
	url := filepath.Join(dir, "url")
	out := "slow://" + url
	if code, stderr := neardup(t, "", "run", "--quiet", "--input", input, "--output", out); code != 0 {
		t.Fatalf("exit code %d: %s", code, stderr)
	}
	first := snapshot(t, url)
	code, stderr := neardup(t, "", "run", "--quiet", "--input", input, "--output", out)
	if code == 0 || !strings.Contains(stderr, "is not empty (use --overwrite") {
		t.Fatalf("second run without --overwrite: exit code %d: %s", code, stderr)
	}
	if !sameSnapshot(snapshot(t, url), first) {
		t.Fatalf("a refused run changed the directory")
	}
	writeFiles(t, url, "dedup-00009.jsonl", "notes.txt", ".tmp-run-0123/.tmp-work/info-00000-000000.bin")
	if code, stderr := neardup(t, "", "run", "--quiet", "--overwrite", "--input", input, "--output", out); code != 0 {
		t.Fatalf("--overwrite: exit code %d: %s", code, stderr)
	}
	got := snapshot(t, url)
	if _, ok := got["notes.txt"]; !ok {
		t.Errorf("--overwrite removed notes.txt, which neardup did not write")
	}
	delete(got, "notes.txt")
	if got[summary.FileName] == "" {
		t.Errorf("no summary.json after --overwrite")
	}
	delete(got, summary.FileName) // timings differ
	delete(want, summary.FileName)
	if !sameSnapshot(got, want) {
		t.Errorf("after --overwrite the directory holds %q, want %q", keys(got), keys(want))
	}
	writeFiles(t, url, ".tmp-run-4567/mine.txt")
	before := snapshot(t, url)
	code, stderr = neardup(t, "", "run", "--quiet", "--overwrite", "--input", input, "--output", out)
	if code == 0 || !strings.Contains(stderr, "neardup did not write") {
		t.Fatalf("--overwrite with a foreign file in a staging directory: exit code %d: %s", code, stderr)
	}
	if !sameSnapshot(snapshot(t, url), before) {
		t.Errorf("a refused --overwrite changed the directory")
	}
}

// lockName is the lock file a run holds in a local directory it writes
// (see internal/outdir), and starts the name of its lock object in a remote
// one.
const lockName = ".neardup.lock"

// selfIdentity is this process's identity as a marker records it (the
// "proc" line), read from the marker of a work directory it makes.
func selfIdentity(t *testing.T) string {
	t.Helper()
	dir, err := outdir.MakeWorkDirIn(t.TempDir(), "neardup-work-")
	if err != nil {
		t.Fatal(err)
	}
	b, err := os.ReadFile(filepath.Join(dir, ".neardup-work"))
	if err != nil {
		t.Fatal(err)
	}
	for _, line := range strings.Split(string(b), "\n") {
		if id, ok := strings.CutPrefix(line, "proc "); ok {
			return id
		}
	}
	t.Skip("no process identity on this system")
	return ""
}
