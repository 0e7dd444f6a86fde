package workfiles

import (
	"errors"
	"io"
	"sync"
	"sync/atomic"
	"time"
)

// The files of the jobs of this process are created, written and renamed
// through Do (Write, Writer and Create do so), so that Stop can end them
// all at once: a command being stopped by a signal calls it before it
// removes its work and staging directories, and no goroutine of the job
// (a unit read ahead, a shard being written) creates or fills a file
// there afterwards, nor creates the directory again.
var gate struct {
	mu      sync.RWMutex // held for reading by each operation under way
	stopped atomic.Bool
}

// ErrStopped is the error of a file operation refused after Stop.
var ErrStopped = errors.New("the job was stopped")

// Do runs op, which creates, writes or renames a file of a job, and
// returns its error, unless Stop has been called: then it returns
// ErrStopped without running op. op must not call Do.
func Do(op func() error) error {
	gate.mu.RLock()
	defer gate.mu.RUnlock()
	if gate.stopped.Load() {
		return ErrStopped
	}
	return op()
}

// Stop makes every later Do return ErrStopped, for good, and waits up to
// timeout for the operations under way to end; it reports whether they
// did.
func Stop(timeout time.Duration) bool {
	gate.stopped.Store(true)
	done := make(chan struct{})
	go func() {
		gate.mu.Lock() // once every operation under way has ended
		gate.mu.Unlock()
		close(done)
	}()
	select {
	case <-done:
		return true
	case <-time.After(timeout):
		return false
	}
}

// Stopped reports whether Stop has been called.
func Stopped() bool { return gate.stopped.Load() }

// Writer returns a writer to w, a file of a job, whose writes go through
// Do and count as written to a work file of kind (see Count; "" for a
// file that is not a work file: an output).
func Writer(kind string, w io.Writer) io.Writer { return gated{w, kind} }

type gated struct {
	w    io.Writer
	kind string
}

func (g gated) Write(p []byte) (n int, err error) {
	err = Do(func() error {
		n, err = g.w.Write(p)
		return err
	})
	if g.kind != "" {
		Count(g.kind, int64(n))
	}
	return n, err
}
