package plan

import (
	"errors"
	"strings"
	"testing"

	"github.com/neardup/neardup/transforms/format/index"
	"github.com/neardup/neardup/transforms/format/record"
	"github.com/neardup/neardup/transforms/job"
	"github.com/neardup/neardup/transforms/match/verify"
)

// TestWithIndex: an audit takes every index setting from the manifest,
// and an option given with another value is refused, naming the
// difference.
func TestWithIndex(t *testing.T) {
	built := job.DefaultConfig()
	built.SimBlocks, built.Threshold = 6, 0.85
	ic := built.IndexConfig()
	cases := []struct {
		name   string
		change func(*Options)
		given  []string
		want   string // "" = accepted
	}{
		{"none given", nil, nil, ""},
		{"the index's own", func(o *Options) { o.Config.Threshold, o.Config.SimBlocks = 0.85, 6 }, []string{"threshold", "simhash-blocks"}, ""},
		{"not index settings", func(o *Options) { o.Config.Partitions, o.Config.Verify = 64, verify.Exact }, []string{"partitions", "verify"}, ""},
		{"threshold", func(o *Options) { o.Config.Threshold = 0.9 }, []string{"threshold"}, "threshold: index 0.85, now 0.9"},
		{"shingle", func(o *Options) { o.Shingle = "word:5" }, []string{"shingle"}, "tokens: index char, now word"},
		{"two", func(o *Options) { o.Config.Perms, o.Config.Format = 64, record.TSV }, []string{"perms", "format"}, "perms: index 128, now 64; format: index jsonl, now tsv"},
		{"not given", func(o *Options) { o.Config.Threshold = 0.9 }, nil, ""},
		{"containment", func(o *Options) { o.Config.Containment = 0.8 }, []string{"containment"}, "the index was built without it"},
		{"fold-script", func(o *Options) { o.Config.FoldScript = false }, []string{"fold-script"}, "fold_script: index true, now false"},
		{"fold-script not given", func(o *Options) { o.Config.FoldScript = false }, nil, ""},
	}
	r := Runner{Engine: Direct}
	for _, c := range cases {
		o := defaults()
		if c.change != nil {
			c.change(&o)
		}
		o.Given = map[string]bool{}
		for _, g := range c.given {
			o.Given[g] = true
		}
		if err := Check(&o, r); err != nil {
			t.Fatalf("%s: %v", c.name, err)
		}
		got, err := WithIndex(o, r, ic)
		cfg := got.Config
		switch {
		case c.want == "" && err != nil:
			t.Errorf("%s: %v", c.name, err)
		case c.want == "" && (cfg.SimBlocks != 6 || cfg.Threshold != 0.85):
			t.Errorf("%s: settings not from the index: %+v", c.name, cfg)
		case c.want != "" && (!errors.Is(err, index.ErrMismatch) || !strings.Contains(err.Error(), c.want)):
			t.Errorf("%s: got %v, want an error naming %q", c.name, err, c.want)
		}
	}
	// An index built without script folding (or before it was recorded)
	// audits without it, unless --fold-script is given.
	unfolded := built
	unfolded.FoldScript = false
	for _, given := range []bool{false, true} {
		o := defaults()
		o.Given = map[string]bool{"fold-script": given}
		got, err := WithIndex(o, r, unfolded.IndexConfig())
		switch {
		case !given && (err != nil || got.Config.FoldScript):
			t.Errorf("an unfolded index, --fold-script not given: %v, fold %v; want the index's (false)", err, got.Config.FoldScript)
		case given && (err == nil || !strings.Contains(err.Error(), "fold_script: index false, now true")):
			t.Errorf("an unfolded index, --fold-script given: %v; want the difference named", err)
		}
	}
	// An index built with --containment audits with it, at its threshold.
	contain := built
	contain.Containment, contain.ContainMinSize = 0.8, 20
	for _, c := range []struct {
		given float64
		want  string
	}{{0, ""}, {0.8, ""}, {0.9, "containment: index 0.8, now 0.9"}} {
		o := defaults()
		o.Given = map[string]bool{}
		if c.given > 0 {
			o.Config.Containment, o.Given["containment"] = c.given, true
		}
		got, err := WithIndex(o, r, contain.IndexConfig())
		switch {
		case c.want == "" && (err != nil || got.Config.Containment != 0.8 || got.Config.ContainMinSize != 20):
			t.Errorf("--containment %v against a containment index: %v, containment %v, min size %d", c.given, err, got.Config.Containment, got.Config.ContainMinSize)
		case c.want != "" && (err == nil || !strings.Contains(err.Error(), c.want)):
			t.Errorf("--containment %v against an index of 0.8: %v, want %q", c.given, err, c.want)
		}
	}
	// The index's settings are checked as the user's are.
	bad := built
	bad.Perms = 2000
	if _, err := WithIndex(defaults(), r, bad.IndexConfig()); err == nil || !strings.HasPrefix(err.Error(), "--perms 2000") {
		t.Errorf("an index of 2000 permutations: %v", err)
	}
}
