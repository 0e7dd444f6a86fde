package signature

import (
	"slices"
	"testing"

	"github.com/neardup/neardup/transforms/sketch/minhash"
	"github.com/neardup/neardup/transforms/sketch/weight"
	"github.com/neardup/neardup/transforms/text/normalize"
	"github.com/neardup/neardup/transforms/text/tokenize"
)

// FuzzSign signs arbitrary text, after normalize.Text, under a range of
// configurations: Sign never panics, the MinHash has Perms values, the counts
// follow MaxTokens and the shingle size, ShingleSet is a sorted set, and
// signing is deterministic: the same text gives the same signature again
// after the Signer has signed other text, and from a new Signer.
func FuzzSign(f *testing.F) {
	for _, s := range []string{
		"", "   ", "one", "The quick brown fox jumps over the lazy dog.",
		"寒雨连江夜入吴，平明送客楚山孤。", "go语言 v1.2 很快", "\xff\xfe\xc0\xaf", "a a a a a a a a a a",
		"ＡＢＣ café cafe\u0301 ﬁ", "🙂🙂🙂", "中文 english 中文 english 中文",
	} {
		f.Add(s, uint8(4), uint8(0), uint8(0))
		f.Add(s, uint8(0), uint8(3), uint8(0xff))
	}
	f.Fuzz(func(t *testing.T, s string, n, maxTokens, opts uint8) {
		cfg := DefaultConfig()
		cfg.N = 1 + int(n%8)
		cfg.MaxTokens = int(maxTokens) // 0: all
		if opts&1 != 0 {
			cfg.MinHash = minhash.OnePermutation
		}
		if opts&2 != 0 {
			cfg.Tokens = tokenize.Word
		}
		if opts&4 != 0 {
			cfg.Features = Tokens
		}
		if opts&8 != 0 {
			cfg.Weights = weight.Binary
		}
		cfg.Perms = []int{128, 1, 16, 7}[opts>>4&3]
		signer, err := New(cfg)
		if err != nil {
			t.Fatal(err)
		}
		text := normalize.Text(s)
		var sig Signature
		signer.Sign(text, &sig)
		if len(sig.MinHash) != cfg.Perms {
			t.Fatalf("%+q: %d MinHash values, want %d", text, len(sig.MinHash), cfg.Perms)
		}

		all := len(signer.Tokenizer().AppendHashes(nil, text))
		tokens, truncated := all, false
		if cfg.MaxTokens > 0 && all > cfg.MaxTokens {
			tokens, truncated = cfg.MaxTokens, true
		}
		shingles := 0
		switch {
		case tokens >= cfg.N:
			shingles = tokens - cfg.N + 1
		case tokens > 0:
			shingles = 1
		}
		if sig.Tokens != tokens || sig.Truncated != truncated || sig.Shingles != shingles {
			t.Fatalf("%+q (%d tokens, max %d, n %d): Tokens %d, Truncated %v, Shingles %d; want %d, %v, %d",
				text, all, cfg.MaxTokens, cfg.N, sig.Tokens, sig.Truncated, sig.Shingles, tokens, truncated, shingles)
		}
		set := slices.Clone(signer.ShingleSet(text))
		sorted := true
		for i := 1; i < len(set); i++ {
			sorted = sorted && set[i-1] < set[i]
		}
		if !sorted || len(set) > shingles || (len(set) == 0) != (shingles == 0) {
			t.Fatalf("%+q: ShingleSet %v is not a sorted set of 1 to %d shingles", text, set, shingles)
		}

		want := sig
		want.MinHash = slices.Clone(sig.MinHash)
		var other Signature
		signer.Sign(normalize.Text(s+" and something else entirely, 另外的文字"), &other)
		for _, sg := range []*Signer{signer, mustSigner(t, cfg)} {
			var again Signature
			sg.Sign(text, &again)
			if again.SimHash != want.SimHash || !slices.Equal(again.MinHash, want.MinHash) ||
				again.Tokens != want.Tokens || again.Shingles != want.Shingles || again.Truncated != want.Truncated {
				t.Fatalf("%+q: signing again gave %+v, first %+v", text, again, want)
			}
		}
	})
}
