package compare

import (
	"fmt"
	"math"
	"strings"
	"testing"
)

// words60 is a 60-word text with repeated words, so that its shingles form a
// set smaller than its shingle count.
func words60() []string {
	w := make([]string, 60)
	for i := range w {
		w[i] = fmt.Sprintf("w%d", i%45)
	}
	return w
}

// distinct60 is a 60-word text without repeats.
func distinct60() []string {
	w := make([]string, 60)
	for i := range w {
		w[i] = fmt.Sprintf("t%d", i)
	}
	return w
}

// with returns a copy of toks with toks[i] replaced by s.
func with(toks []string, i int, s string) []string {
	c := append([]string(nil), toks...)
	c[i] = s
	return c
}

// jaccardOfShingles computes the exact Jaccard of the k-gram sets of two
// token lists with plain string sets, independently of package similarity.
func jaccardOfShingles(a, b []string, k int) float64 {
	set := func(toks []string) map[string]bool {
		m := map[string]bool{}
		if len(toks) < k {
			m[strings.Join(toks, "\x00")] = true
			return m
		}
		for i := 0; i+k <= len(toks); i++ {
			m[strings.Join(toks[i:i+k], "\x00")] = true
		}
		return m
	}
	sa, sb := set(a), set(b)
	inter := 0
	for s := range sa {
		if sb[s] {
			inter++
		}
	}
	return float64(inter) / float64(len(sa)+len(sb)-inter)
}

func TestTexts(t *testing.T) {
	orig, distinct := words60(), distinct60()
	cjkA := []string{"寒", "雨", "连", "江", "夜", "入", "吴", "平", "明", "送", "客", "楚", "山", "孤", "数", "亩", "荒", "园", "留", "我", "住"}
	cjk := func(toks []string) string {
		return strings.Join(toks[:7], "") + "，" + strings.Join(toks[7:14], "") + "。" + strings.Join(toks[14:], "")
	}
	const text = "the quick brown fox jumps over the lazy dog and keeps running far away"

	tests := []struct {
		name         string
		a, b         string
		jaccard      float64 // exact
		inter, union int     // 0, 0: not checked
		hamming      int     // -1: not checked
		nearDup      bool
		simNearDup   bool
		onlyA        []string
		onlyB        []string
		cjk          bool
		cosineTFMin  float64
	}{
		{name: "identical", a: text, b: text, jaccard: 1, hamming: 0, nearDup: true, simNearDup: true, cosineTFMin: 1},
		{name: "case and spaces only", a: text, b: "  THE Quick brown fox jumps over the lazy dog and keeps running far away\n",
			jaccard: 1, hamming: 0, nearDup: true, simNearDup: true, cosineTFMin: 1},
		{name: "unrelated", a: text, b: "lorem ipsum dolor sit amet consectetur adipiscing elit sed do eiusmod tempor",
			jaccard: 0, hamming: -1, onlyA: []string{"the", "quick", "brown"}, onlyB: []string{"lorem", "ipsum", "dolor"}},
		{name: "one word in 60", a: strings.Join(orig, " "), b: strings.Join(with(orig, 30, "changed"), " "),
			jaccard: jaccardOfShingles(orig, with(orig, 30, "changed"), 5), hamming: -1, nearDup: true, onlyA: []string{"w30"}, onlyB: []string{"changed"}, cosineTFMin: 0.9},
		// Worked out by hand: 56 shingles each, the changed word is in 5 of
		// them, so 51 are shared of 61.
		{name: "one word in 60 distinct", a: strings.Join(distinct, " "), b: strings.Join(with(distinct, 30, "other"), " "),
			jaccard: 51.0 / 61, inter: 51, union: 61, hamming: -1, nearDup: true, onlyA: []string{"t30"}, onlyB: []string{"other"}, cosineTFMin: 0.9},
		{name: "one character of chinese", a: cjk(cjkA), b: cjk(with(cjkA, 19, "他")),
			jaccard: jaccardOfShingles(cjkA, with(cjkA, 19, "他"), 5), hamming: -1, onlyA: []string{"我"}, onlyB: []string{"他"}, cjk: true, cosineTFMin: 0.9},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			r, err := Texts(tt.a, tt.b, DefaultOptions())
			if err != nil {
				t.Fatal(err)
			}
			if r.A.Bytes != len(tt.a) || r.B.Bytes != len(tt.b) {
				t.Errorf("bytes %d, %d; want %d, %d", r.A.Bytes, r.B.Bytes, len(tt.a), len(tt.b))
			}
			if math.Abs(r.Jaccard-tt.jaccard) > 1e-12 {
				t.Errorf("exact Jaccard = %v, want %v", r.Jaccard, tt.jaccard)
			}
			if tt.union > 0 && (r.Inter != tt.inter || r.Union != tt.union) {
				t.Errorf("Jaccard = %d/%d, want %d/%d", r.Inter, r.Union, tt.inter, tt.union)
			}
			if math.Abs(r.Estimate-tt.jaccard) > 0.15 {
				t.Errorf("MinHash estimate %v too far from exact Jaccard %v", r.Estimate, tt.jaccard)
			}
			if tt.hamming >= 0 && r.Hamming != tt.hamming {
				t.Errorf("Hamming = %d, want %d", r.Hamming, tt.hamming)
			}
			if r.NearDup() != tt.nearDup {
				t.Errorf("NearDup() = %v, want %v (Jaccard %v)", r.NearDup(), tt.nearDup, r.Jaccard)
			}
			if tt.hamming >= 0 && r.SimHashNearDup() != tt.simNearDup {
				t.Errorf("SimHashNearDup() = %v, want %v", r.SimHashNearDup(), tt.simNearDup)
			}
			if r.CosineTF < tt.cosineTFMin-1e-9 || r.CosineTF > 1+1e-9 {
				t.Errorf("cosine TF = %v, want in [%v, 1]", r.CosineTF, tt.cosineTFMin)
			}
			if r.CosineTFIDF < 0 || r.CosineTFIDF > 1+1e-9 {
				t.Errorf("cosine TF-IDF = %v, want in [0, 1]", r.CosineTFIDF)
			}
			if !hasPrefix(r.A.Only, tt.onlyA) || !hasPrefix(r.B.Only, tt.onlyB) {
				t.Errorf("only in A %q, only in B %q; want them to start with %q, %q", r.A.Only, r.B.Only, tt.onlyA, tt.onlyB)
			}
			if r.CJK != tt.cjk || (tt.cjk && (len(r.A.Words) == 0 || len(r.B.Words) == 0)) {
				t.Errorf("CJK = %v with gse words %q / %q, want CJK %v", r.CJK, r.A.Words, r.B.Words, tt.cjk)
			}
		})
	}
}

func hasPrefix(got, want []string) bool {
	if len(want) == 0 {
		return len(got) == 0
	}
	return len(got) >= len(want) && strings.Join(got[:len(want)], " ") == strings.Join(want, " ")
}

// TestVerdicts checks NearDup and SimHashNearDup at and around their bounds,
// and that a document without tokens is nobody's near-duplicate.
func TestVerdicts(t *testing.T) {
	opt := DefaultOptions() // threshold 0.8, Hamming 3
	tok := Side{Tokens: 5}
	tests := []struct {
		name            string
		r               Result
		nearDup, simDup bool
	}{
		{"at both bounds", Result{A: tok, B: tok, Jaccard: 0.8, Union: 10, Hamming: 3}, true, true},
		{"past both bounds", Result{A: tok, B: tok, Jaccard: 0.79, Union: 10, Hamming: 4}, false, false},
		{"no shingles", Result{A: tok, B: tok, Jaccard: 1, Union: 0, Hamming: 0}, false, true},
		{"A has no tokens", Result{B: tok, Jaccard: 0.9, Union: 10, Hamming: 0}, true, false},
		{"B has no tokens", Result{A: tok, Jaccard: 0.9, Union: 10, Hamming: 0}, true, false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			tt.r.Options = opt
			if got := tt.r.NearDup(); got != tt.nearDup {
				t.Errorf("NearDup() = %v, want %v", got, tt.nearDup)
			}
			if got := tt.r.SimHashNearDup(); got != tt.simDup {
				t.Errorf("SimHashNearDup() = %v, want %v", got, tt.simDup)
			}
		})
	}
}

func TestOptions(t *testing.T) {
	text := "the quick brown fox jumps over the lazy dog"
	tests := []struct {
		name    string
		opt     func(*Options)
		wantErr string
	}{
		{"default", func(*Options) {}, ""},
		{"word shingles", func(o *Options) { o.Shingle = "word:3" }, ""},
		{"no colon", func(o *Options) { o.Shingle = "char5" }, `--shingle "char5": want char:N or word:N`},
		{"bad mode", func(o *Options) { o.Shingle = "byte:5" }, `--shingle "byte:5": `},
		{"zero size", func(o *Options) { o.Shingle = "char:0" }, `--shingle "char:0": want a shingle size from 1 to 100`},
		{"threshold", func(o *Options) { o.Threshold = 1.5 }, "--threshold 1.5 out of (0, 1]"},
		{"zero threshold", func(o *Options) { o.Threshold = 0 }, "--threshold 0 out of (0, 1]"},
		{"perms", func(o *Options) { o.Perms = 0 }, "--perms 0: want at least 1"},
		{"hamming", func(o *Options) { o.Hamming = 65 }, "--hamming 65 out of [0, 64]"},
		{"negative hamming", func(o *Options) { o.Hamming = -1 }, "--hamming -1 out of [0, 64]"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			opt := DefaultOptions()
			tt.opt(&opt)
			_, err := Texts(text, text, opt)
			if tt.wantErr == "" && err != nil || tt.wantErr != "" && (err == nil || !strings.Contains(err.Error(), tt.wantErr)) {
				t.Errorf("error %v, want one containing %q", err, tt.wantErr)
			}
		})
	}
}

// TestCosine checks the cosines against values worked out by hand: "a b"
// and "a c" share one of two tokens each, so cosine TF is 1/2; with IDF from
// the two documents, a (in both) weighs 1 and b, c (in one) weigh
// ln(3/2)+1, so cosine TF-IDF is 1/(1+(ln(3/2)+1)²).
func TestCosine(t *testing.T) {
	idf := math.Log(1.5) + 1
	tests := []struct {
		name, a, b, shingle string
		tf, tfidf           float64 // -1: not checked
		idfSource           string
	}{
		{"char mode", "a b", "a c", "char:5", 0.5, 1 / (1 + idf*idf), "document frequencies of A and B"},
		{"repeated tokens", "a a b", "a b b", "char:5", 4.0 / 5, -1, "document frequencies of A and B"},
		{"word mode", "我们今天去公园", "我们明天去公园", "word:5", -1, -1, "gse's Chinese IDF table"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			opt := DefaultOptions()
			opt.Shingle = tt.shingle
			r, err := Texts(tt.a, tt.b, opt)
			if err != nil {
				t.Fatal(err)
			}
			if tt.tf >= 0 && math.Abs(r.CosineTF-tt.tf) > 1e-9 {
				t.Errorf("cosine TF = %v, want %v", r.CosineTF, tt.tf)
			}
			if tt.tfidf >= 0 && math.Abs(r.CosineTFIDF-tt.tfidf) > 1e-6 {
				t.Errorf("cosine TF-IDF = %v, want %v", r.CosineTFIDF, tt.tfidf)
			}
			if r.IDFSource != tt.idfSource {
				t.Errorf("IDF from %q, want %q", r.IDFSource, tt.idfSource)
			}
		})
	}
}

func TestOnlyIn(t *testing.T) {
	tests := []struct {
		a, b  string
		max   int
		want  string
		total int
	}{
		{"", "x", 5, "", 0},
		{"x y", "x y", 5, "", 0},
		{"a b a c", "b", 5, "a c", 2},
		{"d c b a", "", 2, "d c", 4},
	}
	for _, tt := range tests {
		got, total := onlyIn(strings.Fields(tt.a), strings.Fields(tt.b), tt.max)
		if strings.Join(got, " ") != tt.want || total != tt.total {
			t.Errorf("onlyIn(%q, %q, %d) = %q, %d; want %q, %d", tt.a, tt.b, tt.max, got, total, tt.want, tt.total)
		}
	}
}

// TestContainment: a document cut short lies wholly inside the original
// (worked out by hand: the first 30 of 60 distinct words give 26 shingles,
// all among the original's 56), while their Jaccard is low.
func TestContainment(t *testing.T) {
	words := make([]string, 60)
	for i := range words {
		words[i] = fmt.Sprintf("t%d", i)
	}
	r, err := Texts(strings.Join(words[:30], " "), strings.Join(words, " "), DefaultOptions())
	if err != nil {
		t.Fatal(err)
	}
	if r.ContainAB != 1 || r.ContainBA != 26.0/56 || r.Jaccard != 26.0/56 {
		t.Errorf("containment A in B %v, B in A %v, Jaccard %v; want 1, 26/56, 26/56", r.ContainAB, r.ContainBA, r.Jaccard)
	}
	if r.NearDup() {
		t.Error("a half-length prefix is a Jaccard near-duplicate at 0.8")
	}
}
