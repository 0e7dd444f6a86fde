// Package summary defines summary.json and audit-summary.json, the counts
// of a run or an audit in its output directory: the names of the counts
// (the Stat constants, which the job's stages emit as (name, n) elements),
// the tallies of the job's shuffles (ShuffleBytesPrefix), the inputs read
// and the settings, and how the command reads them back (ReadSummary). It
// knows nothing of Beam.
package summary

import (
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"

	"github.com/neardup/neardup/transforms/format/index"
	"github.com/neardup/neardup/transforms/format/output"
)

// FileName is the name of a run's counts in the output directory, and
// AuditFileName an audit's.
const (
	FileName      = "summary.json"
	AuditFileName = "audit-summary.json"
)

// Stat names: the counts summary.json reports, emitted by the job's stages
// as (name, n) elements so that they are exact under retries.
const (
	StatInput      = "input_records"
	StatBytes      = "input_bytes"
	StatRejected   = "rejected"
	StatDocuments  = "documents"
	StatExactDups  = "exact_duplicates"
	StatSigned     = "signed"
	StatNoShingles = "no_shingles"
	StatTruncated  = "truncated"
	StatKeys       = "block_keys"
	StatBuckets    = "buckets"
	StatHot        = "hot_buckets"
	StatSkipped    = "skipped_comparisons"
	StatFar        = "simhash_far_pairs"
	StatCandidates = "candidate_pairs"
	StatVerified   = "verified_pairs" // the sum of the next two
	StatByEstimate = "verified_by_estimate"
	StatByExact    = "verified_exactly"
	StatUnsure     = "exact_checks"
	StatClusters   = "clusters"
	StatClustered  = "clustered_documents"
	StatRemoved    = "removed"
	StatRemainder  = "components_remainder_edges"
	StatComponents = "components" // connected components of the matches
	StatKept       = "kept"
	// StatUnranked counts, under --keep field:NAME, the documents whose
	// value of the field is missing or does not parse as its type: they
	// come after every other (package rank).
	StatUnranked = "keep_unranked"

	// StatContainmentPairs counts the pairs lines of containment matches
	// (--containment), and StatRemovedContainment the documents removed
	// for a containment match (a cluster line's removed member of method
	// "containment"), of those counted in StatRemoved.
	StatContainmentPairs   = "containment_pairs"
	StatRemovedContainment = "removed_containment"

	// StatSegments counts the segments of input files (1<<16 lines by
	// default, see wire.Segment) that the verification's second step
	// worked on, one key each: its parallelism, which does not depend on
	// the number of files.
	StatSegments = "verify_segments"
	// StatSignSegments counts the segments the signature pass worked on,
	// one key each: likewise its parallelism, however few the files.
	StatSignSegments = "sign_segments"
	// StatReadUnits counts the units the first pass read the input files
	// in: a file each, a large Parquet file several (the first pass's
	// parallelism, however few the files).
	StatReadUnits = "read_units"
)

// Audit stat names (audit-summary.json), beside the run's.
const (
	StatIndexDocs      = "index_documents"           // indexed documents scanned
	StatIndexJoined    = "index_documents_joined"    // of those, sharing a key with the new batch
	StatIndexEntries   = "index_block_entries"       // index block entries joined
	StatIndexBytesRead = "index_bytes_read"          // bytes an audit's lookups read from the index's files
	StatDupOfIndex     = "duplicates_of_index"       // new documents with an indexed match
	StatExactOfIndex   = "exact_duplicates_of_index" // of those, identical to an indexed one
	StatIndexMatches   = "index_matches"             // (new, indexed) matches reported
	StatIndexVerified  = "index_pairs_verified"      // (new, indexed) pairs verified, not in verified_pairs
	StatRemovedInBatch = "removed_in_batch"          // removed by the clusters within the batch
	StatBatchOnly      = "removed_in_batch_only"     // of those, not duplicates of the index
	// StatContainsIndex counts the new documents that contain an indexed
	// one (--containment) and have no other indexed match: they are kept.
	StatContainsIndex = "contains_index_document"
)

// LinesSuffix ends the name of the count of lines written into the shards
// of a kind (output.KindPairs + LinesSuffix: "pairs_lines").
const LinesSuffix = "_lines"

// runCounts names the counts every summary.json has, 0 for one that
// nothing added to; auditCounts those of every audit-summary.json.
var (
	runCounts = []string{
		StatInput, StatBytes, StatRejected, StatDocuments, StatExactDups, StatSigned, StatNoShingles,
		StatTruncated, StatKeys, StatBuckets, StatHot, StatSkipped, StatFar, StatCandidates,
		StatVerified, StatByEstimate, StatByExact, StatUnsure, StatClusters, StatClustered,
		StatComponents, StatRemoved, StatRemainder, StatKept, StatSegments, StatSignSegments, StatReadUnits,
		StatContainmentPairs, StatRemovedContainment,
		output.KindPairs + LinesSuffix, output.KindClusters + LinesSuffix, output.KindRejects + LinesSuffix,
	}
	auditCounts = append(slices.DeleteFunc(slices.Clone(runCounts), func(name string) bool { return name == StatSegments }),
		StatIndexDocs, StatIndexJoined, StatIndexEntries, StatDupOfIndex, StatExactOfIndex,
		StatIndexMatches, StatIndexVerified, StatRemovedInBatch, StatBatchOnly, StatIndexBytesRead, StatContainsIndex)
)

// AllCounts sets to 0 each count of a run's summary.json (of an
// audit-summary.json, if audit) that c lacks, so that the file has every
// count whether or not a stage added to it.
func AllCounts(c map[string]int64, audit bool) {
	names := runCounts
	if audit {
		names = auditCounts
	}
	for _, name := range names {
		if _, ok := c[name]; !ok {
			c[name] = 0
		}
	}
}

// StatContainSmall counts the signed documents with shingles but fewer
// distinct ones than --containment-min-size (a run with --containment):
// never paired as contained or containing documents.
const StatContainSmall = "containment_below_min_size"

// Shuffle stats: every DoFn that emits into one of the job's shuffles adds
// the bytes of the values it emits (ShuffleBytesPrefix + the shuffle's
// name) and the number of elements (ShuffleElementsPrefix + the name).
// NewSummary moves them out of the counts into Summary.ShuffleBytes and
// ShuffleElements: they measure the job's shape (the sizing in
// docs/CLUSTER.md), not what it found, and element counts depend on how
// the records were packed into chunks.
const (
	ShuffleBytesPrefix    = "shuffle_bytes."
	ShuffleElementsPrefix = "shuffle_elements."
)

// WorkerStats is the work one worker process did in a job.
type WorkerStats struct {
	Signed       int64              `json:"signed"` // documents signed
	StageSeconds map[string]float64 `json:"stage_busy_seconds,omitempty"`
}

// InputFile is what the first pass read of one input file: summary.json
// lists them in index order, so that the NNNNN of an output shard maps back
// to its input.
type InputFile struct {
	Index    int    `json:"index"`
	Path     string `json:"path"`
	Records  int64  `json:"records"`  // records read, rejected ones included
	Rejected int64  `json:"rejected"` // of those, rejected
	Bytes    int64  `json:"bytes"`    // bytes as stored (compressed, for a compressed file)
	// Reasons counts the file's rejects by reason (record.ReasonBadJSON and
	// the other Reason constants).
	Reasons map[string]int64 `json:"reject_reasons,omitempty"`
	// Compression is the compression the first pass found, by name or
	// content: none, gzip or zstd.
	Compression string `json:"compression,omitempty"`
	// IDs is LineIDs when the file's records are identified as FILE:LINE
	// (--id-field '', or a JSONL file whose first record has no id field).
	IDs string `json:"ids,omitempty"`
	// Fingerprint identifies the content the first pass read (size,
	// modification time and CRC-32C of the stored bytes); every later
	// pass over the file checks it.
	Fingerprint string `json:"fingerprint,omitempty"`
}

// LineIDs is InputFile.IDs of a file whose documents are identified as
// FILE:LINE.
const LineIDs = "file:line"

// Summary is summary.json.
type Summary struct {
	Counts   map[string]int64 `json:"counts"`
	Balanced bool             `json:"balanced"` // input_records == kept + removed + rejected
	Inputs   []InputFile      `json:"inputs,omitempty"`
	// ShuffleBytes and ShuffleElements are the bytes (of the values) and
	// elements emitted into each shuffle, by shuffle name (the Shuffle
	// constants of package internal/tally).
	// Bytes do not depend on the runner; elements, and the few bytes
	// that start each chunk, on how many chunks the records were packed in.
	ShuffleBytes    map[string]int64 `json:"shuffle_bytes,omitempty"`
	ShuffleElements map[string]int64 `json:"shuffle_elements,omitempty"`
	// Added by the command after the job, from the runner's metrics: they
	// vary between runs, unlike everything above.
	WallSeconds  float64            `json:"wall_seconds,omitempty"`
	StageSeconds map[string]float64 `json:"stage_busy_seconds,omitempty"`
	// StageSpans holds, per stage, the seconds since the job started at
	// which its work first started and last ended.
	StageSpans map[string][2]float64 `json:"stage_spans_seconds,omitempty"`
	// WorkBytes holds the bytes the job wrote to its work files, by kind
	// (spool, doc_shards, spilled_shuffles, ...): they depend on the
	// memory the job had and on the runner.
	WorkBytes map[string]int64 `json:"work_bytes_written,omitempty"`
	// SpillNameBytes is what the spilled shuffles (--spill) carried through
	// the runner: the bytes of the spill file names handed to it, one per
	// key and file, in place of the chunks (shuffle_bytes, which went to
	// the spill files). The runner's shuffles carried shuffle_bytes of the
	// shuffles not spilled and these. On a cluster it is summed from the
	// workers' counters, which a worker sends with its next busy time: the
	// names of a worker's last bundles may be missing.
	SpillNameBytes int64 `json:"spill_name_bytes,omitempty"`
	// FirstWorkSeconds is the earliest start of StageSpans: the seconds
	// from the job's submission to its first document read. On a cluster
	// it is the runner's start-up: the job server's preparation and
	// submission, the engine's scheduling and the Go workers' start.
	FirstWorkSeconds float64 `json:"first_work_seconds,omitempty"`
	// Signed is the documents the workers signed (SignedCounter): the
	// documents signed, counts' signed, unless the runner signed some
	// again.
	Signed int64 `json:"signed,omitempty"`
	// Workers holds the work of each worker process (by host:pid) that
	// did any: on a cluster, how the runner spread the job.
	Workers map[string]WorkerStats `json:"workers,omitempty"`
	// Settings are the settings the job ran with, as the command resolved
	// them (the automatic ones included), also added after the job.
	Settings *Settings `json:"settings,omitempty"`
}

// NewSummary returns the summary of the summed counts c, with the totals
// derived from them and the shuffle stats moved out of the counts (see
// AllCounts for the counts no stage added to).
func NewSummary(c map[string]int64) Summary {
	bytes, elems := takeShuffleStats(c)
	c[StatVerified] = c[StatByEstimate] + c[StatByExact]
	if _, ok := c[StatRemainder]; !ok {
		c[StatRemainder] = 0 // no component needed the one-worker remainder
	}
	return Summary{Counts: c, Balanced: c[StatInput] == c[StatKept]+c[StatRemoved]+c[StatRejected],
		ShuffleBytes: bytes, ShuffleElements: elems}
}

// takeShuffleStats removes the shuffle stats from c and returns them by
// shuffle name (nil if there are none).
func takeShuffleStats(c map[string]int64) (bytes, elems map[string]int64) {
	for name, v := range c {
		if s, ok := strings.CutPrefix(name, ShuffleBytesPrefix); ok {
			bytes = setStat(bytes, s, v)
		} else if s, ok := strings.CutPrefix(name, ShuffleElementsPrefix); ok {
			elems = setStat(elems, s, v)
		} else {
			continue
		}
		delete(c, name)
	}
	return bytes, elems
}

func setStat(m map[string]int64, name string, v int64) map[string]int64 {
	if m == nil {
		m = map[string]int64{}
	}
	m[name] = v
	return m
}

// AuditSummary is audit-summary.json.
type AuditSummary struct {
	Index    string           `json:"index"`
	Counts   map[string]int64 `json:"counts"`
	Balanced bool             `json:"balanced"` // input_records == kept + removed + rejected
	Inputs   []InputFile      `json:"inputs,omitempty"`
	// removed == duplicates_of_index + removed_in_batch_only
	// Added by the command after the job, like Summary's.
	WallSeconds float64   `json:"wall_seconds,omitempty"`
	Settings    *Settings `json:"settings,omitempty"`
}

// NewAuditSummary returns the summary of an audit of index with the summed
// counts c.
// The shuffle stats are dropped: an audit's shuffles are not all counted.
func NewAuditSummary(index string, c map[string]int64) AuditSummary {
	takeShuffleStats(c)
	c[StatVerified] = c[StatByEstimate] + c[StatByExact]
	return AuditSummary{Index: index, Counts: c,
		Balanced: c[StatInput] == c[StatKept]+c[StatRemoved]+c[StatRejected] &&
			c[StatRemoved] == c[StatDupOfIndex]+c[StatBatchOnly]}
}

// Settings are the settings of a run: those an index records (what
// decides the signatures and the candidates), how pairs are verified and
// clusters kept, and the shape of the job, which splits the work without
// changing what it finds.
type Settings struct {
	index.Config
	Verify     string  `json:"verify"`
	Confidence float64 `json:"confidence"`
	MaxBucket  int     `json:"max_bucket"`
	Window     int     `json:"window"`
	Keep       string  `json:"keep"`
	KeepType   string  `json:"keep_type,omitempty"` // of --keep field:NAME: number, time or string
	Clusters   string  `json:"clusters"`

	Runner       string `json:"runner"`
	Branches     int    `json:"branches"`
	Partitions   int    `json:"partitions"`
	Rounds       int    `json:"rounds"`
	CCPartitions int    `json:"cc_partitions"`
	CCRounds     int    `json:"cc_rounds"`
}

// ReadSummary reads FileName in the local directory dir. A file that
// cannot be read gives the *fs.PathError of os.ReadFile.
func ReadSummary(dir string) (Summary, error) {
	path := filepath.Join(dir, FileName)
	var s Summary
	b, err := os.ReadFile(path)
	if err != nil {
		return s, err
	}
	if err := json.Unmarshal(b, &s); err != nil {
		return s, fmt.Errorf("reading %s: %w", path, err)
	}
	return s, nil
}

// NoteFirstWork sets FirstWorkSeconds from StageSpans (zero without spans).
func (s *Summary) NoteFirstWork() {
	s.FirstWorkSeconds = 0
	first := true
	for _, span := range s.StageSpans {
		if first || span[0] < s.FirstWorkSeconds {
			s.FirstWorkSeconds, first = span[0], false
		}
	}
}
