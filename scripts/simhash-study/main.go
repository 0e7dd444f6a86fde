// Command simhash-study measures SimHash alone as a near-duplicate detector
// on the dev corpus (../shared/corpus, or $NEARDUP_CORPUS): for variants of
// the fingerprint (features, weights, 64 or 128 bits) and every Hamming
// bound k, the pairs a SimHash-only run would report, scored by the same
// code as `neardup eval` (transforms/eval/quality): strict precision (true
// J >= t), direct recall at J >= t, F1 (strict).
//
// It mirrors `neardup run --method simhash --hamming k`: documents are
// normalized and shingled by the pipeline's packages (char 5-grams, the
// default); documents with the same normalized text form an exact-duplicate
// group whose first document stands for it (reported as "exact" pairs);
// documents without a shingle are never paired; every pair of
// representatives within k bits is reported. The pipeline's tables find
// every pair within k bits (Manku's pigeonhole), so the brute-force
// comparison of all pairs here finds the same pairs; -layouts prints what
// each table layout costs in candidate pairs for the best bounds.
//
//	NEARDUP_CORPUS=../shared/corpus go run ./scripts/simhash-study [-t 0.8] [-layouts]
package main

import (
	"flag"
	"fmt"
	"math"
	"math/bits"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"text/tabwriter"

	"github.com/neardup/neardup/transforms/eval/devcorpus"
	"github.com/neardup/neardup/transforms/eval/quality"
	"github.com/neardup/neardup/transforms/match/blocking"
	"github.com/neardup/neardup/transforms/mix"
	"github.com/neardup/neardup/transforms/sketch/signature"
	"github.com/neardup/neardup/transforms/sketch/simhash"
	"github.com/neardup/neardup/transforms/sketch/similarity"
	"github.com/neardup/neardup/transforms/sketch/weight"
	"github.com/neardup/neardup/transforms/text/normalize"
)

// doc is one representative document's features.
type doc struct {
	id       string
	tokens   []uint64 // token hashes, in order
	shingles []uint64 // shingle hashes, in order, repeats included
	short    int      // distinct shingles
}

// variant is one way to compute a fingerprint.
type variant struct {
	name string
	bits int // 64 or 128
	fp   func(d *doc, seed uint64) uint64
}

func main() {
	t := flag.Float64("t", 0.8, "Jaccard threshold")
	layouts := flag.Bool("layouts", false, "also print the candidate pairs of Manku's table layouts for the best bounds")
	only := flag.String("variants", "", "comma-separated variant names to run (default: all)")
	flag.Parse()
	if err := run(*t, *layouts, *only); err != nil {
		fmt.Fprintln(os.Stderr, "simhash-study:", err)
		os.Exit(1)
	}
}

func run(t float64, layouts bool, only string) error {
	reps, exact, truth, err := loadReps()
	if err != nil {
		return err
	}
	fmt.Printf("dev corpus: %d representatives with shingles, %d exact-duplicate pairs, threshold %.2f\n\n",
		len(reps), len(exact), t)
	variants := makeVariants(reps)
	if only != "" {
		keep := strings.Split(only, ",")
		variants = slices.DeleteFunc(variants, func(v variant) bool { return !slices.Contains(keep, v.name) })
	}
	bests := compareVariants(variants, reps, exact, truth, t)
	fmt.Println()
	for _, b := range bests {
		if b.v.name == "shingles-tf" || b.v.name == "shingles-binary" || b.v.name == "shingles-logtf" {
			byLength(b.v, reps, b.dist, b.k, exact, truth, t)
		}
	}
	if layouts {
		fmt.Println()
		for _, b := range bests {
			if b.v.bits == 64 && (b.v.name == "shingles-tf" || b.v.name == "shingles-binary") {
				printLayouts(b.v.name, b.fps, b.k)
			}
		}
	}
	return nil
}

// loadReps reads the dev corpus and its true pairs and returns one
// representative with shingles of each exact-duplicate group, the
// exact-duplicate pairs, and the truth.
func loadReps() (reps []*doc, exact []quality.Pair, truth quality.Truth, err error) {
	dir, err := devcorpus.Dir()
	if err != nil {
		return nil, nil, truth, err
	}
	docs, err := devcorpus.Docs()
	if err != nil {
		return nil, nil, truth, err
	}
	truePairs, err := quality.ReadTruth(filepath.Join(dir, "dev_pairs.tsv"))
	if err != nil {
		return nil, nil, truth, err
	}
	truth = quality.Truth{Pairs: truePairs, Lang: map[string]string{}}
	for _, d := range docs {
		truth.Lang[d.ID] = d.Lang
	}
	signer, err := signature.New(signature.DefaultConfig())
	if err != nil {
		return nil, nil, truth, err
	}
	first := map[uint64]string{}
	for _, d := range docs {
		norm := normalize.Text(d.Text)
		key := normalize.Key(norm)
		if rep, ok := first[key]; ok {
			exact = append(exact, quality.Pair{A: rep, B: d.ID, Jaccard: 1, Method: "exact"})
			continue
		}
		first[key] = d.ID
		sh := slices.Clone(signer.Shingles(norm))
		if len(sh) == 0 {
			continue
		}
		reps = append(reps, &doc{id: d.ID, tokens: slices.Clone(signer.TokenHashes(norm)), shingles: sh,
			short: len(similarity.Set(slices.Clone(sh)))})
	}
	return reps, exact, truth, nil
}

// best is a variant with its best Hamming bound k, its fingerprints and
// the pairs within the largest bound studied.
type best struct {
	v    variant
	k    int
	fps  [][2]uint64
	dist []near
}

// compareVariants prints a table of each variant's quality at its best
// bound, and returns the bests.
func compareVariants(variants []variant, reps []*doc, exact []quality.Pair, truth quality.Truth, t float64) []best {
	tw := tabwriter.NewWriter(os.Stdout, 0, 0, 2, ' ', tabwriter.AlignRight)
	fmt.Fprintln(tw, "variant\tbits\tbest k\treported\tstrict P\trecall J>=t\tF1 (strict)\tF1 at k-1\tF1 at k+1\t")
	var bests []best
	for _, v := range variants {
		fps := fingerprints(reps, v)
		kmax := 20 * v.bits / 64
		dist := pairsWithin(fps, kmax)
		var f1 []float64
		var figs []quality.Figures
		for k := 0; k <= kmax; k++ {
			fig := evaluate(reps, dist, k, exact, truth, t)
			f1 = append(f1, fig.F1Strict)
			figs = append(figs, fig)
		}
		k := argmax(f1)
		f := figs[k]
		at := func(k int) string {
			if k < 0 || k >= len(f1) {
				return "-"
			}
			return fmt.Sprintf("%.4f", f1[k])
		}
		fmt.Fprintf(tw, "%s\t%d\t%d\t%d\t%.4f\t%.4f\t%.4f\t%s\t%s\t\n", v.name, v.bits, k, f.Reported, f.StrictPrecision,
			f.AtThreshold.RecallDirect, f.F1Strict, at(k-1), at(k+1))
		if v.name == "shingles-tf" && v.bits == 64 {
			for _, k := range []int{3, 6, 8, 10} {
				f := figs[k]
				fmt.Fprintf(tw, "  (k = %d)\t\t%d\t%d\t%.4f\t%.4f\t%.4f\t\t\t\n", k, k, f.Reported, f.StrictPrecision, f.AtThreshold.RecallDirect, f.F1Strict)
			}
		}
		bests = append(bests, best{v, k, fps, dist})
	}
	tw.Flush()
	return bests
}

// makeVariants lists the fingerprints studied; IDF tables are built from the
// representatives' document frequencies.
func makeVariants(reps []*doc) []variant {
	shDF, tokDF := map[uint64]int{}, map[uint64]int{}
	for _, d := range reps {
		for _, h := range similarity.Set(slices.Clone(d.shingles)) {
			shDF[h]++
		}
		for _, h := range similarity.Set(slices.Clone(d.tokens)) {
			tokDF[h]++
		}
	}
	shIDF, tokIDF := weight.FromDocFreq(shDF, len(reps)), weight.FromDocFreq(tokDF, len(reps))
	gse, err := weight.GseIDF()
	if err != nil {
		panic(err)
	}
	weighted := func(feats func(*doc) []uint64, scheme weight.Scheme, idf *weight.Table, logTF bool) func(*doc, uint64) uint64 {
		return func(d *doc, seed uint64) uint64 {
			v := weight.Vector(feats(d), scheme, idf)
			hs, ws := make([]uint64, len(v)), make([]float64, len(v))
			for i, f := range v {
				hs[i], ws[i] = remix(f.Hash, seed), f.Weight
				if logTF {
					ws[i] = 1 + math.Log(f.Weight)
				}
			}
			return simhash.Weighted(hs, ws)
		}
	}
	sh := func(d *doc) []uint64 { return d.shingles }
	tok := func(d *doc) []uint64 { return d.tokens }
	var out []variant
	for _, bits := range []int{64, 128} {
		out = append(out,
			variant{"shingles-tf", bits, func(d *doc, seed uint64) uint64 { // the pipeline's default
				if seed == 0 {
					return simhash.Sum(d.shingles)
				}
				return simhash.Sum(remixAll(d.shingles, seed))
			}},
			variant{"shingles-binary", bits, func(d *doc, seed uint64) uint64 {
				return simhash.Sum(remixAll(similarity.Set(slices.Clone(d.shingles)), seed))
			}},
			variant{"shingles-logtf", bits, weighted(sh, weight.TF, nil, true)},
			variant{"shingles-tfidf", bits, weighted(sh, weight.TFIDF, shIDF, false)},
			variant{"tokens-tf", bits, weighted(tok, weight.TF, nil, false)},
			variant{"tokens-tfidf", bits, weighted(tok, weight.TFIDF, tokIDF, false)},
			variant{"tokens-tfidf-gse", bits, weighted(tok, weight.TFIDF, gse, false)},
		)
	}
	return out
}

// remix returns h for seed 0 (the 64-bit fingerprint, as the pipeline
// computes it) and an independent-looking hash of h otherwise (the upper
// half of a 128-bit fingerprint).
func remix(h, seed uint64) uint64 {
	if seed == 0 {
		return h
	}
	return mix.Fmix64(h ^ seed)
}

func remixAll(hs []uint64, seed uint64) []uint64 {
	if seed == 0 {
		return hs
	}
	out := make([]uint64, len(hs))
	for i, h := range hs {
		out[i] = remix(h, seed)
	}
	return out
}

const upperSeed = 0x9e3779b97f4a7c15

// fingerprints computes the fingerprint of every document: the low word,
// and for 128 bits the high word (features remixed).
func fingerprints(reps []*doc, v variant) [][2]uint64 {
	out := make([][2]uint64, len(reps))
	var wg sync.WaitGroup
	const workers = 2
	for w := range workers {
		wg.Go(func() {
			for i := w; i < len(reps); i += workers {
				out[i][0] = v.fp(reps[i], 0)
				if v.bits == 128 {
					out[i][1] = v.fp(reps[i], upperSeed)
				}
			}
		})
	}
	wg.Wait()
	return out
}

// near is a pair of representatives and its Hamming distance.
type near struct {
	a, b int32
	d    uint8
}

// pairsWithin returns every pair of fingerprints within maxK bits.
func pairsWithin(fps [][2]uint64, maxK int) []near {
	var out []near
	for i := range fps {
		fi := fps[i]
		for j := i + 1; j < len(fps); j++ {
			d := bits.OnesCount64(fi[0]^fps[j][0]) + bits.OnesCount64(fi[1]^fps[j][1])
			if d <= maxK {
				out = append(out, near{int32(i), int32(j), uint8(d)})
			}
		}
	}
	return out
}

// lengthClasses bound the classes of a pair by the distinct shingles of its
// shorter document, as `neardup tune` reports recall per length class.
var lengthClasses = []int{50, 200, 1000}

func lengthClass(reps []*doc, p near) int {
	n := min(reps[p.a].short, reps[p.b].short)
	for c, hi := range lengthClasses {
		if n < hi {
			return c
		}
	}
	return len(lengthClasses)
}

// byLength looks for a Hamming bound per length class: starting from k
// everywhere, it sets each class's bound in turn to the one that maximises
// the F1 of the whole (three rounds), and prints the bounds and the F1.
func byLength(v variant, reps []*doc, dist []near, k int, exact []quality.Pair, truth quality.Truth, t float64) {
	kmax := 20 * v.bits / 64
	ks := make([]int, len(lengthClasses)+1)
	for i := range ks {
		ks[i] = k
	}
	score := func() quality.Figures {
		var sel []near
		for _, p := range dist {
			if int(p.d) <= ks[lengthClass(reps, p)] {
				sel = append(sel, p)
			}
		}
		return evaluate(reps, sel, kmax, exact, truth, t)
	}
	base := score()
	for range 3 {
		for c := range ks {
			bestK, bestF := ks[c], -1.0
			for kc := 0; kc <= kmax; kc++ {
				ks[c] = kc
				if f := score().F1Strict; f > bestF {
					bestK, bestF = kc, f
				}
			}
			ks[c] = bestK
		}
	}
	f := score()
	fmt.Printf("%s, %d bits: one bound k = %d: F1 %.4f; per class of the shorter document's shingles (<50, 50-199, 200-999, >=1000) k = %v: F1 %.4f (strict P %.4f, recall %.4f)\n",
		v.name, v.bits, k, base.F1Strict, ks, f.F1Strict, f.StrictPrecision, f.AtThreshold.RecallDirect)
}

// evaluate scores the pairs within k bits, with the exact-duplicate pairs,
// as `neardup eval` would score the run's pairs.
func evaluate(reps []*doc, dist []near, k int, exact []quality.Pair, truth quality.Truth, t float64) quality.Figures {
	pairs := slices.Clone(exact)
	for _, p := range dist {
		if int(p.d) <= k {
			pairs = append(pairs, quality.Pair{A: reps[p.a].id, B: reps[p.b].id, Method: "simhash"})
		}
	}
	return quality.Evaluate(pairs, nil, quality.Truth{Pairs: truth.Pairs}, t).All
}

func argmax(xs []float64) int {
	best := 0
	for i, x := range xs {
		if x > xs[best] {
			best = i
		}
	}
	return best
}

// printLayouts prints, for bound k, each pigeonhole layout (k+1 to k+4
// blocks, at most blocking.MaxTables tables) with its tables, its shortest
// key and the candidate pairs its buckets hold (summed over tables, so a
// pair sharing two tables counts twice): what the layout costs on this
// corpus. Every layout finds every pair within k bits.
func printLayouts(name string, fps [][2]uint64, k int) {
	fmt.Printf("%s, k = %d: Manku table layouts on %d fingerprints (ChooseDesign picks %v here)\n", name, k, len(fps),
		blocking.ChooseDesign(k, int64(len(fps))))
	tw := tabwriter.NewWriter(os.Stdout, 0, 0, 2, ' ', tabwriter.AlignRight)
	fmt.Fprintln(tw, "blocks m\ttables\tshortest key bits\tkeys emitted\tcandidate pairs\tcandidates within k\t")
	within := len(pairsWithin(fps, k))
	for m := k + 1; m <= min(k+4, 64); m++ {
		d := blocking.Design{K: k, Blocks: m}
		tab, err := blocking.NewTables(d)
		if err != nil {
			break
		}
		counts := map[uint64]int{}
		var keys []uint64
		for _, fp := range fps {
			keys = tab.AppendKeys(keys[:0], fp[0])
			for _, key := range keys {
				counts[key]++
			}
		}
		cand := 0
		for _, n := range counts {
			cand += n * (n - 1) / 2
		}
		fmt.Fprintf(tw, "%d\t%d\t%d\t%d\t%d\t%d\t\n", m, d.Tables(), d.MinKeyBits(), d.Tables()*len(fps), cand, within)
	}
	tw.Flush()
	fmt.Println()
}
