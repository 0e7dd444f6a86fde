// Package quality measures a neardup run against ground truth: pair recall
// per Jaccard band, precision and F1, the same by language and by synthetic
// edit type, and cluster-level errors (documents removed without a true
// partner, true duplicates both kept, clusters chained across dissimilar
// documents), and which copy of synthetic (original, variant) pairs is kept.
//
// In: the run's pairs and clusters (as read from pairs-*.jsonl and
// clusters-*.jsonl), a ground-truth pair list with exact Jaccard, optionally
// document languages and synthetic edit types. Out: a Report.
//
// The measures, at threshold t:
//
//   - A true pair is found directly when the run reports it, or reports the
//     pair of the two documents' exact-duplicate groups (the run verifies one
//     representative of each group of identical documents; documents of one
//     group are found directly too).
//   - A true pair is linked when it is found directly or its two documents
//     end in one cluster (the members of a clusters-*.jsonl line).
//   - Recall is over the true pairs of a band of true Jaccard, of J >= t, and
//     of J >= t + 0.05 (the headline band), each found directly and linked.
//   - Strict precision: reported pairs with true J >= t over reported pairs.
//     Lenient precision: the same with true J >= t - 0.1.
//   - F1 (strict) = 2·P·R/(P + R) with P the strict precision and R the
//     direct recall at J >= t.
//   - The language of a pair is its documents' language when both have the
//     same one, "cross" when they differ, "unknown" when either has none.
//   - Of each synthetic (original, variant) pair, which copy the run keeps:
//     a pair is decided when one of its documents is removed for the other
//     (a member of the cluster whose representative is the other); the
//     original's share of the decided pairs, overall and per edit type,
//     and the undecided pairs by kind (see Kept).
//
// Thresholds derived from t (t - 0.1, t + 0.05) are rounded to the decimal
// they stand for: in float64 0.8 - 0.1 is 0.7000000000000001 and 0.8 + 0.05
// is 0.8500000000000001, which would drop true pairs of exactly 0.7 or 0.85.
package quality

import (
	"bufio"
	"encoding/json"
	"fmt"
	"io"
	"maps"
	"math"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"text/tabwriter"

	"github.com/neardup/neardup/transforms/format/output"
	"github.com/neardup/neardup/transforms/format/record"
)

// Pair is one reported pair.
type Pair struct {
	A, B    string
	Jaccard float64
	Method  string
}

// Cluster is one reported cluster.
type Cluster struct {
	Cluster        string
	Representative string
	Members        []string
}

// TruePair is a ground-truth pair with its exact Jaccard as inter/union.
type TruePair struct {
	A, B         string
	Inter, Union int
}

// Jaccard returns inter/union.
func (p TruePair) Jaccard() float64 { return float64(p.Inter) / float64(p.Union) }

// Synthetic is a planted pair with its edit type: A the original, B the
// variant made from it (id_a and id_b of dev_synthetic.tsv).
type Synthetic struct {
	A, B, Edit, Lang string
	Inter, Union     int
}

// Truth is everything known about the corpus.
type Truth struct {
	Pairs     []TruePair
	Lang      map[string]string // document id -> language, optional
	Synthetic []Synthetic       // optional
}

// Band is a half-open Jaccard interval [Lo, Hi), with Hi > 1 for "= 1.0".
type Band struct {
	Lo, Hi float64
}

func (b Band) String() string {
	if b.Lo == 1 {
		return "1.0"
	}
	return fmt.Sprintf("%.2f-%.2f", b.Lo, b.Hi)
}

// DefaultBands are the bands of the ground truth's statistics, with 0.8-0.9
// split at 0.85 where the quality targets change.
var DefaultBands = []Band{{0.5, 0.7}, {0.7, 0.8}, {0.8, 0.85}, {0.85, 0.9}, {0.9, 1}, {1, 2}}

// Recall counts the true pairs of one group (a band of true Jaccard, J >= t,
// ...) found directly and linked.
type Recall struct {
	Band         string  `json:"band"`
	Pairs        int     `json:"pairs"`
	FoundDirect  int     `json:"found_direct"`
	Linked       int     `json:"linked"`
	RecallDirect float64 `json:"recall_direct"`
	RecallLinked float64 `json:"recall_linked"`
}

func (r *Recall) add(direct, linked bool) {
	r.Pairs++
	if direct {
		r.FoundDirect++
	}
	if linked {
		r.Linked++
	}
}

func (r *Recall) finish() {
	if r.Pairs > 0 {
		r.RecallDirect = float64(r.FoundDirect) / float64(r.Pairs)
		r.RecallLinked = float64(r.Linked) / float64(r.Pairs)
	}
}

// Figures are the pair-level measures over one set of pairs: all of them,
// or those of one language (or "cross").
type Figures struct {
	Bands       []Recall `json:"recall_by_band"`
	AtThreshold Recall   `json:"recall_at_threshold"` // true J >= t
	AtHeadline  Recall   `json:"recall_at_headline"`  // true J >= t + 0.05
	Reported    int      `json:"reported_pairs"`
	// StrictCorrect counts reported pairs with true J >= t, LenientCorrect
	// those with true J >= t - 0.1.
	StrictCorrect    int     `json:"strict_correct_pairs"`
	LenientCorrect   int     `json:"lenient_correct_pairs"`
	StrictPrecision  float64 `json:"strict_precision"`
	LenientPrecision float64 `json:"lenient_precision"`
	// F1Strict is from StrictPrecision and AtThreshold.RecallDirect.
	F1Strict float64 `json:"f1_strict"`
}

func newFigures(t, head float64) *Figures {
	f := &Figures{Bands: newBands()}
	f.AtThreshold.Band = fmt.Sprintf(">=%.2f", t)
	f.AtHeadline.Band = fmt.Sprintf(">=%.2f", head)
	return f
}

func newBands() []Recall {
	out := make([]Recall, len(DefaultBands))
	for i, b := range DefaultBands {
		out[i].Band = b.String()
	}
	return out
}

// addBands counts a true pair of Jaccard j in its band.
func addBands(bands []Recall, j float64, direct, linked bool) {
	for i, b := range DefaultBands {
		if j >= b.Lo && j < b.Hi {
			bands[i].add(direct, linked)
		}
	}
}

func finishBands(bands []Recall) {
	for i := range bands {
		bands[i].finish()
	}
}

func (f *Figures) finish() {
	finishBands(f.Bands)
	f.AtThreshold.finish()
	f.AtHeadline.finish()
	if f.Reported > 0 {
		f.StrictPrecision = float64(f.StrictCorrect) / float64(f.Reported)
		f.LenientPrecision = float64(f.LenientCorrect) / float64(f.Reported)
	}
	if p, r := f.StrictPrecision, f.AtThreshold.RecallDirect; p+r > 0 {
		f.F1Strict = 2 * p * r / (p + r)
	}
}

// Report is the outcome of Evaluate.
type Report struct {
	Threshold         float64 `json:"threshold"`          // t
	HeadlineThreshold float64 `json:"headline_threshold"` // t + 0.05
	LenientThreshold  float64 `json:"lenient_threshold"`  // t - 0.1
	All               Figures `json:"all"`
	// ByLang holds the figures per pair language (see the package doc),
	// with "cross" for pairs of two languages; empty without languages.
	ByLang map[string]Figures `json:"by_lang,omitempty"`
	// ByEdit holds the recall per band of the synthetic pairs per edit type.
	ByEdit         map[string][]Recall `json:"recall_by_edit,omitempty"`
	FalseRemovals  int                 `json:"false_removals"`   // removed, no true partner >= t - 0.1
	MissedRemovals int                 `json:"missed_removals"`  // true pairs >= t with both documents kept
	Chained        int                 `json:"chained_clusters"` // clusters holding two documents with true J < 0.5
	Removals       Removals            `json:"removals"`
	// SyntheticKept: which copy of each synthetic (original, variant) pair
	// the run keeps (see Kept); SyntheticKeptByEdit: the same per edit type.
	// Absent without synthetic pairs.
	SyntheticKept       Kept            `json:"synthetic_kept,omitzero"`
	SyntheticKeptByEdit map[string]Kept `json:"synthetic_kept_by_edit,omitempty"`
	// Examples: "missed" true pairs J >= t not found directly, "unlinked"
	// those not linked, "below_strict" reported pairs with true J < t,
	// "below_lenient" those with true J < t - 0.1 (ten of each at most).
	Examples map[string][]string `json:"examples,omitempty"`
}

// Removals measures each removed document (a member of a cluster but its
// representative) against the document kept for it (the representative):
// is it a near-duplicate of a kept document?
type Removals struct {
	Removed int `json:"removed"`
	// Below: removed documents whose kept document has true J < t;
	// BelowLenient: < t - 0.1 (absent from the truth: < 0.5).
	Below        int `json:"below_threshold"`
	BelowLenient int `json:"below_lenient"`
	// Precision is 1 - Below/Removed (1 when nothing is removed).
	Precision float64 `json:"precision"`
	// HeadPairs: true pairs with J >= t + 0.05; LeftBehind: those whose
	// two documents are both kept (duplicates left behind).
	HeadPairs  int `json:"head_pairs"`
	LeftBehind int `json:"left_behind"`
}

type key struct{ a, b string }

func mk(a, b string) key {
	if a > b {
		a, b = b, a
	}
	return key{a, b}
}

// decimal rounds a derived threshold to the decimal it stands for.
func decimal(x float64) float64 { return math.Round(x*1e9) / 1e9 }

// Evaluate compares a run with the truth at threshold t, with the measures
// of the package doc.
func Evaluate(pairs []Pair, clusters []Cluster, truth Truth, t float64) Report {
	run := newRunView(pairs, clusters)
	truthJ := map[key]float64{}
	for _, p := range truth.Pairs {
		truthJ[mk(p.A, p.B)] = p.Jaccard()
	}
	lenient, head := decimal(t-0.1), decimal(t+0.05)
	r := Report{Threshold: t, HeadlineThreshold: head, LenientThreshold: lenient,
		ByLang: map[string]Figures{}, ByEdit: map[string][]Recall{}, Examples: map[string][]string{}}
	c := newCounts(truth.Lang, t, head, lenient, r.Examples)
	c.truePairs(truth.Pairs, run)
	c.reported(pairs, truthJ)
	c.all.finish()
	r.All = *c.all
	for l, f := range c.byLang {
		f.finish()
		r.ByLang[l] = *f
	}
	recallByEdit(r.ByEdit, truth.Synthetic, run)
	r.FalseRemovals, r.MissedRemovals, r.Chained = clusterErrors(clusters, truth.Pairs, truthJ, t, lenient)
	r.Removals = removals(clusters, truth.Pairs, truthJ, t, head, lenient, c.example)
	if len(truth.Synthetic) > 0 {
		r.SyntheticKept, r.SyntheticKeptByEdit = keptBy(truth.Synthetic, clusters)
	}
	return r
}

// removals measures the removals of clusters against truthJ: see Removals.
func removals(clusters []Cluster, truth []TruePair, truthJ map[key]float64, t, head, lenient float64, example func(kind, format string, args ...any)) Removals {
	var r Removals
	removed := eachRemoval(clusters, func(m, kept string) {
		r.Removed++
		j := truthJ[mk(m, kept)] // absent: below 0.5
		if j < t {
			r.Below++
			example("removed_below", "%s for %s (true J %.3f)", m, kept, j)
		}
		if j < lenient {
			r.BelowLenient++
		}
	})
	for _, p := range truth {
		if p.Jaccard() >= head {
			r.HeadPairs++
			if !removed[p.A] && !removed[p.B] {
				r.LeftBehind++
				example("left_behind", "%s %s (true J %.3f)", p.A, p.B, p.Jaccard())
			}
		}
	}
	r.Precision = 1
	if r.Removed > 0 {
		r.Precision = 1 - float64(r.Below)/float64(r.Removed)
	}
	return r
}

// eachRemoval calls fn with each removed document (a member of a cluster
// but its representative, in the first cluster that lists it) and the
// document kept for it (the representative), and returns the removed set.
func eachRemoval(clusters []Cluster, fn func(removed, kept string)) map[string]bool {
	removed := map[string]bool{}
	for _, c := range clusters {
		for _, m := range c.Members {
			if m == c.Representative || removed[m] {
				continue
			}
			removed[m] = true
			fn(m, c.Representative)
		}
	}
	return removed
}

// runView is what Evaluate knows of a run: its exact-duplicate groups (the
// documents of its "exact" pairs, unioned), the pairs of groups it reports
// and the cluster of each document.
type runView struct {
	group    map[string]string // a document's parent in its group; absent: itself
	reported map[key]bool      // pairs of group roots
	cluster  map[string]int    // index + 1 (a run puts a document in one cluster at most)
}

func newRunView(pairs []Pair, clusters []Cluster) *runView {
	v := &runView{group: map[string]string{}, reported: map[key]bool{}, cluster: map[string]int{}}
	for _, p := range pairs {
		if p.Method == "exact" {
			ra, rb := v.find(p.A), v.find(p.B)
			if ra != rb {
				if ra > rb {
					ra, rb = rb, ra
				}
				v.group[rb] = ra
			}
		}
	}
	for _, p := range pairs {
		v.reported[mk(v.find(p.A), v.find(p.B))] = true
	}
	for i, c := range clusters {
		for _, m := range c.Members {
			v.cluster[m] = i + 1
		}
	}
	return v
}

// find returns the root of x's exact-duplicate group.
func (v *runView) find(x string) string {
	p, ok := v.group[x]
	if !ok || p == x {
		return x
	}
	r := v.find(p)
	v.group[x] = r
	return r
}

// direct reports whether the pair (a, b) is found directly.
func (v *runView) direct(a, b string) bool {
	ga, gb := v.find(a), v.find(b)
	return ga == gb || v.reported[mk(ga, gb)]
}

// sameCluster reports whether a and b end in one cluster.
func (v *runView) sameCluster(a, b string) bool {
	return v.cluster[a] != 0 && v.cluster[a] == v.cluster[b]
}

// counts gathers the pair-level figures, over all pairs and by language,
// and the examples.
type counts struct {
	langs            map[string]string // nil: no figures by language
	t, head, lenient float64
	all              *Figures
	byLang           map[string]*Figures
	examples         map[string][]string
}

func newCounts(langs map[string]string, t, head, lenient float64, examples map[string][]string) *counts {
	c := &counts{langs: langs, t: t, head: head, lenient: lenient, all: newFigures(t, head), byLang: map[string]*Figures{}, examples: examples}
	if langs != nil {
		c.byLang["cross"] = newFigures(t, head) // shown even when empty
	}
	return c
}

// figures returns the figures a pair of a and b counts in.
func (c *counts) figures(a, b string) []*Figures {
	if c.langs == nil {
		return []*Figures{c.all}
	}
	l := pairLang(c.langs, a, b)
	f := c.byLang[l]
	if f == nil {
		f = newFigures(c.t, c.head)
		c.byLang[l] = f
	}
	return []*Figures{c.all, f}
}

// example keeps an example of kind, ten of each at most.
func (c *counts) example(kind, format string, args ...any) {
	if len(c.examples[kind]) < 10 {
		c.examples[kind] = append(c.examples[kind], fmt.Sprintf(format, args...))
	}
}

// truePairs counts the recall of the true pairs.
func (c *counts) truePairs(pairs []TruePair, run *runView) {
	for _, p := range pairs {
		j := p.Jaccard()
		d := run.direct(p.A, p.B)
		l := d || run.sameCluster(p.A, p.B)
		for _, f := range c.figures(p.A, p.B) {
			addBands(f.Bands, j, d, l)
			if j >= c.t {
				f.AtThreshold.add(d, l)
			}
			if j >= c.head {
				f.AtHeadline.add(d, l)
			}
		}
		if j >= c.t && !d {
			c.example("missed", "%s %s %.3f", p.A, p.B, j)
		}
		if j >= c.t && !l {
			c.example("unlinked", "%s %s %.3f", p.A, p.B, j)
		}
	}
}

// reported counts the precision of the reported pairs, whose true Jaccard
// truthJ holds (0 when absent).
func (c *counts) reported(pairs []Pair, truthJ map[key]float64) {
	for _, p := range pairs {
		j := truthJ[mk(p.A, p.B)]
		for _, f := range c.figures(p.A, p.B) {
			f.Reported++
			if j >= c.t {
				f.StrictCorrect++
			}
			if j >= c.lenient {
				f.LenientCorrect++
			}
		}
		if j < c.t {
			c.example("below_strict", "%s %s run %.3f true %.3f", p.A, p.B, p.Jaccard, j)
		}
		if j < c.lenient {
			c.example("below_lenient", "%s %s run %.3f true %.3f", p.A, p.B, p.Jaccard, j)
		}
	}
}

// recallByEdit adds to byEdit the recall per band of the synthetic pairs of
// each edit type.
func recallByEdit(byEdit map[string][]Recall, synthetic []Synthetic, run *runView) {
	for _, s := range synthetic {
		if s.Union == 0 {
			continue
		}
		bands := byEdit[s.Edit]
		if bands == nil {
			bands = newBands()
			byEdit[s.Edit] = bands
		}
		d := run.direct(s.A, s.B)
		addBands(bands, float64(s.Inter)/float64(s.Union), d, d || run.sameCluster(s.A, s.B))
	}
	for _, bands := range byEdit {
		finishBands(bands)
	}
}

// clusterErrors returns the cluster-level figures of Report: false and
// missed removals and chained clusters.
func clusterErrors(clusters []Cluster, truth []TruePair, truthJ map[key]float64, t, lenient float64) (falseRemovals, missedRemovals, chainedClusters int) {
	partner := map[string]float64{} // best true partner Jaccard
	for _, p := range truth {
		j := p.Jaccard()
		partner[p.A] = max(partner[p.A], j)
		partner[p.B] = max(partner[p.B], j)
	}
	removed := map[string]bool{}
	for _, c := range clusters {
		for _, m := range c.Members {
			if m != c.Representative {
				removed[m] = true
				if partner[m] < lenient {
					falseRemovals++
				}
			}
		}
		if len(c.Members) <= 2000 && chained(c.Members, truthJ) {
			chainedClusters++
		}
	}
	for _, p := range truth {
		if p.Jaccard() >= t && !removed[p.A] && !removed[p.B] {
			missedRemovals++
		}
	}
	return falseRemovals, missedRemovals, chainedClusters
}

// pairLang is the language of the pair (a, b): see the package doc.
func pairLang(langs map[string]string, a, b string) string {
	la, lb := langs[a], langs[b]
	switch {
	case la == "" || lb == "":
		return "unknown"
	case la != lb:
		return "cross"
	}
	return la
}

// chained reports whether a cluster holds two members that are not even
// 0.5-similar (absent from the truth).
func chained(members []string, truthJ map[key]float64) bool {
	for i := range members {
		for j := i + 1; j < len(members); j++ {
			if _, ok := truthJ[mk(members[i], members[j])]; !ok {
				return true
			}
		}
	}
	return false
}

// ReadRun reads the pairs of the run whose pairs files match pairsGlob, in
// name order, and its clusters from the clusters shards (compressed or not)
// beside the first pairs file.
func ReadRun(pairsGlob string) ([]Pair, []Cluster, error) {
	files, err := filepath.Glob(pairsGlob)
	if err != nil {
		return nil, nil, err
	}
	if len(files) == 0 {
		return nil, nil, fmt.Errorf("--pairs %q matches no file", pairsGlob)
	}
	slices.Sort(files)
	var pairs []Pair
	for _, f := range files {
		_, err := output.EachIn(f, func(p *output.PairLine) bool {
			pairs = append(pairs, Pair{p.A, p.B, p.Jaccard, p.Method})
			return true
		})
		if err != nil {
			return nil, nil, err
		}
	}
	var clusters []Cluster
	err = output.Each(filepath.Dir(files[0]), output.KindClusters, func(c *output.ClusterLine) bool {
		clusters = append(clusters, Cluster{c.Cluster, c.Representative, c.Members})
		return true
	})
	if err != nil {
		return nil, nil, err
	}
	return pairs, clusters, nil
}

// openText opens the text file at path for reading, as the corpus, the
// truth and the synthetic pairs are all read: gzip or zstd decompressed
// (by name or content), a UTF-8 byte order mark at its start skipped.
func openText(path string) (io.Reader, io.Closer, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, nil, err
	}
	r, err := record.Decompress(path, f) // gzip or zstd, by name or content
	if err != nil {
		f.Close()
		return nil, nil, err
	}
	br := bufio.NewReader(r)
	if b, err := br.Peek(len(utf8BOM)); err == nil && string(b) == utf8BOM {
		br.Discard(len(utf8BOM))
	}
	return br, f, nil
}

// utf8BOM is the byte order mark some tools write at the start of a file.
const utf8BOM = "\xEF\xBB\xBF"

// eachJSON calls fn with a decoder of each line of the JSONL file at path
// (see openText).
func eachJSON(path string, fn func(dec func(any) error) error) error {
	r, c, err := openText(path)
	if err != nil {
		return err
	}
	defer c.Close()
	sc := bufio.NewScanner(r)
	sc.Buffer(make([]byte, 1<<20), 1<<30)
	line := 0
	for sc.Scan() {
		line++
		b := sc.Bytes()
		if err := fn(func(v any) error { return json.Unmarshal(b, v) }); err != nil {
			return fmt.Errorf("%s:%d: %w", path, line, err)
		}
	}
	if err := sc.Err(); err != nil {
		return fmt.Errorf("%s: %w", path, err)
	}
	return nil
}

// ReadTruth reads a ground-truth TSV (id_a id_b jaccard inter union, with a
// header line; see openText). A row whose counts cannot be a Jaccard
// (inter < 0, union < 1, inter > union) or that lists a pair again (in
// either order) is an error naming its line.
func ReadTruth(path string) ([]TruePair, error) {
	var out []TruePair
	first := map[key]int{} // the line of each pair
	err := eachTSV(path, 5, func(line int, f []string) error {
		i, err1 := strconv.Atoi(f[3])
		u, err2 := strconv.Atoi(f[4])
		if err1 != nil || err2 != nil || u <= 0 {
			return fmt.Errorf("bad inter/union %q/%q", f[3], f[4])
		}
		if err := checkCounts(i, u); err != nil {
			return err
		}
		k := mk(f[0], f[1])
		if l, ok := first[k]; ok {
			return fmt.Errorf("the pair %s %s again (first at line %d)", f[0], f[1], l)
		}
		first[k] = line
		out = append(out, TruePair{A: f[0], B: f[1], Inter: i, Union: u})
		return nil
	})
	return out, err
}

// checkCounts checks the shared and distinct shingles of a pair.
func checkCounts(inter, union int) error {
	switch {
	case inter < 0 || union < 0:
		return fmt.Errorf("negative inter/union %d/%d", inter, union)
	case inter > union:
		return fmt.Errorf("inter %d more than union %d (Jaccard above 1)", inter, union)
	}
	return nil
}

// ReadSynthetic reads dev_synthetic.tsv: id_a id_b edit_type lang jaccard
// inter union params (see openText); counts that cannot be a Jaccard are an
// error naming the line (0/0: a variant without shingles).
func ReadSynthetic(path string) ([]Synthetic, error) {
	var out []Synthetic
	err := eachTSV(path, 7, func(_ int, f []string) error {
		i, err1 := strconv.Atoi(f[5])
		u, err2 := strconv.Atoi(f[6])
		if err1 != nil || err2 != nil {
			return fmt.Errorf("bad inter/union %q/%q", f[5], f[6])
		}
		if err := checkCounts(i, u); err != nil {
			return err
		}
		out = append(out, Synthetic{A: f[0], B: f[1], Edit: f[2], Lang: f[3], Inter: i, Union: u})
		return nil
	})
	return out, err
}

// ReadLangs reads the "lang" field of every document of a JSONL corpus.
func ReadLangs(path string) (map[string]string, error) {
	langs := map[string]string{}
	err := eachJSON(path, func(dec func(any) error) error {
		var d struct{ ID, Lang string }
		if err := dec(&d); err != nil {
			return err
		}
		langs[d.ID] = d.Lang
		return nil
	})
	return langs, err
}

// eachTSV calls fn with the 1-based line number and the tab-separated
// fields of each line of the TSV file at path (see openText) but a first
// line starting "id_a", the header; a line of fewer than cols fields is an
// error naming it.
func eachTSV(path string, cols int, fn func(line int, fields []string) error) error {
	r, c, err := openText(path)
	if err != nil {
		return err
	}
	defer c.Close()
	sc := bufio.NewScanner(r)
	line := 0
	for sc.Scan() {
		line++
		if line == 1 && strings.HasPrefix(sc.Text(), "id_a") {
			continue
		}
		fields := strings.Split(sc.Text(), "\t")
		if len(fields) < cols {
			return fmt.Errorf("%s:%d: want %d columns, got %d", path, line, cols, len(fields))
		}
		if err := fn(line, fields); err != nil {
			return fmt.Errorf("%s:%d: %w", path, line, err)
		}
	}
	if err := sc.Err(); err != nil {
		return fmt.Errorf("%s: %w", path, err)
	}
	return nil
}

// Print writes the report as tables, each measure named as in the package
// doc.
func (r Report) Print(w io.Writer) {
	fmt.Fprintf(w, "threshold t = %.2f; headline band J >= %.2f\n", r.Threshold, r.HeadlineThreshold)
	fmt.Fprintf(w, "direct: the pair or the pair of its exact-duplicate groups is reported; linked: direct, or both documents in one cluster\n")
	fmt.Fprintf(w, "strict precision: reported pairs with true J >= %.2f; lenient: true J >= %.2f; F1 from strict precision and direct recall at J >= %.2f\n",
		r.Threshold, r.LenientThreshold, r.Threshold)
	// Languages in name order, then "cross" and "unknown".
	langs := slices.Sorted(maps.Keys(r.ByLang))
	for _, l := range []string{"cross", "unknown"} {
		if i := slices.Index(langs, l); i >= 0 {
			langs = append(slices.Delete(langs, i, i+1), l)
		}
	}
	names := append([]string{"all"}, langs...)
	width := 0
	for _, n := range names {
		width = max(width, len(n))
	}

	fmt.Fprintf(w, "\nrecall by true Jaccard band, direct/linked (true pairs):\n")
	tw := tabwriter.NewWriter(w, 0, 0, 2, ' ', 0)
	fmt.Fprint(tw, "  group")
	for _, b := range DefaultBands {
		fmt.Fprintf(tw, "\t%s", b)
	}
	fmt.Fprintln(tw)
	printBands(tw, "all", r.All.Bands)
	for _, l := range langs {
		printBands(tw, l, r.ByLang[l].Bands)
	}
	for _, e := range slices.Sorted(maps.Keys(r.ByEdit)) {
		printBands(tw, "edit "+e, r.ByEdit[e])
	}
	tw.Flush()

	fmt.Fprintf(w, "\nrecall at J >= t and in the headline band, precision, F1:\n")
	tw = tabwriter.NewWriter(w, 0, 0, 2, ' ', tabwriter.AlignRight)
	fmt.Fprintf(tw, "%-*s\tpairs J>=%.2f\tdirect\tlinked\tpairs J>=%.2f\tdirect\tlinked\treported\tstrict P\tlenient P\tF1 (strict)\t\n",
		width, "group", r.Threshold, r.HeadlineThreshold)
	printFigures(tw, fmt.Sprintf("%-*s", width, "all"), r.All)
	for _, l := range langs {
		printFigures(tw, fmt.Sprintf("%-*s", width, l), r.ByLang[l])
	}
	tw.Flush()

	fmt.Fprintf(w, "\nclusters: false removals %d (removed, no true partner >= %.2f), missed removals %d (true J >= %.2f, both kept), chained clusters %d (two members with true J < 0.5)\n",
		r.FalseRemovals, r.LenientThreshold, r.MissedRemovals, r.Threshold, r.Chained)
	m := r.Removals
	pct := func(n, of int) float64 {
		if of == 0 {
			return 0
		}
		return 100 * float64(n) / float64(of)
	}
	fmt.Fprintf(w, "removals: %d removed; kept document below J %.2f: %d (%.2f%%), below %.2f: %d (%.2f%%); removal precision %.4f\n",
		m.Removed, r.Threshold, m.Below, pct(m.Below, m.Removed), r.LenientThreshold, m.BelowLenient, pct(m.BelowLenient, m.Removed), m.Precision)
	fmt.Fprintf(w, "left behind: %d of %d true pairs J >= %.2f have both documents kept (%.2f%%)\n",
		m.LeftBehind, m.HeadPairs, r.HeadlineThreshold, pct(m.LeftBehind, m.HeadPairs))
	printKept(w, r)
}

func printBands(w io.Writer, name string, rs []Recall) {
	fmt.Fprintf(w, "  %s", name)
	for _, b := range rs {
		if b.Pairs == 0 {
			fmt.Fprint(w, "\t-")
			continue
		}
		fmt.Fprintf(w, "\t%.3f/%.3f (%d)", b.RecallDirect, b.RecallLinked, b.Pairs)
	}
	fmt.Fprintln(w)
}

func printFigures(w io.Writer, name string, f Figures) {
	ratio := func(n int, x float64) string {
		if n == 0 {
			return "-"
		}
		return fmt.Sprintf("%.4f", x)
	}
	fmt.Fprintf(w, "%s\t%d\t%s\t%s\t%d\t%s\t%s\t%d\t%s\t%s\t%s\t\n", name,
		f.AtThreshold.Pairs, ratio(f.AtThreshold.Pairs, f.AtThreshold.RecallDirect), ratio(f.AtThreshold.Pairs, f.AtThreshold.RecallLinked),
		f.AtHeadline.Pairs, ratio(f.AtHeadline.Pairs, f.AtHeadline.RecallDirect), ratio(f.AtHeadline.Pairs, f.AtHeadline.RecallLinked),
		f.Reported, ratio(f.Reported, f.StrictPrecision), ratio(f.Reported, f.LenientPrecision),
		ratio(f.AtThreshold.Pairs+f.Reported, f.F1Strict))
}
