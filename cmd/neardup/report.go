package main

import (
	"fmt"
	"slices"
	"strings"

	htmlreport "github.com/neardup/neardup/cmd/neardup/internal/report"
	"github.com/neardup/neardup/transforms/format/record"
	"github.com/neardup/neardup/transforms/job"
	"github.com/neardup/neardup/transforms/jobfiles/spool"
)

// writeReport writes report.html into the staging directory dir of the
// output out, with the texts of sample pairs read from the local JSONL or
// Parquet inputs (their spool copies if any). A URL output gets no report.
func writeReport(dir, out string, files []string, cfg *job.Config) error {
	if strings.Contains(dir, "://") {
		return nil
	}
	var inputs []htmlreport.Input
	if (cfg.Format == record.JSONL || cfg.Format == record.Parquet) && !slices.ContainsFunc(files, func(f string) bool { return strings.Contains(f, "://") }) {
		for i, f := range files {
			inputs = append(inputs, htmlreport.Input{Name: cfg.WorkDir().NameOf(f), Path: spool.Source(cfg.WorkDir(), i, f)})
		}
	}
	if err := htmlreport.WriteNamed(dir, out, inputs, cfg.IDField, cfg.TextField); err != nil {
		return fmt.Errorf("writing %s: %w", htmlreport.FileName, err)
	}
	return nil
}
