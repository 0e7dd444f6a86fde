package signature

import (
	"hash/fnv"
	"math"
	"strings"
	"testing"

	"github.com/neardup/neardup/transforms/eval/devcorpus"
	"github.com/neardup/neardup/transforms/sketch/minhash"
	"github.com/neardup/neardup/transforms/sketch/simhash"
	"github.com/neardup/neardup/transforms/sketch/similarity"
	"github.com/neardup/neardup/transforms/sketch/weight"
	"github.com/neardup/neardup/transforms/text/normalize"
	"github.com/neardup/neardup/transforms/text/tokenize"
)

func loadCorpus(t testing.TB) ([]devcorpus.Doc, []devcorpus.Pair) {
	t.Helper()
	docs, err := devcorpus.Docs()
	if err != nil {
		t.Skip(err)
	}
	pairs, err := devcorpus.Pairs()
	if err != nil {
		t.Fatal(err)
	}
	return docs, pairs
}

func mustSigner(t testing.TB, cfg Config) *Signer {
	t.Helper()
	s, err := New(cfg)
	if err != nil {
		t.Fatal(err)
	}
	return s
}

// TestShinglingMatchesGroundTruth checks normalize + tokenize + shingle
// against the reference definition of ../shared/corpus: on every ground-truth
// pair, the intersection and union of our hashed shingle sets equal the
// reference's exact counts.
func TestShinglingMatchesGroundTruth(t *testing.T) {
	docs, pairs := loadCorpus(t)
	byID := devcorpus.ByID(docs)
	s1 := mustSigner(t, DefaultConfig())
	s2 := mustSigner(t, DefaultConfig())
	bad := 0
	for _, p := range pairs {
		a := s1.ShingleSet(normalize.Text(byID[p.A].Text))
		b := s2.ShingleSet(normalize.Text(byID[p.B].Text))
		inter, union := similarity.Overlap(a, b)
		if inter != p.Inter || union != p.Union {
			if bad++; bad <= 10 {
				t.Errorf("%s %s: inter/union %d/%d, ground truth %d/%d", p.A, p.B, inter, union, p.Inter, p.Union)
			}
		}
	}
	if bad > 0 {
		t.Errorf("%d of %d pairs differ from the ground truth", bad, len(pairs))
	}
}

// TestMinHashWithinThreeSE: on real document pairs, MinHash estimates lie
// within 3 standard errors of the exact Jaccard. With ~4,400 pairs about 12
// are expected outside 3 SE by chance (0.27%); allow 1%.
func TestMinHashWithinThreeSE(t *testing.T) {
	docs, pairs := loadCorpus(t)
	byID := devcorpus.ByID(docs)
	for _, mode := range []minhash.Mode{minhash.Classic, minhash.OnePermutation} {
		cfg := DefaultConfig()
		cfg.MinHash = mode
		s := mustSigner(t, cfg)
		var sa, sb Signature
		outside := 0
		var absErr float64
		for _, p := range pairs {
			s.Sign(normalize.Text(byID[p.A].Text), &sa)
			s.Sign(normalize.Text(byID[p.B].Text), &sb)
			est := minhash.Estimate(sa.MinHash, sb.MinHash)
			se := math.Sqrt(p.Jaccard * (1 - p.Jaccard) / float64(cfg.Perms))
			absErr += math.Abs(est - p.Jaccard)
			// Estimates are multiples of 1/K: allow half a step of rounding.
			if math.Abs(est-p.Jaccard) > 3*se+0.5/float64(cfg.Perms) {
				outside++
			}
		}
		t.Logf("%v: %d of %d pairs outside 3 SE, mean absolute error %.4f", mode, outside, len(pairs), absErr/float64(len(pairs)))
		if float64(outside) > 0.01*float64(len(pairs)) {
			t.Errorf("%v: %d of %d estimates outside 3 standard errors", mode, outside, len(pairs))
		}
	}
}

// TestDeterministic: signatures do not depend on the Signer instance, on the
// order documents are signed in, or on the run (the pinned checksum changes
// only if the algorithm or its seeds change, which breaks saved indexes).
func TestDeterministic(t *testing.T) {
	texts := []string{
		"The quick brown fox jumps over the lazy dog again and again.",
		"中文文本的近似重复检测需要稳定的签名，不能依赖映射的遍历顺序。",
		"Mixed 中英文 text, with punctuation! And numbers: 3.14159.",
		"",
		"short",
	}
	sum := func(s *Signer, order []int) uint64 {
		h := fnv.New64a()
		var sig Signature
		out := make([][]byte, len(texts))
		for _, i := range order {
			s.Sign(normalize.Text(texts[i]), &sig)
			var b []byte
			b = appendU64(b, sig.SimHash)
			for _, v := range sig.MinHash {
				b = appendU64(b, v)
			}
			out[i] = b
		}
		for _, b := range out {
			h.Write(b)
		}
		return h.Sum64()
	}
	for _, mode := range []minhash.Mode{minhash.Classic, minhash.OnePermutation} {
		cfg := DefaultConfig()
		cfg.MinHash = mode
		a := sum(mustSigner(t, cfg), []int{0, 1, 2, 3, 4})
		b := sum(mustSigner(t, cfg), []int{4, 2, 0, 3, 1})
		if a != b {
			t.Errorf("%v: signatures depend on Signer or order", mode)
		}
		want := map[minhash.Mode]uint64{minhash.Classic: pinnedClassic, minhash.OnePermutation: pinnedOPH}[mode]
		if a != want {
			t.Errorf("%v: signature checksum %#x, pinned %#x: the signature algorithm changed", mode, a, want)
		}
	}
}

const (
	pinnedClassic = 0x3d785589553d0dab
	pinnedOPH     = 0xd9aa2cc591ef2979
)

func appendU64(b []byte, v uint64) []byte {
	for i := 0; i < 8; i++ {
		b = append(b, byte(v>>(8*i)))
	}
	return b
}

func TestSignEdgeCases(t *testing.T) {
	s := mustSigner(t, DefaultConfig())
	var sig Signature
	tests := []struct {
		name             string
		text             string
		tokens, shingles int
	}{
		{"empty", "", 0, 0},
		{"punctuation only", "!!! ...", 0, 0},
		{"one word", "hello", 1, 1},
		{"four chinese chars", "中文文本", 4, 1},
		{"five tokens", "a b c d e", 5, 1},
		{"mixed", "go 语言 is fast and 简单", 8, 4},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			s.Sign(normalize.Text(tt.text), &sig)
			if sig.Tokens != tt.tokens || sig.Shingles != tt.shingles {
				t.Errorf("tokens/shingles = %d/%d, want %d/%d", sig.Tokens, sig.Shingles, tt.tokens, tt.shingles)
			}
			if len(sig.MinHash) != 128 {
				t.Errorf("MinHash length %d", len(sig.MinHash))
			}
		})
	}
	cfg := DefaultConfig()
	cfg.MaxTokens = 10
	capped := mustSigner(t, cfg)
	capped.Sign("a b c d e f g h i j k l m", &sig)
	if !sig.Truncated || sig.Tokens != 10 || sig.Shingles != 6 {
		t.Errorf("MaxTokens: truncated=%v tokens=%d shingles=%d", sig.Truncated, sig.Tokens, sig.Shingles)
	}
}

func TestWeightsAndFeatures(t *testing.T) {
	idf, err := weight.GseIDF()
	if err != nil {
		t.Fatal(err)
	}
	a := normalize.Text("今天天气很好，我们去公园散步，然后一起吃午饭。")
	b := normalize.Text("今天天气很好，我们去公园散步，然后一起吃晚饭。")
	for _, cfg := range []Config{
		{Tokens: tokenize.Char, N: 5, Perms: 64, Weights: weight.TF, Features: Shingles},
		{Tokens: tokenize.Char, N: 5, Perms: 64, Weights: weight.Binary, Features: Shingles},
		{Tokens: tokenize.Word, N: 3, Perms: 64, Weights: weight.TFIDF, Features: Tokens, IDF: idf},
		{Tokens: tokenize.Word, N: 3, Perms: 64, Weights: weight.TF, Features: Tokens},
	} {
		s := mustSigner(t, cfg)
		var sa, sb Signature
		s.Sign(a, &sa)
		s.Sign(b, &sb)
		if d := simhash.Distance(sa.SimHash, sb.SimHash); d > 16 {
			t.Errorf("%+v: one-word change moved SimHash %d bits", cfg, d)
		}
		if sa.SimHash == 0 {
			t.Errorf("%+v: zero SimHash", cfg)
		}
		va, vb := s.Vector(a, cfg.Weights), s.Vector(b, cfg.Weights)
		if c := similarity.Cosine(va, vb); c < 0.5 || c >= 1 {
			t.Errorf("%+v: cosine %.3f", cfg, c)
		}
	}
	if _, err := New(Config{N: 5, Perms: 8, Weights: weight.TFIDF}); err == nil {
		t.Error("TF-IDF without a table accepted")
	}
}

func TestSignAllocs(t *testing.T) {
	s := mustSigner(t, DefaultConfig())
	var sig Signature
	text := normalize.Text("the quick brown fox jumps over the lazy dog 中文文本近似重复检测 and more words here")
	s.Sign(text, &sig)
	if n := testing.AllocsPerRun(50, func() { s.Sign(text, &sig) }); n != 0 {
		t.Errorf("Sign allocates %v times per document once warm", n)
	}
}

func TestDistinct(t *testing.T) {
	s, err := New(DefaultConfig())
	if err != nil {
		t.Fatal(err)
	}
	texts := []string{
		"",
		"one",
		"the quick brown fox jumps over the lazy dog",
		"a b a b a b a b a b a b a b a b a b a b a b a b",
		strings.Repeat("lorem ipsum dolor sit amet consectetur ", 200) + "tail words here at the end",
		"中文文本的去重需要字符级别的切分，中文文本的去重需要字符级别的切分。",
	}
	for _, text := range texts {
		var sig Signature
		s.Sign(text, &sig)
		got := s.Distinct()
		if want := len(s.ShingleSet(text)); got != want {
			t.Errorf("Distinct of %.30q = %d, want %d (ShingleSet)", text, got, want)
		}
	}
}

func BenchmarkDistinct(b *testing.B) {
	s, err := New(DefaultConfig())
	if err != nil {
		b.Fatal(err)
	}
	var sig Signature
	s.Sign(strings.Repeat("lorem ipsum dolor sit amet consectetur adipiscing elit ", 40), &sig)
	b.ReportAllocs()
	for b.Loop() {
		s.Distinct()
	}
	b.ReportMetric(float64(b.Elapsed().Nanoseconds())/float64(b.N)/float64(len(s.shingles)), "ns/shingle")
}
