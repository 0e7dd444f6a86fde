package main

import (
	"context"
	"fmt"
	"strings"

	"github.com/neardup/neardup/cmd/neardup/internal/outdir"
	"github.com/neardup/neardup/cmd/neardup/internal/rejects"
	"github.com/neardup/neardup/transforms/format/index"
	"github.com/neardup/neardup/transforms/format/summary"
)

// A finishedJob is what the command checks and commits once a job is done.
type finishedJob struct {
	counts         map[string]int64 // summary.json's counts
	balanced       bool
	audit          bool
	inputs         []summary.InputFile // summary.json's per-file counts, if the job reported them
	files          []string            // the input files
	maxRejectRatio float64
	out            *outdir.Dir // the output directory
	summary        string      // the name of its summary, committed last
	// index, if not nil, is the index directory, committed before out;
	// indexFlag names it, and indexOffset is the number of its shards
	// copied from an old index.
	index       *outdir.Dir
	indexFlag   string
	indexOffset int
	// beforeCommit, if set, adds to the staged outputs once they passed
	// the checks (the report).
	beforeCommit func() error
}

// finishJob checks the counts and the rejects of a finished job (see
// checkCounts and rejects.Check) and, if they pass, gives its files no
// permission bit its inputs lack (outdir.Dir.Restrict), then puts its outputs in
// place as one step (outdir.CommitAll): the index (with its sources
// recorded, see recordSources), then the output directory, its summary
// last; if that fails, both are as they were.
func finishJob(ctx context.Context, j finishedJob) error {
	if err := checkCounts(j.counts, j.balanced, j.audit); err != nil {
		return err
	}
	if err := rejects.Check(j.counts, j.inputs, j.files, localDir(j.out.Stage()), j.maxRejectRatio); err != nil {
		return err
	}
	if j.beforeCommit != nil {
		if err := j.beforeCommit(); err != nil {
			return err
		}
	}
	var commits []outdir.Commit
	if j.index != nil {
		if err := recordSources(ctx, j.index.Stage(), j.indexOffset, j.files, j.inputs); err != nil {
			return fmt.Errorf("%s: %w", j.indexFlag, err)
		}
		commits = append(commits, outdir.Commit{Dir: j.index, Last: index.ManifestName, Flag: j.indexFlag})
	}
	perm := outdir.InputPerm(j.files)
	for _, d := range []*outdir.Dir{j.index, j.out} {
		if d == nil {
			continue
		}
		if err := d.Restrict(perm); err != nil {
			return err
		}
	}
	return outdir.CommitAll(ctx, append(commits, outdir.Commit{Dir: j.out, Last: j.summary, Flag: "--output"})...)
}

// checkCounts fails a job whose counts do not add up (balanced false in
// its summary), naming the counts.
func checkCounts(c map[string]int64, balanced, audit bool) error {
	if balanced {
		return nil
	}
	if audit {
		return fmt.Errorf("records do not add up: input %d != kept %d + removed %d + rejected %d, or removed != %d + %d",
			c[summary.StatInput], c[summary.StatKept], c[summary.StatRemoved], c[summary.StatRejected], c[summary.StatDupOfIndex], c[summary.StatBatchOnly])
	}
	return fmt.Errorf("records do not add up: input %d != kept %d + removed %d + rejected %d",
		c[summary.StatInput], c[summary.StatKept], c[summary.StatRemoved], c[summary.StatRejected])
}

// rootCause returns the error of a failed job as one line: Beam wraps a
// DoFn's error in the failed bundle's plan and its own context ("caused
// by:"); the DoFn's error is what the user needs.
func rootCause(err error) string {
	s := err.Error()
	if i := strings.LastIndex(s, "caused by:"); i >= 0 {
		s = s[i+len("caused by:"):]
	}
	s = strings.TrimSpace(s)
	if strings.HasPrefix(s, "DoFn[") {
		if i := strings.Index(s, "failed:"); i >= 0 {
			s = strings.TrimSpace(s[i+len("failed:"):])
		}
	}
	var lines []string
	for _, l := range strings.Split(s, "\n") {
		if l = strings.TrimSpace(l); l != "" {
			lines = append(lines, l)
		}
	}
	return strings.Join(lines, " ")
}
