package sign

import (
	"github.com/neardup/neardup/transforms/job"
	"github.com/neardup/neardup/transforms/jobfiles"
	"github.com/neardup/neardup/transforms/match/blocking"
	"github.com/neardup/neardup/transforms/match/ensemble"
	"github.com/neardup/neardup/transforms/match/verify"
)

// Options is what Signatures and AuditSignatures are given.
type Options struct {
	Work       jobfiles.WorkDir
	Sign       job.Signing
	Bands      blocking.Bands  // MinHash bands
	NoBands    bool            // no band keys (the simhash method)
	Tables     blocking.Design // SimHash tables; the zero Design: none
	Partitions int             // of the block keys and infos
	IndexOut   string          // where the pre-shards go; "": no index
	Rounds     int             // the block entries' collections (rounds.Split)
	// Contain makes the containment keys (ensemble.Levels) and counts the
	// distinct shingles; the zero Config (Threshold 0): neither.
	Contain ensemble.Config
}

// OptionsFor is the part of c that the signature pass uses.
func OptionsFor(c job.Config) Options {
	return Options{Work: c.WorkDir(), Sign: c.Signing(), Bands: blocking.Bands{B: c.Bands, R: c.Rows},
		NoBands: c.VerifyConfig().Blocking == verify.SimHash, Tables: c.SimDesign(), Partitions: c.Partitions,
		IndexOut: c.IndexOut, Rounds: c.ShuffleRounds(), Contain: c.ContainOptions()}
}
