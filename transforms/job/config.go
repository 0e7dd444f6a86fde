package job

import (
	"cmp"
	"fmt"
	"runtime"

	"github.com/neardup/neardup/transforms/format/index"
	"github.com/neardup/neardup/transforms/format/record"
	"github.com/neardup/neardup/transforms/format/summary"
	"github.com/neardup/neardup/transforms/format/wire"
	"github.com/neardup/neardup/transforms/jobfiles"
	"github.com/neardup/neardup/transforms/match/blocking"
	"github.com/neardup/neardup/transforms/match/candidates"
	"github.com/neardup/neardup/transforms/match/verify"
	"github.com/neardup/neardup/transforms/sketch/minhash"
	"github.com/neardup/neardup/transforms/sketch/signature"
	"github.com/neardup/neardup/transforms/text/normalize"
	"github.com/neardup/neardup/transforms/text/tokenize"
)

// Config is the job configuration. DoFns carry it as an exported field, so
// Beam serializes it to the workers; it holds only plain values.
type Config struct {
	Output string // output directory (local path or a Beam filesystem URL)
	Format record.Format
	// IDField names the JSONL id field (a dotted path for a nested one);
	// "": documents are FILE:LINE. A JSONL file whose first record has no
	// such field is identified by FILE:LINE too (record.IDAuto).
	IDField     string
	TextField   string
	MaxDocBytes int
	MaxTokens   int

	// FoldScript folds Chinese text to one script (normalize.Form).
	FoldScript bool

	Tokens     tokenize.Mode
	Dictionary Dictionary // gse dictionary for word mode: auto (by script), zh_s, zh_t or zh
	Shingle    int
	Perms      int
	MinHash    minhash.Mode
	Seed       uint64

	Method    verify.Blocking // candidates from MinHash bands, SimHash tables or both
	Verify    verify.Mode     // how candidates are verified
	Threshold float64         // Jaccard
	Hamming   int             // SimHash bits
	// Confidence that a pair exactly at the threshold passes verification
	// (see verify.Config).
	Confidence float64
	Bands      int // MinHash LSH bands
	Rows       int // rows per band
	SimBlocks  int // SimHash pigeonhole blocks (m)
	// Containment, if > 0, also finds the pairs whose smaller document has
	// at least this share of its distinct shingles in the larger one and
	// that are not Jaccard pairs (ContainLevels); ContainMinSize is the
	// fewest distinct shingles such a contained document has.
	Containment    float64
	ContainMinSize int

	Partitions int // shuffle partitions
	// CCPartitions and CCRounds shape the connected components: the
	// documents' partitions and the large-star/small-star rounds run before
	// the rest is finished on one worker (see clusterFn and plan.AutoCCRounds).
	CCPartitions int
	CCRounds     int
	MaxBucket    int
	Window       int

	Keep Keep
	// Clusters says which documents the matches remove (ClustersKept by default).
	Clusters ClusterRule

	// Workers is the goroutines a DoFn uses over a file's documents (0: GOMAXPROCS).
	Workers int
	// Branches is the number of copies of each file-reading stage, each
	// taking every Branches-th file (see Files).
	Branches int
	// Rounds is the number of rounds, one after the other, in which the
	// largest shuffles (block entries, verification halves, shingle sets)
	// are grouped and worked on, round i taking the keys equal to i mod
	// Rounds (see Candidates, Verify and ExactChecks). A runner
	// that keeps shuffled data in memory (Prism) builds and copies one
	// round's groups at a time. 0: as many as Branches (see plan.AutoRounds for
	// what a run picks).
	Rounds int
	// Spool is a local directory for decompressed copies of compressed
	// inputs (see spool.File), which the deduplicated copy reads; "" reads
	// the inputs again. Stdin is the input file that holds a copy of
	// standard input, named "-" in records, rejects and the summary.
	Spool, Stdin string

	// Spill sends the largest shuffles' chunks through spill files in Work,
	// and only their names through the runner's shuffle (see spilled.Group):
	// for a run on one machine, where Work is a local directory.
	Spill bool

	// Work is the directory for the job's intermediate files (the info
	// shards, see recshards.InfoWriter). Every worker must be able to read and write
	// it; pipeline.Build defaults it to Output/.tmp-work.
	Work string
	// SegmentBits sets the segments (wire.Segment) that key the info shards
	// and both verification steps: 1<<SegmentBits consecutive lines of one
	// input file. 0: defaultSegmentBits. Outputs do not depend on it; tests
	// lower it so that a small input has many segments.
	SegmentBits int
	// SplitRows is about the rows of each unit in which the first pass
	// reads a Parquet file (local, gs:// or s3://), or the lines of an
	// uncompressed local JSONL or TSV file, rounded to whole segments (see
	// ingest.Read: a Parquet unit may be up to twice that to end at a row
	// group): a larger file is read by several units, which the runner
	// spreads over its workers.
	// 0: defaultSplitRows; < 0: a file is one unit. Outputs do not depend
	// on it.
	SplitRows int

	// Compress is the compression of the line outputs (pairs, clusters,
	// rejects, audit) and deduplicated copies: record.None, Gzip or Zstd;
	// record.Unknown gives each deduplicated copy its input's compression
	// and leaves the rest plain.
	Compress record.Compression
	// CompressLevel is the level of every compressed output (gzip 1 to 9,
	// zstd 1 to 22; see record.Level). It changes the compressed bytes,
	// never the data.
	CompressLevel record.Level
	// Locations adds each document's input file index and line to the
	// pairs and clusters lines.
	Locations bool
	// Removed also writes each input's removed records (output.RemovedName);
	// Fates writes, in place of each deduplicated copy, every good record
	// of the input with its fate added (output.FatesName, output.Fate).
	Removed, Fates bool

	// IndexOut, if set, is where a run writes the index of the kept documents.
	IndexOut string
	// IndexKeyBits is the partition bits of the key files of the index
	// generation a job writes: 1<<IndexKeyBits key files, each sorted in
	// memory by one worker (see plan.KeyBits).
	IndexKeyBits int
	// DecideBytes is the memory the clusters stage may hold to decide one
	// partition of components in memory; a partition beyond it is decided
	// spilled to disk, with the same outputs (see external.Partition). 0: 256
	// MiB (see plan.DecideBytes for what a run picks).
	DecideBytes int64
}

// Partitions default: enough groups to spread work and keep each group far
// below the runner's message limits, few enough to batch well.
const DefaultPartitions = 256

// DefaultCCRounds is the default of CCRounds: enough large-star/small-star
// rounds for the components met so far to settle as stars (see README,
// Clusters).
const DefaultCCRounds = 3

// defaultSegmentBits: segments of 65,536 lines. A verification step holds
// one segment's infos decoded (about 210 bytes a document with the default
// 128-byte sketch: about 14 MB) and the signature pass at most two; a full
// segment's info shard is about 10 MB (about 161 bytes a document).
// Smaller segments would add a shard to write and open and a key to group
// per segment for little memory saved; a 10 GB input
// file of about 10M documents still makes some 150 segments, enough keys
// for every worker of a cluster.
const defaultSegmentBits = 16

// defaultSplitRows: units of 8 segments (524,288 rows by default), a few
// hundred MB of text: enough work per unit to pay for opening the file and
// reading its footer once more, and a 10M-row file still makes some 20.
const defaultSplitRows = 8 << defaultSegmentBits

// DefaultConfig returns the defaults of `neardup run`.
func DefaultConfig() Config {
	sig := signature.DefaultConfig()
	bands := blocking.ChooseBands(0.8, sig.Perms, blocking.DefaultWeights)
	return Config{
		Format:      record.JSONL,
		IDField:     record.DefaultIDField,
		TextField:   record.DefaultTextField,
		MaxDocBytes: record.DefaultMaxDocBytes,
		MaxTokens:   sig.MaxTokens,
		FoldScript:  true,
		Tokens:      tokenize.Char,
		Dictionary:  "auto",
		Shingle:     sig.N,
		Perms:       sig.Perms,
		MinHash:     minhash.Classic,
		Seed:        sig.Seed,
		Method:      verify.Both,
		Verify:      verify.Auto,
		Threshold:   0.8,
		Hamming:     3,
		Confidence:  0.99,
		Bands:       bands.B,
		Rows:        bands.R,
		SimBlocks:   4,
		// ContainMinSize: a text of fewer shingles (a line or two) is
		// "contained" in every longer text that quotes it.
		ContainMinSize: defaultContainMinSize,
		Partitions:     DefaultPartitions,
		CCPartitions:   16,
		CCRounds:       DefaultCCRounds,
		MaxBucket:      candidates.DefaultLimits.MaxBucket,
		Window:         candidates.DefaultLimits.Window,
		Keep:           Keep{Order: KeepLongest},
		Compress:       record.Unknown,
		Branches:       min(runtime.NumCPU(), 4),
	}
}

// Validate reports the first setting the stages cannot work with (the
// job plan, package pipeline/plan, checks the user's options against the
// command's narrower limits before; pipeline.Build asserts this of any
// Config it is given). The comparisons are written so that NaN fails them.
func (c Config) Validate() error {
	if err := c.checkChoices(); err != nil {
		return err
	}
	if err := c.checkCompression(); err != nil {
		return err
	}
	switch {
	case c.Shingle < 1:
		return fmt.Errorf("shingle size %d < 1", c.Shingle)
	case !(c.Threshold > 0 && c.Threshold <= 1):
		return fmt.Errorf("threshold %v out of (0, 1]", c.Threshold)
	case !(c.Confidence >= 0.5 && c.Confidence < 1):
		return fmt.Errorf("confidence %v out of [0.5, 1)", c.Confidence)
	case c.Hamming < 0 || c.Hamming > 32:
		return fmt.Errorf("hamming %d out of [0, 32]", c.Hamming)
	case c.Perms < 1 || c.Perms > 1<<16:
		return fmt.Errorf("perms %d out of [1, 65536]", c.Perms)
	case c.MaxDocBytes < 0 || c.MaxTokens < 0:
		return fmt.Errorf("max doc bytes %d or max tokens %d < 0", c.MaxDocBytes, c.MaxTokens)
	case c.Bands < 1 || c.Rows < 1 || c.Bands > c.Perms || c.Rows > c.Perms || c.Bands*c.Rows > c.Perms:
		return fmt.Errorf("bands %dx%d do not fit %d permutations", c.Bands, c.Rows, c.Perms)
	case c.Partitions < 1:
		return fmt.Errorf("partitions %d < 1", c.Partitions)
	case c.CCPartitions < 1 || c.CCRounds < 0:
		return fmt.Errorf("components partitions %d < 1 or rounds %d < 0", c.CCPartitions, c.CCRounds)
	case c.MaxBucket < 2 || c.Window < 1:
		return fmt.Errorf("bucket limits %d/%d too small", c.MaxBucket, c.Window)
	case c.Rounds < 0:
		return fmt.Errorf("rounds %d < 0", c.Rounds)
	case c.SegmentBits < 0 || c.SegmentBits > 40:
		return fmt.Errorf("segment bits %d out of [0, 40]", c.SegmentBits)
	case c.IndexKeyBits < 0 || c.IndexKeyBits > index.MaxPartitionBits:
		return fmt.Errorf("index key bits %d out of [0, %d]", c.IndexKeyBits, index.MaxPartitionBits)
	}
	if err := c.checkContainment(); err != nil {
		return err
	}
	if err := c.checkKeep(); err != nil {
		return err
	}
	if _, err := blocking.NewTables(blocking.Design{K: c.Hamming, Blocks: c.SimBlocks}); c.Method != verify.MinHash && err != nil {
		return err
	}
	return nil
}

// segBits is SegmentBits or its default.
func (c Config) segBits() int { return cmp.Or(c.SegmentBits, defaultSegmentBits) }

// The stages derive from the job's Config the narrow configuration each
// of their DoFns holds: the work directory handle (WorkDir),
// how the input is parsed (Reading), the signers (Signing), the SimHash
// tables (SimDesign), verification (VerifyConfig), bucket limits (Limits)
// and the output directory (Outputs).

// WorkDir is the stages' handle on c's work directory.
func (c Config) WorkDir() jobfiles.WorkDir {
	return jobfiles.WorkDir{Dir: c.Work, SegmentBits: c.segBits(), Spill: c.Spill, Spool: c.Spool, Workers: c.Workers, Stdin: c.Stdin}
}

// Signing is the configuration of c's signers.
func (c Config) Signing() Signing {
	return Signing{Norm: normalize.Form{FoldScript: c.FoldScript}, Tokens: c.Tokens, Dictionary: string(c.Dictionary), MinHash: c.MinHash, Shingle: c.Shingle, Perms: c.Perms,
		Seed: c.Seed, MaxTokens: c.MaxTokens}
}

// Outputs is c's output directory.
func (c Config) Outputs() OutDir {
	return OutDir{Dir: c.Output, Compress: c.Compress, Level: c.CompressLevel, Removed: c.Removed, Fates: c.Fates,
		SortBytes: cmp.Or(max(c.DecideBytes, 0), defaultSortBytes)}
}

// UnitRows is the rows (lines) of a unit of a split file: SplitRows
// rounded to whole segments, at least one; 0 if files are not split.
func (c Config) UnitRows() int64 {
	if c.SplitRows < 0 {
		return 0
	}
	seg := int64(1) << c.segBits()
	n := (int64(cmp.Or(c.SplitRows, defaultSplitRows)) + seg/2) / seg
	return max(n, 1) * seg
}

func (c Config) RecordOptions() record.Options { return c.Reading().Options() }

// VerifyConfig is how c's candidate pairs are verified.
func (c Config) VerifyConfig() verify.Config {
	v := verify.Config{Blocking: c.Method, Mode: c.Verify, Threshold: c.Threshold, Hamming: c.Hamming, Confidence: c.Confidence}
	if c.Containment > 0 {
		v.Containment, v.ContainMinSize = c.Containment, c.ContainMinSize
	}
	return v
}

func (c Config) Limits() candidates.Limits {
	return candidates.Limits{MaxBucket: c.MaxBucket, Window: c.Window}
}

// SimDesign is the design of the SimHash tables of the job, or the zero
// Design if its method uses none (MinHash): see newTables.
func (c Config) SimDesign() blocking.Design {
	if c.VerifyConfig().Blocking == verify.MinHash {
		return blocking.Design{}
	}
	return blocking.Design{K: c.Hamming, Blocks: c.SimBlocks}
}

// SimTables returns the SimHash tables of the job, or nil if its method uses
// none (MinHash).
func (c Config) SimTables() (*blocking.Tables, error) { return NewTables(c.SimDesign()) }

// NewTables returns the SimHash tables of d, or nil for the zero Design
// (a job without SimHash tables).
func NewTables(d blocking.Design) (*blocking.Tables, error) {
	if d == (blocking.Design{}) {
		return nil, nil
	}
	return blocking.NewTables(d)
}

// SimEntries decodes a chunk of SimHash entries with tables (see
// newTables), which is nil if the job has no SimHash tables.
func SimEntries(dst []wire.SimEntry, chunk []byte, tables *blocking.Tables) ([]wire.SimEntry, error) {
	if tables == nil {
		return dst, fmt.Errorf("SimHash entries in a job without SimHash tables: %w", wire.ErrCorrupt)
	}
	return wire.AppendSimEntries(dst, chunk, tables)
}

// IndexConfig is the part of c an index records and an audit must share.
func (c Config) IndexConfig() index.Config {
	return index.Config{
		Tokens: c.Tokens.String(), Dictionary: string(c.Dictionary), Shingle: c.Shingle, Perms: c.Perms, MinHash: c.MinHash.String(),
		Seed: c.Seed, MaxTokens: c.MaxTokens, Method: c.Method.String(), Threshold: c.Threshold, Hamming: c.Hamming,
		Bands: c.Bands, Rows: c.Rows, SimBlocks: c.SimBlocks,
		Format: c.Format.String(), IDField: c.IDField, TextField: c.TextField, MaxDocBytes: c.MaxDocBytes,
		Containment: c.Containment, ContainMinSize: c.containMinSize(), FoldScript: c.FoldScript,
	}
}

// WithIndexConfig returns c with the settings of ic, or the first of them
// that names no choice (an index written by another version).
func (c Config) WithIndexConfig(ic index.Config) (Config, error) {
	var err error
	if c.Tokens, err = tokenize.ParseMode(ic.Tokens); err != nil {
		return c, fmt.Errorf("the index's tokens: %w", err)
	}
	if c.MinHash, err = minhash.ParseMode(ic.MinHash); err != nil {
		return c, fmt.Errorf("the index's MinHash mode: %w", err)
	}
	if c.Method, err = verify.ParseBlocking(ic.Method); err != nil {
		return c, fmt.Errorf("the index's method: %w", err)
	}
	if c.Format, err = record.ParseFormat(ic.Format); err != nil {
		return c, fmt.Errorf("the index's format: %w", err)
	}
	c.Dictionary, c.Shingle, c.Perms, c.Seed, c.MaxTokens = Dictionary(ic.Dictionary), ic.Shingle, ic.Perms, ic.Seed, ic.MaxTokens
	c.Threshold, c.Hamming, c.Bands, c.Rows, c.SimBlocks = ic.Threshold, ic.Hamming, ic.Bands, ic.Rows, ic.SimBlocks
	c.IDField, c.TextField, c.MaxDocBytes = ic.IDField, ic.TextField, ic.MaxDocBytes
	c.FoldScript = ic.FoldScript
	c.Containment = ic.Containment
	if ic.Containment > 0 {
		c.ContainMinSize = ic.ContainMinSize
	}
	return c, nil
}

// Settings returns the settings of c for a job on runner.
func (c Config) Settings(runner string) summary.Settings {
	return summary.Settings{
		Config: c.IndexConfig(), Verify: c.Verify.String(), Confidence: c.Confidence,
		MaxBucket: c.MaxBucket, Window: c.Window, Keep: c.Keep.String(), KeepType: c.Keep.typeName(), Clusters: c.Clusters.String(),
		Runner: runner, Branches: c.Branches, Partitions: c.Partitions, Rounds: c.ShuffleRounds(),
		CCPartitions: c.CCPartitions, CCRounds: c.CCRounds,
	}
}

// ShuffleRounds is the number of rounds of the large shuffles: Rounds, or
// Branches if Rounds is 0, and at least 1.
func (c Config) ShuffleRounds() int {
	if c.Rounds > 0 {
		return c.Rounds
	}
	return max(1, c.Branches)
}
