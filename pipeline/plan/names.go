package plan

import (
	"fmt"
	"slices"
	"strings"

	"github.com/neardup/neardup/transforms/format/record"
	"github.com/neardup/neardup/transforms/job"
	"github.com/neardup/neardup/transforms/match/verify"
	"github.com/neardup/neardup/transforms/sketch/minhash"
	"github.com/neardup/neardup/transforms/text/tokenize"
)

// Names are the options that name a choice, as the user gave them (the
// command's flags of the same names). Check parses each into its type in
// Options.Config, once: the stages never see these strings. A name left
// "" keeps the Config's value.
type Names struct {
	Format        string // jsonl, tsv, text or parquet
	Compress      string // none, gzip or zstd; "": as each input is
	CompressLevel string // fast, default, best or a number
	Method        string // both, minhash or simhash
	Verify        string // auto, estimate or exact
	MinHash       string // classic or oph
	Dictionary    string // auto, zh_s, zh_t or zh
	Keep          string // longest or first
	Clusters      string // kept or components
}

// DefaultNames are the names of DefaultConfig's choices: the defaults of
// the command's flags.
func DefaultNames() Names {
	c := job.DefaultConfig()
	return Names{
		Format: c.Format.String(), CompressLevel: c.CompressLevel.String(), Method: c.Method.String(),
		Verify: c.Verify.String(), MinHash: c.MinHash.String(), Dictionary: c.Dictionary,
		Keep: c.Keep.String(), Clusters: c.Clusters.String(),
	}
}

// checkNames parses the options that name a choice into Config, and checks
// the fields of the records.
func checkNames(o *Options, _ Runner) error {
	c, n := &o.Config, o.Names
	return first(
		func() error {
			return parseName("format", n.Format, &c.Format, record.ParseFormat, "jsonl", "tsv", "text", "parquet")
		},
		func() error {
			return parseName("compress", n.Compress, &c.Compress, record.ParseCompression, "none", "gzip", "zstd")
		},
		func() error { return parseCompressLevel(c, n.CompressLevel) },
		func() error {
			return parseName("method", n.Method, &c.Method, verify.ParseBlocking, "both", "minhash", "simhash")
		},
		func() error {
			return parseName("verify", n.Verify, &c.Verify, verify.ParseMode, "auto", "estimate", "exact")
		},
		func() error { return parseName("minhash", n.MinHash, &c.MinHash, minhash.ParseMode, "classic", "oph") },
		func() error { return parseName("keep", n.Keep, &c.Keep, job.ParseKeep, "longest", "first") },
		func() error {
			return parseName("clusters", n.Clusters, &c.Clusters, job.ParseClusterRule, "kept", "components")
		},
		func() error {
			return parseName("dict", n.Dictionary, &c.Dictionary, func(s string) (string, error) {
				if !slices.Contains(job.Dictionaries, s) {
					return "", fmt.Errorf("unknown dictionary %q", s)
				}
				return s, nil
			}, job.Dictionaries...)
		},
		func() error {
			if c.IDField != "" && strings.TrimSpace(c.IDField) == "" {
				return bad("id-field", fmt.Sprintf("%q", c.IDField), "want a field name, or '' for FILE:LINE ids")
			}
			if strings.TrimSpace(c.TextField) == "" {
				return bad("text-field", `""`, "want a field name")
			}
			return nil
		},
	)
}

// parseName parses option name's value v into *dst, unless v is "": an
// error says which names are allowed.
func parseName[T any](name, v string, dst *T, parse func(string) (T, error), allowed ...string) error {
	if v == "" {
		return nil
	}
	t, err := parse(v)
	if err != nil {
		return bad(name, fmt.Sprintf("%q", v), "want "+strings.Join(allowed, ", "))
	}
	*dst = t
	return nil
}

// parseCompressLevel parses --compress-level (v, unless "") into
// c.CompressLevel and checks it against c.Compress: a gzip level (fast,
// default, best, 1 to 9) unless every compressed output is zstd, which
// also has 10 to 22 (or none is).
func parseCompressLevel(c *job.Config, v string) error {
	if v != "" {
		l, err := record.ParseLevel(v)
		if err != nil {
			return bad("compress-level", fmt.Sprintf("%q", v), "want fast, default, best, or 1 to 9 (with --compress zstd, 1 to 22)")
		}
		c.CompressLevel = l
	}
	if c.Compress != record.Zstd && c.Compress != record.None && c.CompressLevel.Check(record.Gzip) != nil {
		return bad("compress-level", c.CompressLevel, "gzip levels are 1 to 9 (a copy of a gzipped input is gzipped); 10 to 22 need --compress zstd")
	}
	return nil
}

// checkShingle reads o.Shingle, "char:5" or "word:5", into Config.Tokens
// and Config.Shingle; if o.Shingle is "", it checks those as they are.
func checkShingle(o *Options, _ Runner) error {
	c := &o.Config
	s := o.Shingle
	if s == "" {
		s = fmt.Sprintf("%s:%d", c.Tokens, c.Shingle)
	}
	mode, k, err := tokenize.ParseShingle(s)
	if err != nil {
		return fmt.Errorf("--shingle %w", err)
	}
	c.Tokens, c.Shingle = mode, k
	return nil
}
