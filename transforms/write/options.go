package write

import (
	"github.com/neardup/neardup/transforms/job"
	"github.com/neardup/neardup/transforms/jobfiles"
)

// Options is what Write and Summary are given.
type Options struct {
	Work      jobfiles.WorkDir
	Read      job.ReadOptions // the dedup copies read the inputs again
	Out       job.OutDir
	Locations bool // pairs and clusters lines give the documents' locations
}

// OptionsFor is the part of c that the outputs use.
func OptionsFor(c job.Config) Options {
	return Options{Work: c.WorkDir(), Read: c.Reading(), Out: c.Outputs(), Locations: c.Locations}
}
