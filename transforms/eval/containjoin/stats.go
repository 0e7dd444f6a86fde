package containjoin

import (
	"fmt"
	"io"
	"maps"
	"slices"
	"strings"
	"text/tabwriter"
)

// SmallSizes are the sizes, in shingles, below which Summarize counts a
// contained document as small: the data for a minimum size.
var SmallSizes = []int{10, 20, 50}

// SizeBuckets are the lower bounds of the histogram of the contained
// documents' sizes in shingles; the last bucket has no upper bound.
var SizeBuckets = []int{1, 2, 5, 10, 20, 50, 100, 200, 500, 1000}

// Stats describe the pairs of one language whose containment (of A in B)
// reaches one threshold. New pairs are those whose Jaccard is below the
// Jaccard threshold given to Summarize: containment pairs that are not
// already Jaccard near-duplicates.
type Stats struct {
	Lang      string // "all", a language, "cross" (two languages) or "unknown"
	Threshold float64
	Pairs     int
	New       int
	// Small and SmallNew count the pairs, and the new pairs, whose A has
	// fewer shingles than each of SmallSizes.
	Small, SmallNew []int
	// Sizes and SizesNew are the histograms of A's size over SizeBuckets.
	Sizes, SizesNew []int
	// MedianNew is the median size of A among the new pairs (0 without).
	MedianNew int
}

// Summarize returns the Stats of pairs at each threshold, for all pairs and
// then for each pair language in name order; langs maps document ids to
// languages (nil: all pairs only). A pair's language is its documents' when
// both have the same one.
func Summarize(pairs []Pair, langs map[string]string, thresholds []float64, jaccard float64) []Stats {
	names := []string{"all"}
	if langs != nil {
		seen := map[string]bool{}
		for _, p := range pairs {
			seen[pairLang(langs, p)] = true
		}
		names = append(names, slices.Sorted(maps.Keys(seen))...)
	}
	var out []Stats
	for _, t := range thresholds {
		for _, name := range names {
			s := Stats{Lang: name, Threshold: t, Small: make([]int, len(SmallSizes)), SmallNew: make([]int, len(SmallSizes)),
				Sizes: make([]int, len(SizeBuckets)), SizesNew: make([]int, len(SizeBuckets))}
			var newSizes []int
			for _, p := range pairs {
				if p.ContainA() < t || (name != "all" && pairLang(langs, p) != name) {
					continue
				}
				isNew := p.Jaccard() < jaccard
				s.Pairs++
				s.add(s.Small, s.Sizes, p.SizeA)
				if isNew {
					s.New++
					s.add(s.SmallNew, s.SizesNew, p.SizeA)
					newSizes = append(newSizes, p.SizeA)
				}
			}
			if len(newSizes) > 0 {
				slices.Sort(newSizes)
				s.MedianNew = newSizes[len(newSizes)/2]
			}
			out = append(out, s)
		}
	}
	return out
}

// add counts a contained document of size shingles in small and hist.
func (s *Stats) add(small, hist []int, size int) {
	for i, lim := range SmallSizes {
		if size < lim {
			small[i]++
		}
	}
	for i := len(SizeBuckets) - 1; i >= 0; i-- {
		if size >= SizeBuckets[i] {
			hist[i]++
			break
		}
	}
}

// pairLang is the language of a pair's documents when they have the same
// one, "cross" when they differ and "unknown" when either has none.
func pairLang(langs map[string]string, p Pair) string {
	a, b := langs[p.A], langs[p.B]
	switch {
	case a == "" || b == "":
		return "unknown"
	case a != b:
		return "cross"
	}
	return a
}

// PrintStats writes stats as two tables: the counts, then the histograms of
// the contained documents' sizes (all pairs, then new ones).
func PrintStats(w io.Writer, stats []Stats, jaccard float64) error {
	tw := tabwriter.NewWriter(w, 0, 0, 2, ' ', tabwriter.AlignRight)
	fmt.Fprintf(tw, "containment\tlang\tpairs\tnew (J < %.2f)\t", jaccard)
	for _, lim := range SmallSizes {
		fmt.Fprintf(tw, "A < %d\t", lim)
	}
	for _, lim := range SmallSizes {
		fmt.Fprintf(tw, "new, A < %d\t", lim)
	}
	fmt.Fprintln(tw, "median A of new\t")
	for _, s := range stats {
		fmt.Fprintf(tw, ">= %.2f\t%s\t%d\t%d\t%s\t%s\t%d\t\n", s.Threshold, s.Lang, s.Pairs, s.New, cells(s.Small), cells(s.SmallNew), s.MedianNew)
	}
	fmt.Fprintln(tw)
	fmt.Fprint(tw, "size of A (shingles)\tlang\tpairs\t")
	for i, lo := range SizeBuckets {
		if i+1 < len(SizeBuckets) && SizeBuckets[i+1]-1 > lo {
			fmt.Fprintf(tw, "%d-%d\t", lo, SizeBuckets[i+1]-1)
		} else if i+1 < len(SizeBuckets) {
			fmt.Fprintf(tw, "%d\t", lo)
		} else {
			fmt.Fprintf(tw, "%d+\t", lo)
		}
	}
	fmt.Fprintln(tw)
	for _, s := range stats {
		fmt.Fprintf(tw, ">= %.2f all\t%s\t%d\t%s\t\n", s.Threshold, s.Lang, s.Pairs, cells(s.Sizes))
		fmt.Fprintf(tw, ">= %.2f new\t%s\t%d\t%s\t\n", s.Threshold, s.Lang, s.New, cells(s.SizesNew))
	}
	return tw.Flush()
}

// cells joins counts as tab-separated table cells.
func cells(n []int) string {
	s := make([]string, len(n))
	for i, v := range n {
		s[i] = fmt.Sprint(v)
	}
	return strings.Join(s, "\t")
}
