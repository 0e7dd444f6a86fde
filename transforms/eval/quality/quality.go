// Package quality measures a neardup run against ground truth: pair recall
// per Jaccard band, precision, F1, the same by language and by synthetic edit
// type, and cluster-level errors (documents removed without a true partner,
// true duplicates both kept, clusters chained across dissimilar documents).
//
// In: the run's pairs and clusters (as read from pairs-*.jsonl and
// clusters-*.jsonl), a ground-truth pair list with exact Jaccard, optionally
// document languages and synthetic edit types. Out: a Report.
package quality

import (
	"bufio"
	"encoding/json"
	"fmt"
	"io"
	"math"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
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

// Synthetic is a planted (original, variant) pair with its edit type.
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

// Recall is found/total for one group of true pairs.
type Recall struct {
	Band   string  `json:"band"`
	Pairs  int     `json:"pairs"`
	Found  int     `json:"found"`
	Recall float64 `json:"recall"`
}

// Report is the outcome of Evaluate.
type Report struct {
	Threshold float64             `json:"threshold"`
	Bands     []Recall            `json:"recall_by_band"`
	ByLang    map[string][]Recall `json:"recall_by_lang,omitempty"`
	ByEdit    map[string][]Recall `json:"recall_by_edit,omitempty"`
	// AtThreshold is the recall over true pairs with J >= threshold.
	AtThreshold Recall `json:"recall_at_threshold"`
	Reported    int    `json:"reported_pairs"`
	// Correct counts reported pairs whose true Jaccard >= threshold - 0.1.
	Correct        int                 `json:"correct_pairs"`
	Precision      float64             `json:"precision"`
	F1             float64             `json:"f1"`
	PrecisionLang  map[string]float64  `json:"precision_by_lang,omitempty"`
	FalseRemovals  int                 `json:"false_removals"`   // removed, no true partner >= threshold - 0.1
	MissedRemovals int                 `json:"missed_removals"`  // true pairs >= threshold with both documents kept
	Chained        int                 `json:"chained_clusters"` // clusters holding two documents with true J < 0.5
	Examples       map[string][]string `json:"examples,omitempty"`
}

type key struct{ a, b string }

func mk(a, b string) key {
	if a > b {
		a, b = b, a
	}
	return key{a, b}
}

// Evaluate compares a run with the truth at threshold t. A true pair counts
// as found when the run reports it, directly or through exact duplicates
// (the run verifies one representative of each group of identical
// documents, so a pair (x, y) is found when x and y are exact duplicates of
// each other or when the pair of their exact groups is reported).
func Evaluate(pairs []Pair, clusters []Cluster, truth Truth, t float64) Report {
	// Exact groups: union the documents of method "exact" pairs.
	group := map[string]string{}
	var find func(string) string
	find = func(x string) string {
		p, ok := group[x]
		if !ok || p == x {
			return x
		}
		r := find(p)
		group[x] = r
		return r
	}
	for _, p := range pairs {
		if p.Method == "exact" {
			ra, rb := find(p.A), find(p.B)
			if ra != rb {
				if ra > rb {
					ra, rb = rb, ra
				}
				group[rb] = ra
			}
		}
	}
	reported := map[key]bool{}
	for _, p := range pairs {
		reported[mk(find(p.A), find(p.B))] = true
	}
	found := func(a, b string) bool {
		ga, gb := find(a), find(b)
		return ga == gb || reported[mk(ga, gb)]
	}
	truthJ := map[key]float64{}
	for _, p := range truth.Pairs {
		truthJ[mk(p.A, p.B)] = p.Jaccard()
	}

	r := Report{Threshold: t, ByLang: map[string][]Recall{}, ByEdit: map[string][]Recall{}, PrecisionLang: map[string]float64{}, Examples: map[string][]string{}}
	tally := func(ps []TruePair) []Recall {
		out := make([]Recall, len(DefaultBands))
		for i, b := range DefaultBands {
			out[i].Band = b.String()
		}
		for _, p := range ps {
			j := p.Jaccard()
			for i, b := range DefaultBands {
				if j >= b.Lo && j < b.Hi {
					out[i].Pairs++
					if found(p.A, p.B) {
						out[i].Found++
					}
				}
			}
		}
		for i := range out {
			if out[i].Pairs > 0 {
				out[i].Recall = float64(out[i].Found) / float64(out[i].Pairs)
			}
		}
		return out
	}
	r.Bands = tally(truth.Pairs)
	r.AtThreshold.Band = fmt.Sprintf(">=%.2f", t)
	for _, p := range truth.Pairs {
		if p.Jaccard() >= t {
			r.AtThreshold.Pairs++
			if found(p.A, p.B) {
				r.AtThreshold.Found++
			} else if len(r.Examples["missed"]) < 10 {
				r.Examples["missed"] = append(r.Examples["missed"], fmt.Sprintf("%s %s %.3f", p.A, p.B, p.Jaccard()))
			}
		}
	}
	if r.AtThreshold.Pairs > 0 {
		r.AtThreshold.Recall = float64(r.AtThreshold.Found) / float64(r.AtThreshold.Pairs)
	}
	if truth.Lang != nil {
		byLang := map[string][]TruePair{}
		for _, p := range truth.Pairs {
			l := truth.Lang[p.A]
			byLang[l] = append(byLang[l], p)
		}
		for l, ps := range byLang {
			r.ByLang[l] = tally(ps)
		}
	}
	if len(truth.Synthetic) > 0 {
		byEdit := map[string][]TruePair{}
		for _, s := range truth.Synthetic {
			if s.Union == 0 {
				continue
			}
			byEdit[s.Edit] = append(byEdit[s.Edit], TruePair{A: s.A, B: s.B, Inter: s.Inter, Union: s.Union})
		}
		for e, ps := range byEdit {
			r.ByEdit[e] = tally(ps)
		}
	}

	// Precision over reported pairs. near is t - 0.1 rounded to the decimal
	// it stands for: in float64 0.8 - 0.1 is 0.7000000000000001, which would
	// count a true J of exactly 0.7 as wrong.
	near := math.Round((t-0.1)*1e9) / 1e9
	okLang, allLang := map[string]int{}, map[string]int{}
	for _, p := range pairs {
		r.Reported++
		ok := truthJ[mk(p.A, p.B)] >= near
		if ok {
			r.Correct++
		} else if len(r.Examples["false"]) < 10 {
			r.Examples["false"] = append(r.Examples["false"], fmt.Sprintf("%s %s est %.3f true %.3f", p.A, p.B, p.Jaccard, truthJ[mk(p.A, p.B)]))
		}
		if truth.Lang != nil {
			l := truth.Lang[p.A]
			allLang[l]++
			if ok {
				okLang[l]++
			}
		}
	}
	if r.Reported > 0 {
		r.Precision = float64(r.Correct) / float64(r.Reported)
	}
	for l, n := range allLang {
		r.PrecisionLang[l] = float64(okLang[l]) / float64(n)
	}
	if r.Precision+r.AtThreshold.Recall > 0 {
		r.F1 = 2 * r.Precision * r.AtThreshold.Recall / (r.Precision + r.AtThreshold.Recall)
	}

	// Cluster-level figures.
	partner := map[string]float64{} // best true partner Jaccard
	for _, p := range truth.Pairs {
		j := p.Jaccard()
		partner[p.A] = max(partner[p.A], j)
		partner[p.B] = max(partner[p.B], j)
	}
	removed := map[string]bool{}
	for _, c := range clusters {
		for _, m := range c.Members {
			if m != c.Representative {
				removed[m] = true
				if partner[m] < near {
					r.FalseRemovals++
				}
			}
		}
		if len(c.Members) <= 2000 && chained(c.Members, truthJ) {
			r.Chained++
		}
	}
	for _, p := range truth.Pairs {
		if p.Jaccard() >= t && !removed[p.A] && !removed[p.B] {
			r.MissedRemovals++
		}
	}
	return r
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

// ReadRun reads the pairs and clusters of the run whose pairs glob is given;
// clusters are read from clusters-*.jsonl beside the first pairs file.
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
		err := eachJSON(f, func(dec func(any) error) error {
			var p struct {
				A, B    string
				Jaccard float64
				Method  string
			}
			if err := dec(&p); err != nil {
				return err
			}
			pairs = append(pairs, Pair{p.A, p.B, p.Jaccard, p.Method})
			return nil
		})
		if err != nil {
			return nil, nil, err
		}
	}
	cfiles, _ := filepath.Glob(filepath.Join(filepath.Dir(files[0]), "clusters-*.jsonl"))
	slices.Sort(cfiles)
	var clusters []Cluster
	for _, f := range cfiles {
		err := eachJSON(f, func(dec func(any) error) error {
			var c Cluster
			if err := dec(&c); err != nil {
				return err
			}
			clusters = append(clusters, c)
			return nil
		})
		if err != nil {
			return nil, nil, err
		}
	}
	return pairs, clusters, nil
}

func eachJSON(path string, fn func(dec func(any) error) error) error {
	f, err := os.Open(path)
	if err != nil {
		return err
	}
	defer f.Close()
	sc := bufio.NewScanner(f)
	sc.Buffer(make([]byte, 1<<20), 1<<30)
	line := 0
	for sc.Scan() {
		line++
		b := sc.Bytes()
		if err := fn(func(v any) error { return json.Unmarshal(b, v) }); err != nil {
			return fmt.Errorf("%s:%d: %w", path, line, err)
		}
	}
	return sc.Err()
}

// ReadTruth reads a ground-truth TSV (id_a id_b jaccard inter union, with a
// header line).
func ReadTruth(path string) ([]TruePair, error) {
	var out []TruePair
	err := eachTSV(path, 5, func(f []string) error {
		i, err1 := strconv.Atoi(f[3])
		u, err2 := strconv.Atoi(f[4])
		if err1 != nil || err2 != nil || u <= 0 {
			return fmt.Errorf("bad inter/union %q/%q", f[3], f[4])
		}
		out = append(out, TruePair{A: f[0], B: f[1], Inter: i, Union: u})
		return nil
	})
	return out, err
}

// ReadSynthetic reads dev_synthetic.tsv: id_a id_b edit_type lang jaccard
// inter union params.
func ReadSynthetic(path string) ([]Synthetic, error) {
	var out []Synthetic
	err := eachTSV(path, 7, func(f []string) error {
		i, err1 := strconv.Atoi(f[5])
		u, err2 := strconv.Atoi(f[6])
		if err1 != nil || err2 != nil {
			return fmt.Errorf("bad inter/union %q/%q", f[5], f[6])
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

func eachTSV(path string, cols int, fn func([]string) error) error {
	f, err := os.Open(path)
	if err != nil {
		return err
	}
	defer f.Close()
	sc := bufio.NewScanner(f)
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
		if err := fn(fields); err != nil {
			return fmt.Errorf("%s:%d: %w", path, line, err)
		}
	}
	return sc.Err()
}

// Print writes the report as tables.
func (r Report) Print(w io.Writer) {
	fmt.Fprintf(w, "pair recall by true Jaccard band:\n")
	printBands(w, "all", r.Bands)
	for _, l := range sortedKeys(r.ByLang) {
		printBands(w, l, r.ByLang[l])
	}
	if len(r.ByEdit) > 0 {
		fmt.Fprintf(w, "\nrecall by synthetic edit type:\n")
		for _, e := range sortedKeys(r.ByEdit) {
			printBands(w, e, r.ByEdit[e])
		}
	}
	fmt.Fprintf(w, "\nrecall at J >= %.2f: %d/%d = %.4f\n", r.Threshold, r.AtThreshold.Found, r.AtThreshold.Pairs, r.AtThreshold.Recall)
	fmt.Fprintf(w, "precision (true J >= %.2f): %d/%d = %.4f", r.Threshold-0.1, r.Correct, r.Reported, r.Precision)
	for _, l := range sortedKeys(r.PrecisionLang) {
		fmt.Fprintf(w, "  %s %.4f", l, r.PrecisionLang[l])
	}
	fmt.Fprintf(w, "\nF1 %.4f\n", r.F1)
	fmt.Fprintf(w, "false removals %d, missed removals %d, chained clusters %d\n", r.FalseRemovals, r.MissedRemovals, r.Chained)
}

func printBands(w io.Writer, name string, rs []Recall) {
	fmt.Fprintf(w, "  %-12s", name)
	for _, b := range rs {
		if b.Pairs == 0 {
			fmt.Fprintf(w, "  %s: -", b.Band)
			continue
		}
		fmt.Fprintf(w, "  %s: %.3f (%d)", b.Band, b.Recall, b.Pairs)
	}
	fmt.Fprintln(w)
}

func sortedKeys[V any](m map[string]V) []string {
	ks := make([]string, 0, len(m))
	for k := range m {
		ks = append(ks, k)
	}
	slices.Sort(ks)
	return ks
}
