package exact

import (
	"github.com/neardup/neardup/transforms/job"
	"github.com/neardup/neardup/transforms/jobfiles"
)

// Options is what ExactDuplicates is given.
type Options struct {
	Work        jobfiles.WorkDir
	KeepLongest bool // of a group, keep the longest document (else the first)
}

// OptionsFor is the part of c that ExactDuplicates uses.
func OptionsFor(c job.Config) Options {
	return Options{Work: c.WorkDir(), KeepLongest: c.Keep.Order != job.KeepFirst}
}
