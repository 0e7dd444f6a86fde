package quality

import (
	"encoding/json"
	"io"
)

// Files names the inputs of an eval (the flags of 'neardup eval'): the
// run's pairs files (a glob; the clusters beside them), the truth TSV and,
// optional, the corpus (for languages) and the synthetic pairs.
type Files struct {
	Pairs, Truth, Corpus, Synthetic string
}

// Printer is a report: Print writes it as text (it encodes as JSON too).
type Printer interface{ Print(io.Writer) }

// Load reads the inputs files names and evaluates them: the Report at
// Jaccard threshold t or, with containment c > 0, the ContainReport (the
// truth then a containment truth, see ReadContainTruth, and the synthetic
// pairs unused), true pairs whose contained document has fewer than
// minSize shingles left out of its recall.
func Load(files Files, t, c float64, minSize int) (Printer, error) {
	ps, cs, err := ReadRun(files.Pairs)
	if err != nil {
		return nil, err
	}
	var truth Truth
	var contain []ContainPair
	if c > 0 {
		contain, err = ReadContainTruth(files.Truth)
	} else {
		truth.Pairs, err = ReadTruth(files.Truth)
	}
	if err != nil {
		return nil, err
	}
	if files.Corpus != "" {
		if truth.Lang, err = ReadLangs(files.Corpus); err != nil {
			return nil, err
		}
	}
	if c > 0 {
		return EvaluateContainment(ps, cs, contain, truth.Lang, t, c, minSize), nil
	}
	if files.Synthetic != "" {
		if truth.Synthetic, err = ReadSynthetic(files.Synthetic); err != nil {
			return nil, err
		}
	}
	return Evaluate(ps, cs, truth, t), nil
}

// Write writes r to w as text or, asJSON, as indented JSON.
func Write(w io.Writer, r Printer, asJSON bool) error {
	if asJSON {
		enc := json.NewEncoder(w)
		enc.SetIndent("", "  ")
		return enc.Encode(r)
	}
	r.Print(w)
	return nil
}
