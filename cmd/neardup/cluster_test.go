//go:build linux

package main

import (
	"bufio"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"net"
	"os"
	"os/exec"
	"os/signal"
	"path/filepath"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"github.com/apache/beam/sdks/v2/go/container/pool"
	"github.com/apache/beam/sdks/v2/go/pkg/beam/runners/prism"

	"github.com/neardup/neardup/cmd/neardup/internal/inputs"
	"github.com/neardup/neardup/transforms/format/summary"
)

// The test binary plays the parts of a cluster in separate processes, chosen
// by these variables (TestMain's NEARDUP_TEST_MAIN=1 plays the command and
// the worker binary).
const (
	envJobServer  = "NEARDUP_TEST_JOB_SERVER"  // port: a Prism job server
	envWorkerPool = "NEARDUP_TEST_WORKER_POOL" // port: a worker pool, Beam's pool package as in 'boot --worker_pool'
	envBoot       = "NEARDUP_TEST_BOOT"        // path: exec Beam's boot with --semi_persist_dir=$NEARDUP_TEST_SEMI_PERSIST
	envPersist    = "NEARDUP_TEST_SEMI_PERSIST"
)

func init() {
	switch {
	case os.Getenv(envJobServer) != "":
		serveJobServer()
	case os.Getenv(envWorkerPool) != "":
		serveWorkerPool()
	case os.Getenv(envBoot) != "":
		execBoot()
	}
}

// serveJobServer runs a Prism job server on the port in $NEARDUP_TEST_JOB_SERVER
// until killed, or for at most 3 idle minutes if the test dies first.
func serveJobServer() {
	port, _ := strconv.Atoi(os.Getenv(envJobServer))
	_, err := prism.CreateJobServer(context.Background(), prism.Options{Port: port, IdleShutdownTimeout: 3 * time.Minute})
	if err != nil {
		fmt.Fprintln(os.Stderr, "job server:", err)
		os.Exit(1)
	}
	fmt.Println("ready")
	select {}
}

// serveWorkerPool does what 'boot --worker_pool' does (pool.New and
// ServeAndWait), on the port in $NEARDUP_TEST_WORKER_POOL instead of the
// fixed 50000, starting this binary as the "boot" so that execBoot can pass
// Beam's boot a semi-persistent directory: the pool passes none, and boot's
// default, /tmp, is shared by every pool on the machine (the staged worker
// binary lands in /tmp/staged/1-<name>). SIGTERM stops the workers.
func serveWorkerPool() {
	port, _ := strconv.Atoi(os.Getenv(envWorkerPool))
	os.Unsetenv(envWorkerPool)
	self, err := os.Executable()
	if err != nil {
		fmt.Fprintln(os.Stderr, "worker pool:", err)
		os.Exit(1)
	}
	ctx := context.Background()
	srv, err := pool.New(ctx, port, self)
	if err != nil {
		fmt.Fprintln(os.Stderr, "worker pool:", err)
		os.Exit(1)
	}
	term := make(chan os.Signal, 1)
	signal.Notify(term, syscall.SIGTERM, syscall.SIGINT)
	go func() {
		<-term
		srv.Stop(ctx)
	}()
	fmt.Println("ready")
	if err := srv.ServeAndWait(); err != nil {
		fmt.Fprintln(os.Stderr, "worker pool:", err)
		os.Exit(1)
	}
	os.Exit(0)
}

// execBoot replaces this process, started by the pool for one worker, with
// Beam's boot, adding --semi_persist_dir; boot fetches the staged worker
// binary from the job server and runs it.
func execBoot() {
	boot := os.Getenv(envBoot)
	os.Unsetenv(envBoot)
	args := append([]string{boot}, os.Args[1:]...)
	args = append(args, "--semi_persist_dir="+os.Getenv(envPersist))
	err := syscall.Exec(boot, args, os.Environ())
	fmt.Fprintln(os.Stderr, "exec boot:", err)
	os.Exit(1)
}

// TestClusterShape runs the command as on a cluster, every part a process
// of its own on loopback ports: a Prism job server, a worker pool in another
// working directory and TMPDIR whose workers are started by Beam's boot
// (built from the module cache) and run the worker binary staged with the
// job, and the command submitting with --runner=universal,
// --environment_type=EXTERNAL and a relative --input. The outputs equal those
// of the in-process job of the same shape (--rounds 1 --cc-rounds 3) byte for
// byte, and no temporary file is left in the output, the pool's working
// directory, its TMPDIR or /tmp.
func TestClusterShape(t *testing.T) {
	if testing.Short() {
		t.Skip("builds Beam's boot and runs a job server, a worker pool and two jobs")
	}
	goCmd, err := exec.LookPath("go")
	if err != nil {
		t.Skip("no go command to build Beam's boot:", err)
	}
	self, err := os.Executable()
	if err != nil {
		t.Fatal(err)
	}
	root, err := filepath.Abs("../..")
	if err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithTimeout(context.Background(), 4*time.Minute)
	defer cancel()
	tmp := t.TempDir()
	dir := func(elem ...string) string {
		d := filepath.Join(append([]string{tmp}, elem...)...)
		if err := os.MkdirAll(d, 0o755); err != nil {
			t.Fatal(err)
		}
		return d
	}
	logs, poolWork, poolTmp, persist := dir("logs"), dir("pool", "work"), dir("pool", "tmp"), dir("pool", "persist")

	// Beam's boot, from the module cache: a few seconds once the test's
	// own dependencies are built (three packages more).
	boot := filepath.Join(dir("bin"), "boot")
	build := exec.CommandContext(ctx, goCmd, "build", "-o", boot, "github.com/apache/beam/sdks/v2/go/container")
	build.Dir = root
	if out, err := build.CombinedOutput(); err != nil {
		t.Fatalf("go build of Beam's boot: %v\n%s", err, out)
	}

	// A GCS emulator for the third job, whose inputs, outputs and work
	// files are all on gs://: every part reaches it through
	// STORAGE_EMULATOR_HOST.
	gcs, gcsHost := startFakeGCS(t)
	t.Setenv("STORAGE_EMULATOR_HOST", gcsHost)
	t.Setenv("GOOGLE_APPLICATION_CREDENTIALS", "")

	jobPort, poolPort := freePort(t), freePort(t)
	startPart(t, ctx, "job server", logs, tmp, []string{envJobServer + "=" + strconv.Itoa(jobPort)})
	stopPool := startPart(t, ctx, "worker pool", logs, poolWork, []string{
		envWorkerPool + "=" + strconv.Itoa(poolPort),
		envBoot + "=" + boot,
		envPersist + "=" + persist,
		"TMPDIR=" + poolTmp,
		"NEARDUP_TEST_MAIN=1", // the workers run main()
	})

	const input = "testdata/sample/sample-*" // relative to root, where the command runs
	// Segments of 16 lines: the passes after the first get about 75 keys
	// from the sample's 1,200 lines, however few its files.
	shape := []string{"--rounds", "1", "--cc-rounds", "3", "--segment-lines", "16", "--quiet"}
	cluster := filepath.Join(tmp, "out-cluster")
	onCluster := []string{"--runner=universal", "--endpoint=localhost:" + strconv.Itoa(jobPort),
		"--environment_type=EXTERNAL", "--environment_config=localhost:" + strconv.Itoa(poolPort),
		"--worker_binary=" + self}
	start := time.Now()
	runCommand(t, ctx, root, slices.Concat([]string{"run", "--input", input, "--output", cluster}, onCluster, shape))
	t.Logf("cluster job: %s", time.Since(start).Round(time.Millisecond))
	start = time.Now()
	runCommand(t, ctx, root, slices.Concat([]string{"run", "--input", "gs://corpus/in/sample-*", "--output", "gs://out/run"}, onCluster, shape))
	t.Logf("cluster job on gs://: %s", time.Since(start).Round(time.Millisecond))
	local := filepath.Join(tmp, "out-local")
	runCommand(t, ctx, root, append([]string{"run", "--input", input, "--output", local}, shape...))

	stopPool() // before looking for what its workers left

	names := listDir(t, local)
	if got := listDir(t, cluster); !slices.Equal(got, names) {
		t.Errorf("cluster output files %q, in-process %q", got, names)
	}
	if n := sameOutputs(t, cluster, local, "between the cluster and the in-process job"); n < 5 {
		t.Errorf("compared %d files of %q; want the shards and summary.json", n, names)
	}
	// The cluster job's counts come from the runner's metrics: its passes
	// after the first had a key per segment, not per file.
	var sum struct {
		Counts map[string]int64  `json:"counts"`
		Inputs []json.RawMessage `json:"inputs"`
	}
	if b, err := os.ReadFile(filepath.Join(cluster, summary.FileName)); err != nil || json.Unmarshal(b, &sum) != nil {
		t.Fatalf("the cluster job's summary: %v", err)
	}
	if c, files := sum.Counts, int64(len(sum.Inputs)); c[summary.StatSignSegments] < c[summary.StatInput]/16 || c[summary.StatSegments] <= 2*files {
		t.Errorf("cluster job: sign_segments %d, verify_segments %d for %d records in %d files; want a key per 16 lines",
			c[summary.StatSignSegments], c[summary.StatSegments], c[summary.StatInput], files)
	}

	// The gs:// job's objects are the local files, but for summary.json,
	// which names other inputs and outputs, and report.html, which only a
	// local output gets; none is left in .tmp-run-* or .tmp-work.
	objects := gcsObjects(t, gcs, "out", "")
	for _, name := range names {
		b, err := os.ReadFile(filepath.Join(local, name))
		if err != nil {
			t.Fatal(err)
		}
		switch got, ok := objects["run/"+name]; {
		case name == "report.html" || name == summary.FileName && ok:
		case string(b) != got:
			t.Errorf("gs://out/run/%s differs from the in-process job's (%d bytes, want %d)", name, len(got), len(b))
		}
	}
	for name := range objects {
		if strings.Contains(name, ".tmp") {
			t.Errorf("left behind: gs://out/%s", name)
		}
	}
	if len(objects) != len(names)-1 {
		t.Errorf("gs://out holds %q; want the in-process job's files %q but report.html", keys(objects), names)
	}

	// No temporary files: in the output (.tmp-work, .tmp-<name>-<hex>), in
	// the pool's TMPDIR, nor in its working directory, where boot writes
	// pipeline_options.json; the semi-persistent directory holds boot's
	// staged/ only. The worker removed boot's copy of it in /tmp.
	noTemporaries(t, cluster)
	if left := listDir(t, poolTmp); len(left) > 0 {
		t.Errorf("the pool's TMPDIR holds %q", left)
	}
	if left := listDir(t, poolWork); !slices.Equal(left, []string{"pipeline_options.json"}) {
		t.Errorf("the pool's working directory holds %q, want boot's pipeline_options.json only", left)
	}
	if left := listDir(t, persist); !slices.Equal(left, []string{"staged"}) {
		t.Errorf("the semi-persistent directory holds %q, want boot's staged/ only", left)
	}
	poolLog, err := os.ReadFile(filepath.Join(logs, "worker pool.log"))
	if err != nil {
		t.Fatal(err)
	}
	copies := regexp.MustCompile(`removed boot's copy of the worker binary, (\S+)`).FindAllSubmatch(poolLog, -1)
	if len(copies) == 0 {
		t.Errorf("no worker removed boot's copy of it in /tmp")
	}
	for _, c := range copies {
		if _, err := os.Stat(filepath.Dir(string(c[1]))); !errors.Is(err, fs.ErrNotExist) {
			t.Errorf("%s: %v; want it gone", c[1], err)
		}
	}
}

// freePort returns a TCP port free on the loopback interface. Prism and
// Beam's pool listen on ":port", every interface; the test dials localhost.
func freePort(t *testing.T) int {
	t.Helper()
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer l.Close()
	return l.Addr().(*net.TCPAddr).Port
}

// startPart starts this binary as one part of the cluster (env chooses it)
// in its own process group, working in dir, and waits until it says it is
// ready. Its output goes to logs/<name>.log, shown if the test fails. The
// returned stop, also called by the cleanup, ends the process group:
// SIGTERM, then SIGKILL after 15 seconds for whatever is left (boot and the
// workers a pool started are in its group).
func startPart(t *testing.T, ctx context.Context, name, logs, dir string, env []string) (stop func()) {
	t.Helper()
	logPath := filepath.Join(logs, name+".log")
	logFile, err := os.Create(logPath)
	if err != nil {
		t.Fatal(err)
	}
	cmd := exec.Command(os.Args[0])
	cmd.Dir = dir
	cmd.Env = append(os.Environ(), env...)
	cmd.Stderr = logFile
	cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true, Pdeathsig: syscall.SIGTERM}
	stdout, w, err := os.Pipe()
	if err != nil {
		t.Fatal(err)
	}
	cmd.Stdout = w
	err = cmd.Start()
	w.Close()
	if err != nil {
		stdout.Close()
		t.Fatal(err)
	}
	exited, ready, copied := make(chan struct{}), make(chan error, 1), make(chan struct{})
	go func() { cmd.Wait(); close(exited) }()
	var once sync.Once
	stop = func() {
		once.Do(func() {
			syscall.Kill(-cmd.Process.Pid, syscall.SIGTERM)
			select {
			case <-exited:
			case <-time.After(15 * time.Second):
				t.Errorf("%s did not stop within 15 s of SIGTERM; killed", name)
			}
			syscall.Kill(-cmd.Process.Pid, syscall.SIGKILL)
			<-exited
			select { // the group's last writer is gone
			case <-copied:
			case <-time.After(5 * time.Second):
			}
			stdout.Close()
			logFile.Close()
		})
	}
	t.Cleanup(func() {
		stop()
		if t.Failed() {
			b, _ := os.ReadFile(logPath)
			t.Logf("%s log (last 6000 bytes):\n%s", name, b[max(0, len(b)-6000):])
		}
	})
	go func() {
		defer close(copied)
		r := bufio.NewReader(stdout)
		line, err := r.ReadString('\n')
		if err == nil && line != "ready\n" {
			err = fmt.Errorf("said %q", line)
		}
		ready <- err
		io.Copy(logFile, r)
	}()
	select {
	case err := <-ready:
		if err != nil {
			t.Fatalf("%s did not start: %v", name, err)
		}
	case <-time.After(time.Minute):
		t.Fatalf("%s not ready after a minute", name)
	case <-ctx.Done():
		t.Fatalf("%s: %v", name, ctx.Err())
	}
	return stop
}

// runCommand runs 'neardup args' (this binary as main) in dir, within ctx,
// and fails the test with its output if it fails.
func runCommand(t *testing.T, ctx context.Context, dir string, args []string) {
	t.Helper()
	cmd := exec.CommandContext(ctx, os.Args[0], args...)
	cmd.Dir = dir
	cmd.Env = append(os.Environ(), "NEARDUP_TEST_MAIN=1")
	cmd.WaitDelay = 10 * time.Second
	out, err := cmd.CombinedOutput()
	if err != nil {
		t.Fatalf("neardup %s: %v\n%.4000s", strings.Join(args, " "), err, out)
	}
}

// noTemporaries fails the test for any file or directory under dir whose
// name starts with ".tmp".
func noTemporaries(t *testing.T, dir string) {
	t.Helper()
	err := filepath.WalkDir(dir, func(path string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		if strings.HasPrefix(d.Name(), ".tmp") {
			t.Errorf("left behind: %s", path)
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
}

// TestExpandInputsRelative: a relative glob lists absolute paths, which a
// worker in another directory can open; URLs are kept as typed.
func TestExpandInputsRelative(t *testing.T) {
	files, _, err := inputs.Expand(context.Background(), "../../testdata/sample/sample-*")
	if err != nil {
		t.Fatal(err)
	}
	want, err := filepath.Abs("../../testdata/sample/sample-0.jsonl")
	if err != nil {
		t.Fatal(err)
	}
	if len(files) != 2 || files[0] != want {
		t.Errorf("expandInputs = %q, want 2 absolute paths, the first %s", files, want)
	}
}
