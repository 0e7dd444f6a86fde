package main

import (
	"flag"
	"fmt"
	"os"

	"github.com/neardup/neardup/cmd/neardup/internal/tune"
	"github.com/neardup/neardup/transforms/format/record"
	"github.com/neardup/neardup/transforms/text/tokenize"
)

const tuneUsage = `usage: neardup tune --corpus FILE.jsonl [--sample N] [--threshold T]

Tune reads a sample of a corpus (every k-th document, N in all), finds every
pair of the sample with exact Jaccard near the threshold, and prints how the
choices trade recall for cost: LSH bands x rows (expected and measured recall
at the threshold, the false-positive and false-negative integrals, candidate
pairs per document), permutations, shingle sizes, and the SimHash Hamming
bound (recall, precision, F1), with a recommendation. A corpus cut short (a
gzip file that ends mid-stream) is sampled from the documents before the
damage, with a warning on stderr, as 'neardup run' uses them.

Example:

	neardup tune --corpus ../shared/corpus/dev.jsonl --sample 4000 --threshold 0.8

Flags:
`

func tuneMain(args []string) error {
	fs := flag.NewFlagSet("tune", flag.ContinueOnError)
	corpus := fs.String("corpus", "", "JSONL corpus (gzip by .gz)")
	sample := fs.Int("sample", 4000, "documents to sample")
	threshold := fs.Float64("threshold", 0.8, "Jaccard threshold to tune for")
	idField := fs.String("id-field", record.DefaultIDField, "field holding the document id")
	textField := fs.String("text-field", record.DefaultTextField, "field holding the text")
	var mode tokenize.Mode
	fs.TextVar(&mode, "tokens", tokenize.Char, "CJK tokens: char or word")
	usage := func() { fmt.Print(tuneUsage); printGrouped(os.Stdout, fs, nil) }
	if err := parseFlags(fs, args, usage); err != nil {
		return err
	}
	if *corpus == "" {
		return usagef("--corpus is required (see 'neardup help tune')")
	}
	if err := checkTuneFlags(*threshold, *sample); err != nil {
		return err
	}
	texts, err := tune.SampleTexts(*corpus, *sample, record.Options{IDField: *idField, TextField: *textField}, os.Stderr)
	if err != nil {
		return err
	}
	o := tune.DefaultOptions(*threshold)
	o.Tokens = mode
	r, err := tune.Run(texts, o)
	if err != nil {
		return err
	}
	r.Print(os.Stdout, *threshold)
	return nil
}
