package main

import (
	"fmt"
	"io"
	"time"

	"github.com/neardup/neardup/transforms"
)

// progress prints a line to w every interval while a local job runs:
// documents read, signed, pairs verified and matched, with rates over the
// last interval. It stops when stop is closed and returns after its last
// line.
func progress(w io.Writer, interval time.Duration, stop <-chan struct{}) {
	start := time.Now()
	last := start
	var lastRead, lastSigned, lastVerified int64
	t := time.NewTicker(interval)
	defer t.Stop()
	for {
		select {
		case <-stop:
			return
		case now := <-t.C:
			p := &transforms.Progress
			read, signed, verified, matched := p.Read.Load(), p.Signed.Load(), p.Verified.Load(), p.Matched.Load()
			dt := now.Sub(last).Seconds()
			fmt.Fprintf(w, "neardup: %5.0fs  read %d (%.0f/s)  signed %d (%.0f/s)  pairs verified %d (%.0f/s), matched %d\n",
				now.Sub(start).Seconds(), read, float64(read-lastRead)/dt, signed, float64(signed-lastSigned)/dt,
				verified, float64(verified-lastVerified)/dt, matched)
			last, lastRead, lastSigned, lastVerified = now, read, signed, verified
		}
	}
}
