package tokenize

import (
	"strings"
	"testing"
	"unicode/utf8"

	"github.com/cespare/xxhash/v2"

	"github.com/neardup/neardup/transforms/text/normalize"
)

// fuzzTokenizers holds one Tokenizer per mode (Word loads gse once).
var fuzzTokenizers = map[Mode]*Tokenizer{}

func fuzzTokenizer(t *testing.T, m Mode) *Tokenizer {
	tok, ok := fuzzTokenizers[m]
	if !ok {
		var err error
		if tok, err = New(m, Auto); err != nil {
			t.Fatal(err)
		}
		fuzzTokenizers[m] = tok
	}
	return tok
}

// FuzzTokenize checks both modes on any input and on its normalized form:
// no panic; every token is non-empty and holds no separator rune (nor an
// invalid byte); tokens are substrings of the input, in order (in Word mode,
// of normalized input: gse lower-cases); AppendHashes gives the xxhash of
// each token of Strings, appended after what dst held.
func FuzzTokenize(f *testing.F) {
	for _, s := range []string{
		"", " ", "hello, world! it's x86_64", "中文分词,很好", "go语言 v1.2 很快", "カタカナ한글",
		"café naïve", "cafe\u0301", "привет мир", "a+b=c © d", "我爱北京天安门 hello world",
		"你好。。。世界！！", "中\u3000文", "中 文 · 词", "\xff\xfe中文\xc0\xaf", "\u200d中\u200c文",
		"ＡＢＣ１２３", "١٢٣ abc", "🙂中文🙂", "e\u0301\u0301", "中文\u0301", "日本語のテキストです",
		"한국어 텍스트", "繁體中文與简体中文", "3.14159中文", "a\u00adb", "\u0300",
	} {
		f.Add(s, false)
		f.Add(s, true)
	}
	f.Fuzz(func(t *testing.T, s string, word bool) {
		mode := Char
		if word {
			mode = Word
		}
		tok := fuzzTokenizer(t, mode)
		for _, in := range []string{s, normalize.Text(s)} {
			// gse lower-cases what it cuts: in Word mode, tokens are
			// substrings of normalized text only.
			inOrder := mode == Char || in != s || normalize.Text(s) == s
			strs := tok.Strings(in)
			at := 0
			for i, w := range strs {
				if w == "" {
					t.Fatalf("%v %+q: token %d is empty", mode, in, i)
				}
				for j := 0; j < len(w); {
					r, n := utf8.DecodeRuneInString(w[j:])
					if r == utf8.RuneError && n <= 1 {
						t.Fatalf("%v %+q: token %+q holds an invalid byte", mode, in, w)
					}
					if classify(r) == sep {
						t.Fatalf("%v %+q: token %+q holds the separator %U", mode, in, w, r)
					}
					j += n
				}
				if !inOrder {
					continue
				}
				k := strings.Index(in[at:], w)
				if k < 0 {
					t.Fatalf("%v %+q: token %d %+q is not in the input after byte %d (tokens %+q)", mode, in, i, w, at, strs)
				}
				at += k + len(w)
			}
			hashes := tok.AppendHashes([]uint64{42}, in)
			if len(hashes) != len(strs)+1 || hashes[0] != 42 {
				t.Fatalf("%v %+q: AppendHashes gave %d hashes after dst, Strings %d tokens", mode, in, len(hashes)-1, len(strs))
			}
			for i, w := range strs {
				if hashes[i+1] != xxhash.Sum64String(w) {
					t.Fatalf("%v %+q: hash %d is not the xxhash of %+q", mode, in, i, w)
				}
			}
		}
	})
}
