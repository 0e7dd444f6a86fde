package job

import (
	"fmt"

	"github.com/neardup/neardup/transforms/match/blocking"
	"github.com/neardup/neardup/transforms/match/ensemble"
	"github.com/neardup/neardup/transforms/match/verify"
)

// defaultContainMinSize is Config.ContainMinSize's default: the fewest
// distinct shingles a contained document has (docs/QUALITY.md, containment).
const defaultContainMinSize = 10

// containMaxLevel is the last size-ratio level (ratio 2^(k/2), 8 for 6)
// that containment candidates get a banding of their own
// (ensemble.Config.MaxLevel); pairs of larger ratios use its banding.
const containMaxLevel = 6

// ContainOptions is the ensemble configuration of c's containment
// candidates (ensemble.NewLevels), or the zero Config without
// containment.
func (c Config) ContainOptions() ensemble.Config {
	if c.Containment == 0 {
		return ensemble.Config{}
	}
	return ensemble.Config{Threshold: c.Containment, NumPerm: c.Perms, MinSize: c.ContainMinSize,
		Weights: blocking.DefaultWeights, MaxLevel: containMaxLevel}
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
	if _, err := ensemble.NewLevels(c.ContainOptions()); err != nil {
		return err
	}
	return nil
}

// containMinSize is ContainMinSize with --containment, else 0 (an index
// built without it records neither).
func (c Config) containMinSize() int {
	if c.Containment == 0 {
		return 0
	}
	return c.ContainMinSize
}
