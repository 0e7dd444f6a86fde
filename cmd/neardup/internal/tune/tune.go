// Package tune measures, on a sample of a corpus, how neardup's parameters
// trade recall for cost at a Jaccard threshold: LSH bands and rows, the
// number of permutations, the shingle size and the SimHash Hamming bound.
//
// In: documents (text), a threshold. It finds every pair of the sample with
// exact Jaccard >= threshold - 0.2 (candidates from a loose 32x4 banding,
// which misses a pair at J = 0.6 with probability 1e-5, then the exact
// Jaccard of the shingle sets), and for each choice reports the expected
// false-negative rate (from the banding formula and, measured, on the
// sample's pairs) and the cost in false-positive candidates. Out: a Report.
package tune

import (
	"cmp"
	"fmt"
	"io"
	"math"
	"math/bits"
	"slices"
	"sort"

	"github.com/neardup/neardup/transforms/match/blocking"
	"github.com/neardup/neardup/transforms/sketch/minhash"
	"github.com/neardup/neardup/transforms/sketch/signature"
	"github.com/neardup/neardup/transforms/sketch/similarity"
	"github.com/neardup/neardup/transforms/text/normalize"
	"github.com/neardup/neardup/transforms/text/tokenize"
)

// Options say what to measure.
type Options struct {
	Threshold float64
	Tokens    tokenize.Mode
	Shingles  []int // shingle sizes to compare; the first is the one the rest is measured with
	Perms     []int // permutation counts to compare (the largest must be >= 128)
	Norm      normalize.Form
}

// DefaultOptions measures shingle sizes 3, 5 and 7 and 64 to 256
// permutations, on texts normalized as 'neardup run' does by default
// (folded to one script).
func DefaultOptions(t float64) Options {
	return Options{Threshold: t, Tokens: tokenize.Char, Shingles: []int{5, 3, 7}, Perms: []int{128, 64, 256},
		Norm: normalize.Form{FoldScript: true}}
}

// BandsRow is one banding design.
type BandsRow struct {
	Bands, Rows, Perms int
	ExpectedRecall     float64 // P(share a band) at the threshold
	MeasuredRecall     float64 // on the sample's pairs with J >= threshold
	FalsePositive      float64 // datasketch's weighted FP integral
	FalseNegative      float64 // and FN integral
	CandidatesPerDoc   float64 // sample pairs sharing a band, per document
	Chosen             bool    // what blocking.ChooseBands picks
}

// HammingRow is one SimHash bound.
type HammingRow struct {
	K                     int
	Recall, Precision, F1 float64 // at J >= threshold; correct = J >= threshold - 0.1
	Pairs                 int     // pairs within k bits
}

// ShingleRow describes one shingle size.
type ShingleRow struct {
	N              int
	PairsAbove     int     // pairs with J >= threshold
	MedianShingles int     // per document
	EstimateError  float64 // mean |estimate - exact| of 128-permutation MinHash over pairs >= threshold - 0.2
}

// Report is what Run measured.
type Report struct {
	Docs, Pairs     int // documents, pairs with J >= threshold - 0.2 (shingle size Shingles[0])
	Bands           []BandsRow
	Lengths         []LengthRow // the chosen banding's recall per length class
	Hamming         []HammingRow
	ShingleSizes    []ShingleRow
	BestK           int
	RecommendedSize int
}

type pair struct {
	a, b int
	j    float64
}

// Run measures texts under o.
func Run(texts []string, o Options) (*Report, error) {
	r := &Report{Docs: len(texts)}
	norm := make([]string, len(texts))
	for i, t := range texts {
		norm[i] = o.Norm.Text(t)
	}
	var base []pair
	var fps []uint64
	var sigs [][]uint64
	var docSizes []int
	for si, n := range o.Shingles {
		cfg := signature.DefaultConfig()
		cfg.Tokens, cfg.N, cfg.Perms = o.Tokens, n, slices.Max(o.Perms)
		s, err := signature.New(cfg)
		if err != nil {
			return nil, err
		}
		sets := make([][]uint64, len(norm))
		msigs := make([][]uint64, len(norm))
		var sizes []int
		var sig signature.Signature
		simh := make([]uint64, len(norm))
		for i, t := range norm {
			sets[i] = slices.Clone(s.ShingleSet(t))
			s.Sign(t, &sig)
			msigs[i] = slices.Clone(sig.MinHash)
			simh[i] = sig.SimHash
			sizes = append(sizes, len(sets[i]))
		}
		if si == 0 {
			docSizes = slices.Clone(sizes)
		}
		pairs := findPairs(msigs, sets, o.Threshold-0.2)
		row := ShingleRow{N: n}
		slices.Sort(sizes)
		if len(sizes) > 0 {
			row.MedianShingles = sizes[len(sizes)/2]
		}
		for _, p := range pairs {
			if p.j >= o.Threshold {
				row.PairsAbove++
			}
			row.EstimateError += math.Abs(minhash.Estimate(msigs[p.a][:128], msigs[p.b][:128]) - p.j)
		}
		if len(pairs) > 0 {
			row.EstimateError /= float64(len(pairs))
		}
		r.ShingleSizes = append(r.ShingleSizes, row)
		if si == 0 {
			base, fps, sigs = pairs, simh, msigs
			r.Pairs = len(pairs)
		}
	}
	r.Bands = bandRows(base, sigs, o)
	r.Lengths = lengthRows(base, sigs, docSizes, o)
	r.Hamming, r.BestK = hammingRows(base, fps, o.Threshold)
	r.RecommendedSize = o.Shingles[0]
	if r.ShingleSizes[0].MedianShingles < 3*o.Shingles[0] {
		// Short documents: a change touches most shingles; take the smallest size measured.
		r.RecommendedSize = slices.Min(o.Shingles)
	}
	return r, nil
}

// findPairs returns every pair with exact Jaccard >= lo among the documents
// that share a band of a loose 32x4 banding of their sketches.
func findPairs(sigs, sets [][]uint64, lo float64) []pair {
	loose := blocking.Bands{B: 32, R: 4}
	buckets := map[uint64][]int{}
	var keys []uint64
	for i, s := range sigs {
		if len(sets[i]) == 0 {
			continue
		}
		keys = loose.AppendKeys(keys[:0], s)
		for _, k := range keys {
			buckets[k] = append(buckets[k], i)
		}
	}
	seen := map[[2]int]bool{}
	var out []pair
	for _, docs := range buckets {
		for x := 0; x < len(docs); x++ {
			for y := x + 1; y < len(docs); y++ {
				k := [2]int{docs[x], docs[y]}
				if seen[k] {
					continue
				}
				seen[k] = true
				if j := similarity.Jaccard(sets[k[0]], sets[k[1]]); j >= lo {
					out = append(out, pair{k[0], k[1], j})
				}
			}
		}
	}
	sort.Slice(out, func(i, j int) bool {
		if out[i].a != out[j].a {
			return out[i].a < out[j].a
		}
		return out[i].b < out[j].b
	})
	return out
}

func bandRows(pairs []pair, sigs [][]uint64, o Options) []BandsRow {
	var rows []BandsRow
	for _, perms := range o.Perms {
		chosen := blocking.ChooseBands(o.Threshold, perms, blocking.DefaultWeights)
		// For each row count the most bands that fit, and the chosen
		// design, which may use fewer permutations.
		var designs []blocking.Bands
		for _, r := range []int{2, 3, 4, 5, 6, 7, 8, 10, 12, 16} {
			if b := perms / r; b >= 1 {
				designs = append(designs, blocking.Bands{B: b, R: r})
			}
		}
		if !slices.Contains(designs, chosen) {
			designs = append(designs, chosen)
			slices.SortFunc(designs, func(a, b blocking.Bands) int { return cmp.Or(cmp.Compare(a.R, b.R), cmp.Compare(a.B, b.B)) })
		}
		for _, bd := range designs {
			b, r := bd.B, bd.R
			row := BandsRow{Bands: b, Rows: r, Perms: perms, ExpectedRecall: bd.Prob(o.Threshold),
				FalsePositive: bd.FalsePositive(o.Threshold), FalseNegative: bd.FalseNegative(o.Threshold),
				Chosen: bd == chosen}
			if perms <= len(firstOr(sigs)) {
				row.MeasuredRecall, row.CandidatesPerDoc = measureBands(bd, pairs, sigs, o.Threshold)
			} else {
				row.MeasuredRecall = math.NaN()
				row.CandidatesPerDoc = math.NaN()
			}
			rows = append(rows, row)
		}
	}
	return rows
}

func firstOr(s [][]uint64) []uint64 {
	if len(s) == 0 {
		return nil
	}
	return s[0]
}

// measureBands returns the share of pairs >= t that share a band, and the
// pairs of the sample sharing a band per document.
func measureBands(bd blocking.Bands, pairs []pair, sigs [][]uint64, t float64) (recall, perDoc float64) {
	var n, found int
	for _, p := range pairs {
		if p.j >= t {
			n++
			if sharesBand(bd, sigs[p.a], sigs[p.b]) {
				found++
			}
		}
	}
	if n > 0 {
		recall = float64(found) / float64(n)
	}
	buckets := map[uint64]int{}
	var keys []uint64
	for _, s := range sigs {
		keys = bd.AppendKeys(keys[:0], s)
		for _, k := range keys {
			buckets[k]++
		}
	}
	var cands float64
	for _, c := range buckets {
		cands += float64(c) * float64(c-1) / 2
	}
	return recall, cands / float64(max(len(sigs), 1))
}

func hammingRows(pairs []pair, fps []uint64, t float64) ([]HammingRow, int) {
	jac := map[[2]int]float64{}
	for _, p := range pairs {
		jac[[2]int{p.a, p.b}] = p.j
	}
	var above int
	for _, p := range pairs {
		if p.j >= t {
			above++
		}
	}
	// All pairs by distance (a sample of a few thousand documents).
	const maxK = 16
	var within, correct, found [maxK + 1]int
	for a := range fps {
		for b := a + 1; b < len(fps); b++ {
			d := bits.OnesCount64(fps[a] ^ fps[b])
			if d > maxK {
				continue
			}
			j := jac[[2]int{a, b}]
			for k := d; k <= maxK; k++ {
				within[k]++
				if j >= t-0.1 {
					correct[k]++
				}
				if j >= t {
					found[k]++
				}
			}
		}
	}
	var rows []HammingRow
	best, bestF1 := 0, -1.0
	for k := 0; k <= maxK; k++ {
		row := HammingRow{K: k, Pairs: within[k]}
		if above > 0 {
			row.Recall = float64(found[k]) / float64(above)
		}
		if within[k] > 0 {
			row.Precision = float64(correct[k]) / float64(within[k])
		}
		if row.Recall+row.Precision > 0 {
			row.F1 = 2 * row.Recall * row.Precision / (row.Recall + row.Precision)
		}
		if row.F1 > bestF1 {
			best, bestF1 = k, row.F1
		}
		rows = append(rows, row)
	}
	return rows, best
}

// Print writes the report as tables with the recommendations.
func (r *Report) Print(w io.Writer, t float64) {
	fmt.Fprintf(w, "sample: %d documents, %d pairs with exact Jaccard >= %.2f\n\n", r.Docs, r.Pairs, t-0.2)
	fmt.Fprintf(w, "shingle size   pairs >= %.2f   median shingles/doc   MinHash-128 mean abs error\n", t)
	for _, s := range r.ShingleSizes {
		fmt.Fprintf(w, "%12d   %13d   %19d   %26.4f\n", s.N, s.PairsAbove, s.MedianShingles, s.EstimateError)
	}
	fmt.Fprintf(w, "\nLSH bands x rows: expected and measured recall at J = %.2f, FP/FN integrals, candidate pairs per document\n", t)
	fmt.Fprintf(w, "%5s %5s %5s  %8s %8s  %8s %8s  %10s\n", "perms", "bands", "rows", "expected", "measured", "FP", "FN", "cand/doc")
	for _, b := range r.Bands {
		mark := ""
		if b.Chosen {
			mark = "  <- chosen for these permutations"
		}
		fmt.Fprintf(w, "%5d %5d %5d  %8.4f %8.4f  %8.4f %8.4f  %10.2f%s\n", b.Perms, b.Bands, b.Rows, b.ExpectedRecall, b.MeasuredRecall, b.FalsePositive, b.FalseNegative, b.CandidatesPerDoc, mark)
	}
	printLengths(w, r.Lengths, t)
	fmt.Fprintf(w, "\nSimHash alone: recall at J >= %.2f and precision (J >= %.2f) by Hamming bound k\n", t, t-0.1)
	fmt.Fprintf(w, "%3s %8s %9s %6s %8s\n", "k", "recall", "precision", "F1", "pairs")
	for _, h := range r.Hamming {
		fmt.Fprintf(w, "%3d %8.4f %9.4f %6.4f %8d\n", h.K, h.Recall, h.Precision, h.F1, h.Pairs)
	}
	fmt.Fprintf(w, "\nrecommended: --shingle char:%d (or word:%d), --perms 128 with the chosen banding, --hamming %d for --method simhash (best F1)\n",
		r.RecommendedSize, r.RecommendedSize, r.BestK)
}
