package jobstate

import (
	"testing"
	"time"
)

// TestWaitIdle: WaitIdle gives up while a DoFn call is under way, and
// returns once none has been for a moment, also when the last one ends
// while it waits.
func TestWaitIdle(t *testing.T) {
	Running.Add(1)
	if WaitIdle(100 * time.Millisecond) {
		Running.Add(-1)
		t.Fatal("WaitIdle reported idle while a call was under way")
	}
	go func() {
		time.Sleep(30 * time.Millisecond)
		Running.Add(-1)
	}()
	start := time.Now()
	if !WaitIdle(5 * time.Second) {
		t.Fatal("WaitIdle did not see the call end")
	}
	if took := time.Since(start); took < 30*time.Millisecond+idleSettle {
		t.Errorf("WaitIdle returned after %v, before the call ended and settled", took)
	}
}

// TestStageClock: a stage's record covers every piece of work noted for it,
// from whichever goroutine (branches of a stage run the same DoFn type, and
// the direct runner's metrics keep only one of them), and Reset forgets it.
func TestStageClock(t *testing.T) {
	var c stageClock
	t0 := time.UnixMilli(1_000_000)
	at := func(ms int) time.Time { return t0.Add(time.Duration(ms) * time.Millisecond) }
	done := make(chan struct{})
	go func() { c.note("Read", at(0), at(400)); close(done) }() // branch 0
	c.note("Read", at(500), at(1200))                           // branch 1
	c.note("Clusters", at(2000), at(2100))
	<-done
	if got, want := c.Busy()["Read"], 1100*time.Millisecond; got != want {
		t.Errorf("Read busy %v, want %v", got, want)
	}
	if got, want := c.Spans()["Read"], [2]time.Time{at(0), at(1200)}; got != want {
		t.Errorf("Read span %v, want %v", got, want)
	}
	if got := len(c.Spans()); got != 2 {
		t.Errorf("%d stages, want 2", got)
	}
	c.Reset()
	if len(c.Busy()) != 0 || len(c.Spans()) != 0 {
		t.Errorf("after Reset: busy %v, spans %v", c.Busy(), c.Spans())
	}
}
