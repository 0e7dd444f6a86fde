package main

import (
	"bytes"
	"fmt"
	"math"
	"os"
	"path/filepath"
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

func TestCompareTexts(t *testing.T) {
	orig := words60()
	changed := append([]string(nil), orig...)
	changed[30] = "changed"
	cjkA := []string{"寒", "雨", "连", "江", "夜", "入", "吴", "平", "明", "送", "客", "楚", "山", "孤", "数", "亩", "荒", "园", "留", "我", "住"}
	cjkB := append([]string(nil), cjkA...)
	cjkB[19] = "他"
	cjk := func(toks []string) string {
		return strings.Join(toks[:7], "") + "，" + strings.Join(toks[7:14], "") + "。" + strings.Join(toks[14:], "")
	}
	const text = "the quick brown fox jumps over the lazy dog and keeps running far away"

	tests := []struct {
		name        string
		a, b        string
		jaccard     float64 // exact; -1: only check maxJaccard
		maxJaccard  float64
		hamming     int // -1: do not check
		nearDup     bool
		simNearDup  bool
		onlyA       []string
		onlyB       []string
		cjk         bool
		cosineTFMin float64
	}{
		{name: "identical", a: text, b: text, jaccard: 1, hamming: 0, nearDup: true, simNearDup: true, cosineTFMin: 1},
		{name: "case and spaces only", a: text, b: "  THE Quick brown fox jumps over the lazy dog and keeps running far away\n",
			jaccard: 1, hamming: 0, nearDup: true, simNearDup: true, cosineTFMin: 1},
		{name: "unrelated", a: text, b: "lorem ipsum dolor sit amet consectetur adipiscing elit sed do eiusmod tempor",
			jaccard: 0, hamming: -1, onlyA: []string{"the", "quick", "brown"}, onlyB: []string{"lorem", "ipsum", "dolor"}},
		{name: "one word in 60", a: strings.Join(orig, " "), b: strings.Join(changed, " "),
			jaccard: jaccardOfShingles(orig, changed, 5), hamming: -1, nearDup: true, onlyA: []string{"w30"}, onlyB: []string{"changed"}, cosineTFMin: 0.9},
		{name: "one character of chinese", a: cjk(cjkA), b: cjk(cjkB),
			jaccard: jaccardOfShingles(cjkA, cjkB, 5), hamming: -1, onlyA: []string{"我"}, onlyB: []string{"他"}, cjk: true, cosineTFMin: 0.9},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			c, err := compareTexts(document{"A", tt.a}, document{"B", tt.b}, defaultCompareOptions())
			if err != nil {
				t.Fatal(err)
			}
			if math.Abs(c.Jaccard-tt.jaccard) > 1e-12 {
				t.Errorf("exact Jaccard = %v, want %v", c.Jaccard, tt.jaccard)
			}
			if math.Abs(c.Estimate-tt.jaccard) > 0.15 {
				t.Errorf("MinHash estimate %v too far from exact Jaccard %v", c.Estimate, tt.jaccard)
			}
			if tt.hamming >= 0 && c.Hamming != tt.hamming {
				t.Errorf("Hamming = %d, want %d", c.Hamming, tt.hamming)
			}
			if c.NearDup() != tt.nearDup {
				t.Errorf("NearDup() = %v, want %v (%s)", c.NearDup(), tt.nearDup, c.jaccardVerdict())
			}
			if tt.hamming >= 0 && c.SimHashNearDup() != tt.simNearDup {
				t.Errorf("SimHashNearDup() = %v, want %v", c.SimHashNearDup(), tt.simNearDup)
			}
			if c.CosineTF < tt.cosineTFMin-1e-9 || c.CosineTF > 1+1e-9 {
				t.Errorf("cosine TF = %v, want in [%v, 1]", c.CosineTF, tt.cosineTFMin)
			}
			if c.CosineTFIDF < 0 || c.CosineTFIDF > 1+1e-9 {
				t.Errorf("cosine TF-IDF = %v, want in [0, 1]", c.CosineTFIDF)
			}
			if !hasPrefix(c.A.Only, tt.onlyA) || !hasPrefix(c.B.Only, tt.onlyB) {
				t.Errorf("only in A %q, only in B %q; want them to start with %q, %q", c.A.Only, c.B.Only, tt.onlyA, tt.onlyB)
			}
			if c.CJK != tt.cjk || (tt.cjk && (len(c.A.Words) == 0 || len(c.B.Words) == 0)) {
				t.Errorf("CJK = %v with gse words %q / %q, want CJK %v", c.CJK, c.A.Words, c.B.Words, tt.cjk)
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

// TestCompareOneWordValue pins the one-word-change case to the value worked
// out by hand: 56 shingles each, the changed word is in 5 of them, so 51 are
// shared of 61.
func TestCompareOneWordValue(t *testing.T) {
	w := make([]string, 60)
	for i := range w {
		w[i] = fmt.Sprintf("t%d", i)
	}
	b := append([]string(nil), w...)
	b[30] = "other"
	c, err := compareTexts(document{"A", strings.Join(w, " ")}, document{"B", strings.Join(b, " ")}, defaultCompareOptions())
	if err != nil {
		t.Fatal(err)
	}
	if c.Inter != 51 || c.Union != 61 || c.Jaccard != 51.0/61 {
		t.Errorf("Jaccard = %d/%d = %v, want 51/61", c.Inter, c.Union, c.Jaccard)
	}
	if want := "near-duplicate: yes (Jaccard 0.8361 >= 0.80)"; c.jaccardVerdict() != want {
		t.Errorf("verdict %q, want %q", c.jaccardVerdict(), want)
	}
}

func TestCompareOptions(t *testing.T) {
	text := "the quick brown fox jumps over the lazy dog"
	tests := []struct {
		name    string
		opt     func(*compareOptions)
		wantErr string
	}{
		{"default", func(*compareOptions) {}, ""},
		{"word shingles", func(o *compareOptions) { o.Shingle = "word:3" }, ""},
		{"no colon", func(o *compareOptions) { o.Shingle = "char5" }, "want char:N or word:N"},
		{"bad mode", func(o *compareOptions) { o.Shingle = "byte:5" }, "--shingle"},
		{"zero size", func(o *compareOptions) { o.Shingle = "char:0" }, "positive"},
		{"threshold", func(o *compareOptions) { o.Threshold = 1.5 }, "--threshold"},
		{"perms", func(o *compareOptions) { o.Perms = 0 }, "--perms"},
		{"hamming", func(o *compareOptions) { o.Hamming = 65 }, "--hamming"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			opt := defaultCompareOptions()
			tt.opt(&opt)
			_, err := compareTexts(document{"A", text}, document{"B", text}, opt)
			if tt.wantErr == "" && err != nil || tt.wantErr != "" && (err == nil || !strings.Contains(err.Error(), tt.wantErr)) {
				t.Errorf("error %v, want one containing %q", err, tt.wantErr)
			}
		})
	}
}

func TestComparePrint(t *testing.T) {
	c, err := compareTexts(document{"a.txt", "one two three four five six"}, document{"b.txt", "one two three four five seven"}, defaultCompareOptions())
	if err != nil {
		t.Fatal(err)
	}
	var buf bytes.Buffer
	c.print(&buf)
	out := buf.String()
	for _, want := range []string{
		"document  a.txt",
		fmt.Sprintf("simhash   %016x  %016x", c.A.SimHash, c.B.SimHash),
		"jaccard (exact)    0.3333  1 shared of 3 distinct shingles",
		"only in A          six\n",
		"only in B          seven\n",
		"IDF from document frequencies of A and B",
		"verdict (jaccard)  near-duplicate: no (Jaccard 0.3333 < 0.80)",
		"verdict (simhash)  near-duplicate: ",
	} {
		if !strings.Contains(out, want) {
			t.Errorf("output lacks %q:\n%s", want, out)
		}
	}
}

func TestReadDocuments(t *testing.T) {
	dir := t.TempDir()
	a := filepath.Join(dir, "a.txt")
	corpus := filepath.Join(dir, "c.jsonl")
	if err := os.WriteFile(a, []byte("hello world"), 0o644); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(corpus, []byte(`{"id":"x","text":"first"}`+"\n"+`{"id":"y","text":"second"}`+"\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	tests := []struct {
		name       string
		read       func() (document, document, error)
		wantA      string
		wantErrSub string
	}{
		{"files", func() (document, document, error) { return readFiles(a, a) }, "hello world", ""},
		{"missing file", func() (document, document, error) { return readFiles(a, filepath.Join(dir, "nope")) }, "", "reading document B"},
		{"records", func() (document, document, error) { return readRecords(corpus, "id", "text", "y", "x") }, "second", ""},
		{"missing id", func() (document, document, error) { return readRecords(corpus, "id", "text", "x", "z") }, "", `no record with id "z"`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			da, _, err := tt.read()
			if tt.wantErrSub != "" {
				if err == nil || !strings.Contains(err.Error(), tt.wantErrSub) {
					t.Errorf("error %v, want one containing %q", err, tt.wantErrSub)
				}
				return
			}
			if err != nil || da.Text != tt.wantA {
				t.Errorf("got %q, %v; want %q", da.Text, err, tt.wantA)
			}
		})
	}
}

func TestParseInterspersed(t *testing.T) {
	tests := []struct {
		args []string
		want string
	}{
		{[]string{"a", "b"}, "a b"},
		{[]string{"--text", "a", "b"}, "a b"},
		{[]string{"a", "--text", "b"}, "a b"},
		{[]string{"a", "b", "--threshold", "0.9"}, "a b"},
		{[]string{"--", "-a", "b"}, "-a b"},
	}
	for _, tt := range tests {
		fs, _ := newCompareFlags()
		got, err := parseInterspersed(fs, tt.args)
		if err != nil || strings.Join(got, " ") != tt.want {
			t.Errorf("parseInterspersed(%q) = %q, %v; want %q", tt.args, got, err, tt.want)
		}
	}
}

// TestCompareCosine checks the cosines against values worked out by hand:
// "a b" and "a c" share one of two tokens each, so cosine TF is 1/2; with
// IDF from the two documents, a (in both) weighs 1 and b, c (in one) weigh
// ln(3/2)+1, so cosine TF-IDF is 1/(1+(ln(3/2)+1)²).
func TestCompareCosine(t *testing.T) {
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
			opt := defaultCompareOptions()
			opt.Shingle = tt.shingle
			c, err := compareTexts(document{"A", tt.a}, document{"B", tt.b}, opt)
			if err != nil {
				t.Fatal(err)
			}
			if tt.tf >= 0 && math.Abs(c.CosineTF-tt.tf) > 1e-9 {
				t.Errorf("cosine TF = %v, want %v", c.CosineTF, tt.tf)
			}
			if tt.tfidf >= 0 && math.Abs(c.CosineTFIDF-tt.tfidf) > 1e-6 {
				t.Errorf("cosine TF-IDF = %v, want %v", c.CosineTFIDF, tt.tfidf)
			}
			if c.IDFSource != tt.idfSource {
				t.Errorf("IDF from %q, want %q", c.IDFSource, tt.idfSource)
			}
		})
	}
}
