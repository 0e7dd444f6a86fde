package main

import (
	"fmt"
	"io"
	"os"
	"time"

	"github.com/neardup/neardup/transforms/match/ensemble"
)

// row is one line of the table: one language at one threshold.
type row struct {
	queries, candidates int
	hits                int       // candidates that are true pairs at >= t
	above, band         [2]recall // contained document >= 10, >= 20 shingles
}

// recall counts true pairs and the found ones.
type recall struct{ found, all int }

func (r recall) String() string {
	if r.all == 0 {
		return fmt.Sprintf("%13s", "-")
	}
	return fmt.Sprintf("%6.4f %6d", float64(r.found)/float64(r.all), r.all)
}

// minSizes are the sizes of contained documents recall is reported from.
var minSizes = [2]int{10, 20}

// printRows prints to w the rows of en, zh and all for the candidate pairs of
// one method at threshold t.
func printRows(w io.Writer, c *corpus, t float64, method string, pairs []ensemble.Pair, st ensemble.Stats, took time.Duration, minSize int) {
	rows := map[string]*row{"en": {}, "zh": {}, "all": {}}
	add := func(lang string, f func(r *row)) {
		f(rows["all"])
		if r, ok := rows[lang]; ok {
			f(r)
		}
	}
	for i, d := range c.docs {
		if d.Size >= minSize {
			add(c.langs[i], func(r *row) { r.queries++ })
		}
	}
	truth := map[[2]int32]bool{}
	for _, p := range c.truth {
		if a, b := c.index[p.A], c.index[p.B]; p.ContainA() >= t {
			truth[[2]int32{min(a, b), max(a, b)}] = true
		}
	}
	found := map[[2]int32]bool{}
	for _, p := range pairs {
		k := [2]int32{min(p.Query, p.Set), max(p.Query, p.Set)}
		add(c.langs[p.Query], func(r *row) {
			r.candidates++
			if truth[k] {
				r.hits++
			}
		})
		found[k] = true
	}
	for _, p := range c.truth {
		a, b := c.index[p.A], c.index[p.B]
		hit := found[[2]int32{min(a, b), max(a, b)}]
		ca := p.ContainA()
		for k, m := range minSizes {
			if p.SizeA < m || ca < t {
				continue
			}
			add(c.langs[a], func(r *row) {
				target := &r.band[k]
				if ca >= t+0.05 {
					target = &r.above[k]
				}
				target.all++
				if hit {
					target.found++
				}
			})
		}
	}
	printRatios(c, t, method, found)
	n := float64(len(c.docs))
	for _, lang := range []string{"en", "zh", "all"} {
		r := rows[lang]
		fmt.Fprintf(w, "%-5v %-13s %-4s %8d %11d %10.1f %8d  %s %s  %s %s %6.1f %6.1f %4d %8.2f\n",
			t, method, lang, r.queries, r.candidates, float64(r.candidates)/float64(max(r.queries, 1)), r.hits,
			r.above[0], r.above[1], r.band[0], r.band[1], float64(st.IndexKeys)/n, float64(st.QueryKeys)/n, st.HotBuckets, took.Seconds())
	}
}

// ratioBands are the upper ends of the size ratios |B|/|A| recall is
// broken down by.
var ratioBands = []float64{1.5, 3, 10, 100, 1e300}

// printRatios prints, to stderr, the recall of the true pairs at
// containment >= t+0.05 with a contained document of at least 10
// shingles, by the size ratio of the pair.
func printRatios(c *corpus, t float64, method string, found map[[2]int32]bool) {
	rs := make([]recall, len(ratioBands))
	for _, p := range c.truth {
		if p.SizeA < minSizes[0] || p.ContainA() < t+0.05 {
			continue
		}
		a, b := c.index[p.A], c.index[p.B]
		ratio := float64(p.SizeB) / float64(p.SizeA)
		k := 0
		for ratio >= ratioBands[k] {
			k++
		}
		rs[k].all++
		if found[[2]int32{min(a, b), max(a, b)}] {
			rs[k].found++
		}
	}
	fmt.Fprintf(os.Stderr, "containstudy: C=%v %s recall at >= C+0.05, A >= 10, by |B|/|A|: <1.5 %v | <3 %v | <10 %v | <100 %v | >=100 %v\n",
		t, method, rs[0], rs[1], rs[2], rs[3], rs[4])
}
