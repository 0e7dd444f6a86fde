package plan

import (
	"fmt"

	"github.com/neardup/neardup/transforms/format/index"
	"github.com/neardup/neardup/transforms/job"
)

// indexOptions maps the options that set an index's settings to a copy of
// the setting from one configuration to another.
var indexOptions = map[string]func(dst, src *job.Config){
	"threshold":      func(d, s *job.Config) { d.Threshold = s.Threshold },
	"method":         func(d, s *job.Config) { d.Method = s.Method },
	"hamming":        func(d, s *job.Config) { d.Hamming = s.Hamming },
	"shingle":        func(d, s *job.Config) { d.Tokens, d.Shingle = s.Tokens, s.Shingle },
	"dict":           func(d, s *job.Config) { d.Dictionary = s.Dictionary },
	"perms":          func(d, s *job.Config) { d.Perms = s.Perms },
	"minhash":        func(d, s *job.Config) { d.MinHash = s.MinHash },
	"bands":          func(d, s *job.Config) { d.Bands = s.Bands },
	"rows":           func(d, s *job.Config) { d.Rows = s.Rows },
	"simhash-blocks": func(d, s *job.Config) { d.SimBlocks = s.SimBlocks },
	"max-tokens":     func(d, s *job.Config) { d.MaxTokens = s.MaxTokens },
	"format":         func(d, s *job.Config) { d.Format = s.Format },
	"id-field":       func(d, s *job.Config) { d.IDField = s.IDField },
	"text-field":     func(d, s *job.Config) { d.TextField = s.TextField },
	"max-doc-bytes":  func(d, s *job.Config) { d.MaxDocBytes = s.MaxDocBytes },
	"fold-script":    func(d, s *job.Config) { d.FoldScript = s.FoldScript },
	"containment":    func(d, s *job.Config) { d.Containment = s.Containment },
	"containment-min-size": func(d, s *job.Config) {
		if d.Containment > 0 {
			d.ContainMinSize = s.ContainMinSize
		}
	},
}

// WithIndex returns the options of a job against an index built with the
// settings ic (an audit): o, checked, with the index's signature,
// blocking and record settings. An option given (o.Given) that sets one
// of those must equal the index's. The result is checked as o was (Check).
func WithIndex(o Options, r Runner, ic index.Config) (Options, error) {
	if err := checkNames(&o, r); err != nil {
		return o, err
	}
	cfg, err := o.Config.WithIndexConfig(ic)
	if err != nil {
		return o, err
	}
	for name, copyOption := range indexOptions {
		if o.Given[name] {
			copyOption(&cfg, &o.Config)
		}
	}
	if o.Given["containment"] && o.Config.Containment > 0 && ic.Containment == 0 {
		return o, fmt.Errorf("%w: --containment: the index was built without it, so it holds no containment keys; build one with `neardup run --containment %v --index-out DIR`", index.ErrMismatch, o.Config.Containment)
	}
	if err := ic.Check(cfg.IndexConfig()); err != nil {
		return o, fmt.Errorf("the flags differ from the settings the index was built with (%w); leave them out to use the index's", err)
	}
	o.Config, o.Shingle = cfg, "" // the index's shingles
	if err := Check(&o, r); err != nil {
		return o, err
	}
	return o, nil
}
