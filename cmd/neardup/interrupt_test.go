package main

import (
	"bytes"
	"fmt"
	"math/rand/v2"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"
)

// interruptTries is how many times TestInterruptAnyMoment signals each
// command: NEARDUP_TEST_INTERRUPTS, or 30, enough to catch with 96%
// odds a race that leaves files behind in 1 of 10 tries (0.9^30 = 4%).
func interruptTries(t *testing.T) int {
	if s := os.Getenv("NEARDUP_TEST_INTERRUPTS"); s != "" {
		n, err := strconv.Atoi(s)
		if err != nil || n < 1 {
			t.Fatalf("NEARDUP_TEST_INTERRUPTS=%q: want a count", s)
		}
		return n
	}
	return 30
}

// TestInterruptAnyMoment (issue 45): SIGINT, SIGTERM or SIGHUP at any
// moment of run (with and without --index-out), audit --update-index and
// index compact leaves nothing behind: TMPDIR holds nothing (no work
// directory, no compact-* directory), and the output and index
// directories, absent before, are absent again, so the next run needs no
// --overwrite. Each command runs on one CPU (taskset; else GOMAXPROCS=1)
// with --workers 8 over a dozen input files, and is signalled at points
// taken in turn: right after its output directory appears, at 0 to 250 ms
// after its work directory appears (the read-ahead, the signatures), and
// once its index files are being written. A command that ends before the
// signal (or whose commit was under way) must have its outputs complete;
// most tries must be interrupted before.
// Two tries run at a time, on CPUs 0 and 1.
func TestInterruptAnyMoment(t *testing.T) {
	if testing.Short() {
		t.Skip("signals a few hundred runs")
	}
	dir := t.TempDir()
	inputs := writeInterruptInputs(t, filepath.Join(dir, "in"), 12)
	// The index the audits and the compactions read: two generations.
	idx0, idx1 := filepath.Join(dir, "idx0"), filepath.Join(dir, "idx1")
	if code, stderr := neardup(t, "", "run", "--quiet", "--input", strings.Join(inputs[:6], ","), "--output", filepath.Join(dir, "out0"), "--index-out", idx0); code != 0 {
		t.Fatalf("run --index-out: exit %d: %s", code, stderr)
	}
	if code, stderr := neardup(t, "", "audit", "--quiet", "--index", idx0, "--input", strings.Join(inputs[6:9], ","), "--output", filepath.Join(dir, "out1"), "--update-index", idx1); code != 0 {
		t.Fatalf("audit --update-index: exit %d: %s", code, stderr)
	}
	all := strings.Join(inputs, ",")
	tries := interruptTries(t)
	start := time.Now()
	for _, c := range []struct {
		name  string
		args  func(out, idx string) []string
		index string // where it writes index files: "idx", "out" or ""
	}{
		{"run", func(out, _ string) []string {
			return []string{"run", "--quiet", "--workers", "8", "--input", all, "--output", out}
		}, ""},
		{"run --index-out", func(out, idx string) []string {
			return []string{"run", "--quiet", "--workers", "8", "--input", all, "--output", out, "--index-out", idx}
		}, "idx"},
		{"audit --update-index", func(out, idx string) []string {
			return []string{"audit", "--quiet", "--workers", "8", "--index", idx1, "--input", all, "--output", out, "--update-index", idx}
		}, "idx"},
		{"index compact", func(out, _ string) []string {
			return []string{"index", "compact", "--index", idx1, "--output", out}
		}, "out"},
	} {
		t.Run(c.name, func(t *testing.T) {
			var mu sync.Mutex
			interrupted := 0
			sem := make(chan int, 2) // the CPUs free
			sem <- 0
			sem <- 1
			var wg sync.WaitGroup
			for i := range tries {
				cpu := <-sem
				wg.Add(1)
				go func() {
					defer wg.Done()
					defer func() { sem <- cpu }()
					d := filepath.Join(dir, fmt.Sprintf("%s-%d", strings.ReplaceAll(c.name, " ", ""), i))
					if signalled := interruptTry(t, d, cpu, i, c.args, c.index); signalled {
						mu.Lock()
						interrupted++
						mu.Unlock()
					}
				}()
			}
			wg.Wait()
			t.Logf("%d tries, %d interrupted", tries, interrupted)
			if interrupted < tries/2 {
				t.Errorf("only %d of %d tries were interrupted: the signals come too late to test anything", interrupted, tries)
			}
		})
	}
	t.Logf("%d tries of each command in %s", tries, time.Since(start).Round(time.Millisecond))
}

// interruptTry runs one try of TestInterruptAnyMoment in d, on CPU cpu,
// signalling at point i (in turn), and checks what it left. It reports
// whether the command was interrupted (rather than done before the
// signal).
func interruptTry(t *testing.T, d string, cpu, i int, args func(out, idx string) []string, index string) bool {
	tmp, out, idx := filepath.Join(d, "tmp"), filepath.Join(d, "out"), filepath.Join(d, "idx")
	if err := os.MkdirAll(tmp, 0o755); err != nil {
		t.Error(err)
		return false
	}
	var stderr bytes.Buffer
	cmd := neardupCmd([]string{"TMPDIR=" + tmp}, &stderr, args(out, idx)...)
	if taskset, err := exec.LookPath("taskset"); err == nil {
		cmd.Args = append([]string{"taskset", "-c", strconv.Itoa(cpu), cmd.Path}, cmd.Args[1:]...)
		cmd.Path = taskset
	} else {
		cmd.Env = append(cmd.Env, "GOMAXPROCS=1")
	}
	if err := cmd.Start(); err != nil {
		t.Error(err)
		return false
	}
	exited := make(chan struct{})
	var err error
	go func() {
		err = cmd.Wait()
		close(exited)
	}()
	sig := []syscall.Signal{syscall.SIGINT, syscall.SIGTERM, syscall.SIGHUP}[i%3]
	point := interruptPoint(i, tmp, out, idx, index)
	timeout := time.After(2 * time.Minute)
wait:
	for !point.reached() {
		select {
		case <-exited:
			break wait
		case <-timeout:
			cmd.Process.Kill()
		case <-time.After(time.Millisecond):
		}
	}
	time.Sleep(point.delay)
	cmd.Process.Signal(sig)
	<-exited
	code := -1
	if err == nil {
		code = 0
	} else if exit, ok := err.(*exec.ExitError); ok {
		code = exit.ExitCode()
	}
	// Done before the signal (exit 0), or signalled once its commit was
	// under way (the line says so): the outputs are all in place.
	// Otherwise neither directory exists.
	complete := code == 0 || strings.Contains(stderr.String(), "are complete")
	if code != 0 && code != 128+int(sig) {
		t.Errorf("try %d (%s, %s): exit %d, want %d; stderr: %s", i, point.name, sig, code, 128+int(sig), stderr.String())
	}
	for _, dir := range []string{out, idx} {
		_, err := os.Lstat(dir)
		switch {
		case complete && (dir == out || index == "idx"):
			if last := completeOutput(dir); last == "" {
				t.Errorf("try %d (%s, %s, exit %d): %s is not complete: %q", i, point.name, sig, code, dir, listAll(dir))
			}
		case os.IsNotExist(err):
		default:
			t.Errorf("try %d (%s, %s, exit %d): left %s: %q", i, point.name, sig, code, dir, listAll(dir))
		}
	}
	if left := listAll(tmp); len(left) > 0 {
		t.Errorf("try %d (%s, %s, exit %d): left in TMPDIR: %q", i, point.name, sig, code, left)
	}
	if !t.Failed() {
		os.RemoveAll(d)
	}
	return !complete
}

// completeOutput returns the name of the file a command moves into dir
// last (summary.json, audit-summary.json, index.json), if dir holds it
// and no staging directory; else "".
func completeOutput(dir string) string {
	if stage, _ := filepath.Glob(filepath.Join(dir, ".tmp-run-*")); len(stage) > 0 {
		return ""
	}
	for _, last := range []string{"summary.json", "audit-summary.json", "index.json"} {
		if _, err := os.Stat(filepath.Join(dir, last)); err == nil {
			return last
		}
	}
	return ""
}

// A signalPoint is when a try signals: delay after reached reports true.
type signalPoint struct {
	name    string
	reached func() bool
	delay   time.Duration
}

// interruptPoint is the point of try i: in turn, right after the output
// directory appears, after the work directory appears with a delay of 0
// to 250 ms, and once index shards are being written in the directory
// index names ("idx", "out"; "": 500 ms after the work directory).
func interruptPoint(i int, tmp, out, idx string, index string) signalPoint {
	exists := func(pattern string) func() bool {
		return func() bool {
			m, _ := filepath.Glob(pattern)
			return len(m) > 0
		}
	}
	work := exists(filepath.Join(tmp, "*"))
	delays := []time.Duration{0, 10 * time.Millisecond, 30 * time.Millisecond, 60 * time.Millisecond, 120 * time.Millisecond, 250 * time.Millisecond}
	n := len(delays) + 2
	switch k := i % n; k {
	case 0:
		return signalPoint{"output directory made", exists(out), 0}
	case n - 1:
		dirs := map[string]string{"idx": idx, "out": out}
		if index == "" {
			return signalPoint{"500ms after the work directory", work, 500 * time.Millisecond}
		}
		return signalPoint{"index files written", exists(filepath.Join(dirs[index], ".tmp-run-*", "*index-*")), 0}
	default:
		d := delays[k-1]
		return signalPoint{fmt.Sprintf("%s after the work directory", d), work, d}
	}
}

// listAll lists the paths under dir, relative to it.
func listAll(dir string) []string {
	var paths []string
	filepath.Walk(dir, func(p string, _ os.FileInfo, err error) error {
		if rel, _ := filepath.Rel(dir, p); err == nil && rel != "." {
			paths = append(paths, rel)
		}
		return nil
	})
	return paths
}

// writeInterruptInputs writes n JSONL files of 1,200 documents of random
// words (some near-duplicates of others) to dir and returns their paths.
func writeInterruptInputs(t *testing.T, dir string, n int) []string {
	t.Helper()
	if err := os.MkdirAll(dir, 0o755); err != nil {
		t.Fatal(err)
	}
	rng := rand.New(rand.NewPCG(45, 1))
	words := make([]string, 3000)
	for i := range words {
		b := make([]byte, 3+rng.IntN(8))
		for j := range b {
			b[j] = byte('a' + rng.IntN(26))
		}
		words[i] = string(b)
	}
	var paths []string
	var last string
	for f := range n {
		var b bytes.Buffer
		for d := range 1200 {
			text := last
			if rng.IntN(4) > 0 || text == "" {
				var s strings.Builder
				for range 80 + rng.IntN(80) {
					s.WriteString(words[rng.IntN(len(words))] + " ")
				}
				text = s.String()
			} else {
				text += words[rng.IntN(len(words))] // a near-duplicate of the last
			}
			last = text
			fmt.Fprintf(&b, "{\"id\":\"f%d-%d\",\"text\":%q}\n", f, d, text)
		}
		p := filepath.Join(dir, fmt.Sprintf("in-%02d.jsonl", f))
		if err := os.WriteFile(p, b.Bytes(), 0o644); err != nil {
			t.Fatal(err)
		}
		paths = append(paths, p)
	}
	return paths
}
