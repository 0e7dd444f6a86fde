package main

import (
	"errors"
	"flag"
	"fmt"
	"io"
	"math"
	"math/bits"
	"strings"

	"github.com/neardup/neardup/transforms"
)

// A usageError is a mistake on the command line: main prints it on one
// line and exits with code 2, before any work.
type usageError struct{ error }

func (e usageError) Unwrap() error { return e.error }

// usagef returns a usageError.
func usagef(format string, args ...any) error { return usageError{fmt.Errorf(format, args...)} }

// Limits of the flags, beyond which a job would not run, or not sensibly.
const (
	maxPerms      = 1024 // MinHash permutations (the LSH banding search is quadratic in them)
	maxShingle    = 100
	maxHamming    = 32
	maxPartitions = 1 << 16
	maxBranches   = 256
	maxWorkers    = 4096
	maxRounds     = 1024
	maxCCRounds   = 64
)

// parseFlags parses args into fs and turns every problem into one line:
// -h prints help (usage) and returns errHelp; an unknown flag or a value
// that does not parse is a usageError naming the flag. A flag may be
// spelled with '-' or '_' between words (normalizeFlags).
func parseFlags(fs *flag.FlagSet, args []string, usage func()) error {
	err := parseQuiet(fs, args)
	switch {
	case errors.Is(err, flag.ErrHelp):
		usage()
		return errHelp
	case err != nil:
		return err
	case fs.NArg() > 0:
		return usagef("unexpected arguments %q", fs.Args())
	}
	return nil
}

// parseQuiet parses args into fs, printing nothing: it returns
// flag.ErrHelp for -h, and any other problem as a one-line usageError
// (flagError).
func parseQuiet(fs *flag.FlagSet, args []string) error {
	fs.Init(fs.Name(), flag.ContinueOnError)
	fs.SetOutput(io.Discard) // the error comes back as one line; -h prints usage
	fs.Usage = func() {}
	err := fs.Parse(normalizeFlags(fs, args))
	if err != nil && !errors.Is(err, flag.ErrHelp) {
		return flagError(fs, err)
	}
	return err
}

// errHelp: the help was asked for and printed; the command exits 0.
var errHelp = errors.New("help printed")

// flagSet returns the names of the flags given on the command line.
func flagSet(fs *flag.FlagSet) map[string]bool {
	set := map[string]bool{}
	fs.Visit(func(f *flag.Flag) { set[f.Name] = true })
	return set
}

// checkRunFlags checks every flag of 'neardup run' and 'neardup audit'
// (their shared flags) before any work: the first bad one is a usageError
// naming it and what it must be.
func checkRunFlags(f *runFlags) error {
	c := &f.cfg
	bad := func(name string, v any, want string) error {
		return usagef("--%s %v: %s", name, v, want)
	}
	inRange := func(name string, v, lo, hi int) error {
		if v < lo || v > hi {
			return bad(name, v, fmt.Sprintf("want %d to %d", lo, hi))
		}
		return nil
	}
	oneOf := func(name, v string, allowed ...string) error {
		for _, a := range allowed {
			if v == a {
				return nil
			}
		}
		return bad(name, fmt.Sprintf("%q", v), "want "+strings.Join(allowed, ", "))
	}
	c.Format = strings.ToLower(strings.TrimSpace(c.Format))
	checks := []func() error{
		func() error {
			if !(c.Threshold > 0 && c.Threshold <= 1) { // NaN fails too
				return bad("threshold", c.Threshold, "want a number in (0, 1]")
			}
			return nil
		},
		func() error {
			if !(c.Confidence >= 0.5 && c.Confidence < 1) {
				return bad("confidence", c.Confidence, "want a number in [0.5, 1)")
			}
			return nil
		},
		func() error {
			if !(f.maxRejectRatio >= 0 && f.maxRejectRatio <= 1) {
				return bad("max-reject-ratio", f.maxRejectRatio, "want a number in [0, 1] (1: no limit)")
			}
			return nil
		},
		func() error { return inRange("perms", c.Perms, 1, maxPerms) },
		func() error { return inRange("hamming", c.Hamming, 0, maxHamming) },
		func() error { return inRange("bands", c.Bands, 0, maxPerms) },
		func() error { return inRange("rows", c.Rows, 0, maxPerms) },
		func() error {
			switch {
			case c.Bands == 0 && c.Rows != 0:
				return usagef("--rows %d needs --bands (give both, or neither to have them chosen)", c.Rows)
			case c.Bands != 0 && c.Rows == 0:
				return usagef("--bands %d needs --rows (give both, or neither to have them chosen)", c.Bands)
			case c.Bands*c.Rows > c.Perms:
				return usagef("--bands %d --rows %d: %d rows in all, more than --perms %d", c.Bands, c.Rows, c.Bands*c.Rows, c.Perms)
			}
			return nil
		},
		func() error {
			if c.SimBlocks != 0 && (c.SimBlocks <= c.Hamming || c.SimBlocks > 64) {
				return bad("simhash-blocks", c.SimBlocks, fmt.Sprintf("want 0 (chosen) or more than --hamming %d, at most 64", c.Hamming))
			}
			return nil
		},
		func() error { return inRange("max-doc-bytes", c.MaxDocBytes, 0, math.MaxInt32) },
		func() error { return inRange("max-tokens", c.MaxTokens, 0, math.MaxInt32) },
		func() error { return inRange("partitions", c.Partitions, 1, maxPartitions) },
		func() error { return inRange("cc-partitions", c.CCPartitions, 1, maxPartitions) },
		func() error { return inRange("cc-rounds", c.CCRounds, -1, maxCCRounds) },
		func() error { return inRange("rounds", c.Rounds, 0, maxRounds) },
		func() error {
			n := f.segmentLines
			if n == 0 {
				n = autoSegmentLines()
			}
			if n < 2 || n > 1<<24 || n&(n-1) != 0 {
				return bad("segment-lines", n, "want a power of two from 2 to 16777216")
			}
			c.SegmentBits = bits.TrailingZeros(uint(n))
			return nil
		},
		func() error { return inRange("max-bucket", c.MaxBucket, 2, math.MaxInt32) },
		func() error { return inRange("window", c.Window, 1, math.MaxInt32) },
		func() error { return inRange("branches", c.Branches, 1, maxBranches) },
		func() error { return inRange("workers", c.Workers, 0, maxWorkers) },
		func() error { return oneOf("format", c.Format, "jsonl", "tsv", "text", "parquet") },
		func() error {
			if c.Compress == "" {
				return nil
			}
			return oneOf("compress", c.Compress, "none", "gzip", "zstd")
		},
		func() error { return oneOf("method", c.Method, "both", "minhash", "simhash") },
		func() error { return oneOf("verify", c.Verify, "auto", "estimate", "exact") },
		func() error { return oneOf("minhash", c.MinHash, "classic", "oph") },
		func() error { return oneOf("keep", c.Keep, "longest", "first") },
		func() error { return oneOf("dict", c.Dictionary, "auto", "zh_s", "zh_t", "zh") },
		func() error {
			if c.IDField != "" && strings.TrimSpace(c.IDField) == "" {
				return bad("id-field", fmt.Sprintf("%q", c.IDField), "want a field name, or '' for FILE:LINE ids")
			}
			if strings.TrimSpace(c.TextField) == "" {
				return bad("text-field", `""`, "want a field name")
			}
			return nil
		},
		func() error { return parseShingle(f.shingle, c) },
		func() (err error) {
			f.memory, err = parseMemory(f.memoryFlag)
			return err
		},
	}
	for _, check := range checks {
		if err := check(); err != nil {
			return err
		}
	}
	return nil
}

// parseShingle reads "char:5" or "word:5" into cfg.
func parseShingle(s string, cfg *transforms.Config) error {
	mode, n, ok := strings.Cut(s, ":")
	if !ok || (mode != "char" && mode != "word") {
		return usagef("--shingle %q: want char:N or word:N", s)
	}
	var k int
	if _, err := fmt.Sscanf(n, "%d", &k); err != nil || k < 1 || k > maxShingle || fmt.Sprint(k) != n {
		return usagef("--shingle %q: want a shingle size from 1 to %d", s, maxShingle)
	}
	cfg.Tokens, cfg.Shingle = mode, k
	return nil
}

// checkTuneFlags checks the flags of 'neardup tune'.
func checkTuneFlags(threshold float64, sample int, tokens string) error {
	switch {
	case !(threshold > 0 && threshold <= 1):
		return usagef("--threshold %v: want a number in (0, 1]", threshold)
	case sample < 1:
		return usagef("--sample %d: want at least 1 document", sample)
	case tokens != "char" && tokens != "word":
		return usagef("--tokens %q: want char or word", tokens)
	}
	return nil
}

// autoSegmentLines is --segment-lines 0: on one machine, segments large
// enough that their per-key work stays small; on a cluster, 16 times
// smaller, so that the files of a small input, or a single large file,
// give each worker a share of the later passes (a runner spreads keys by
// hash: 4 keys over 2 Flink TaskManagers went 3 to 1).
func autoSegmentLines() int {
	if localRunner() {
		return 1 << 16
	}
	return 1 << 12
}
