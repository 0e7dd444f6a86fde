package plan

import (
	"fmt"
	"math"
	"math/bits"
	"strings"

	"github.com/neardup/neardup/transforms/format/record"
)

// Limits of the options, beyond which a job would not run, or not sensibly.
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

// Check checks every option of o before any work: the first bad one is an
// error naming it as the command's flag (--threshold 1.5: want ...). It
// also completes o: the format in lower case, the shingles of o.Shingle
// (when set) in Config.Tokens and Config.Shingle, and Config.SegmentBits
// from o.SegmentLines (0: chosen for r).
func Check(o *Options, r Runner) error {
	c := &o.Config
	c.Format = strings.ToLower(strings.TrimSpace(c.Format))
	for _, check := range []func(*Options, Runner) error{
		checkSimilarity, checkSignatures, checkShuffles, checkSegments, checkLimits, checkNames, checkShingle, checkMemory,
	} {
		if err := check(o, r); err != nil {
			return err
		}
	}
	return nil
}

// bad is the error for option name of value v, which is not what want says.
func bad(name string, v any, want string) error {
	return fmt.Errorf("--%s %v: %s", name, v, want)
}

// inRange checks that option name's value v is in [lo, hi].
func inRange(name string, v, lo, hi int) error {
	if v < lo || v > hi {
		return bad(name, v, fmt.Sprintf("want %d to %d", lo, hi))
	}
	return nil
}

// oneOf checks that option name's value v is one of allowed.
func oneOf(name, v string, allowed ...string) error {
	for _, a := range allowed {
		if v == a {
			return nil
		}
	}
	return bad(name, fmt.Sprintf("%q", v), "want "+strings.Join(allowed, ", "))
}

// first returns the first error of errs that is not nil.
func first(errs ...func() error) error {
	for _, e := range errs {
		if err := e(); err != nil {
			return err
		}
	}
	return nil
}

// checkSimilarity checks what makes two documents near-duplicates, and the
// share of rejects a job may have. The comparisons are written so that
// NaN fails them.
func checkSimilarity(o *Options, _ Runner) error {
	c := &o.Config
	switch {
	case !(c.Threshold > 0 && c.Threshold <= 1):
		return bad("threshold", c.Threshold, "want a number in (0, 1]")
	case !(c.Confidence >= 0.5 && c.Confidence < 1):
		return bad("confidence", c.Confidence, "want a number in [0.5, 1)")
	case !(o.MaxRejectRatio >= 0 && o.MaxRejectRatio <= 1):
		return bad("max-reject-ratio", o.MaxRejectRatio, "want a number in [0, 1] (1: no limit)")
	}
	return nil
}

// checkSignatures checks the permutations, the LSH bands and the SimHash
// blocks.
func checkSignatures(o *Options, _ Runner) error {
	c := &o.Config
	return first(
		func() error { return inRange("perms", c.Perms, 1, maxPerms) },
		func() error { return inRange("hamming", c.Hamming, 0, maxHamming) },
		func() error { return inRange("bands", c.Bands, 0, maxPerms) },
		func() error { return inRange("rows", c.Rows, 0, maxPerms) },
		func() error {
			switch {
			case c.Bands == 0 && c.Rows != 0:
				return fmt.Errorf("--rows %d needs --bands (give both, or neither to have them chosen)", c.Rows)
			case c.Bands != 0 && c.Rows == 0:
				return fmt.Errorf("--bands %d needs --rows (give both, or neither to have them chosen)", c.Bands)
			case c.Bands*c.Rows > c.Perms:
				return fmt.Errorf("--bands %d --rows %d: %d rows in all, more than --perms %d", c.Bands, c.Rows, c.Bands*c.Rows, c.Perms)
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
	)
}

// checkShuffles checks the partitions and the rounds.
func checkShuffles(o *Options, _ Runner) error {
	c := &o.Config
	return first(
		func() error { return inRange("partitions", c.Partitions, 1, maxPartitions) },
		func() error { return inRange("cc-partitions", c.CCPartitions, 1, maxPartitions) },
		func() error { return inRange("cc-rounds", c.CCRounds, -1, maxCCRounds) },
		func() error { return inRange("rounds", c.Rounds, 0, maxRounds) },
	)
}

// checkSegments checks the lines of a segment, chosen for r if 0, and
// sets Config.SegmentBits.
func checkSegments(o *Options, r Runner) error {
	n := o.SegmentLines
	if n == 0 {
		n = segmentLines(r)
	}
	if n < 2 || n > 1<<24 || n&(n-1) != 0 {
		return bad("segment-lines", n, "want a power of two from 2 to 16777216")
	}
	o.Config.SegmentBits = bits.TrailingZeros(uint(n))
	return nil
}

// checkLimits checks the buckets and the parallelism.
func checkLimits(o *Options, _ Runner) error {
	c := &o.Config
	return first(
		func() error { return inRange("max-bucket", c.MaxBucket, 2, math.MaxInt32) },
		func() error { return inRange("window", c.Window, 1, math.MaxInt32) },
		func() error { return inRange("branches", c.Branches, 1, maxBranches) },
		func() error { return inRange("workers", c.Workers, 0, maxWorkers) },
	)
}

// checkCompressLevel checks --compress-level against --compress: a gzip
// level (fast, default, best, 1 to 9) unless every compressed output is
// zstd, which also has 10 to 22 (or none is).
func checkCompressLevel(compress, level string) error {
	if level == "" {
		return nil
	}
	l, err := record.ParseLevel(level)
	if err != nil {
		return bad("compress-level", fmt.Sprintf("%q", level), "want fast, default, best, or 1 to 9 (with --compress zstd, 1 to 22)")
	}
	if compress != "zstd" && compress != "none" && l.Check(record.Gzip) != nil {
		return bad("compress-level", level, "gzip levels are 1 to 9 (a copy of a gzipped input is gzipped); 10 to 22 need --compress zstd")
	}
	return nil
}

// checkNames checks the options that name a choice, and the fields of the
// records.
func checkNames(o *Options, _ Runner) error {
	c := &o.Config
	return first(
		func() error { return oneOf("format", c.Format, "jsonl", "tsv", "text", "parquet") },
		func() error {
			if c.Compress == "" {
				return nil
			}
			return oneOf("compress", c.Compress, "none", "gzip", "zstd")
		},
		func() error { return checkCompressLevel(c.Compress, c.CompressLevel) },
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
	)
}

// checkShingle reads o.Shingle, "char:5" or "word:5", into Config.Tokens
// and Config.Shingle; if o.Shingle is "", it checks those as they are.
func checkShingle(o *Options, _ Runner) error {
	c := &o.Config
	s := o.Shingle
	if s == "" {
		s = fmt.Sprintf("%s:%d", c.Tokens, c.Shingle)
	}
	mode, n, ok := strings.Cut(s, ":")
	if !ok || (mode != "char" && mode != "word") {
		return fmt.Errorf("--shingle %q: want char:N or word:N", s)
	}
	var k int
	if _, err := fmt.Sscanf(n, "%d", &k); err != nil || k < 1 || k > maxShingle || fmt.Sprint(k) != n {
		return fmt.Errorf("--shingle %q: want a shingle size from 1 to %d", s, maxShingle)
	}
	c.Tokens, c.Shingle = mode, k
	return nil
}

// checkMemory checks o.Memory (see ParseMemory).
func checkMemory(o *Options, _ Runner) error {
	_, err := ParseMemory(o.Memory)
	return err
}

// segmentLines is the lines of a segment when not given: on one machine,
// segments large enough that their per-key work stays small; on a
// cluster, 16 times smaller, so that the files of a small input, or a
// single large file, give each worker a share of the later passes (a
// runner spreads keys by hash: 4 keys over 2 Flink TaskManagers went 3 to 1).
func segmentLines(r Runner) int {
	if r.Local() {
		return 1 << 16
	}
	return 1 << 12
}
