package docpool

import (
	"sync"
	"time"
)

// AheadStream is AheadEmits for work whose output may be larger than memory
// should hold (the first pass over a whole compressed file): each pending
// work holds at most Limit bytes of output chunks, then waits until Drain
// passes them on. Drain passes the oldest work's output as it comes, in
// the order the work emitted it, then the next work's; the output the DoFn
// emits is the same as if the works ran one after another.
type AheadStream struct {
	// Limit is the bytes of output chunks a pending work may hold before
	// its next emit waits; a single larger chunk is held alone.
	Limit int

	pending []*stream
}

// stream is the output of one work, passed from its goroutine to Drain.
type stream struct {
	limit int

	mu      sync.Mutex
	cond    sync.Cond
	items   []streamItem
	bytes   int  // of the chunks in items
	done    bool // the work returned
	dropped bool // Drain gave up on this work: its emits are discarded
	err     error
	began   time.Time
	took    time.Duration
}

// streamItem is one emitted chunk (out ≥ 0) or stat (out < 0).
type streamItem struct {
	out   int
	key   int64
	chunk []byte
	name  string
	v     int64
}

// put adds it, waiting while the stream holds its limit.
func (s *stream) put(it streamItem) {
	s.mu.Lock()
	defer s.mu.Unlock()
	for s.bytes > 0 && s.bytes+len(it.chunk) > s.limit && !s.dropped {
		s.cond.Wait()
	}
	if s.dropped {
		return
	}
	s.items = append(s.items, it)
	s.bytes += len(it.chunk)
	s.cond.Broadcast()
}

// take waits for items or the work's end and returns the items held,
// whether the work has ended (and with it the stream) and its error.
func (s *stream) take(buf []streamItem) (items []streamItem, done bool, err error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	for len(s.items) == 0 && !s.done {
		s.cond.Wait()
	}
	items, s.items = s.items, buf[:0]
	s.bytes = 0
	s.cond.Broadcast()
	return items, s.done && len(items) == 0, s.err
}

// drop discards the stream's output from now on and waits for its work
// to return.
func (s *stream) drop() {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.dropped = true
	s.items = nil
	s.cond.Broadcast()
	for !s.done {
		s.cond.Wait()
	}
}

// Start runs work, which has nOut outputs, on a new goroutine. work must
// not use the DoFn's iterators or emitters: they are only valid on the
// DoFn's goroutine. The emitters it gets may wait for Drain.
func (a *AheadStream) Start(nOut int, work func(emits []func(int64, []byte), emitStat func(string, int64)) error) {
	s := &stream{limit: max(a.Limit, 1)}
	s.cond.L = &s.mu
	emits := make([]func(int64, []byte), nOut)
	for i := range emits {
		emits[i] = func(k int64, b []byte) { s.put(streamItem{out: i, key: k, chunk: b}) }
	}
	emitStat := func(name string, v int64) { s.put(streamItem{out: -1, name: name, v: v}) }
	a.pending = append(a.pending, s)
	go func() {
		began := time.Now()
		err := work(emits, emitStat)
		s.mu.Lock()
		s.done, s.err, s.began, s.took = true, err, began, time.Since(began)
		s.cond.Broadcast()
		s.mu.Unlock()
	}()
}

// Drain passes the output of the oldest works to the DoFn's emitters until
// at most keep are pending, and the time each took to busy. The first
// error of a work is returned, after the other pending works have
// returned, their output discarded.
func (a *AheadStream) Drain(keep int, emits []func(int64, []byte), emitStat func(string, int64), busy func(took time.Duration, began time.Time)) error {
	var buf []streamItem
	for len(a.pending) > keep {
		s := a.pending[0]
		for {
			items, done, err := s.take(buf)
			if err != nil {
				a.pending = a.pending[1:]
				a.Abort()
				return err
			}
			if done {
				break
			}
			for i, it := range items {
				if it.out < 0 {
					emitStat(it.name, it.v)
				} else {
					emits[it.out](it.key, it.chunk)
				}
				items[i] = streamItem{}
			}
			buf = items
		}
		a.pending = a.pending[1:]
		busy(s.took, s.began)
	}
	return nil
}

// Abort discards the output of every pending work and waits for them to
// return.
func (a *AheadStream) Abort() {
	for _, s := range a.pending {
		s.drop()
	}
	a.pending = nil
}
