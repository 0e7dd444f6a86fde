package indexing

import (
	"github.com/neardup/neardup/transforms/format/index"
	"github.com/neardup/neardup/transforms/job"
	"github.com/neardup/neardup/transforms/jobfiles"
	"github.com/neardup/neardup/transforms/match/blocking"
)

// Options is what WriteIndex and UpdateIndex are given.
type Options struct {
	Work    jobfiles.WorkDir
	Dir     string          // the index directory written (Config.IndexOut)
	Config  index.Config    // what its manifest records
	KeyBits int             // of its key files' partitions (Config.IndexKeyBits)
	Tables  blocking.Design // SimHash tables; the zero Design: none
}

// OptionsFor is the part of c that writing an index uses.
func OptionsFor(c job.Config) Options {
	return Options{Work: c.WorkDir(), Dir: c.IndexOut, Config: c.IndexConfig(), KeyBits: c.IndexKeyBits, Tables: c.SimDesign()}
}
