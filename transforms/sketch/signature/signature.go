// Package signature maps a document's normalized text to everything neardup
// needs to find its near-duplicates: the token and shingle hashes, a 64-bit
// SimHash and a MinHash sketch, computed from one tokenization.
//
// A Signer holds the configuration, the permutations and reusable buffers. It
// is not safe for concurrent use; make one per goroutine (one per DoFn
// instance). Text in, Signature out; nothing is allocated per token or
// shingle once the buffers have grown.
package signature

import (
	"fmt"

	"github.com/neardup/neardup/transforms/sketch/minhash"
	"github.com/neardup/neardup/transforms/sketch/simhash"
	"github.com/neardup/neardup/transforms/sketch/similarity"
	"github.com/neardup/neardup/transforms/sketch/weight"
	"github.com/neardup/neardup/transforms/text/shingle"
	"github.com/neardup/neardup/transforms/text/tokenize"
)

// Features names what SimHash is computed over.
type Features int

const (
	// Shingles: the shingle hashes (the same set MinHash sketches).
	Shingles Features = iota
	// Tokens: the single tokens (words, or gse words for CJK in Word mode).
	Tokens
)

// Config is the shape of a signature. Signatures are only comparable when
// made with equal Configs.
type Config struct {
	Tokens tokenize.Mode // how CJK text is cut
	// Dictionary is the gse dictionary of Word mode (tokenize.New);
	// "": tokenize.Auto.
	Dictionary string
	N          int           // shingle size in tokens
	Perms      int           // MinHash positions
	MinHash    minhash.Mode  // classic or one-permutation
	Seed       uint64        // MinHash permutation seed
	Weights    weight.Scheme // SimHash feature weights
	Features   Features      // SimHash features
	IDF        *weight.Table // for Weights == TFIDF
	MaxTokens  int           // tokens per document used for signatures; 0 = all
}

// DefaultConfig is word 5-grams for alphabetic text and character 5-grams
// for CJK, 128 classic MinHash permutations, SimHash over TF-weighted
// shingles.
func DefaultConfig() Config {
	return Config{
		Tokens:    tokenize.Char,
		N:         5,
		Perms:     128,
		MinHash:   minhash.Classic,
		Seed:      minhash.DefaultSeed,
		Weights:   weight.TF,
		Features:  Shingles,
		MaxTokens: 1 << 20,
	}
}

// Signature is what Sign computes for one document.
type Signature struct {
	SimHash   uint64
	MinHash   []uint64 // Perms values
	Tokens    int      // tokens used (after MaxTokens)
	Shingles  int      // shingle occurrences
	Truncated bool     // the document had more than MaxTokens tokens
}

// Signer computes signatures of one Config.
type Signer struct {
	cfg      Config
	tok      *tokenize.Tokenizer
	mh       *minhash.Hasher
	tokens   []uint64
	shingles []uint64
	set      []uint64
	table    []uint64 // Distinct's
}

// New returns a Signer for cfg. Word mode loads gse's dictionary on first use
// in the process.
func New(cfg Config) (*Signer, error) {
	if cfg.N < 1 {
		return nil, fmt.Errorf("signature: shingle size %d, want >= 1", cfg.N)
	}
	if cfg.Weights == weight.TFIDF && cfg.IDF == nil {
		return nil, fmt.Errorf("signature: TF-IDF weights need an IDF table")
	}
	tok, err := tokenize.New(cfg.Tokens, cfg.Dictionary)
	if err != nil {
		return nil, err
	}
	mh, err := minhash.New(cfg.Perms, cfg.MinHash, cfg.Seed)
	if err != nil {
		return nil, err
	}
	return &Signer{cfg: cfg, tok: tok, mh: mh}, nil
}

// Config returns the Signer's configuration.
func (s *Signer) Config() Config { return s.cfg }

// Tokenizer returns the Signer's tokenizer.
func (s *Signer) Tokenizer() *tokenize.Tokenizer { return s.tok }

// Sign computes the signature of normalized text into sig, reusing
// sig.MinHash when it has the right length.
func (s *Signer) Sign(normalized string, sig *Signature) {
	s.shingle(normalized, sig)
	if len(sig.MinHash) != s.cfg.Perms {
		sig.MinHash = make([]uint64, s.cfg.Perms)
	}
	s.mh.Sketch(sig.MinHash, s.shingles)
	sig.SimHash = s.simhash()
}

// ShingleSet returns the sorted set of shingle hashes of normalized text, the
// set exact Jaccard is computed on. The slice is reused by the next call.
func (s *Signer) ShingleSet(normalized string) []uint64 {
	var sig Signature
	s.shingle(normalized, &sig)
	s.set = append(s.set[:0], s.shingles...)
	s.set = similarity.Set(s.set)
	return s.set
}

// Shingles returns the shingle hashes of normalized text in document order,
// repeats included. The slice is reused by the next call.
func (s *Signer) Shingles(normalized string) []uint64 {
	var sig Signature
	s.shingle(normalized, &sig)
	return s.shingles
}

// TokenHashes returns the token hashes of normalized text (after MaxTokens).
// The slice is reused by the next call.
func (s *Signer) TokenHashes(normalized string) []uint64 {
	var sig Signature
	s.shingle(normalized, &sig)
	return s.tokens
}

// shingle fills s.tokens and s.shingles.
func (s *Signer) shingle(normalized string, sig *Signature) {
	s.tokens = s.tok.AppendHashes(s.tokens[:0], normalized)
	sig.Truncated = false
	if s.cfg.MaxTokens > 0 && len(s.tokens) > s.cfg.MaxTokens {
		s.tokens = s.tokens[:s.cfg.MaxTokens]
		sig.Truncated = true
	}
	s.shingles = shingle.Append(s.shingles[:0], s.tokens, s.cfg.N)
	sig.Tokens = len(s.tokens)
	sig.Shingles = len(s.shingles)
}

func (s *Signer) simhash() uint64 {
	feats := s.shingles
	if s.cfg.Features == Tokens {
		feats = s.tokens
	}
	switch s.cfg.Weights {
	case weight.TF:
		return simhash.Sum(feats)
	case weight.Binary:
		s.set = append(s.set[:0], feats...)
		s.set = similarity.Set(s.set)
		return simhash.Sum(s.set)
	}
	v := weight.Vector(feats, s.cfg.Weights, s.cfg.IDF)
	hashes := make([]uint64, len(v))
	weights := make([]float64, len(v))
	for i, f := range v {
		hashes[i], weights[i] = f.Hash, f.Weight
	}
	return simhash.Weighted(hashes, weights)
}

// Vector returns the weighted feature vector of normalized text under the
// Signer's SimHash features and scheme, for cosine similarity.
func (s *Signer) Vector(normalized string, scheme weight.Scheme) similarity.Vector {
	var sig Signature
	s.shingle(normalized, &sig)
	feats := s.shingles
	if s.cfg.Features == Tokens {
		feats = s.tokens
	}
	return weight.Vector(feats, scheme, s.cfg.IDF)
}
