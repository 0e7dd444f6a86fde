package main

import (
	"bytes"
	"strings"
	"testing"
	"time"

	"github.com/neardup/neardup/transforms"
)

func TestProgress(t *testing.T) {
	transforms.Progress.Read.Store(0)
	transforms.Progress.Signed.Store(0)
	stop := make(chan struct{})
	var buf bytes.Buffer
	done := make(chan struct{})
	go func() { progress(&buf, 20*time.Millisecond, stop); close(done) }()
	transforms.Progress.Read.Add(1000)
	transforms.Progress.Signed.Add(400)
	time.Sleep(70 * time.Millisecond)
	close(stop)
	<-done
	out := buf.String()
	if !strings.Contains(out, "read 1000") || !strings.Contains(out, "signed 400") {
		t.Errorf("progress lines lack the counts:\n%s", out)
	}
	if n := strings.Count(out, "\n"); n < 2 {
		t.Errorf("%d progress lines in 70ms at 20ms, want at least 2", n)
	}
}
