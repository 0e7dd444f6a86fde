package docpool

import (
	"sync"
	"time"
)

// Ahead runs the work of a bundle's elements on other goroutines while the
// runner hands over the next elements, and gives the results back in
// element order on the goroutine that calls the DoFn, where they may be
// emitted. A stage that a runner runs as one bundle (Prism runs each
// grouped stage so) then uses more than one core. The DoFn drains it in
// FinishBundle, so nothing is emitted after the bundle ends.
type Ahead[R any] struct {
	pending []chan R
}

// Start runs work on a new goroutine.
func (a *Ahead[R]) Start(work func() R) {
	ch := make(chan R, 1)
	go func() { ch <- work() }()
	a.pending = append(a.pending, ch)
}

// Drain waits for the oldest results and passes them to use until at most
// keep are pending; it stops at the first error of use, after waiting for
// every pending goroutine.
func (a *Ahead[R]) Drain(keep int, use func(R) error) error {
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

// AheadEmits is ahead for DoFns that emit: work for one element runs on
// another goroutine with emitters that collect its output chunks and stats,
// and Drain passes them, in element order, to the DoFn's own emitters,
// with the time the work took.
type AheadEmits struct {
	a Ahead[collected]
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
	key   int64
	chunk []byte
}

type namedStat struct {
	name string
	v    int64
}

// Start runs work, which has nOut outputs, on a new goroutine. work must
// not use the DoFn's iterators or emitters: they are only valid on the
// DoFn's goroutine.
func (e *AheadEmits) Start(nOut int, work func(emits []func(int64, []byte), emitStat func(string, int64)) error) {
	e.a.Start(func() collected {
		c := collected{outs: make([][]keyedChunk, nOut), began: time.Now()}
		emits := make([]func(int64, []byte), nOut)
		for i := range emits {
			emits[i] = func(k int64, b []byte) { c.outs[i] = append(c.outs[i], keyedChunk{k, b}) }
		}
		c.err = work(emits, func(name string, v int64) { c.stats = append(c.stats, namedStat{name, v}) })
		c.took = time.Since(c.began)
		return c
	})
}

// Drain emits the output of the oldest work until at most keep are
// pending; the first error of a work is returned, after waiting for the
// rest.
func (e *AheadEmits) Drain(keep int, emits []func(int64, []byte), emitStat func(string, int64), busy func(took time.Duration, began time.Time)) error {
	return e.a.Drain(keep, func(c collected) error {
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
		busy(c.took, c.began)
		return nil
	})
}

// Reuse keeps slices for reuse, safe for use by several goroutines.
type Reuse[T any] struct {
	mu   sync.Mutex
	free [][]T
}

// Get returns an empty slice, with the capacity of one Put before if any.
func (r *Reuse[T]) Get() []T {
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

// Put keeps s, which its caller no longer uses, for a later Get.
func (r *Reuse[T]) Put(s []T) {
	if cap(s) == 0 {
		return
	}
	r.mu.Lock()
	r.free = append(r.free, s[:0])
	r.mu.Unlock()
}

// Clear drops the slices kept for later gets.
func (r *Reuse[T]) Clear() {
	r.mu.Lock()
	r.free = nil
	r.mu.Unlock()
}
