package wire

import "fmt"

// FirstPass is the kind of a chunk in the one shuffle of a run's first
// pass (Read → ExactDuplicates), which carries, beside the exact keys,
// what ExactDuplicates passes on to the stages after it: with one output
// the first pass is computed once on every runner (Beam's Spark runner
// computed it twice with five).
type FirstPass int64

const (
	FirstExact    FirstPass = iota // wire.Info chunks, keyed by partition of the exact key
	FirstRejects                   // reject lines, keyed by file index
	FirstInputs                    // what a unit read, keyed by file index
	FirstSegments                  // document shard markers, keyed by segment
	FirstStats                     // stat records (AppendStat), under key 0
	firstKinds
)

// firstShift puts a chunk's kind in its key's high byte; the keys of every
// kind (partitions, file indexes, segments) are below 2^56.
const firstShift = 56

// Key returns the first pass's shuffle key of k, a key of kind p.
func (p FirstPass) Key(k int64) int64 { return int64(p)<<firstShift | k }

// FirstPassKey splits a key of the first pass's shuffle into its kind and
// the key of that kind, failing on a key of no kind.
func FirstPassKey(key int64) (FirstPass, int64, error) {
	p := FirstPass(key >> firstShift)
	if key < 0 || p >= firstKinds {
		return 0, 0, fmt.Errorf("first pass shuffle: key %#x of no kind", key)
	}
	return p, key & (1<<firstShift - 1), nil
}
