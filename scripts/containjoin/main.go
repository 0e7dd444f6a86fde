// Command containjoin writes the containment ground truth of a JSONL
// corpus: every pair of documents where the one with fewer shingles is
// contained in the other at or above -threshold, found exactly by
// containjoin.Join, written as containjoin.WriteTSV writes it (sorted, so
// the same input gives the same file). Documents are read, normalized and
// shingled as 'neardup run' does (record.Read, normalize.Form with
// -fold-script, the signature.Signer of the run's default configuration
// with -shingle), so the sets are those the exact Jaccard compares. Records
// the reader rejects are counted on stderr and left out, as a run leaves
// them out.
//
// With -min-jaccard 0.5 it writes the Jaccard ground truth instead, the
// pairs of Jaccard 0.5 or more (every one has a containment of 0.5 or
// more, so -threshold 0.5 finds them all): dev_pairs.tsv's pairs, for a
// run with the same normalization, which 'neardup eval --truth' reads.
//
//	go run ./scripts/containjoin -input ../shared/corpus/dev.jsonl -out dev_contain.tsv
//	go run ./scripts/containjoin -input ../shared/corpus/dev.jsonl -out dev_contain.tsv -report
//	go run ./scripts/containjoin -input ../shared/corpus/dev.jsonl -out dev_pairs_folded.tsv -min-jaccard 0.5
//
// With -report it also prints containjoin.PrintStats of the pairs at
// -report-at, by language (the input's "lang" field, or -langs).
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
	"github.com/neardup/neardup/transforms/sketch/signature"
	"github.com/neardup/neardup/transforms/text/normalize"
	"github.com/neardup/neardup/transforms/text/tokenize"
)

// flags are the command's settings.
type flags struct {
	input, out, shingle, dict string
	idField, textField        string
	threshold, jaccard        float64
	minJaccard                float64
	fold, report              bool
	reportAt, langs           string
}

func main() {
	var f flags
	def := job.DefaultConfig()
	flag.StringVar(&f.input, "input", "", "JSONL corpus (.gz and .zst are decompressed)")
	flag.StringVar(&f.out, "out", "", "truth file to write (TSV)")
	flag.Float64Var(&f.threshold, "threshold", 0.5, "containment of the smaller document in the larger at or above which a pair is written, in (0, 1]")
	flag.StringVar(&f.shingle, "shingle", fmt.Sprintf("%s:%d", def.Tokens, def.Shingle), "shingles, as 'neardup run --shingle': char:N or word:N")
	flag.StringVar(&f.dict, "dict", string(def.Dictionary), "gse dictionary for word shingles, as 'neardup run --dict'")
	flag.BoolVar(&f.fold, "fold-script", def.FoldScript, "fold Chinese text to one script, as 'neardup run --fold-script'")
	flag.Float64Var(&f.minJaccard, "min-jaccard", 0, "write only the pairs of Jaccard at or above this (0.5 with -threshold 0.5: the Jaccard truth)")
	flag.StringVar(&f.idField, "id-field", record.DefaultIDField, "field holding the document id")
	flag.StringVar(&f.textField, "text-field", record.DefaultTextField, "field holding the document text")
	flag.BoolVar(&f.report, "report", false, "print the pairs' statistics by threshold and language")
	flag.StringVar(&f.reportAt, "report-at", "0.5,0.8,0.9", "-report: containment thresholds, comma-separated")
	flag.Float64Var(&f.jaccard, "jaccard", def.Threshold, "-report: Jaccard at or above which a pair is already a near-duplicate ('neardup run --threshold')")
	flag.StringVar(&f.langs, "langs", "", "-report: JSONL whose \"lang\" field gives each id's language (default: -input)")
	flag.Parse()
	if f.minJaccard > 0 && f.minJaccard < f.threshold {
		fmt.Fprintf(os.Stderr, "containjoin: -min-jaccard %v below -threshold %v: pairs would be missed\n", f.minJaccard, f.threshold)
		os.Exit(2)
	}
	if f.input == "" || f.out == "" || flag.NArg() > 0 {
		fmt.Fprintln(os.Stderr, "containjoin: -input and -out are required, and nothing else (see -help)")
		os.Exit(2)
	}
	if err := run(f); err != nil {
		fmt.Fprintln(os.Stderr, "containjoin:", err)
		os.Exit(1)
	}
}

// run reads the corpus, joins it, writes the truth file and, with
// f.report, prints the statistics.
func run(f flags) error {
	signer, err := newSigner(f.shingle, f.dict)
	if err != nil {
		return err
	}
	start := time.Now()
	docs, err := readDocs(f.input, f.idField, f.textField, normalize.Form{FoldScript: f.fold}, signer)
	if err != nil {
		return err
	}
	read := time.Since(start)
	start = time.Now()
	pairs, err := containjoin.Join(docs, f.threshold)
	if err != nil {
		return err
	}
	fmt.Fprintf(os.Stderr, "containjoin: %d documents read and shingled in %.1fs; %d pairs at containment >= %v joined in %.1fs\n",
		len(docs), read.Seconds(), len(pairs), f.threshold, time.Since(start).Seconds())
	if f.minJaccard > 0 {
		pairs = slices.DeleteFunc(pairs, func(p containjoin.Pair) bool { return p.Jaccard() < f.minJaccard })
		fmt.Fprintf(os.Stderr, "containjoin: %d pairs at Jaccard >= %v\n", len(pairs), f.minJaccard)
	}
	if err := writeFile(f.out, pairs); err != nil {
		return err
	}
	if !f.report {
		return nil
	}
	return report(os.Stdout, f, pairs)
}

// newSigner returns the signer of 'neardup run' with shingles s ("char:5",
// "word:5"), read as the run reads --shingle, and gse dictionary dict.
func newSigner(s, dict string) (*signature.Signer, error) {
	sg := job.DefaultConfig().Signing()
	mode, k, err := tokenize.ParseShingle(s)
	if err != nil {
		return nil, fmt.Errorf("-shingle %w", err)
	}
	sg.Tokens, sg.Shingle, sg.Dictionary = mode, k, dict
	sc, err := sg.Config()
	if err != nil {
		return nil, fmt.Errorf("-shingle %q: %w", s, err)
	}
	return signature.New(sc)
}

// readDocs reads the records of the JSONL file at path into documents with
// their shingle sets. Rejected records are counted on stderr, with the
// first few.
func readDocs(path, idField, textField string, form normalize.Form, signer *signature.Signer) ([]containjoin.Doc, error) {
	file, err := os.Open(path)
	if err != nil {
		return nil, err
	}
	defer file.Close()
	r, err := record.Decompress(path, file)
	if err != nil {
		return nil, err
	}
	rejects := 0
	opt := record.Options{Format: record.JSONL, IDField: idField, TextField: textField}
	docs, err := containjoin.ReadDocs(r, path, opt, form, signer, func(rj record.Reject) error {
		if rejects++; rejects <= 5 {
			fmt.Fprintf(os.Stderr, "containjoin: left out: %s (%s)\n", rj.Detail, rj.Reason)
		}
		return nil
	})
	if rejects > 0 {
		fmt.Fprintf(os.Stderr, "containjoin: %d records of %s left out\n", rejects, path)
	}
	return docs, err
}

// writeFile writes the truth file at path.
func writeFile(path string, pairs []containjoin.Pair) error {
	out, err := os.Create(path)
	if err != nil {
		return err
	}
	if err := containjoin.WriteTSV(out, pairs); err != nil {
		out.Close()
		return fmt.Errorf("writing %s: %w", path, err)
	}
	return out.Close()
}

// report prints the statistics of pairs to w, by language from f.langs
// (or the input).
func report(w io.Writer, f flags, pairs []containjoin.Pair) error {
	var at []float64
	for _, s := range strings.Split(f.reportAt, ",") {
		t, err := strconv.ParseFloat(strings.TrimSpace(s), 64)
		if err != nil || t < f.threshold || t > 1 {
			return fmt.Errorf("-report-at %q: %q is not a threshold in [%v, 1]", f.reportAt, s, f.threshold)
		}
		at = append(at, t)
	}
	langsFile := f.langs
	if langsFile == "" {
		langsFile = f.input
	}
	langs, err := quality.ReadLangs(langsFile)
	if err != nil {
		return err
	}
	return containjoin.PrintStats(w, containjoin.Summarize(pairs, langs, at, f.jaccard), f.jaccard)
}
