package plan

import (
	"cmp"
	"runtime"

	"github.com/neardup/neardup/transforms/ingest"
	"github.com/neardup/neardup/transforms/near"
	"github.com/neardup/neardup/transforms/sign"
)

// The memory that grows with the goroutines over a file's documents
// (Config.Workers) and the copies of the file-reading stages
// (Config.Branches), beside what the input's size gives: plan.New counts
// it against the memory budget of a local job.

// Per goroutine and per unit read, besides the batches of docpool.Map
// (docpool.MapBytes):
//
//   - goroutineBytes: a worker goroutine's stack, and in the first pass its
//     state (a normalizer's, none);
//   - signerBytes: a worker of the signature pass or of the exact checks
//     also holds a signer of its own (its permutations and shingle
//     buffers);
//   - unitBufferBytes: the reading of one unit (one file, or a part of a
//     large one) holds, besides the output it read ahead and its batches,
//     its decompressor, its line buffer and the writers of its document
//     shards, spool copy and rejects.
const (
	goroutineBytes  = 8 << 10
	signerBytes     = 64 << 10
	unitBufferBytes = 1 << 20
)

// ReadersAtOnce is the most units the first pass (Read) reads at once:
// workers (0: GOMAXPROCS) in each of branches copies of the stage (see
// readKeysFn.ProcessElement). Each holds a decompressor: a zstd one holds
// its frame's window.
func ReadersAtOnce(workers, branches int) int {
	return max(branches, 1) * cmp.Or(workers, runtime.GOMAXPROCS(0))
}

// WorkerBytes is the most memory the passes over documents hold with
// workers goroutines a file (Config.Workers; 0: GOMAXPROCS) and branches
// copies of the file-reading stages, beside what the input's size gives
// and a zstd input's window (see ReadersAtOnce), counting each pass as if
// they all ran at once:
//
//   - the first pass reads ReadersAtOnce units, each with the output it
//     read ahead (at most readAheadBytes), a docpool.Map on workers
//     goroutines and its read buffers;
//   - the signature pass signs a segment at a time in each branch, a Map
//     on workers goroutines, each with a signer;
//   - the exact checks work on GOMAXPROCS+1 files at once (see
//     shingleSetsFn), each a Map on workers goroutines with a signer each.
//
// It grows as the square of workers: a unit's Map has workers goroutines
// and batches of its own.
func WorkerBytes(workers, branches int) int64 {
	w := int64(cmp.Or(workers, runtime.GOMAXPROCS(0)))
	read := int64(ReadersAtOnce(workers, branches)) * (ingest.ReadAheadBytes + unitBufferBytes + ingest.MapBytes(int(w)) + w*goroutineBytes)
	signing := int64(max(branches, 1)) * (sign.MapBytes(int(w)) + w*(goroutineBytes+signerBytes))
	check := int64(runtime.GOMAXPROCS(0)+1) * (near.MapBytes(int(w)) + w*(goroutineBytes+signerBytes))
	return read + signing + check
}
