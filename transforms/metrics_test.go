package transforms

import (
	"testing"
	"time"
)

// TestWaitIdle: WaitIdle gives up while a DoFn call is under way, and
// returns once none has been for a moment, also when the last one ends
// while it waits.
func TestWaitIdle(t *testing.T) {
	running.Add(1)
	if WaitIdle(100 * time.Millisecond) {
		running.Add(-1)
		t.Fatal("WaitIdle reported idle while a call was under way")
	}
	go func() {
		time.Sleep(30 * time.Millisecond)
		running.Add(-1)
	}()
	start := time.Now()
	if !WaitIdle(5 * time.Second) {
		t.Fatal("WaitIdle did not see the call end")
	}
	if took := time.Since(start); took < 30*time.Millisecond+idleSettle {
		t.Errorf("WaitIdle returned after %v, before the call ended and settled", took)
	}
}
