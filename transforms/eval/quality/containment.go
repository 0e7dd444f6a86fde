package quality

import (
	"bufio"
	"fmt"
	"io"
	"maps"
	"slices"
	"strconv"
	"strings"
	"text/tabwriter"
)

// The containment measures (neardup run --containment C), against a
// containment truth (scripts/containjoin: every pair with containment
// >= 0.5 either way):
//
//   - The true containment c of a pair is that of its smaller document (fewer
//     distinct shingles) in the larger: inter/size of the smaller; of equal
//     sizes, the larger of the two containments (they are equal). A
//     reported pair absent from the truth has c < 0.5 (counted as 0).
//   - Recall is over the true pairs with c >= C + 0.05 (the headline) and
//     with c in [C, C + 0.05), a pair found when found directly (see the
//     package doc: the run reports it by any method, exact, minhash or
//     containment, or the pair of its exact-duplicate groups); linked as
//     in the Jaccard measures. True pairs whose contained (smaller)
//     document has fewer than MinSize distinct shingles are left out of
//     recall and counted apart (SmallExcluded).
//   - Precision is over the pairs reported with method "containment": the
//     share with c >= C; FarBelow counts those with c < C - 0.1.
//   - Figures by language as in the Jaccard measures.

// ContainPair is a pair of the containment truth: its shared and distinct
// shingles and each document's distinct shingles.
type ContainPair struct {
	A, B               string
	Inter, Union       int
	SizeA, SizeB       int
	ContainA, ContainB float64 // the columns, inter/size_a and inter/size_b
}

// Containment returns the containment of the smaller document of p in the
// larger and the smaller's size (see ContainReport).
func (p ContainPair) Containment() (c float64, small int) {
	ca, cb := float64(p.Inter)/float64(p.SizeA), float64(p.Inter)/float64(p.SizeB)
	switch {
	case p.SizeA < p.SizeB:
		return ca, p.SizeA
	case p.SizeB < p.SizeA:
		return cb, p.SizeB
	}
	return max(ca, cb), p.SizeA
}

// containCols are the columns of a containment truth.
var containCols = []string{"id_a", "id_b", "jaccard", "inter", "union", "size_a", "size_b", "contain_a", "contain_b"}

// ErrNoContainColumns is returned by ReadContainTruth for a truth file
// without the size and containment columns.
var ErrNoContainColumns = fmt.Errorf("has no size_a size_b contain_a contain_b columns (a containment truth is written by scripts/containjoin)")

// ReadContainTruth reads a containment truth TSV (id_a id_b jaccard inter
// union size_a size_b contain_a contain_b, with a header line; see
// openText). A file whose first line has fewer columns is ErrNoContainColumns
// (wrapped with its path); counts that cannot be (inter > a size, a size
// < 1, inter > union) or a pair listed again are errors naming the line.
func ReadContainTruth(path string) ([]ContainPair, error) {
	if err := checkContainHeader(path); err != nil {
		return nil, err
	}
	var out []ContainPair
	first := map[key]int{}
	err := eachTSV(path, len(containCols), func(line int, f []string) error {
		var n [4]int
		for i := range n {
			v, err := strconv.Atoi(f[3+i])
			if err != nil {
				return fmt.Errorf("bad %s %q", containCols[3+i], f[3+i])
			}
			n[i] = v
		}
		p := ContainPair{A: f[0], B: f[1], Inter: n[0], Union: n[1], SizeA: n[2], SizeB: n[3]}
		if err := checkCounts(p.Inter, p.Union); err != nil {
			return err
		}
		if p.SizeA < 1 || p.SizeB < 1 || p.Inter > min(p.SizeA, p.SizeB) {
			return fmt.Errorf("inter %d does not fit sizes %d and %d", p.Inter, p.SizeA, p.SizeB)
		}
		p.ContainA, _ = strconv.ParseFloat(f[7], 64)
		p.ContainB, _ = strconv.ParseFloat(f[8], 64)
		k := mk(p.A, p.B)
		if l, ok := first[k]; ok {
			return fmt.Errorf("the pair %s %s again (first at line %d)", p.A, p.B, l)
		}
		first[k] = line
		out = append(out, p)
		return nil
	})
	return out, err
}

// checkContainHeader returns ErrNoContainColumns, wrapped with path, when
// the first line of the file has fewer columns than a containment truth.
func checkContainHeader(path string) error {
	r, c, err := openText(path)
	if err != nil {
		return err
	}
	defer c.Close()
	sc := bufio.NewScanner(r)
	sc.Buffer(make([]byte, 64<<10), 1<<20)
	if sc.Scan() && len(strings.Split(sc.Text(), "\t")) < len(containCols) {
		return fmt.Errorf("%s %w", path, ErrNoContainColumns)
	}
	return sc.Err()
}

// ContainFigures are the containment measures over one set of pairs.
type ContainFigures struct {
	Headline Recall `json:"recall_at_headline"` // c >= C + 0.05
	Band     Recall `json:"recall_in_band"`     // C <= c < C + 0.05
	// SmallExcluded counts the true pairs with c >= C left out of recall:
	// their contained document has fewer than MinSize shingles.
	SmallExcluded int `json:"small_excluded"`
	// Reported: pairs of method "containment"; Correct: those with c >= C;
	// FarBelow: those with c < C - 0.1.
	Reported  int     `json:"reported_containment_pairs"`
	Correct   int     `json:"correct_pairs"`
	FarBelow  int     `json:"far_below_pairs"`
	Precision float64 `json:"precision"`
}

func (f *ContainFigures) finish() {
	f.Headline.finish()
	f.Band.finish()
	if f.Reported > 0 {
		f.Precision = float64(f.Correct) / float64(f.Reported)
	}
}

// ContainReport is the outcome of EvaluateContainment.
type ContainReport struct {
	Threshold   float64        `json:"threshold"`   // t, the run's Jaccard threshold
	Containment float64        `json:"containment"` // C
	Headline    float64        `json:"headline"`    // C + 0.05
	FarBelow    float64        `json:"far_below"`   // C - 0.1
	MinSize     int            `json:"min_size"`    // of a contained document, for recall
	All         ContainFigures `json:"all"`
	// ByLang: by pair language (see the package doc); empty without languages.
	ByLang map[string]ContainFigures `json:"by_lang,omitempty"`
	// Removals: is each removed document a near-duplicate of the document
	// kept for it, or inside it?
	Removals ContainRemovals `json:"removals"`
	// Examples: "missed" true pairs c >= C + 0.05 not found, "far_below"
	// reported containment pairs with c < C - 0.1, "removed_below"
	// removals right by neither measure (ten of each at most).
	Examples map[string][]string `json:"examples,omitempty"`
}

// EvaluateContainment compares a run with a containment truth at
// containment C and Jaccard threshold t, true pairs whose contained
// document has fewer than minSize shingles left out of recall; langs
// (optional) gives the documents' languages. The measures are those of the
// comment above ContainPair, and the removals' (ContainRemovals).
func EvaluateContainment(pairs []Pair, clusters []Cluster, truth []ContainPair, langs map[string]string, t, c float64, minSize int) ContainReport {
	run := newRunView(pairs, clusters)
	r := ContainReport{Threshold: t, Containment: c, Headline: decimal(c + 0.05), FarBelow: decimal(c - 0.1), MinSize: minSize,
		ByLang: map[string]ContainFigures{}, Examples: map[string][]string{}}
	all, byLang := &ContainFigures{}, map[string]*ContainFigures{}
	if langs != nil {
		byLang["cross"] = &ContainFigures{}
	}
	figures := func(a, b string) []*ContainFigures {
		if langs == nil {
			return []*ContainFigures{all}
		}
		l := pairLang(langs, a, b)
		if byLang[l] == nil {
			byLang[l] = &ContainFigures{}
		}
		return []*ContainFigures{all, byLang[l]}
	}
	example := func(kind, format string, args ...any) {
		if len(r.Examples[kind]) < 10 {
			r.Examples[kind] = append(r.Examples[kind], fmt.Sprintf(format, args...))
		}
	}
	truthC := map[key]float64{}
	for _, p := range truth {
		v, small := p.Containment()
		truthC[mk(p.A, p.B)] = v
		if v < c {
			continue
		}
		d := run.direct(p.A, p.B)
		l := d || run.sameCluster(p.A, p.B)
		for _, f := range figures(p.A, p.B) {
			switch {
			case small < minSize:
				f.SmallExcluded++
			case v >= r.Headline:
				f.Headline.add(d, l)
			default:
				f.Band.add(d, l)
			}
		}
		if small >= minSize && v >= r.Headline && !d {
			example("missed", "%s %s c %.3f (sizes %d %d)", p.A, p.B, v, p.SizeA, p.SizeB)
		}
	}
	for _, p := range pairs {
		if p.Method != "containment" {
			continue
		}
		v := truthC[mk(p.A, p.B)] // absent: below 0.5
		for _, f := range figures(p.A, p.B) {
			f.Reported++
			if v >= c {
				f.Correct++
			}
			if v < r.FarBelow {
				f.FarBelow++
			}
		}
		if v < r.FarBelow {
			example("far_below", "%s %s true c %.3f (run J %.3f)", p.A, p.B, v, p.Jaccard)
		}
	}
	all.finish()
	r.All = *all
	for l, f := range byLang {
		f.finish()
		r.ByLang[l] = *f
	}
	r.Removals = containRemovals(clusters, truth, t, c, example)
	return r
}

// Print writes the containment report as a table, with up to five
// examples of reported pairs far below C.
func (r ContainReport) Print(w io.Writer) {
	fmt.Fprintf(w, "containment C = %.2f; headline c >= %.2f, band [%.2f, %.2f); c: the share of the smaller document's shingles in the larger\n",
		r.Containment, r.Headline, r.Containment, r.Headline)
	fmt.Fprintf(w, "found: the run reports the pair (any method) or the pair of its exact-duplicate groups; true pairs c >= %.2f whose smaller document has < %d shingles are left out of recall (small)\n",
		r.Containment, r.MinSize)
	fmt.Fprintf(w, "precision: reported containment pairs with true c >= %.2f; far below: true c < %.2f (absent from the truth: < 0.5)\n\n",
		r.Containment, r.FarBelow)
	names := append([]string{"all"}, sortedLangs(r.ByLang)...)
	tw := tabwriter.NewWriter(w, 0, 0, 2, ' ', tabwriter.AlignRight)
	fmt.Fprintf(tw, "group\tpairs c>=%.2f\tfound\trecall\tpairs [%.2f,%.2f)\tfound\trecall\tsmall\treported\tc>=%.2f\tprecision\tfar below\t\n",
		r.Headline, r.Containment, r.Headline, r.Containment)
	for _, n := range names {
		f := r.All
		if n != "all" {
			f = r.ByLang[n]
		}
		fmt.Fprintf(tw, "%s\t%d\t%d\t%s\t%d\t%d\t%s\t%d\t%d\t%d\t%s\t%d\t\n", n,
			f.Headline.Pairs, f.Headline.FoundDirect, ratio(f.Headline.Pairs, f.Headline.RecallDirect),
			f.Band.Pairs, f.Band.FoundDirect, ratio(f.Band.Pairs, f.Band.RecallDirect),
			f.SmallExcluded, f.Reported, f.Correct, ratio(f.Reported, f.Precision), f.FarBelow)
	}
	tw.Flush()
	fmt.Fprintln(w)
	r.Removals.print(w, r.Threshold, r.Containment)
	if ex := r.Examples["far_below"]; len(ex) > 0 {
		fmt.Fprintf(w, "\nreported containment pairs with true c < %.2f (%d of %d):\n", r.FarBelow, min(5, len(ex)), r.All.FarBelow)
		for _, e := range ex[:min(5, len(ex))] {
			fmt.Fprintf(w, "  %s\n", e)
		}
	}
}

// sortedLangs returns the languages of byLang in name order, then "cross"
// and "unknown".
func sortedLangs[F any](byLang map[string]F) []string {
	langs := slices.Sorted(maps.Keys(byLang))
	for _, l := range []string{"cross", "unknown"} {
		if i := slices.Index(langs, l); i >= 0 {
			langs = append(slices.Delete(langs, i, i+1), l)
		}
	}
	return langs
}

// ratio formats x, a share of n, or "-" when n is 0.
func ratio(n int, x float64) string {
	if n == 0 {
		return "-"
	}
	return fmt.Sprintf("%.4f", x)
}
