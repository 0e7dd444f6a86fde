package main

import (
	"bytes"
	"os"
	"runtime"
	"runtime/pprof"
	"time"
)

// peakHeapProfile checks the heap in use every interval until stop is
// closed, and writes to path the heap profile taken when it was largest:
// the profile that shows what the run's peak memory holds.
func peakHeapProfile(path string, interval time.Duration, stop <-chan struct{}) error {
	var peak uint64
	var best bytes.Buffer
	var ms runtime.MemStats
	take := func() error {
		runtime.ReadMemStats(&ms)
		if ms.HeapInuse <= peak {
			return nil
		}
		peak = ms.HeapInuse
		best.Reset()
		return pprof.Lookup("heap").WriteTo(&best, 0)
	}
	t := time.NewTicker(interval)
	defer t.Stop()
	for {
		if err := take(); err != nil {
			return err
		}
		select {
		case <-stop:
			return os.WriteFile(path, best.Bytes(), 0o644)
		case <-t.C:
		}
	}
}
