package main

import (
	"errors"
	"flag"
	"fmt"
	"io"
	"os"

	"github.com/neardup/neardup/pipeline/plan"
	"github.com/neardup/neardup/transforms/eval/quality"
)

const evalUsage = `usage: neardup eval --pairs 'DIR/pairs-*.jsonl' --truth FILE.tsv [flags]

Eval compares a run's pairs and clusters (clusters-*.jsonl beside the pairs)
with ground truth: a TSV of id_a id_b jaccard inter union listing every pair
with exact Jaccard >= 0.5. At threshold t (--threshold) it prints, for all
pairs, per language (--corpus) and per synthetic edit type (--synthetic):

  recall per band of true Jaccard, found directly and linked:
    found directly  the run reports the pair, or the pair of the two
                    documents' exact-duplicate groups
    linked          found directly, or both documents in one cluster
  recall at J >= t and at J >= t + 0.05 (the headline band), direct and linked
  strict precision   reported pairs with true J >= t, over reported pairs
  lenient precision  the same with true J >= t - 0.1
  F1 (strict)        2·P·R/(P+R), P the strict precision, R the direct
                     recall at J >= t

A pair's language is its two documents' language when they share one,
"cross" when they differ. Cluster-level figures follow: documents removed
without a true partner >= t - 0.1, true pairs >= t with both documents kept,
clusters holding two documents with true J < 0.5. With --synthetic (id_a
the original, id_b its variant) it prints which copy the run keeps, overall
and per edit type: the pairs decided (one removed for the other), the
original's share of them, and the undecided ones by kind (docs/QUALITY.md).
--json prints the same report with named fields.

With --containment C (the run's) and a containment truth (scripts/containjoin:
these columns, size_a size_b contain_a contain_b) it prints the containment
report instead: recall (found directly) at c >= C + 0.05 and in [C, C + 0.05),
precision of the "containment" pairs (c >= C), those with c < C - 0.1, c the
smaller document's containment, and the removals: each removed document is
right if its true J with the document kept for it is >= t or its own
containment in it >= C; see package transforms/eval/quality.

Examples:

	neardup eval --pairs 'out/dev/pairs-*.jsonl' --truth ../shared/corpus/dev_pairs.tsv
	neardup eval --pairs 'out/dev/pairs-*.jsonl' --truth ../shared/corpus/dev_pairs.tsv \
	    --corpus ../shared/corpus/dev.jsonl --synthetic ../shared/corpus/dev_synthetic.tsv --json

Flags:
`

func evalMain(args []string) error { return evalTo(os.Stdout, args) }

// evalTo runs eval, writing the report to w.
func evalTo(w io.Writer, args []string) error {
	fs := flag.NewFlagSet("eval", flag.ContinueOnError)
	pairs := fs.String("pairs", "", "glob of the run's pairs-*.jsonl (pairs-* when compressed with --compress)")
	truthPath := fs.String("truth", "", "ground-truth pairs TSV")
	corpus := fs.String("corpus", "", "JSONL corpus with a lang field, for figures by language")
	synthetic := fs.String("synthetic", "", "synthetic pairs TSV (id_a the original, id_b its variant, edit_type), for recall by edit type and which copy is kept")
	threshold := fs.Float64("threshold", 0.8, "the run's Jaccard threshold")
	asJSON := fs.Bool("json", false, "print the report as JSON")
	containment := fs.Float64("containment", 0, "the run's --containment: print the containment report (0: Jaccard)")
	minSize := fs.Int("containment-min-size", 10, "--containment: the fewest shingles of a contained document in recall")
	usage := func() { fmt.Fprint(w, evalUsage); printGrouped(w, fs, nil) }
	if err := parseFlags(fs, args, usage); err != nil {
		return err
	}
	if *pairs == "" || *truthPath == "" {
		return usagef("--pairs and --truth are required (see 'neardup help eval')")
	}
	if err := plan.CheckContainment(*containment); err != nil {
		return usageError{err}
	}
	r, err := quality.Load(quality.Files{Pairs: *pairs, Truth: *truthPath, Corpus: *corpus, Synthetic: *synthetic}, *threshold, *containment, *minSize,
		func(msg string) { fmt.Fprintf(os.Stderr, "neardup eval: warning: %s\n", msg) })
	if errors.Is(err, quality.ErrNoContainColumns) {
		return usagef("--truth %v", err)
	} else if err != nil {
		return err
	}
	return quality.Write(w, r, *asJSON)
}
