// Package compare measures two documents every way neardup can, with the
// same code as the pipeline: the SimHash of each and their Hamming distance,
// the Jaccard similarity of their shingle sets estimated from MinHash
// sketches and computed exactly, the cosine similarity of their TF and
// TF-IDF token vectors, the tokens only one of them has, and for Chinese
// text gse's segmentation. It is the logic behind 'neardup compare'.
package compare

import (
	"fmt"

	"github.com/neardup/neardup/transforms/sketch/minhash"
	"github.com/neardup/neardup/transforms/sketch/signature"
	"github.com/neardup/neardup/transforms/sketch/simhash"
	"github.com/neardup/neardup/transforms/sketch/similarity"
	"github.com/neardup/neardup/transforms/sketch/weight"
	"github.com/neardup/neardup/transforms/text/normalize"
	"github.com/neardup/neardup/transforms/text/tokenize"
)

// MaxShown is how many differing tokens Texts keeps per document
// (Side.Only); it keeps twice as many gse words (Side.Words).
const MaxShown = 20

// Options are the settings of one comparison. Errors about them name them
// as the flags of 'neardup compare' do (--shingle, --threshold, ...).
type Options struct {
	Shingle   string  // char:N or word:N
	Threshold float64 // Jaccard of near-duplicates, in (0, 1]
	Hamming   int     // SimHash distance bound, in [0, 64]
	Perms     int     // MinHash permutations
	// FoldScript folds Chinese text to one script when it is normalized,
	// as 'neardup run --fold-script' does (normalize.Form).
	FoldScript bool
}

// DefaultOptions returns the pipeline's shingling, permutations and script
// folding, a Jaccard threshold of 0.8 and a Hamming bound of 3.
func DefaultOptions() Options {
	sc := signature.DefaultConfig()
	return Options{Shingle: fmt.Sprintf("char:%d", sc.N), Threshold: 0.8, Hamming: 3, Perms: sc.Perms, FoldScript: true}
}

// Side is what Texts computes for one document.
type Side struct {
	Bytes      int // raw length
	Tokens     int
	Shingles   int // distinct shingles
	SimHash    uint64
	Only       []string // the first MaxShown distinct tokens the other document lacks, in order of first use
	OnlyTotal  int      // how many there are in all
	Words      []string // the first 2*MaxShown gse words, for text with CJK; nil otherwise
	WordsTotal int
}

// Result is the comparison of documents A and B.
type Result struct {
	Options      Options
	A, B         Side
	Hamming      int
	Estimate     float64 // MinHash estimate of the Jaccard similarity
	Jaccard      float64 // exact Jaccard of the shingle sets
	Inter, Union int     // shingle set sizes behind Jaccard
	// ContainAB and ContainBA are the containment of A's shingle set in
	// B's (Inter / A.Shingles) and of B's in A's.
	ContainAB, ContainBA float64
	CosineTF             float64 // over token vectors
	CosineTFIDF          float64
	IDFSource            string // which IDF table CosineTFIDF used
	CJK                  bool   // either text has CJK runes
}

// NearDup reports the Jaccard verdict: exact Jaccard at or above the
// threshold, and at least one shingle.
func (r *Result) NearDup() bool { return r.Union > 0 && r.Jaccard >= r.Options.Threshold }

// SimHashNearDup reports the SimHash verdict: both documents have tokens and
// their Hamming distance is within the bound.
func (r *Result) SimHashNearDup() bool {
	return r.A.Tokens > 0 && r.B.Tokens > 0 && r.Hamming <= r.Options.Hamming
}

// signatureConfig maps the options to a signature.Config, starting from
// signature.DefaultConfig as the pipeline does.
func (o Options) signatureConfig() (signature.Config, error) {
	sc := signature.DefaultConfig()
	var err error
	if sc.Tokens, sc.N, err = tokenize.ParseShingle(o.Shingle); err != nil {
		return sc, fmt.Errorf("--shingle %w", err)
	}
	switch {
	case o.Perms < 1:
		return sc, fmt.Errorf("--perms %d: want at least 1", o.Perms)
	case o.Threshold <= 0 || o.Threshold > 1:
		return sc, fmt.Errorf("--threshold %v out of (0, 1]", o.Threshold)
	case o.Hamming < 0 || o.Hamming > 64:
		return sc, fmt.Errorf("--hamming %d out of [0, 64]", o.Hamming)
	}
	sc.Perms = o.Perms
	return sc, nil
}

// Texts compares raw texts a and b under opt; they are normalized as the
// pipeline normalizes documents.
func Texts(a, b string, opt Options) (*Result, error) {
	sc, err := opt.signatureConfig()
	if err != nil {
		return nil, err
	}
	s, err := signature.New(sc)
	if err != nil {
		return nil, err
	}
	form := normalize.Form{FoldScript: opt.FoldScript}
	na, nb := form.Text(a), form.Text(b)
	r := &Result{Options: opt, A: Side{Bytes: len(a)}, B: Side{Bytes: len(b)}}

	var sa, sb signature.Signature
	s.Sign(na, &sa)
	s.Sign(nb, &sb)
	r.A.SimHash, r.B.SimHash = sa.SimHash, sb.SimHash
	r.A.Tokens, r.B.Tokens = sa.Tokens, sb.Tokens
	r.Hamming = simhash.Distance(sa.SimHash, sb.SimHash)
	r.Estimate = minhash.Estimate(sa.MinHash, sb.MinHash)

	setA := append([]uint64(nil), s.ShingleSet(na)...)
	setB := s.ShingleSet(nb)
	r.A.Shingles, r.B.Shingles = len(setA), len(setB)
	r.Jaccard = similarity.Jaccard(setA, setB)
	r.Inter, r.Union = similarity.Overlap(setA, setB)
	r.ContainAB, r.ContainBA = similarity.Containment(setA, setB), similarity.Containment(setB, setA)

	if err := r.cosines(s, na, nb); err != nil {
		return nil, err
	}
	ta, tb := s.Tokenizer().Strings(na), s.Tokenizer().Strings(nb)
	r.A.Only, r.A.OnlyTotal = onlyIn(ta, tb, MaxShown)
	r.B.Only, r.B.OnlyTotal = onlyIn(tb, ta, MaxShown)

	r.CJK = hasCJK(na) || hasCJK(nb)
	if r.CJK {
		seg, err := tokenize.New(tokenize.Word, tokenize.Auto)
		if err != nil {
			return nil, err
		}
		wa, wb := seg.Strings(na), seg.Strings(nb)
		r.A.Words, r.A.WordsTotal = firstN(wa, 2*MaxShown), len(wa)
		r.B.Words, r.B.WordsTotal = firstN(wb, 2*MaxShown), len(wb)
	}
	return r, nil
}

// cosines sets the TF and TF-IDF cosine similarities of the token vectors of
// normalized texts na and nb. Word mode weighs by gse's Chinese IDF table
// (keyed by word, like Word-mode tokens); Char mode by the document
// frequencies of the two documents themselves.
func (r *Result) cosines(s *signature.Signer, na, nb string) error {
	ha := append([]uint64(nil), s.TokenHashes(na)...)
	hb := s.TokenHashes(nb)
	r.CosineTF = similarity.Cosine(weight.Vector(ha, weight.TF, nil), weight.Vector(hb, weight.TF, nil))

	var idf *weight.Table
	if s.Config().Tokens == tokenize.Word {
		t, err := weight.GseIDF()
		if err != nil {
			return err
		}
		idf, r.IDFSource = t, "gse's Chinese IDF table"
	} else {
		df := map[uint64]int{}
		for _, set := range [][]uint64{similarity.Set(append([]uint64(nil), ha...)), similarity.Set(append([]uint64(nil), hb...))} {
			for _, h := range set {
				df[h]++
			}
		}
		idf, r.IDFSource = weight.FromDocFreq(df, 2), "document frequencies of A and B"
	}
	r.CosineTFIDF = similarity.Cosine(weight.Vector(ha, weight.TFIDF, idf), weight.Vector(hb, weight.TFIDF, idf))
	return nil
}

// onlyIn returns the distinct tokens of a that b lacks, in order of first
// occurrence, at most max of them, and how many there are in all.
func onlyIn(a, b []string, max int) ([]string, int) {
	inB := make(map[string]bool, len(b))
	for _, t := range b {
		inB[t] = true
	}
	seen := map[string]bool{}
	var out []string
	total := 0
	for _, t := range a {
		if inB[t] || seen[t] {
			continue
		}
		seen[t] = true
		total++
		if len(out) < max {
			out = append(out, t)
		}
	}
	return out, total
}

func firstN(s []string, n int) []string { return s[:min(len(s), n)] }

func hasCJK(s string) bool {
	for _, r := range s {
		if tokenize.IsCJK(r) {
			return true
		}
	}
	return false
}
