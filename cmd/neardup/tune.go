package main

import (
	"flag"
	"fmt"
	"io"
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
	shingle := fs.String("tokens", "char", "CJK tokens: char or word")
	usage := func() { fmt.Print(tuneUsage); printGrouped(os.Stdout, fs, nil) }
	if err := parseFlags(fs, args, usage); err != nil {
		return err
	}
	if *corpus == "" {
		return usagef("--corpus is required (see 'neardup help tune')")
	}
	if err := checkTuneFlags(*threshold, *sample, *shingle); err != nil {
		return err
	}
	mode, err := tokenize.ParseMode(*shingle)
	if err != nil {
		return usageError{err}
	}
	texts, err := sampleTexts(*corpus, *sample, record.Options{IDField: *idField, TextField: *textField}, os.Stderr)
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

// sampleTexts returns about n texts, every k-th good record of the file.
// A read error or damaged compressed data that cuts the file (a gzip file
// cut short) does not stop it: as a run does, it uses the records before
// the damage, and says so on one line to warn.
func sampleTexts(path string, n int, opt record.Options, warn io.Writer) ([]string, error) {
	var all []string
	f, err := os.Open(path)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	r, err := record.Decompress(path, f)
	if err != nil {
		return nil, err
	}
	var cut *record.Reject
	err = record.Read(r, path, opt, func(d record.Doc) error {
		all = append(all, d.Text)
		return nil
	}, func(rj record.Reject) error {
		if record.EndsFile(rj.Reason) {
			cut = &rj
		}
		return nil
	})
	if err != nil {
		return nil, err
	}
	if cut != nil {
		fmt.Fprintf(warn, "neardup tune: %s (%s): the sample is of the %d documents before it\n", cut.Detail, cut.Reason, len(all))
	}
	if len(all) == 0 {
		return nil, fmt.Errorf("%s: no documents", path)
	}
	step := max(1, len(all)/max(n, 1))
	var out []string
	for i := 0; i < len(all) && len(out) < n; i += step {
		out = append(out, all[i])
	}
	return out, nil
}
