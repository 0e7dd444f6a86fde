package plan

import (
	"github.com/neardup/neardup/transforms/format/index"
	"github.com/neardup/neardup/transforms/job"
)

// RoundInputBytes and MaxRounds shape AutoRounds.
const (
	RoundInputBytes = 128 << 20
	MaxRounds       = 8
)

// AutoRounds is the number of shuffle rounds a run picks for input
// files of inputBytes in all (as stored) and the given branches. A runner
// that holds every shuffled byte in this process (held: Prism, or the
// direct runner with --spill=false), Prism copying a round's groups
// several times over while it hands them to the workers, gets one round per
// RoundInputBytes of input, at least branches and at most MaxRounds: the
// copies stay about the same size as the input grows, and each round
// re-reads the document shards once more for the exact checks. Where the
// runner holds only file names (the large shuffles spilled, on one
// machine) or its shuffle holds the data (a cluster), rounds would only
// put stages one after the other and re-read the shards: 1.
func AutoRounds(inputBytes int64, branches int, held bool) int {
	if !held {
		return 1
	}
	n := (inputBytes + RoundInputBytes - 1) / RoundInputBytes
	return int(min(max(n, int64(branches), 1), MaxRounds))
}

// partitionInputBytes is the decompressed input per step of
// PartitionScale: 6 GiB.
const partitionInputBytes = 6 << 30

// PartitionScale is the factor a run multiplies the default
// partitions (job.DefaultPartitions) and components partitions by when
// --partitions and --cc-partitions are not given, for input bytes
// (decompressed): 1, and with the large shuffles spilled (spilled: the
// direct runner) one per partitionInputBytes of input, at most 64. The
// runner then holds only file names, and what a stage holds is the groups
// it works on: Candidates a partition's block entries decoded (16 bytes an
// entry, and as much again to sort them), Clusters' steps a partition of the
// documents, its edges and members; partitions that grow with the input
// keep them the same size. Partitions cost too: every signed segment
// sends a chunk to each of them, so a shuffle's chunks, their reads and
// their index entries grow as the input times the partitions: SCALE
// tiled 10 times gets 512 partitions by this step, which took less CPU
// there than 2,048 (docs/BENCHMARKS.md).
// The outputs do not depend on the partitions.
func PartitionScale(input int64, spilled bool) int {
	if !spilled {
		return 1
	}
	n := (input + partitionInputBytes - 1) / partitionInputBytes
	return int(min(max(n, 1), 64))
}

// ccRoundsInputBytes is the largest decompressed input for which a local
// run with spilled shuffles skips the components' rounds (AutoCCRounds).
const ccRoundsInputBytes = 1536 << 20

// AutoCCRounds is the number of large-star/small-star rounds a run picks
// when --cc-rounds is not given, for input bytes (decompressed) and its
// large shuffles spilled or not. The rounds contract the components over
// partitions so that no worker has to hold them all; each round costs two
// shuffles of all the edges. The edges of the components the rounds leave
// (components_remainder_edges) go to a union-find on one worker, which
// holds them all. A runner in this process (local) skips the rounds when it
// holds the shuffles anyway (not spilled) or the input is at most
// ccRoundsInputBytes: the remainder is then every edge of a component that
// is not a star, a few bytes a match. A larger spilled input, or a
// cluster, gets ClusterCCRounds, so that what one worker holds no longer
// grows with the input; the clusters do not depend on the rounds
// (docs/BENCHMARKS.md has the measurements).
func AutoCCRounds(local bool, input int64, spilled bool) int {
	if local && (!spilled || input <= ccRoundsInputBytes) {
		return 0
	}
	return ClusterCCRounds
}

// ClusterCCRounds is AutoCCRounds on a cluster: the Config default.
const ClusterCCRounds = job.DefaultCCRounds

// keyInputBytes is the decompressed input per key file of an index
// generation (KeyBits).
const keyInputBytes = 256 << 20

// KeyBits is the partition bits of the key files of the index generation
// a job writes for input bytes (decompressed), its documents having
// containKeys containment keys each beside their others
// (index.KeysPerDoc): one key file per keyInputBytes of input, counted
// with the containment keys' share, a power of two. A key file's entries,
// 24 bytes each in memory, are sorted by one worker: a partition of about
// 70,000 documents of 3.5 KiB without containment keys holds some 40 MB,
// and with 187 each about as much for 8,000 documents.
func KeyBits(input int64, containKeys int) int {
	input += input / index.KeysPerDoc * int64(containKeys)
	b := 0
	for int64(keyInputBytes)<<b < input && b < 12 {
		b++
	}
	return b
}
