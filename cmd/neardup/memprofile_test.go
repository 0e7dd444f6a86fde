package main

import (
	"bytes"
	"os"
	"path/filepath"
	"testing"
	"time"
)

func TestPeakHeapProfile(t *testing.T) {
	path := filepath.Join(t.TempDir(), "heap.pprof")
	stop := make(chan struct{})
	done := make(chan error)
	go func() { done <- peakHeapProfile(path, time.Millisecond, stop) }()
	hold := make([][]byte, 0, 64)
	for range 64 {
		hold = append(hold, make([]byte, 1<<20))
		time.Sleep(time.Millisecond)
	}
	close(stop)
	if err := <-done; err != nil {
		t.Fatal(err)
	}
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	if !bytes.HasPrefix(b, []byte{0x1f, 0x8b}) { // pprof profiles are gzipped protobuf
		t.Errorf("profile of %d bytes does not start like a gzipped pprof profile", len(b))
	}
	_ = hold
}
