package greedy

import (
	"fmt"
	"sync/atomic"

	"github.com/neardup/neardup/transforms/internal/extsort"
)

// External sorting for Stream and ClusterSpill is package extsort's: each
// spilled decision has a temporary directory (extsort.Dir, named
// greedy-decide-*) for its sorted runs and its own files.

func fileErr(op, name string, err error) error {
	return fmt.Errorf("greedy: %s %s: %w", op, name, extsort.UnwrapPath(err))
}

// spilledBytes counts the bytes this process has written to the files of
// spilled decisions and not yet taken (TakeSpilledBytes).
var spilledBytes atomic.Int64

// countSpilled counts the bytes of a file of a spilled decision.
func countSpilled(n int64) { spilledBytes.Add(n) }

// TakeSpilledBytes returns the bytes this process has written to spilled
// decisions' files since the last call.
func TakeSpilledBytes() int64 { return spilledBytes.Swap(0) }
