package cluster

import (
	"github.com/neardup/neardup/transforms/job"
	"github.com/neardup/neardup/transforms/jobfiles"
)

// Options is what Clusters and GroupMatches are given.
type Options struct {
	Work       jobfiles.WorkDir
	Partitions int  // of the components' shuffles (Config.CCPartitions)
	Rounds     int  // of star contraction (Config.CCRounds)
	Links      bool // the matches' links go with the members: a kept document is decided per cluster (Config.Clusters is ClustersKept)
	Lines      ClusterLines
}

// OptionsFor is the part of c that Clusters uses.
func OptionsFor(c job.Config) Options {
	b := c.DecideBytes
	if b <= 0 {
		b = defaultDecideBytes
	}
	return Options{Work: c.WorkDir(), Partitions: c.CCPartitions, Rounds: c.CCRounds, Links: c.Clusters == job.ClustersKept,
		Lines: ClusterLines{KeepLongest: c.Keep.Order != job.KeepFirst, Keep: c.Keep.String(), KeyField: c.Reading().Keep, Components: c.Clusters == job.ClustersComponents, Locations: c.Locations, DecideBytes: b, Fates: c.Fates}}
}
