package job

import (
	"cmp"
	"fmt"
	"runtime"

	"github.com/neardup/neardup/transforms/format/record"
	"github.com/neardup/neardup/transforms/sketch/minhash"
	"github.com/neardup/neardup/transforms/sketch/signature"
	"github.com/neardup/neardup/transforms/text/tokenize"
)

// The narrow configurations the DoFns hold, beside the work directory
// handle (workDir, workfiles.go) and verify.Config: plain exported fields,
// which Beam serializes to the workers. Config derives them (config.go).

// ReadOptions is how a job parses its input: the part of record.Options
// that a DoFn holds (the rest is set per read).
type ReadOptions struct {
	Format      string
	IDField     string // "": documents are FILE:LINE
	TextField   string
	MaxDocBytes int
	Workers     int // Parquet row groups decoded at once (0: GOMAXPROCS)
}

func (r ReadOptions) Options() record.Options {
	f, _ := record.ParseFormat(r.Format)
	ids := record.IDAuto
	if r.IDField == "" {
		ids = record.IDFromLine
	}
	return record.Options{Format: f, IDField: r.IDField, TextField: r.TextField, IDs: ids, MaxDocBytes: r.MaxDocBytes,
		Workers: cmp.Or(r.Workers, runtime.GOMAXPROCS(0))}
}

// Signing configures the signers of the signature pass and the exact
// checks: signature.Config's settings as the user gives them, and gse's
// dictionary in word mode.
type Signing struct {
	Tokens, Dictionary, MinHash string
	Shingle, Perms, MaxTokens   int
	Seed                        uint64
}

// Config returns the signature.Config of s, or the first setting that
// cannot work.
func (s Signing) Config() (signature.Config, error) {
	sc := signature.DefaultConfig()
	var err error
	if sc.Tokens, err = tokenize.ParseMode(s.Tokens); err != nil {
		return sc, err
	}
	if sc.MinHash, err = minhash.ParseMode(s.MinHash); err != nil {
		return sc, err
	}
	if s.Shingle < 1 {
		return sc, fmt.Errorf("shingle size %d < 1", s.Shingle)
	}
	sc.N, sc.Perms, sc.Seed, sc.MaxTokens = s.Shingle, s.Perms, s.Seed, s.MaxTokens
	return sc, nil
}

// OutDir is the job's output directory, the compression of its line
// outputs and deduplicated copies (Config.Compress) and its level
// (Config.CompressLevel).
type OutDir struct {
	Dir      string
	Compress string
	Level    string
}

// OutCompression is how one output file is compressed.
type OutCompression struct {
	C     record.Compression
	Level record.Level
}

// Compression is the compression of the line outputs; for a deduplicated
// copy, in is its input's.
func (o OutDir) Compression(in record.Compression) OutCompression {
	level, _ := record.ParseLevel(o.Level) // Config.Validate checked it
	if o.Level == "" {
		level = record.LevelFast
	}
	if o.Compress == "" {
		return OutCompression{in, level}
	}
	comp, _ := record.ParseCompression(o.Compress)
	return OutCompression{comp, level}
}
