package audit

import (
	"github.com/neardup/neardup/transforms/job"
	"github.com/neardup/neardup/transforms/near"
	"github.com/neardup/neardup/transforms/write"
)

// Options is what the audit's stages are given.
type Options struct {
	Index    string        // the index directory read
	Near     near.Options  // blocking and verification, as a run's
	Write    write.Options // the outputs, as a run's
	Branches int           // of a scan of the index's shards
}

// OptionsFor is the part of c that an audit of the index in dir uses.
func OptionsFor(c job.Config, dir string) Options {
	return Options{Index: dir, Near: near.OptionsFor(c), Write: write.OptionsFor(c), Branches: c.Branches}
}
