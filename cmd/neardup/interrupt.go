package main

import (
	"context"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"os"
	"os/signal"
	"sync"
	"sync/atomic"
	"syscall"
	"time"

	"github.com/neardup/neardup/cmd/neardup/internal/outdir"
	"github.com/neardup/neardup/cmd/neardup/internal/progress"
	"github.com/neardup/neardup/transforms/jobfiles"
)

// Cleanups: what a run must undo if it does not end normally (its work
// directory, its staging directories, its locks). Each is run once: by the
// run itself (deferred) or by the signal handler. Once the handler has
// run them (ran), nothing more is made (see makeAtExit).
var cleanups struct {
	sync.Mutex
	list []*cleanup
	ran  bool
}

// errStopped is the error of what a run would make after the signal
// handler has run the cleanups.
var errStopped = errors.New("interrupted")

type cleanup struct {
	once sync.Once
	fn   func()
}

func (c *cleanup) run() { c.once.Do(c.fn) }

// atExit registers fn to run on SIGINT, SIGTERM or SIGHUP, and returns it, run at
// most once, for the caller to run (defer) when the run ends otherwise.
func atExit(fn func()) func() {
	c := &cleanup{fn: fn}
	cleanups.Lock()
	cleanups.list = append(cleanups.list, c)
	cleanups.Unlock()
	return c.run
}

// makeAtExit runs create, which makes something the run must undo if it
// does not end normally (a directory), and registers the undo it returns
// as atExit does, as one step against the signal handler: the handler
// waits for a create under way, and after the handler create is not run
// (errStopped). It returns the undo for the caller to run (defer).
func makeAtExit(create func() (undo func(), err error)) (func(), error) {
	cleanups.Lock()
	defer cleanups.Unlock()
	if cleanups.ran {
		return nil, errStopped
	}
	undo, err := create()
	if err != nil {
		return nil, err
	}
	c := &cleanup{fn: undo}
	cleanups.list = append(cleanups.list, c)
	return c.run, nil
}

// runCleanups runs every registered cleanup, the last registered first;
// after it, makeAtExit makes nothing.
func runCleanups() {
	cleanups.Lock()
	list := cleanups.list
	cleanups.list, cleanups.ran = nil, true
	cleanups.Unlock()
	for i := len(list) - 1; i >= 0; i-- {
		list[i].run()
	}
}

// openDir takes the directory dir of kind k for the run (outdir.Dir.Open),
// its Abort registered to run on SIGINT, SIGTERM or SIGHUP from the start; it
// returns the Abort for the caller to defer.
func openDir(k outdir.Kind, dir string, overwrite bool, inputs []string) (*outdir.Dir, func(), error) {
	d := k.New(dir)
	abort := atExit(d.Abort)
	if err := d.Open(overwrite, inputs); err != nil {
		abort()
		if errors.Is(err, outdir.ErrNotEmpty) {
			err = usageError{err}
		}
		return nil, nil, err
	}
	return d, abort, nil
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

// stopSignals are the signals that end a job cleanly: Ctrl-C, kill, and
// a closed terminal or ssh session (SIGHUP). Each ends in the same
// cleanup (see handleSignals).
var stopSignals = []os.Signal{os.Interrupt, syscall.SIGTERM, syscall.SIGHUP}

// handleSignals makes the command end cleanly however it is stopped.
//
// SIGINT, SIGTERM and SIGHUP (each unless the command was started with it
// ignored, as nohup does) cancel the job (ctx's cancel), give it a moment
// to stop, stop every writer of the job's files (jobfiles.StopWriters:
// the goroutines the runner does not wait for, such as the units read
// ahead, included), run the cleanups, print one line saying what is left, and exit
// with 128 + the signal number (130, 143, 129). A commit under way ends
// first (the cleanups wait for it): the outputs are then in place, and
// the line says so. jobDone, once closed, says the job has returned.
//
// SIGPIPE is ignored: a write to a closed standard output or error (the
// reader of a pipe gone, as in 'neardup run ... | head') fails and the
// command goes on without printing, so that printing never decides
// whether a finished job's outputs are committed.
func handleSignals(cancel context.CancelFunc, jobDone <-chan struct{}) {
	signal.Ignore(syscall.SIGPIPE)
	var sigs []os.Signal
	for _, s := range stopSignals {
		if !signal.Ignored(s) {
			sigs = append(sigs, s)
		}
	}
	c := make(chan os.Signal, 1)
	signal.Notify(c, sigs...)
	go func() {
		sig := <-c
		interrupted.Store(true)
		signal.Reset(sigs...) // a second Ctrl-C kills at once
		// The runner logs the cancelled bundles; the user asked for it.
		slog.SetDefault(slog.New(slog.NewTextHandler(io.Discard, nil)))
		cancel()
		select {
		case <-jobDone:
		case <-time.After(time.Second):
		}
		// No goroutine of the job (a unit read ahead, a shard being
		// written) creates or writes a file from now on.
		jobfiles.StopWriters(stopWritersTimeout)
		runCleanups()
		progress.End(false) // clears the line on a terminal
		fmt.Fprintln(os.Stderr, interruptMessage())
		os.Exit(128 + int(sig.(syscall.Signal)))
	}()
}

// stopWritersTimeout bounds the wait for the file operations under way
// when a job is stopped: each is one create, write or rename.
const stopWritersTimeout = 5 * time.Second

// interruptMessage is the line an interrupted command prints: what it
// left.
func interruptMessage() string {
	interruptState.Lock()
	out, complete := interruptState.out, interruptState.complete
	interruptState.Unlock()
	switch {
	case out == "":
		return "neardup: interrupted; nothing was written"
	case complete != nil && complete():
		return fmt.Sprintf("neardup: interrupted; removed the work files, the outputs in %s are complete", out)
	default:
		return fmt.Sprintf("neardup: interrupted; removed the work files, %s is as before", out)
	}
}
