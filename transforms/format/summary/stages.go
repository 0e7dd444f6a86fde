package summary

import (
	"cmp"
	"fmt"
	"io"
	"maps"
	"slices"
)

// WriteStages writes the lines of the run's report about where its time
// went and what it wrote besides its outputs: the busy seconds and span of
// each stage and the work bytes written by kind (the lines of the fields
// the summary has).
func (s Summary) WriteStages(w io.Writer) {
	if len(s.StageSeconds) > 0 {
		names := make([]string, 0, len(s.StageSeconds))
		for n := range s.StageSeconds {
			names = append(names, n)
		}
		slices.Sort(names)
		fmt.Fprintf(w, "  busy seconds per stage:")
		for _, n := range names {
			fmt.Fprintf(w, " %s %.1f", n, s.StageSeconds[n])
		}
		fmt.Fprintln(w)
	}
	if len(s.StageSpans) > 0 {
		names := make([]string, 0, len(s.StageSpans))
		for n := range s.StageSpans {
			names = append(names, n)
		}
		slices.SortFunc(names, func(a, b string) int {
			return cmp.Or(cmp.Compare(s.StageSpans[a][0], s.StageSpans[b][0]), cmp.Compare(a, b))
		})
		fmt.Fprintf(w, "  stage spans (s since start):")
		for _, n := range names {
			fmt.Fprintf(w, " %s %.1f-%.1f", n, s.StageSpans[n][0], s.StageSpans[n][1])
		}
		fmt.Fprintln(w)
	}
	if len(s.WorkBytes) > 0 {
		names, total := slices.Sorted(maps.Keys(s.WorkBytes)), int64(0)
		for _, n := range names {
			total += s.WorkBytes[n]
		}
		fmt.Fprintf(w, "  work files written %.1f MB:", float64(total)/1e6)
		for _, n := range names {
			fmt.Fprintf(w, " %s %.1f", n, float64(s.WorkBytes[n])/1e6)
		}
		fmt.Fprintln(w)
	}
}
