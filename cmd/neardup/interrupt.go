package main

import (
	"context"
	"fmt"
	"io"
	"log/slog"
	"os"
	"os/signal"
	"path/filepath"
	"strings"
	"sync"
	"sync/atomic"
	"syscall"
	"time"

	"github.com/neardup/neardup/cmd/neardup/internal/progress"
)

// Cleanups: what a run must undo if it does not end normally (its work
// directory, its staging directories, its locks). Each is run once: by the
// run itself (deferred) or by the signal handler.
var cleanups struct {
	sync.Mutex
	list []*cleanup
}

type cleanup struct {
	once sync.Once
	fn   func()
}

func (c *cleanup) run() { c.once.Do(c.fn) }

// atExit registers fn to run on SIGINT or SIGTERM, and returns it, run at
// most once, for the caller to run (defer) when the run ends otherwise.
func atExit(fn func()) func() {
	c := &cleanup{fn: fn}
	cleanups.Lock()
	cleanups.list = append(cleanups.list, c)
	cleanups.Unlock()
	return c.run
}

// runCleanups runs every registered cleanup, the last registered first.
func runCleanups() {
	cleanups.Lock()
	list := cleanups.list
	cleanups.list = nil
	cleanups.Unlock()
	for i := len(list) - 1; i >= 0; i-- {
		list[i].run()
	}
}

// interruptState is what the signal handler tells the user it left.
var interruptState struct {
	sync.Mutex
	out      string      // the output directory as given, "" before it is taken
	complete func() bool // whether the outputs are in place
}

// setInterruptOutput names the output directory for the message of an
// interrupted run; complete reports whether its outputs are in place.
func setInterruptOutput(out string, complete func() bool) {
	interruptState.Lock()
	interruptState.out, interruptState.complete = out, complete
	interruptState.Unlock()
}

// interrupted is set once a signal has come: the handler ends the process,
// and the command must neither print its own error nor exit.
var interrupted atomic.Bool

// waitIfInterrupted blocks for good if a signal has come, leaving the exit
// to the handler.
func waitIfInterrupted() {
	if interrupted.Load() {
		select {}
	}
}

// handleSignals makes SIGINT and SIGTERM end the command cleanly: cancel
// the job (ctx's cancel), give it a moment to stop, run the cleanups, print
// one line saying what is left, and exit with 128 + the signal number (130,
// 143). jobDone, once closed, says the job has returned.
func handleSignals(cancel context.CancelFunc, jobDone <-chan struct{}) {
	c := make(chan os.Signal, 1)
	signal.Notify(c, os.Interrupt, syscall.SIGTERM)
	go func() {
		sig := <-c
		interrupted.Store(true)
		signal.Reset(os.Interrupt, syscall.SIGTERM) // a second Ctrl-C kills at once
		// The runner logs the cancelled bundles; the user asked for it.
		slog.SetDefault(slog.New(slog.NewTextHandler(io.Discard, nil)))
		cancel()
		select {
		case <-jobDone:
		case <-time.After(time.Second):
		}
		runCleanups()
		progress.End(false) // clears the line on a terminal
		interruptState.Lock()
		out, complete := interruptState.out, interruptState.complete
		interruptState.Unlock()
		switch {
		case out == "":
			fmt.Fprintln(os.Stderr, "neardup: interrupted; nothing was written")
		case complete != nil && complete():
			fmt.Fprintf(os.Stderr, "neardup: interrupted; removed the work files, the outputs in %s are complete\n", out)
		default:
			fmt.Fprintf(os.Stderr, "neardup: interrupted; removed the work files, %s is as before\n", out)
		}
		code := 130
		if sig == syscall.SIGTERM {
			code = 143
		}
		os.Exit(code)
	}()
}

// workMarker is the file every work directory of neardup holds, so that a
// later run can tell it from other directories and remove it once its run
// is gone (sweepWorkDirs).
const (
	workMarker    = ".neardup-work"
	workDirPrefix = "neardup-work-"
)

// makeWorkDir creates a work directory in the temporary directory, with
// its marker.
func makeWorkDir() (string, error) {
	dir, err := os.MkdirTemp("", workDirPrefix)
	if err != nil {
		return "", err
	}
	host, _ := os.Hostname()
	marker := fmt.Sprintf("neardup work directory, removed when its run ends\npid %d\nhost %s\n", os.Getpid(), host)
	if err := os.WriteFile(filepath.Join(dir, workMarker), []byte(marker), 0o644); err != nil {
		os.RemoveAll(dir)
		return "", err
	}
	return dir, nil
}

// staleWorkAge is how old a work directory must be for sweepWorkDirs.
const staleWorkAge = 24 * time.Hour

// sweepWorkDirs removes the work directories that runs killed before they
// could clean up left in tmp: neardup-work-* directories holding the marker,
// older than staleWorkAge, whose run is not alive on this host.
func sweepWorkDirs(tmp string, now time.Time) {
	dirs, _ := filepath.Glob(filepath.Join(tmp, workDirPrefix+"*"))
	host, _ := os.Hostname()
	for _, dir := range dirs {
		marker := filepath.Join(dir, workMarker)
		b, err := os.ReadFile(marker)
		if err != nil || !strings.HasPrefix(string(b), "neardup work directory") {
			continue // not ours, or not a directory
		}
		fi, err := os.Stat(dir)
		mi, merr := os.Stat(marker)
		if err != nil || merr != nil || now.Sub(fi.ModTime()) < staleWorkAge || now.Sub(mi.ModTime()) < staleWorkAge {
			continue
		}
		if pid, h, ok := parseLock(b); ok && h == host && processAlive(pid) {
			continue // a long run, still going
		}
		os.RemoveAll(dir)
	}
}
