package main

import (
	"bytes"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/neardup/neardup/transforms"
)

// lockedBuffer is a bytes.Buffer safe to write from the progress goroutine
// while the test reads it.
type lockedBuffer struct {
	mu  sync.Mutex
	buf bytes.Buffer
}

func (b *lockedBuffer) Write(p []byte) (int, error) {
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.buf.Write(p)
}

func (b *lockedBuffer) String() string {
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.buf.String()
}

func TestProgress(t *testing.T) {
	transforms.Progress.Read.Store(1000)
	transforms.Progress.Signed.Store(400)
	defer transforms.Progress.Read.Store(0)
	defer transforms.Progress.Signed.Store(0)
	stop := make(chan struct{})
	done := make(chan struct{})
	var out lockedBuffer
	go func() { progress(&out, 10*time.Millisecond, stop); close(done) }()
	deadline := time.Now().Add(10 * time.Second)
	for strings.Count(out.String(), "\n") < 2 && time.Now().Before(deadline) {
		time.Sleep(5 * time.Millisecond)
	}
	close(stop)
	<-done
	got := out.String()
	if strings.Count(got, "\n") < 2 {
		t.Fatalf("fewer than 2 progress lines in 10s:\n%s", got)
	}
	if !strings.Contains(got, "read 1000") || !strings.Contains(got, "signed 400") {
		t.Errorf("progress lines lack the counts:\n%s", got)
	}
	n := strings.Count(got, "\n")
	time.Sleep(30 * time.Millisecond)
	if strings.Count(out.String(), "\n") != n {
		t.Error("progress went on after stop")
	}
}
