package job

import (
	"cmp"
	"fmt"
	"runtime"

	"github.com/neardup/neardup/transforms/format/rank"
	"github.com/neardup/neardup/transforms/format/record"
	"github.com/neardup/neardup/transforms/sketch/minhash"
	"github.com/neardup/neardup/transforms/sketch/signature"
	"github.com/neardup/neardup/transforms/text/normalize"
	"github.com/neardup/neardup/transforms/text/tokenize"
)

// The narrow configurations the DoFns hold, beside the work directory
// handle (jobfiles.WorkDir) and verify.Config: plain exported fields,
// which Beam serializes to the workers. Config derives them (config.go).

// ReadOptions is how a job parses its input: the part of record.Options
// that a DoFn holds (the rest is set per read).
type ReadOptions struct {
	Format      record.Format
	IDField     string // "": documents are FILE:LINE
	TextField   string
	MaxDocBytes int
	Workers     int        // Parquet row groups decoded at once (0: GOMAXPROCS)
	Keep        rank.Field // the field that ranks documents (Keep.Field); none for the other orders
}

// Reading is how c's input is parsed.
func (c Config) Reading() ReadOptions {
	return ReadOptions{Format: c.Format, IDField: c.IDField, TextField: c.TextField, MaxDocBytes: c.MaxDocBytes, Workers: c.Workers, Keep: c.Keep.rankField()}
}

// Options is r as the record readers take it.
func (r ReadOptions) Options() record.Options {
	ids := record.IDAuto
	if r.IDField == "" {
		ids = record.IDFromLine
	}
	return record.Options{Format: r.Format, IDField: r.IDField, TextField: r.TextField, IDs: ids, MaxDocBytes: r.MaxDocBytes,
		Workers: cmp.Or(r.Workers, runtime.GOMAXPROCS(0)), Keep: r.Keep}
}

// Signing configures the signers of the signature pass and the exact
// checks: how the texts they sign are normalized, signature.Config's
// settings as the user gives them, and gse's dictionary in word mode.
type Signing struct {
	Norm                      normalize.Form
	Tokens                    tokenize.Mode
	MinHash                   minhash.Mode
	Dictionary                string
	Shingle, Perms, MaxTokens int
	Seed                      uint64
}

// Config returns the signature.Config of s, or the first setting that
// cannot work.
func (s Signing) Config() (signature.Config, error) {
	sc := signature.DefaultConfig()
	if s.Shingle < 1 {
		return sc, fmt.Errorf("shingle size %d < 1", s.Shingle)
	}
	sc.Tokens, sc.MinHash, sc.Dictionary = s.Tokens, s.MinHash, s.Dictionary
	sc.N, sc.Perms, sc.Seed, sc.MaxTokens = s.Shingle, s.Perms, s.Seed, s.MaxTokens
	return sc, nil
}

// OutDir is the job's output directory, the compression of its line
// outputs and deduplicated copies (Config.Compress) and its level
// (Config.CompressLevel).
type OutDir struct {
	Dir      string
	Compress record.Compression // record.Unknown: as the input (Config.Compress)
	Level    record.Level
	Removed  bool // also a copy of the removed records (Config.Removed)
	Fates    bool // every good record with its fate, in place of the copy (Config.Fates)
	// SortBytes is the memory a copy with fates sorts them within, spilled
	// beyond it (Config.DecideBytes, or defaultSortBytes).
	SortBytes int64
}

// defaultSortBytes is OutDir.SortBytes when Config.DecideBytes is 0.
const defaultSortBytes = 256 << 20

// OutCompression is how one output file is compressed.
type OutCompression struct {
	C     record.Compression
	Level record.Level
}

// Compression is the compression of the line outputs; for a deduplicated
// copy, in is its input's.
func (o OutDir) Compression(in record.Compression) OutCompression {
	if o.Compress == record.Unknown {
		return OutCompression{in, o.Level}
	}
	return OutCompression{o.Compress, o.Level}
}
