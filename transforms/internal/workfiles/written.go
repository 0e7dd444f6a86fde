package workfiles

import (
	"maps"
	"sync"
	"sync/atomic"
)

// The kinds of work file, for the bytes a job writes to each
// (summary.json's work_bytes_written). A job's outputs are not work files.
const (
	KindSpool       = "spool"            // decompressed copies of compressed inputs, for the last pass
	KindDocShards   = "doc_shards"       // normalized documents by segment, for the signature pass
	KindInfoShards  = "info_shards"      // each document's id, length and position, by segment
	KindSeen        = "seen"             // what the first pass read of each input file
	KindSigShards   = "signature_shards" // signature records for the index (--index-out)
	KindSpills      = "spilled_shuffles" // shuffles kept on disk (chunks larger than the runner should carry)
	KindOutputParts = "output_parts"     // pairs, cluster and reject records by part of their shard
	KindDecide      = "decide_spill"     // partitions decided on disk (over the decide budget)
	KindSortRuns    = "sort_runs"        // runs of candidate pairs sorted on disk (JoinFirst, over its run bytes)
	KindParquet     = "parquet_copies"   // local copies of remote Parquet inputs
	KindIndexParts  = "index_parts"      // key partitions of an index being compacted
	KindManifest    = "manifest"         // the list of the input files
)

// written holds the bytes written to work files by this process, by kind:
// all of them since Reset, and those no runner counter has been given yet
// (TakeUnsent).
var written struct {
	mu          sync.Mutex
	total, sent map[string]int64
}

// Count adds n bytes written to a work file of kind.
func Count(kind string, n int64) {
	if n <= 0 {
		return
	}
	written.mu.Lock()
	if written.total == nil {
		written.total, written.sent = map[string]int64{}, map[string]int64{}
	}
	written.total[kind] += n
	written.mu.Unlock()
}

// Written returns the bytes this process has written to work files since
// the last ResetWritten, by kind.
func Written() map[string]int64 {
	written.mu.Lock()
	defer written.mu.Unlock()
	return maps.Clone(written.total)
}

// TakeUnsent returns the bytes written by kind since the last TakeUnsent,
// for a runner's counters (summed over the processes of a cluster).
func TakeUnsent() map[string]int64 {
	written.mu.Lock()
	defer written.mu.Unlock()
	var d map[string]int64
	for k, v := range written.total {
		if v > written.sent[k] {
			if d == nil {
				d = map[string]int64{}
			}
			d[k] = v - written.sent[k]
			written.sent[k] = v
		}
	}
	return d
}

// ResetWritten forgets the bytes written and the spill names, for the next
// job of this process.
func ResetWritten() {
	written.mu.Lock()
	written.total, written.sent = nil, nil
	written.mu.Unlock()
	names.total.Store(0)
	names.sent.Store(0)
}

// names holds the bytes of the spill file names this process has handed
// to the runner in place of the chunks they hold (package spilled): what a
// spilled shuffle carries through the runner.
var names struct{ total, sent atomic.Int64 }

// CountNames adds n bytes of spill file names handed to the runner.
func CountNames(n int) { names.total.Add(int64(n)) }

// Names returns the bytes of spill file names this process has handed to
// the runner since the last ResetWritten.
func Names() int64 { return names.total.Load() }

// TakeUnsentNames returns the bytes of spill file names counted since the
// last TakeUnsentNames, for a runner's counter.
func TakeUnsentNames() int64 {
	t := names.total.Load()
	return t - names.sent.Swap(t)
}
