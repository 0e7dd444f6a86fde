package main

import (
	"fmt"
	"os"

	"github.com/neardup/neardup/transforms/format/wire"
	"github.com/neardup/neardup/transforms/match/blocking"
	"github.com/neardup/neardup/transforms/match/candidates"
	"github.com/neardup/neardup/transforms/match/ensemble"
)

// levelsMaxLevel is the MaxLevel of the "levels" method when -max-level
// is 0.
const levelsMaxLevel = 6

// levelsCandidates returns the candidate pairs of the "levels" method at
// containment threshold t: the keys of ensemble.Levels as the shuffle
// carries them (wire.SizedEntry, low wire.KeyBits bits of the hash), paired
// by candidates.AppendContained under the same rule with f.limits, as one
// partition. Every document's keys serve it as query and as set: the
// stats count them as both.
func levelsCandidates(c *corpus, t float64, f flags) ([]ensemble.Pair, ensemble.Stats, error) {
	cfg := ensemble.DefaultConfig(t)
	cfg.MinSize, cfg.MaxLevel = f.minSize, f.maxLevel
	if cfg.MaxLevel == 0 {
		cfg.MaxLevel = levelsMaxLevel
	}
	cfg.Weights = blocking.Weights{FalsePositive: 1 - f.fnWeight, FalseNegative: f.fnWeight}
	l, err := ensemble.NewLevels(cfg)
	if err != nil {
		return nil, ensemble.Stats{}, err
	}
	fmt.Fprintf(os.Stderr, "containstudy: C=%v levels up to %d: bandings %v, %d keys per document\n", t, cfg.MaxLevel, l.Bandings(), l.KeysPerDoc())
	var es []wire.SizedEntry
	var keys []ensemble.Key
	for i, d := range c.docs {
		keys = l.AppendKeys(keys[:0], d.Sig, d.Size)
		for _, k := range keys {
			es = append(es, wire.SizedEntry{Key: k.Hash & (1<<wire.KeyBits - 1), Doc: wire.Doc(i), Size: uint32(d.Size), Band: k.Band})
		}
	}
	sorted, _ := candidates.SortSizedBuf(es, nil)
	var cst candidates.Stats
	lim := candidates.Limits{MaxBucket: f.limits.MaxBucket, Window: f.limits.Window}
	pairs := candidates.Unique(candidates.AppendContained(nil, sorted, l, lim, &cst))
	out := make([]ensemble.Pair, len(pairs))
	for i, p := range pairs {
		a, b := int32(p.A), int32(p.B) // a < b
		if c.docs[b].Size < c.docs[a].Size {
			a, b = b, a
		}
		out[i] = ensemble.Pair{Query: a, Set: b}
	}
	st := ensemble.Stats{IndexKeys: int64(len(es)), QueryKeys: int64(len(es)), Buckets: cst.Buckets,
		HotBuckets: cst.HotBuckets, Skipped: cst.Skipped, Pairs: int64(len(out))}
	return out, st, nil
}
