// Package rejects says in one line why a job's input does not look like
// what its flags say: the share of records rejected, the most frequent
// reasons, and a hint for the first.
package rejects

import (
	"cmp"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"

	htmlreport "github.com/neardup/neardup/cmd/neardup/internal/report"
	"github.com/neardup/neardup/transforms/format/summary"
)

// Check fails a job whose input does not look like what the flags
// say: every record of an input file rejected, or more than maxRatio of
// all records (maxRatio 1: never). The error names the file or the share,
// the most frequent reasons and a hint. inputs are the job's per-file
// counts (summary.json's "inputs"); without them the job's total counts c
// decide, and the reasons come from the rejects files in dir (a local
// directory, or "" to leave them out). files are the input files.
func Check(c map[string]int64, inputs []summary.InputFile, files []string, dir string, maxRatio float64) error {
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
