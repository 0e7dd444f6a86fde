package outdir

import (
	"fmt"
	"slices"
	"strings"
)

// FileList names the files names as a list for the user: one name, or a
// pattern and its count for the numbered files of one kind
// ("pairs-* (2 files)"); summaries first, then report.html, then the rest
// in the order of names.
func FileList(names []string) string {
	var kinds []string
	count := map[string]int{}
	for _, n := range names {
		k := n
		if i := strings.LastIndexByte(n, '-'); i > 0 && i+1 < len(n) && isDigit(n[i+1]) {
			k = n[:i+1] + "*"
		}
		if count[k]++; count[k] == 1 {
			kinds = append(kinds, k)
		}
	}
	// Summaries first, then the report, then the rest in the order given.
	rank := func(k string) int {
		switch {
		case strings.HasSuffix(k, "summary.json"), k == "index.json":
			return 0
		case k == "report.html":
			return 1
		}
		return 2
	}
	slices.SortStableFunc(kinds, func(a, b string) int { return rank(a) - rank(b) })
	for i, k := range kinds {
		if strings.HasSuffix(k, "*") {
			kinds[i] = fmt.Sprintf("%s (%d %s)", k, count[k], plural(count[k], "file", "files"))
		}
	}
	if len(kinds) == 0 {
		return "no files"
	}
	return strings.Join(kinds, ", ")
}

func isDigit(c byte) bool { return '0' <= c && c <= '9' }

func plural(n int, one, many string) string {
	if n == 1 {
		return one
	}
	return many
}
