package docpool

import (
	"errors"
	"fmt"
	"slices"
	"sync/atomic"
	"testing"
	"time"
)

// streamWork is work number w of TestAheadStream: n chunks of size bytes
// to output w%2, keyed by their number, then a stat.
func streamWork(w, n, size int, peak *atomic.Int64, held *atomic.Int64) func([]func(int64, []byte), func(string, int64)) error {
	return func(emits []func(int64, []byte), emitStat func(string, int64)) error {
		for i := range n {
			b := make([]byte, size)
			b[0] = byte(w)
			emits[w%2](int64(w*1000+i), b)
			if h := held.Add(int64(size)); h > peak.Load() {
				peak.Store(h)
			}
		}
		emitStat(fmt.Sprint("work", w), int64(n))
		return nil
	}
}

// TestAheadStream: whatever the number of works kept pending, the DoFn's
// emitters get every work's output in the order one work after another
// would give, and a pending work holds at most Limit bytes.
func TestAheadStream(t *testing.T) {
	const works, chunks, size, limit = 6, 200, 1000, 10_000
	for _, keep := range []int{0, 1, 3, works} {
		t.Run(fmt.Sprint("keep", keep), func(t *testing.T) {
			var got, want []string
			for w := range works {
				for i := range chunks {
					want = append(want, fmt.Sprintf("out%d %d", w%2, w*1000+i))
				}
				want = append(want, fmt.Sprintf("work%d=%d", w, chunks))
			}
			var held, peak atomic.Int64 // bytes emitted by works and not yet drained
			emits := []func(int64, []byte){
				func(k int64, b []byte) { held.Add(-int64(len(b))); got = append(got, fmt.Sprintf("out0 %d", k)) },
				func(k int64, b []byte) { held.Add(-int64(len(b))); got = append(got, fmt.Sprintf("out1 %d", k)) },
			}
			stat := func(name string, v int64) { got = append(got, fmt.Sprintf("%s=%d", name, v)) }
			var busies int
			busy := func(time.Duration, time.Time) { busies++ }
			a := AheadStream{Limit: limit}
			for w := range works {
				a.Start(2, streamWork(w, chunks, size, &peak, &held))
				if err := a.Drain(keep, emits, stat, busy); err != nil {
					t.Fatal(err)
				}
			}
			if err := a.Drain(0, emits, stat, busy); err != nil {
				t.Fatal(err)
			}
			if !slices.Equal(got, want) {
				t.Fatalf("emitted %d items, want %d in order; first difference at %d", len(got), len(want), firstDiff(got, want))
			}
			if busies != works {
				t.Errorf("busy called %d times, want %d", busies, works)
			}
			// Each pending work holds at most limit bytes (and one chunk
			// more may be counted between its put and the drain); Drain
			// emits at most limit bytes taken from the oldest at once.
			if max := int64((keep + 2) * (limit + size)); peak.Load() > max {
				t.Errorf("works held %d bytes at once, want at most %d", peak.Load(), max)
			}
		})
	}
}

func firstDiff(a, b []string) int {
	for i := range min(len(a), len(b)) {
		if a[i] != b[i] {
			return i
		}
	}
	return min(len(a), len(b))
}

// TestAheadStreamError: the first failing work's error is returned, the
// other pending works run to their end with nothing more emitted, and
// nothing of them is left pending.
func TestAheadStreamError(t *testing.T) {
	boom := errors.New("boom")
	var emitted int
	emits := []func(int64, []byte){func(int64, []byte) { emitted++ }}
	stat := func(string, int64) {}
	busy := func(time.Duration, time.Time) {}
	var ended atomic.Int64
	a := AheadStream{Limit: 100}
	a.Start(1, func([]func(int64, []byte), func(string, int64)) error { return boom })
	for range 3 { // works that would block on their limit
		a.Start(1, func(e []func(int64, []byte), _ func(string, int64)) error {
			defer ended.Add(1)
			for i := range 1000 {
				e[0](int64(i), make([]byte, 50))
			}
			return nil
		})
	}
	if err := a.Drain(0, emits, stat, busy); !errors.Is(err, boom) {
		t.Fatalf("Drain: %v, want %v", err, boom)
	}
	if ended.Load() != 3 {
		t.Errorf("%d of 3 pending works ended before Drain returned", ended.Load())
	}
	if emitted != 0 {
		t.Errorf("%d chunks emitted, want none: the first work failed", emitted)
	}
	if err := a.Drain(0, emits, stat, busy); err != nil {
		t.Errorf("Drain after the error: %v, want nothing pending", err)
	}
}
