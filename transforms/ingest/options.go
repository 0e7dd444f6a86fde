package ingest

import (
	"github.com/neardup/neardup/transforms/job"
	"github.com/neardup/neardup/transforms/jobfiles"
	"github.com/neardup/neardup/transforms/text/normalize"
)

// Options is what Read is given.
type Options struct {
	Work       jobfiles.WorkDir
	Read       job.ReadOptions
	Norm       normalize.Form // how the texts are normalized
	Partitions int            // of the exact keys
	UnitRows   int64          // the rows of a unit of a split file; 0: files are not split
}

// OptionsFor is the part of c that Read uses.
func OptionsFor(c job.Config) Options {
	return Options{Work: c.WorkDir(), Read: c.Reading(), Norm: c.Signing().Norm, Partitions: c.Partitions, UnitRows: c.UnitRows()}
}
