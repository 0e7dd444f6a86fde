package normalize

import (
	"bufio"
	"encoding/json"
	"math/rand/v2"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"testing"
	"unicode"
	"unicode/utf8"

	"golang.org/x/text/unicode/norm"
)

// reference is the original, obviously correct implementation of Text: three
// passes (NFKC, strings.ToLower, white-space collapse). Text must return
// exactly what reference returns for every input.
func reference(s string) string {
	if isASCIIRef(s) {
		return collapseASCIIRef(s)
	}
	s = norm.NFKC.String(s)
	s = strings.ToLower(s)
	return collapseRef(s)
}

func isASCIIRef(s string) bool {
	for i := 0; i < len(s); i++ {
		if s[i] >= utf8.RuneSelf {
			return false
		}
	}
	return true
}

var asciiSpaceRef = [256]bool{'\t': true, '\n': true, '\v': true, '\f': true, '\r': true, ' ': true, 0x1c: true, 0x1d: true, 0x1e: true, 0x1f: true}

func collapseASCIIRef(s string) string {
	var b strings.Builder
	b.Grow(len(s))
	pendingSpace := false
	for i := 0; i < len(s); i++ {
		c := s[i]
		if asciiSpaceRef[c] {
			pendingSpace = b.Len() > 0
			continue
		}
		if pendingSpace {
			b.WriteByte(' ')
			pendingSpace = false
		}
		if 'A' <= c && c <= 'Z' {
			c += 'a' - 'A'
		}
		b.WriteByte(c)
	}
	return b.String()
}

func collapseRef(s string) string {
	var b strings.Builder
	b.Grow(len(s))
	pendingSpace := false
	for _, r := range s {
		if unicode.IsSpace(r) || (r < utf8.RuneSelf && asciiSpaceRef[r]) {
			pendingSpace = b.Len() > 0
			continue
		}
		if pendingSpace {
			b.WriteByte(' ')
			pendingSpace = false
		}
		b.WriteRune(r)
	}
	return b.String()
}

type corpusDoc struct {
	Text string `json:"text"`
	Lang string `json:"lang"`
}

var (
	corpusOnce sync.Once
	corpus     []corpusDoc
	corpusErr  error
)

// corpusDocs returns the documents of the shared development corpus
// ($NEARDUP_CORPUS/dev.jsonl, or shared/corpus/dev.jsonl beside the
// repository), read once per process.
func corpusDocs(tb testing.TB) []corpusDoc {
	tb.Helper()
	corpusOnce.Do(func() {
		dir := os.Getenv("NEARDUP_CORPUS")
		if dir == "" {
			dir = filepath.Join("..", "..", "..", "..", "shared", "corpus")
		}
		f, err := os.Open(filepath.Join(dir, "dev.jsonl"))
		if err != nil {
			corpusErr = err
			return
		}
		defer f.Close()
		sc := bufio.NewScanner(f)
		sc.Buffer(make([]byte, 1<<20), 1<<28)
		for sc.Scan() {
			var d corpusDoc
			if err := json.Unmarshal(sc.Bytes(), &d); err != nil {
				corpusErr = err
				return
			}
			corpus = append(corpus, d)
		}
		corpusErr = sc.Err()
	})
	if corpusErr != nil {
		if os.IsNotExist(corpusErr) {
			tb.Skipf("dev corpus not available: %v", corpusErr)
		}
		tb.Fatalf("reading dev corpus: %v", corpusErr)
	}
	return corpus
}

func TestText(t *testing.T) {
	tests := []struct {
		name, in, want string
	}{
		{"empty", "", ""},
		{"spaces only", " \t\r\n ", ""},
		{"ascii lower and collapse", "  Hello,\tWORLD!\r\n\nBye  ", "hello, world! bye"},
		{"file separators are space", "a\x1cb\x1fc", "a b c"},
		{"full-width latin folds", "ＡＢＣ　１２３", "abc 123"},
		{"ligature", "ﬁle", "file"},
		{"chinese unchanged", "中文 文本", "中文 文本"},
		{"full-width punctuation", "你好，世界！", "你好,世界!"},
		{"unicode space", "a\u00a0\u3000b", "a b"},
		{"greek lower", "ΑΒΓ", "αβγ"},
		{"mixed", "Go 语言\n\n很快", "go 语言 很快"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if got := Text(tt.in); got != tt.want {
				t.Errorf("Text(%q) = %q, want %q", tt.in, got, tt.want)
			}
		})
	}
}

func TestKeyExactDuplicates(t *testing.T) {
	a := Key(Text("The  quick brown\nfox"))
	b := Key(Text("the quick BROWN fox "))
	c := Key(Text("the quick brown fox."))
	if a != b {
		t.Errorf("whitespace/case variants got different keys")
	}
	if a == c {
		t.Errorf("punctuation difference got the same key")
	}
}

// trickyCases are inputs where NFKC, simple lower-casing and the white-space
// collapse interact, or where a fast path could go wrong.
var trickyCases = []string{
	"",
	" ",
	"   \t\r\n\v\f ",
	"\x1c\x1d\x1e\x1f",
	"a\x1cb\x1dc\x1ed\x1fe",
	"\x00a\x00",
	"İstanbul DİYARBAKIR ıi", // Turkish dotted and dotless I
	"ΟΔΥΣΣΕΥΣ ὈΔΥΣΣΕΎΣ σς",      // Greek final sigma stays simple-mapped
	"\u212a\u212b\u2126 kelvin", // Kelvin, Angstrom and Ohm signs
	"ﬁle ﬂow ﬀ ﬃ ﬄ ﬅ ﬆ",
	"ＡＢＣ　ｘｙｚ，１２３！？：；（）",
	"ｶﾞｷﾞ ﾊﾟ ｱｲｳ", // half-width katakana with voiced marks
	"a\u00a0b\u3000c\u0085d\u2028e\u2029f\u1680g\u2000h\u200ai\u202fj\u205fk",
	"\u00a0\u3000 lead and trail \u3000\u00a0",
	"\u200b\u2060\ufeff not spaces",
	"e\u0301 E\u0301 a\u0308\u0304 o\u0328\u0304",
	"\u0301\u0300 leading marks",
	"x\u0316\u0301\u0300\u0316 reorder",
	" \u0301 space then mark \u00a0\u0301 \u3000\u0301",
	"=\u0338 <\u0338 >\u0338",
	"\u00b4 \u00a8 \u02dc \u0384 \u1fef",
	"\u1100\u1161\u11a8 \u1100 \u1161 \u11a8 \uac00\u11a8 \u3131\u314f",
	"한국어 텍스트 ﾡﾢ",
	"か\u3099 は\u309a ゛ ゜ か゛",
	"中文文本，繁體中文：測試。「引號」『雙引號』",
	"豈更車 \U0002f800 \U00020000\U0002a6d6",
	"😀 👍🏽 \U0001d400\U0001d5ba \U0001f130",
	"\xff\xfe invalid \x80\xbf \xc0\x80 \xe4\xb8 \xed\xa0\x80 \xf0\x9f\x98",
	"\xe4",
	"abc\xe4\xb8",
	"\xe4\xb8\xad\xe6", // valid then truncated
	"\ufffd real replacement character",
	"e\xcc", // truncated combining mark
	// An invalid lead byte close to the end of what norm.NFKC sees.
	"0000\xf6\u037a0",
	"\xf6\u037a",
	"a\xc3\u037ab\xe4\u037a中\xe4\xb8\u0301x\xf0\x9f\u0301y",
	"\xf7\u0301\u0301\u0301Z",
	"… ‥ ™ ℠ ½ ⅓ ㍿ ㋿ ⑴ ⒜ ① ㈱",
	"\ufdfa \ufdfb",
	"\u0344 \u0f73 \u0f75 \u0f81 \u1e9b\u0323",
	"\u0958 \u2adc \U0001d15e",
	"Ⱥ Ⱦ ǅ Ǆ ǈ ẞ ß",
	"\u037e \u0387 \u1fee",
	"\u0b47\u0b3e \u0dd9\u0dcf\u0dca \u1025\u102e \u0e33 \u0eb3",
	"a" + strings.Repeat("\u0301", 40) + "b",
	strings.Repeat("\u0316\u0301", 20),
	"A" + strings.Repeat("\u0300\u0316", 17) + "\uff21" + strings.Repeat("\u0301", 31),
	"MiXeD Case ÀÉÎÕÜ àéîõü ÇÑ ЖЁЛТЫЙ",
}

func TestTextTricky(t *testing.T) {
	for _, s := range trickyCases {
		if got, want := Text(s), reference(s); got != want {
			t.Errorf("Text(%+q) = %+q, want %+q", s, got, want)
		}
	}
}

// TestTextCorpus compares Text with reference, and Text with folding with
// Fold of reference, on every document of the development corpus.
func TestTextCorpus(t *testing.T) {
	docs := corpusDocs(t)
	bad := 0
	for i, d := range docs {
		want := reference(d.Text)
		if got := Text(d.Text); got != want {
			if bad++; bad <= 5 {
				t.Errorf("document %d (%s): Text differs from reference at byte %d", i, d.Lang, mismatch(got, want))
			}
		}
		if got, want := folded.Text(d.Text), Fold(want); got != want {
			if bad++; bad <= 5 {
				t.Errorf("document %d (%s): folded Text differs from Fold of reference at byte %d", i, d.Lang, mismatch(got, want))
			}
		}
	}
	if bad > 0 {
		t.Errorf("%d of %d documents differ", bad, len(docs))
	}
}

func mismatch(a, b string) int {
	i := 0
	for i < len(a) && i < len(b) && a[i] == b[i] {
		i++
	}
	return i
}

// comboAtoms are short pieces that interact under NFKC; TestTextCombinations
// concatenates them at random.
var comboAtoms = []string{
	"a", "A", "e", "E", "o", "i", "I", "k", "s", "1", ".", "=", "<", ">",
	" ", "  ", "\t", "\n", "\r\n", "\x1c", "\x1f", "\x00",
	"\u00a0", "\u3000", "\u0085", "\u2028", "\u2003", "\u202f", "\u200b",
	"\u0300", "\u0301", "\u0308", "\u0316", "\u0327", "\u0338", "\u034f", "\u0345",
	"\u0301\u0301\u0301\u0301\u0301\u0301\u0301\u0301\u0301\u0301",
	"\u0130", "\u0131", "\u03a3", "\u03c3", "\u03c2", "\u212a", "\u212b", "\u2126",
	"\u00c5", "\u00e9", "\u00c9", "\u1e9b", "\u0344", "\u0f73", "\u0f71", "\u0f72",
	"\ufb01", "\ufb03", "\uff21", "\uff41", "\uff0c", "\uff11", "\uff76", "\uff9e", "\uff9f",
	"\u304b", "\u3099", "\u309a", "\u309b", "\u30ab",
	"\u1100", "\u1161", "\u11a8", "\uac00", "\uac01", "\u3131", "\u314f",
	"\u4e2d", "\u6587", "\uf900", "\u3002", "\u2500", "\u5f8c", "\u88e1", "\u9ad4", "\U0002b748",
	"\U00020000", "\U0002f800", "\U0001f600", "\U0001d400", "\U0001d165",
	"\xff", "\x80", "\xc3", "\xe4", "\xe4\xb8", "\xf6", "\xf7\xbf", "\xf8", "\xed\xa0\x80", "\xc0\x80", "\xf0\x9f", "\xcc", "\ufffd",
	"\u2026", "\u2122", "\u00bd", "\u337f", "\ufdfa", "\u00b4", "\u00a8", "\u1fef", "\u037e",
	"\u0b47", "\u0b3e", "\u0dd9", "\u0dcf", "\u0e33", "\u023a", "\u01c5", "\u1e9e",
}

// TestTextCombinations compares Text with reference on random
// concatenations of comboAtoms.
func TestTextCombinations(t *testing.T) {
	n := 200000
	if testing.Short() {
		n = 20000
	}
	rng := rand.New(rand.NewPCG(1, 2))
	var b strings.Builder
	for range n {
		b.Reset()
		for range 1 + rng.IntN(8) {
			b.WriteString(comboAtoms[rng.IntN(len(comboAtoms))])
		}
		s := b.String()
		want := reference(s)
		if got := Text(s); got != want {
			t.Fatalf("Text(%+q) = %+q, want %+q", s, got, want)
		}
		if got, want := folded.Text(s), Fold(want); got != want {
			t.Fatalf("folded.Text(%+q) = %+q, want %+q", s, got, want)
		}
	}
}

// folded is the Form that folds scripts.
var folded = Form{FoldScript: true}

// TestTextEveryRune compares Text with reference, and Text with folding
// with Fold of reference, on every rune, alone and in contexts that it may
// combine with.
func TestTextEveryRune(t *testing.T) {
	contexts := [][2]string{
		{"", ""}, {"x", "y"}, {"A", "\u0301"}, {"e", "\u0316\u0301"}, {"\u1100", "\u1161"},
		{"\uac00", "\u11a8"}, {"\u304b", "\u3099"}, {" ", "\u00a0"}, {"\u0301", "Z"},
	}
	step := rune(1)
	if testing.Short() {
		step = 7
	}
	var buf []byte
	for r := rune(0); r <= unicode.MaxRune; r += step {
		if r > 0xFFFF && r&0xFF == 0x10 {
			r += 0xC0 // outside the BMP, sample a quarter of each block
		}
		for _, c := range contexts {
			if r > 0xFFFF && c[0] != "" {
				break
			}
			buf = append(append(utf8.AppendRune(append(buf[:0], c[0]...), r), c[1]...), ' ')
			s := string(buf)
			want := reference(s)
			if got := Text(s); got != want {
				t.Fatalf("Text(%+q) = %+q, want %+q", s, got, want)
			}
			if got, want := folded.Text(s), Fold(want); got != want {
				t.Fatalf("folded.Text(%+q) = %+q, want %+q", s, got, want)
			}
		}
	}
}

// TestASCIISpaceInert checks what Text assumes of ASCII white space: it
// never interacts with a rune after it under NFKC.
func TestASCIISpaceInert(t *testing.T) {
	for c := range utf8.RuneSelf {
		if asciiSpace[c] && !norm.NFKC.PropertiesString(string(rune(c))).BoundaryAfter() {
			t.Errorf("%+q is white space but not a boundary after", rune(c))
		}
	}
}

func TestTextAllocs(t *testing.T) {
	for _, s := range []string{
		"The quick brown fox jumps over the lazy dog. \u201cQuoted\u201d \u2014 caf\u00e9 \u00a9 2024\u2026",
		"今天天气很好，我们去公园散步。　然後一起吃午飯！「好」",
		"ＡＢＣ　１２３ ﬁle \u212a",
	} {
		if n := testing.AllocsPerRun(100, func() { Text(s) }); n > 1 {
			t.Errorf("Text(%+q) does %v allocations, want at most 1", s, n)
		}
	}
}

// TestInto: Into gives Text's bytes over a reused buffer, whatever the
// buffer held before, and allocates nothing once the buffer is large enough.
func TestInto(t *testing.T) {
	cases := append(slices.Clone(trickyCases), "", "   ", "ＡＢＣ　１２３ ﬁle \u212a", "a b")
	buf := []byte("left over from a previous, longer document   ")
	for _, s := range cases {
		buf = Into(buf, s)
		if got, want := string(buf), Text(s); got != want {
			t.Errorf("Into(%+q) = %+q, want Text's %+q", s, got, want)
		}
	}
	s := "今天天气很好，我们去公园散步。　然後一起吃午飯！「好」 The quick brown fox \u2014 café"
	buf = Into(buf, s)
	if n := testing.AllocsPerRun(100, func() { buf = Into(buf, s) }); n != 0 {
		t.Errorf("Into with a large enough buffer does %v allocations, want 0", n)
	}
}

// FuzzText checks that Text returns what reference returns for any input,
// and Into the same over a used buffer; and that with folding they return
// Fold of it.
func FuzzText(f *testing.F) {
	for _, s := range trickyCases {
		f.Add(s)
	}
	for _, s := range comboAtoms {
		f.Add(s)
	}
	buf := []byte("previous")
	f.Fuzz(func(t *testing.T, s string) {
		want := reference(s)
		if got := Text(s); got != want {
			t.Errorf("Text(%+q) = %+q, want %+q", s, got, want)
		}
		if buf = Into(buf, s); string(buf) != want {
			t.Errorf("Into(%+q) = %+q, want %+q", s, buf, want)
		}
		want = Fold(want)
		if got := folded.Text(s); got != want {
			t.Errorf("folded.Text(%+q) = %+q, want %+q", s, got, want)
		}
		if buf = folded.Into(buf, s); string(buf) != want {
			t.Errorf("folded.Into(%+q) = %+q, want %+q", s, buf, want)
		}
	})
}

func BenchmarkText(b *testing.B) {
	s := "The quick Brown fox jumps over the lazy dog.  Again and again!\n"
	for len(s) < 64<<10 {
		s += s
	}
	b.SetBytes(int64(len(s)))
	for b.Loop() {
		Text(s)
	}
}

// benchCorpus returns the first documents of language lang in the dev
// corpus, about maxBytes of text in all, and their total size.
func benchCorpus(b *testing.B, lang string, maxBytes int) ([]string, int64) {
	var texts []string
	var size int64
	for _, d := range corpusDocs(b) {
		if d.Lang != lang {
			continue
		}
		texts = append(texts, d.Text)
		size += int64(len(d.Text))
		if size >= int64(maxBytes) {
			break
		}
	}
	return texts, size
}

func benchmarkCorpus(b *testing.B, lang string, text func(string) string) {
	texts, size := benchCorpus(b, lang, 4<<20)
	b.SetBytes(size)
	b.ReportAllocs()
	b.ResetTimer()
	for b.Loop() {
		for _, s := range texts {
			text(s)
		}
	}
	b.ReportMetric(float64(b.Elapsed().Nanoseconds())/float64(b.N)/float64(len(texts)), "ns/doc")
	b.ReportMetric(float64(len(texts)), "docs")
}

func BenchmarkTextEnglish(b *testing.B)     { benchmarkCorpus(b, "en", Text) }
func BenchmarkTextChinese(b *testing.B)     { benchmarkCorpus(b, "zh", Text) }
func BenchmarkTextEnglishFold(b *testing.B) { benchmarkCorpus(b, "en", folded.Text) }
func BenchmarkTextChineseFold(b *testing.B) { benchmarkCorpus(b, "zh", folded.Text) }
