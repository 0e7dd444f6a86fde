package quality

import (
	"encoding/json"
	"fmt"
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
// minSize shingles left out of its recall. warn, if not nil, gets what
// Unknown says of the documents the pairs name; the evaluation goes on.
func Load(files Files, t, c float64, minSize int, warn func(string)) (Printer, error) {
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
	inTruth := map[string]bool{}
	for _, p := range truth.Pairs {
		inTruth[p.A], inTruth[p.B] = true, true
	}
	for _, p := range contain {
		inTruth[p.A], inTruth[p.B] = true, true
	}
	var corpus map[string]bool
	if files.Corpus != "" {
		corpus = make(map[string]bool, len(truth.Lang))
		for id := range truth.Lang {
			corpus[id] = true
		}
	}
	if msg := Unknown(ps, inTruth, corpus); msg != "" && warn != nil {
		warn(msg)
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

// Unknown says, in one line, when the pairs name documents that neither
// the corpus (nil: not given) nor the truth holds, a sign that they come
// from a run of another corpus or with other IDs; "" when they do not.
// With the corpus, every document the pairs name should be in it; without
// it, a document in no true pair is a usual false positive, so Unknown
// speaks only when none of the pairs' documents is in the truth.
func Unknown(pairs []Pair, truth, corpus map[string]bool) string {
	named := map[string]bool{}
	var unknown []string
	for _, p := range pairs {
		for _, id := range []string{p.A, p.B} {
			if named[id] {
				continue
			}
			named[id] = true
			if !truth[id] && !corpus[id] {
				unknown = append(unknown, id)
			}
		}
	}
	switch {
	case len(unknown) == 0:
		return ""
	case corpus != nil:
		return fmt.Sprintf("the pairs name %d of %d documents in neither --corpus nor --truth (%q the first): are they of this corpus?",
			len(unknown), len(named), unknown[0])
	case len(unknown) == len(named):
		return fmt.Sprintf("none of the %d documents the pairs name is in --truth (%q the first): are they of this corpus?", len(named), unknown[0])
	}
	return ""
}
