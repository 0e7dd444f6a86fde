package normalize

import (
	"fmt"
	"strings"
	"testing"
	"unicode"
	"unicode/utf8"

	"golang.org/x/text/unicode/norm"
)

func TestFold(t *testing.T) {
	tests := []struct {
		name, in, want string
	}{
		{"traditional characters", "漢語簡體與繁體", "汉语简体与繁体"},
		{"one traditional character per simplified", "後來頭髮發現", "后来头发发现"},
		{"first candidate", "乾淨", "干净"},
		{"taiwan variant", "裡面", "里面"},
		{"standard traditional form", "裏面", "里面"},
		{"hong kong variant", "衞生", "卫生"},
		{"variant of a traditional form", "爲為", "为为"},
		{"simplified unchanged", "简体中文的文本", "简体中文的文本"},
		{"mixed text", "Go 語言 is 很快 (2024)", "Go 语言 is 很快 (2024)"},
		{"english untouched", "The Quick brown fox, 1 2 3!", "The Quick brown fox, 1 2 3!"},
		{"japanese kana untouched", "ひらがな カタカナ ｶﾀｶﾅ", "ひらがな カタカナ ｶﾀｶﾅ"},
		{"hangul untouched", "한국어 텍스트", "한국어 텍스트"},
		{"outside the BMP", "\U0002A6A5\U00020000", "\U0002A6A5\U00020000"},
		{"invalid UTF-8 becomes U+FFFD", "漢\xff語", "汉\uFFFD语"},
		{"empty", "", ""},
	}
	for _, tt := range tests {
		if got := Fold(tt.in); got != tt.want {
			t.Errorf("%s: Fold(%q) = %q, want %q", tt.name, tt.in, got, tt.want)
		}
	}
}

// TestFoldTogether: a Simplified text and the forms OpenCC's conversions
// write for it (s2t, s2tw, s2hk, one character at a time) fold to one text.
func TestFoldTogether(t *testing.T) {
	for _, forms := range [][]string{
		{"显著的着作", "顯著的著作"},
		{"头发和发展", "頭髮和發展"},
		{"面条和面对", "麪條和面對", "麵條和面對"},
		{"里面的里程", "裏面的里程", "裡面的里程"},
		{"台风和台湾", "颱風和臺灣", "颱風和台灣"},
		{"吃饭才来", "喫飯纔來", "吃飯才來"},
		{"反复复杂覆盖", "反覆複雜覆蓋", "反復複雜覆蓋"},
		{"余下的", "餘下的", "馀下的"},
	} {
		want := Fold(forms[0])
		for _, f := range forms[1:] {
			if got := Fold(f); got != want {
				t.Errorf("Fold(%q) = %q, but Fold(%q) = %q", f, got, forms[0], want)
			}
		}
	}
}

// TestFoldTable checks what Text assumes of foldPairs: sorted by source,
// each source once and at or above U+3400 (foldRune's shortcut), every
// source and target a Han ideograph that starts an NFKC segment and that
// NFKC and lower case leave alone (see classify), and no target a source
// (folding twice is folding once).
func TestFoldTable(t *testing.T) {
	if len(foldPairs)%2 != 0 || len(foldPairs) < 2*4000 {
		t.Fatalf("foldPairs has %d entries, want an even number of at least 8000", len(foldPairs))
	}
	isSource := map[uint32]bool{}
	for i := 0; i < len(foldPairs); i += 2 {
		src, dst := foldPairs[i], foldPairs[i+1]
		if i > 0 && src <= foldPairs[i-2] {
			t.Fatalf("foldPairs[%d] = %U after %U: not sorted", i, src, foldPairs[i-2])
		}
		if src < 0x3400 {
			t.Fatalf("foldPairs[%d] = %U is below U+3400", i, src)
		}
		isSource[src] = true
		for _, r := range []rune{rune(src), rune(dst)} {
			s := string(r)
			if !unicode.Is(unicode.Han, r) || !norm.NFKC.IsNormalString(s) || !isStarter(norm.NFKC.PropertiesString(s)) || unicode.ToLower(r) != r {
				t.Fatalf("foldPairs[%d]: %U -> %U: %U is not a Han starter that NFKC and lower case leave alone", i, src, dst, r)
			}
		}
	}
	for i := 1; i < len(foldPairs); i += 2 {
		if isSource[foldPairs[i]] {
			t.Fatalf("foldPairs[%d] = %U is a target and a source", i, foldPairs[i])
		}
	}
}

// TestFormText: with FoldScript, Text folds what it writes, wherever the
// rune comes from (a compatibility ideograph's NFKC form, a rune before a
// combining mark, a rune outside the BMP), and Text without it does not.
func TestFormText(t *testing.T) {
	tests := []struct {
		in, plain, fold string
	}{
		{"漢語  ABC", "漢語 abc", "汉语 abc"},
		{"\uF9B4", "\u9818", "\u9886"},                                      // compatibility ideograph of 領
		{"後\u0301", "後\u0301", "后\u0301"},                                   // before a combining mark
		{"\U0002B748 \u346E", "\U0002B748 \u346E", "\U0002B748 \U0002B748"}, // 㑮 folds outside the BMP
		{"ｶﾀｶﾅ 한국", "カタカナ 한국", "カタカナ 한국"},
	}
	for _, tt := range tests {
		if got := Text(tt.in); got != tt.plain {
			t.Errorf("Text(%+q) = %+q, want %+q", tt.in, got, tt.plain)
		}
		if got := folded.Text(tt.in); got != tt.fold {
			t.Errorf("folded.Text(%+q) = %+q, want %+q", tt.in, got, tt.fold)
		}
	}
}

// TestFoldAllocs: folding adds no allocation, on Simplified or
// Traditional text: Text allocates its result, Into nothing over a buffer
// large enough.
func TestFoldAllocs(t *testing.T) {
	for _, s := range []string{
		"今天天气很好，我们去公园散步。　然后一起吃午饭！「好」 The quick brown fox",
		"今天天氣很好，我們去公園散步。　然後一起吃午飯！「好」 The quick brown fox",
	} {
		if n := testing.AllocsPerRun(100, func() { folded.Text(s) }); n > 1 {
			t.Errorf("folded.Text(%+q) does %v allocations, want at most 1", s, n)
		}
		buf := folded.Into(nil, s)
		if n := testing.AllocsPerRun(100, func() { buf = folded.Into(buf, s) }); n != 0 {
			t.Errorf("folded.Into(%+q) with a large enough buffer does %v allocations, want 0", s, n)
		}
	}
}

// traditional returns s with each character that is a fold target
// replaced by the first source that folds to it: a Traditional-looking
// copy, for the benchmark.
func traditional(s string) string {
	first := map[rune]rune{}
	for i := 0; i < len(foldPairs); i += 2 {
		if _, ok := first[rune(foldPairs[i+1])]; !ok {
			first[rune(foldPairs[i+1])] = rune(foldPairs[i])
		}
	}
	return strings.Map(func(r rune) rune {
		if t, ok := first[r]; ok {
			return t
		}
		return r
	}, s)
}

// BenchmarkTextTraditionalFold normalizes with folding Traditional copies
// of the dev corpus's Chinese documents, where most lines have runes to fold.
func BenchmarkTextTraditionalFold(b *testing.B) {
	texts, size := benchCorpus(b, "zh", 4<<20)
	changed := 0
	for i, s := range texts {
		texts[i] = traditional(s)
		if texts[i] != s {
			changed++
		}
	}
	b.SetBytes(size)
	b.ReportAllocs()
	b.ResetTimer()
	for b.Loop() {
		for _, s := range texts {
			folded.Text(s)
		}
	}
	b.ReportMetric(float64(b.Elapsed().Nanoseconds())/float64(b.N)/float64(len(texts)), "ns/doc")
	b.ReportMetric(float64(changed), "changed_docs")
}

func ExampleFold() {
	fmt.Println(Fold("漢語 後來 裡面 Hello"))
	fmt.Println(Form{FoldScript: true}.Text("臺灣的  ＯＰＥＮ資料"))
	// Output:
	// 汉语 后来 里面 Hello
	// 台湾的 open资料
}

// foldRuneBySearch is foldRune by a walk of the whole table.
func foldRuneBySearch(r rune) rune {
	for i := 0; i < len(foldPairs); i += 2 {
		if foldPairs[i] == uint32(r) {
			return rune(foldPairs[i+1])
		}
	}
	return r
}

// TestFoldRune compares foldRune's binary search with a walk of the table
// on every rune of the CJK blocks and around them.
func TestFoldRune(t *testing.T) {
	for r := rune(0x3000); r <= 0x32000; r++ {
		if r == 0xA000 {
			r = 0xF900 // skip to the compatibility ideographs
		} else if r == 0xFB00 {
			r = 0x20000 // and on to the supplementary ideographs
		}
		if !utf8.ValidRune(r) {
			continue
		}
		if got, want := foldRune(r), foldRuneBySearch(r); got != want {
			t.Fatalf("foldRune(%U) = %U, want %U", r, got, want)
		}
	}
}
