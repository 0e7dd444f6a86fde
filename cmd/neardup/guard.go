package main

import (
	"cmp"
	"context"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"

	"github.com/neardup/neardup/cmd/neardup/internal/outdir"
	htmlreport "github.com/neardup/neardup/cmd/neardup/internal/report"
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
// checkCounts and checkRejects) and, if they pass, gives its files no
// permission bit its inputs lack (outdir.Dir.Restrict), then puts its outputs in
// place as one step (outdir.CommitAll): the index (with its sources
// recorded, see recordSources), then the output directory, its summary
// last; if that fails, both are as they were.
func finishJob(ctx context.Context, j finishedJob) error {
	if err := checkCounts(j.counts, j.balanced, j.audit); err != nil {
		return err
	}
	if err := checkRejects(j.counts, j.inputs, j.files, localDir(j.out.Stage()), j.maxRejectRatio); err != nil {
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

// checkRejects fails a job whose input does not look like what the flags
// say: every record of an input file rejected, or more than maxRatio of
// all records (maxRatio 1: never). The error names the file or the share,
// the most frequent reasons and a hint. inputs are the job's per-file
// counts (summary.json's "inputs"); without them the job's total counts c
// decide, and the reasons come from the rejects files in dir (a local
// directory, or "" to leave them out). files are the input files.
func checkRejects(c map[string]int64, inputs []summary.InputFile, files []string, dir string, maxRatio float64) error {
	if maxRatio >= 1 {
		return nil
	}
	for _, in := range inputs {
		if in.Records > 0 && in.Rejected == in.Records {
			return fmt.Errorf("all %d records of %s rejected: %s%s", in.Records, shortPath(in.Path), reasonList(in.Reasons, in.Rejected), hint(in.Reasons))
		}
	}
	total, rejected := c[summary.StatInput], c[summary.StatRejected]
	if total == 0 || float64(rejected) <= maxRatio*float64(total) {
		return nil
	}
	reasons := map[string]int64{}
	for _, in := range inputs {
		for r, n := range in.Reasons {
			reasons[r] += n
		}
	}
	if len(inputs) == 0 && dir != "" {
		reasons = rejectReasons(dir)
	}
	if rejected == total && len(files) == 1 {
		return fmt.Errorf("all %d records of %s rejected: %s%s", total, shortPath(files[0]), reasonList(reasons, rejected), hint(reasons))
	}
	return fmt.Errorf("%d of %d records rejected (%.0f%%, more than --max-reject-ratio %v): %s%s",
		rejected, total, 100*float64(rejected)/float64(total), maxRatio, reasonList(reasons, rejected), hint(reasons))
}

// rejectReasons counts the rejects of the rejects files in dir by reason.
func rejectReasons(dir string) map[string]int64 {
	counts, _ := htmlreport.RejectReasons(dir)
	return counts
}

// byCount returns the reasons, most frequent first.
func byCount(reasons map[string]int64) []string {
	names := make([]string, 0, len(reasons))
	for r := range reasons {
		names = append(names, r)
	}
	slices.SortFunc(names, func(a, b string) int { return cmp.Or(cmp.Compare(reasons[b], reasons[a]), cmp.Compare(a, b)) })
	return names
}

// reasonList lists the three most frequent reasons, with their counts
// unless one reason covers all n rejects.
func reasonList(reasons map[string]int64, n int64) string {
	names := byCount(reasons)
	switch {
	case len(names) == 0:
		return "see the rejects files"
	case len(names) == 1 && reasons[names[0]] == n:
		return names[0]
	}
	var parts []string
	for _, r := range names[:min(3, len(names))] {
		parts = append(parts, fmt.Sprintf("%s %d", r, reasons[r]))
	}
	if len(names) > 3 {
		parts = append(parts, "...")
	}
	return strings.Join(parts, ", ")
}

// hint is "; " and the hint for the most frequent reason, or "".
func hint(reasons map[string]int64) string {
	if names := byCount(reasons); len(names) > 0 {
		if h := htmlreport.RejectHint(names[0]); h != "" {
			return "; " + h
		}
	}
	return ""
}

// shortPath is path relative to the working directory if it is inside it.
func shortPath(path string) string {
	if wd, err := os.Getwd(); err == nil && filepath.IsAbs(path) {
		if rel, err := filepath.Rel(wd, path); err == nil && !strings.HasPrefix(rel, "..") {
			return rel
		}
	}
	return path
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
