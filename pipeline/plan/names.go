package plan

import (
	"fmt"
	"strings"

	"github.com/neardup/neardup/transforms/format/record"
	"github.com/neardup/neardup/transforms/job"
	"github.com/neardup/neardup/transforms/text/tokenize"
)

// checkNames checks the compression level against the compression and the
// fields of the records (the choices were parsed into Config by the
// command's flags, and Config.Check checks each names one).
func checkNames(o *Options, _ Runner) error {
	c := &o.Config
	if err := checkCompressLevel(c); err != nil {
		return err
	}
	if c.IDField != "" && strings.TrimSpace(c.IDField) == "" {
		return bad("id-field", fmt.Sprintf("%q", c.IDField), "want a field name, or '' for FILE:LINE ids")
	}
	if strings.TrimSpace(c.TextField) == "" {
		return bad("text-field", `""`, "want a field name")
	}
	return nil
}

// checkCompressLevel checks c.CompressLevel against c.Compress: a gzip
// level (fast, default, best, 1 to 9) unless every compressed output is
// zstd, which also has 10 to 22 (or none is).
func checkCompressLevel(c *job.Config) error {
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
