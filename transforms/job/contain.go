package job

import (
	"fmt"

	"github.com/neardup/neardup/transforms/match/blocking"
	"github.com/neardup/neardup/transforms/match/candidates"
	"github.com/neardup/neardup/transforms/match/verify"
	"github.com/neardup/neardup/transforms/sketch/ensemble"
)

// DefaultContainMinSize is Config.ContainMinSize's default: the fewest
// distinct shingles a contained document has (docs/QUALITY.md, containment).
const DefaultContainMinSize = 10

// ContainMaxLevel is the last size-ratio level (ratio 2^(k/2), 8 for 6)
// that containment candidates get a banding of their own
// (ensemble.Config.MaxLevel); pairs of larger ratios use its banding.
const ContainMaxLevel = 6

// ContainLimits bound the containment buckets' pairs: a bucket of more
// than MaxBucket entries pairs each document with its next Window
// documents that can contain it.
var ContainLimits = candidates.Limits{MaxBucket: 1024, Window: 16}

// ContainConfig is the ensemble configuration of c's containment
// candidates.
func (c Config) ContainConfig() ensemble.Config {
	return ensemble.Config{Threshold: c.Containment, NumPerm: c.Perms, MinSize: c.ContainMinSize,
		Weights: blocking.DefaultWeights, MaxLevel: ContainMaxLevel}
}

// ContainOptions is ContainConfig with containment on, else the zero
// Config.
func (c Config) ContainOptions() ensemble.Config {
	if c.Containment == 0 {
		return ensemble.Config{}
	}
	return c.ContainConfig()
}

// checkContainment reports a containment setting the stages cannot work
// with. NaN fails the comparisons.
func (c Config) checkContainment() error {
	switch {
	case !(c.Containment >= 0 && c.Containment <= 1):
		return fmt.Errorf("containment %v out of (0, 1] (0: off)", c.Containment)
	case c.Containment == 0:
		return nil
	case c.Method == verify.SimHash:
		return fmt.Errorf("containment needs MinHash signatures, which the simhash method does not compare")
	case c.ContainMinSize < 1:
		return fmt.Errorf("containment minimum size %d < 1", c.ContainMinSize)
	}
	if _, err := ensemble.NewLevels(c.ContainConfig()); err != nil {
		return err
	}
	return nil
}
