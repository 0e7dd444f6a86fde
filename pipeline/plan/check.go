package plan

import (
	"errors"
	"fmt"
	"math"
	"math/bits"
	"strings"

	"github.com/neardup/neardup/transforms/job"
	"github.com/neardup/neardup/transforms/match/ensemble"
	"github.com/neardup/neardup/transforms/match/verify"
)

// Limits of the options, beyond which a job would not run, or not sensibly.
const (
	maxPerms      = 1024 // MinHash permutations (the LSH banding search is quadratic in them)
	maxHamming    = 32
	maxPartitions = 1 << 16
	maxBranches   = 256
	maxWorkers    = 4096
	maxRounds     = 1024
	maxCCRounds   = 64

	maxContainMinSize = 1 << 20 // distinct shingles
)

// Check checks every option of o before any work: the first bad one is an
// error naming it as the command's flag (--threshold 1.5: want ...). It
// also completes o: the format in lower case, the shingles of o.Shingle
// (when set) in Config.Tokens and Config.Shingle, and Config.SegmentBits
// from o.SegmentLines (0: chosen for r).
func Check(o *Options, r Runner) error {
	for _, check := range []func(*Options, Runner) error{
		checkSimilarity, checkSignatures, checkShuffles, checkSegments, checkLimits, checkNames, checkContainment, checkShingle, checkMemory,
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

// checkContainment checks --containment and --containment-min-size,
// after the names (--method) are parsed.
func checkContainment(o *Options, _ Runner) error {
	c := &o.Config
	if err := CheckContainment(c.Containment); err != nil || c.Containment == 0 {
		return err
	}
	switch {
	case c.Method == verify.SimHash:
		return fmt.Errorf("--containment %v with --method simhash: containment compares MinHash signatures; use --method both or minhash", c.Containment)
	case c.ContainMinSize < 1 || c.ContainMinSize > maxContainMinSize:
		return bad("containment-min-size", c.ContainMinSize, fmt.Sprintf("want 1 to %d", maxContainMinSize))
	}
	if _, err := ensemble.NewLevels(c.ContainOptions()); err != nil {
		var many *ensemble.TooManyBandsError
		if errors.As(err, &many) {
			return fmt.Errorf("--containment %v with --perms %d: %d LSH bands, more than the %d a document's containment keys number; use --perms %d (the default, which works with every --containment)",
				c.Containment, c.Perms, many.Bands, ensemble.MaxBands, job.DefaultConfig().Perms)
		}
		return fmt.Errorf("--containment %v with --perms %d: no banding of the containment candidates (%v); use --perms %d (the default, which works with every --containment)",
			c.Containment, c.Perms, err, job.DefaultConfig().Perms)
	}
	return nil
}

// MinContainment is the smallest --containment: 'neardup eval' scores a
// run's containment pairs against a truth holding every pair at
// containment 0.5 or more (scripts/containjoin), and counts those found
// below C - 0.1 apart, which the truth shows only for C >= 0.6.
const MinContainment = 0.6

// CheckContainment checks the value c of --containment, as run, audit and
// eval take it: 0 (off) or a number in [MinContainment, 1]. NaN fails
// the comparisons.
func CheckContainment(c float64) error {
	if c == 0 || c >= MinContainment && c <= 1 {
		return nil
	}
	return bad("containment", c, fmt.Sprintf("want a number in [%v, 1], or 0 (off)", MinContainment))
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
	if r.Engine.Local() {
		return 1 << 16
	}
	return 1 << 12
}
