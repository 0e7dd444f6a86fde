// Command containstudy measures candidate methods for containment pairs
// against a containment truth file (scripts/containjoin): for each
// threshold C and method, the candidate pairs generated (in all and per
// query), the recall of the true pairs at containment >= C+0.05 and in
// [C, C+0.05), for contained documents of at least 10 and at least 20
// shingles, by language (the input's "lang" field, of the contained
// document), and the time the candidates took. Columns: queries (documents
// of at least -min-size shingles), candidates (distinct pairs, by the
// language of the smaller document), per query, >=C (candidates that are
// true pairs at >= C), the two recalls (the fraction found, then the true
// pairs), ikeys and qkeys (index and query keys per document of the
// corpus; for levels and jaccard:J the same keys serve both), hot (hot
// buckets) and seconds (keys, sort and pairing, in one goroutine). Stderr
// adds the recall by size ratio |B|/|A|.
//
//	go build -o /tmp/containjoin ./scripts/containjoin
//	/tmp/containjoin -input ../shared/corpus/dev.jsonl -out /tmp/truth.tsv
//	go run ./scripts/containstudy -input ../shared/corpus/dev.jsonl -truth /tmp/truth.tsv
//
// Methods: "levels" (ensemble.Levels up to level -max-level, in one key
// space, paired by candidates.AppendContained), "ensemble" (ensemble.Plan,
// -partitions equal-depth size partitions), "asym" (asymmetric minwise
// hashing, asymKeys) and "jaccard:J" (plain MinHash LSH,
// blocking.ChooseBands at Jaccard J, pairs of a bucket with the smaller
// document of at least -min-size shingles). Documents are read and shingled as
// scripts/containjoin reads them.
package main

import (
	"flag"
	"fmt"
	"io"
	"os"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/neardup/neardup/transforms/eval/containjoin"
	"github.com/neardup/neardup/transforms/eval/quality"
	"github.com/neardup/neardup/transforms/format/record"
	"github.com/neardup/neardup/transforms/job"
	"github.com/neardup/neardup/transforms/match/blocking"
	"github.com/neardup/neardup/transforms/match/ensemble"
	"github.com/neardup/neardup/transforms/sketch/signature"
	"github.com/neardup/neardup/transforms/text/normalize"
)

// flags are the command's settings.
type flags struct {
	input, truth, thresholds, methods string
	partitions, minSize               int
	fnWeight                          float64
	maxLevel                          int
	limits                            ensemble.Limits
}

func main() {
	var f flags
	flag.StringVar(&f.input, "input", "", "JSONL corpus with \"lang\" fields")
	flag.StringVar(&f.truth, "truth", "", "containment truth (scripts/containjoin -out)")
	flag.StringVar(&f.thresholds, "thresholds", "0.8,0.9", "containment thresholds C, comma-separated")
	flag.StringVar(&f.methods, "methods", "ensemble,asym,jaccard:0.3,jaccard:0.5", "methods, comma-separated: levels, ensemble, asym, jaccard:J")
	flag.IntVar(&f.partitions, "partitions", ensemble.DefaultConfig(1).Partitions, "ensemble: size partitions")
	flag.Float64Var(&f.fnWeight, "fn-weight", blocking.DefaultWeights.FalseNegative, "ensemble: weight of false negatives in ensemble.Choose (false positives: 1 minus it)")
	flag.IntVar(&f.maxLevel, "max-level", 0, fmt.Sprintf("ensemble and levels: last size-ratio level a banding is chosen for (ensemble.Config.MaxLevel; 0: none for ensemble, %d for levels)", levelsMaxLevel))
	flag.IntVar(&f.minSize, "min-size", ensemble.DefaultConfig(1).MinSize, "smallest document queried or indexed (shingles)")
	flag.IntVar(&f.limits.MaxBucket, "max-bucket", ensemble.DefaultLimits.MaxBucket, "buckets of up to this many sets give all pairs")
	flag.IntVar(&f.limits.Window, "window", ensemble.DefaultLimits.Window, "hot buckets: sets per query")
	flag.Parse()
	if f.input == "" || f.truth == "" || flag.NArg() > 0 {
		fmt.Fprintln(os.Stderr, "containstudy: -input and -truth are required, and nothing else (see -help)")
		os.Exit(2)
	}
	if err := run(os.Stdout, f); err != nil {
		fmt.Fprintln(os.Stderr, "containstudy:", err)
		os.Exit(1)
	}
}

// run reads the corpus and the truth and prints to w one table row per
// threshold, method and language.
func run(w io.Writer, f flags) error {
	c, err := load(f.input, f.truth)
	if err != nil {
		return err
	}
	fmt.Fprintln(w, "C     method        lang  queries  candidates  per query    >=C  recall>=C+.05 A>=10  A>=20  recall[C,C+.05) A>=10  A>=20  ikeys  qkeys  hot  seconds")
	for _, s := range strings.Split(f.thresholds, ",") {
		t, err := strconv.ParseFloat(strings.TrimSpace(s), 64)
		if err != nil || !(t > 0 && t <= 1) {
			return fmt.Errorf("-thresholds %q: %q is not in (0, 1]", f.thresholds, s)
		}
		for _, m := range strings.Split(f.methods, ",") {
			start := time.Now()
			pairs, st, err := candidatesOf(strings.TrimSpace(m), t, f, c)
			if err != nil {
				return err
			}
			took := time.Since(start)
			fmt.Fprintf(os.Stderr, "containstudy: C=%v %s: %d hot buckets, %d pairs of them left out\n", t, m, st.HotBuckets, st.Skipped)
			printRows(w, c, t, m, pairs, st, took, f.minSize)
		}
	}
	return nil
}

// candidatesOf returns the candidate pairs of method m at containment
// threshold t.
func candidatesOf(m string, t float64, f flags, c *corpus) ([]ensemble.Pair, ensemble.Stats, error) {
	if m == "levels" {
		return levelsCandidates(c, t, f)
	}
	keyer, err := newKeyer(m, t, f, c.sizes())
	if err != nil {
		return nil, ensemble.Stats{}, err
	}
	pairs, st := ensemble.Candidates(keyer, c.docs, f.limits)
	return pairs, st, nil
}

// newKeyer returns the keys of method m at containment threshold t.
func newKeyer(m string, t float64, f flags, sizes []int) (ensemble.Keyer, error) {
	if m == "ensemble" {
		cfg := ensemble.DefaultConfig(t)
		cfg.Partitions, cfg.MinSize, cfg.MaxLevel = f.partitions, f.minSize, f.maxLevel
		cfg.Weights = blocking.Weights{FalsePositive: 1 - f.fnWeight, FalseNegative: f.fnWeight}
		p, err := ensemble.NewPlan(cfg, sizes)
		if err == nil {
			fmt.Fprintf(os.Stderr, "containstudy: C=%v partitions %v\n", t, p.Uppers())
		}
		return p, err
	}
	if js, ok := strings.CutPrefix(m, "jaccard:"); ok {
		j, err := strconv.ParseFloat(js, 64)
		if err != nil || !(j > 0 && j <= 1) {
			return nil, fmt.Errorf("method %q: want jaccard:J with J in (0, 1]", m)
		}
		b := blocking.ChooseBands(j, job.DefaultConfig().Signing().Perms, blocking.DefaultWeights)
		fmt.Fprintf(os.Stderr, "containstudy: %s bands %v\n", m, b)
		return jaccardKeys{b, f.minSize}, nil
	}
	if m == "asym" {
		return asymKeys{maxSize: slices.Max(sizes), minSize: f.minSize}, nil
	}
	return nil, fmt.Errorf("method %q: want levels, ensemble, asym or jaccard:J", m)
}

// jaccardKeys are the band keys of plain MinHash LSH, for sets and queries
// alike, of documents of at least minSize shingles.
type jaccardKeys struct {
	bands   blocking.Bands
	minSize int
}

func (j jaccardKeys) AppendIndexKeys(dst, sig []uint64, size int) []uint64 {
	if size < j.minSize {
		return dst
	}
	return j.bands.AppendKeys(dst, sig)
}

func (j jaccardKeys) AppendQueryKeys(dst, sig []uint64, size int) []uint64 {
	return j.AppendIndexKeys(dst, sig, size)
}

// corpus is the documents with their ids and languages, and the truth.
type corpus struct {
	ids   []string
	langs []string
	index map[string]int32
	docs  []ensemble.Doc
	truth []containjoin.Pair
}

func (c *corpus) sizes() []int {
	s := make([]int, len(c.docs))
	for i, d := range c.docs {
		s[i] = d.Size
	}
	return s
}

// load reads the corpus at input (signatures of the run's default
// configuration, sizes of the distinct shingle sets) and the truth file.
func load(input, truth string) (*corpus, error) {
	langs, err := quality.ReadLangs(input)
	if err != nil {
		return nil, err
	}
	sc, err := job.DefaultConfig().Signing().Config()
	if err != nil {
		return nil, err
	}
	signer, err := signature.New(sc)
	if err != nil {
		return nil, err
	}
	file, err := os.Open(input)
	if err != nil {
		return nil, err
	}
	defer file.Close()
	c := &corpus{index: map[string]int32{}}
	opt := record.Options{Format: record.JSONL, IDField: record.DefaultIDField, TextField: record.DefaultTextField}
	err = record.Read(file, input, opt, func(d record.Doc) error {
		text := normalize.Text(d.Text)
		var sig signature.Signature
		signer.Sign(text, &sig)
		c.index[d.ID] = int32(len(c.ids))
		c.ids, c.langs = append(c.ids, d.ID), append(c.langs, langs[d.ID])
		c.docs = append(c.docs, ensemble.Doc{Sig: sig.MinHash, Size: len(signer.ShingleSet(text))})
		return nil
	}, func(record.Reject) error { return nil })
	if err != nil {
		return nil, err
	}
	c.truth, err = containjoin.ReadTSV(truth)
	return c, err
}
