package near

import (
	"github.com/neardup/neardup/transforms/job"
	"github.com/neardup/neardup/transforms/jobfiles"
	"github.com/neardup/neardup/transforms/match/candidates"
	"github.com/neardup/neardup/transforms/match/verify"
)

// Options is what Candidates, Verify and ExactChecks are given.
type Options struct {
	Work     jobfiles.WorkDir
	Blocking BlockingConfig
	Verify   verify.Config
	Sign     job.Signing     // the exact checks sign documents again
	Read     job.ReadOptions // and read them from their document shards
	Rounds   int             // of the large shuffles (rounds.Run)
	Batches  Batches         // of the join, verification and exact checks
}

// containLimits bound the containment buckets' pairs: a bucket of more
// than MaxBucket entries pairs each document with its next Window
// documents that can contain it.
var containLimits = candidates.Limits{MaxBucket: 1024, Window: 16}

// OptionsFor is the part of c that candidates and verification use.
func OptionsFor(c job.Config) Options {
	return Options{Work: c.WorkDir(), Blocking: BlockingConfig{Limits: c.Limits(), Hamming: c.Hamming, Partitions: c.Partitions, Tables: c.SimDesign(),
		Contain: c.ContainOptions(), ContainLimits: containLimits},
		Verify: c.VerifyConfig(), Sign: c.Signing(), Read: c.Reading(), Rounds: c.ShuffleRounds(), Batches: DefaultBatches()}
}
