package transforms

import (
	"context"
	"sync"
	"time"
)

// ahead runs the work of a bundle's elements on other goroutines while the
// runner hands over the next elements, and gives the results back in
// element order on the goroutine that calls the DoFn, where they may be
// emitted. A stage that a runner runs as one bundle (Prism runs each
// grouped stage so) then uses more than one core. The DoFn drains it in
// FinishBundle, so nothing is emitted after the bundle ends.
type ahead[R any] struct {
	pending []chan R
}

// start runs work on a new goroutine.
func (a *ahead[R]) start(work func() R) {
	ch := make(chan R, 1)
	go func() { ch <- work() }()
	a.pending = append(a.pending, ch)
}

// drain waits for the oldest results and passes them to use until at most
// keep are pending; it stops at the first error of use, after waiting for
// every pending goroutine.
func (a *ahead[R]) drain(keep int, use func(R) error) error {
	for len(a.pending) > keep {
		r := <-a.pending[0]
		a.pending = a.pending[1:]
		if err := use(r); err != nil {
			for _, ch := range a.pending {
				<-ch
			}
			a.pending = nil
			return err
		}
	}
	return nil
}

// aheadEmits is ahead for DoFns that emit: work for one element runs on
// another goroutine with emitters that collect its output chunks and stats,
// and drain passes them, in element order, to the DoFn's own emitters. The
// busy time of the work is added to stage's counter when it is drained.
type aheadEmits struct {
	stage string
	a     ahead[collected]
}

// collected is what the work of one element emitted.
type collected struct {
	outs  [][]keyedChunk // per output
	stats []namedStat
	err   error
	began time.Time
	took  time.Duration
}

type keyedChunk struct {
	key   int
	chunk []byte
}

type namedStat struct {
	name string
	v    int64
}

// start runs work, which has nOut outputs, on a new goroutine. work must
// not use the DoFn's iterators or emitters: they are only valid on the
// DoFn's goroutine.
func (e *aheadEmits) start(nOut int, work func(emits []func(int, []byte), emitStat func(string, int64)) error) {
	e.a.start(func() collected {
		c := collected{outs: make([][]keyedChunk, nOut), began: time.Now()}
		emits := make([]func(int, []byte), nOut)
		for i := range emits {
			emits[i] = func(k int, b []byte) { c.outs[i] = append(c.outs[i], keyedChunk{k, b}) }
		}
		c.err = work(emits, func(name string, v int64) { c.stats = append(c.stats, namedStat{name, v}) })
		c.took = time.Since(c.began)
		return c
	})
}

// drain emits the output of the oldest work until at most keep are
// pending; the first error of a work is returned, after waiting for the
// rest.
func (e *aheadEmits) drain(ctx context.Context, keep int, emits []func(int, []byte), emitStat func(string, int64)) error {
	return e.a.drain(keep, func(c collected) error {
		if c.err != nil {
			return c.err
		}
		for i, out := range c.outs {
			for _, kc := range out {
				emits[i](kc.key, kc.chunk)
			}
		}
		for _, s := range c.stats {
			emitStat(s.name, s.v)
		}
		addBusy(ctx, e.stage, c.took, c.began)
		return nil
	})
}

// reuse keeps slices for reuse, safe for use by several goroutines.
type reuse[T any] struct {
	mu   sync.Mutex
	free [][]T
}

// get returns an empty slice, with the capacity of one put before if any.
func (r *reuse[T]) get() []T {
	r.mu.Lock()
	defer r.mu.Unlock()
	n := len(r.free)
	if n == 0 {
		return nil
	}
	s := r.free[n-1]
	r.free = r.free[:n-1]
	return s[:0]
}

// put keeps s, which its caller no longer uses, for a later get.
func (r *reuse[T]) put(s []T) {
	if cap(s) == 0 {
		return
	}
	r.mu.Lock()
	r.free = append(r.free, s[:0])
	r.mu.Unlock()
}
