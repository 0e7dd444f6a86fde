package main

import (
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"os"

	"github.com/neardup/neardup/transforms/eval/quality"
)

const evalUsage = `usage: neardup eval --pairs 'DIR/pairs-*.jsonl' --truth FILE.tsv [flags]

Eval compares a run's pairs and clusters (clusters-*.jsonl beside the pairs)
with ground truth: a TSV of id_a id_b jaccard inter union listing every pair
with exact Jaccard >= 0.5. It prints pair recall per Jaccard band, precision
(a reported pair is correct when its true Jaccard >= threshold - 0.1), F1,
the same by language (--corpus) and by synthetic edit type (--synthetic), and
cluster-level errors.

Examples:

	neardup eval --pairs 'out/dev/pairs-*.jsonl' --truth ../shared/corpus/dev_pairs.tsv
	neardup eval --pairs 'out/dev/pairs-*.jsonl' --truth ../shared/corpus/dev_pairs.tsv \
	    --corpus ../shared/corpus/dev.jsonl --synthetic ../shared/corpus/dev_synthetic.tsv --json

Flags:
`

func evalMain(args []string) error {
	fs := flag.NewFlagSet("eval", flag.ContinueOnError)
	pairs := fs.String("pairs", "", "glob of the run's pairs-*.jsonl")
	truthPath := fs.String("truth", "", "ground-truth pairs TSV")
	corpus := fs.String("corpus", "", "JSONL corpus with a lang field, for figures by language")
	synthetic := fs.String("synthetic", "", "synthetic pairs TSV, for recall by edit type")
	threshold := fs.Float64("threshold", 0.8, "the run's Jaccard threshold")
	asJSON := fs.Bool("json", false, "print the report as JSON")
	fs.Usage = func() { fmt.Fprint(fs.Output(), evalUsage); fs.PrintDefaults() }
	if err := fs.Parse(args); err != nil {
		return err
	}
	if *pairs == "" || *truthPath == "" {
		return errors.New("--pairs and --truth are required (see 'neardup help eval')")
	}
	ps, cs, err := quality.ReadRun(*pairs)
	if err != nil {
		return err
	}
	var truth quality.Truth
	if truth.Pairs, err = quality.ReadTruth(*truthPath); err != nil {
		return err
	}
	if *corpus != "" {
		if truth.Lang, err = quality.ReadLangs(*corpus); err != nil {
			return err
		}
	}
	if *synthetic != "" {
		if truth.Synthetic, err = quality.ReadSynthetic(*synthetic); err != nil {
			return err
		}
	}
	r := quality.Evaluate(ps, cs, truth, *threshold)
	if *asJSON {
		enc := json.NewEncoder(os.Stdout)
		enc.SetIndent("", "  ")
		return enc.Encode(r)
	}
	r.Print(os.Stdout)
	return nil
}
