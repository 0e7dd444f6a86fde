// Package tokenize splits normalized text into tokens.
//
// Latin and other alphabetic scripts give words: a maximal run of letters,
// numbers and marks (Unicode L, N, M) is one token; every other rune (white
// space, punctuation, symbols, controls) only separates tokens. Han, Hiragana,
// Katakana and Hangul text is either cut into characters (Char mode, one token
// per rune, the shingling of the ground truth in ../shared/corpus) or into words
// by github.com/go-ego/gse (Word mode), using gse's embedded dictionaries,
// loaded once per process: by default (dictionary Auto) the simplified one
// for simplified text and the simplified and traditional ones together for
// traditional text (see DetectScript): the simplified dictionary alone cuts
// traditional text mostly into single characters.
//
// Tokens are reported as strings that share memory with the input (Char mode)
// or with gse's output (Word mode), or as their 64-bit xxhash values; the hash
// path allocates nothing per token.
package tokenize

import (
	"fmt"
	"strconv"
	"strings"
	"sync"
	"unicode"
	"unicode/utf8"

	"github.com/cespare/xxhash/v2"
	"github.com/go-ego/gse"

	"github.com/neardup/neardup/transforms/choice"
)

// Mode selects how CJK runs are cut.
type Mode int

const (
	// Char makes every Han, Hiragana, Katakana or Hangul rune a token.
	Char Mode = iota
	// Word segments CJK runs into words with gse.
	Word
)

// modeNames are the names of the token modes.
var modeNames = choice.Names[Mode]{{Value: Char, Name: "char"}, {Value: Word, Name: "word"}}

// String returns the name of m.
func (m Mode) String() string {
	if name, ok := modeNames.Name(m); ok {
		return name
	}
	return fmt.Sprintf("Mode(%d)", int(m))
}

// MarshalText returns the name of m.
func (m Mode) MarshalText() ([]byte, error) { return modeNames.Marshal("token mode", m) }

// UnmarshalText sets m to the token mode text names: char or word.
func (m *Mode) UnmarshalText(text []byte) (err error) {
	*m, err = modeNames.Parse(string(text))
	return err
}

// ParseMode returns the token mode s names (Mode.UnmarshalText); its error quotes s.
func ParseMode(s string) (Mode, error) {
	v, err := modeNames.Parse(s)
	if err != nil {
		return v, fmt.Errorf("token mode %q: %w", s, err)
	}
	return v, nil
}

// MaxShingle is the largest shingle size ParseShingle accepts.
const MaxShingle = 100

// ParseShingle parses a shingling, "char:N" or "word:N": the token mode
// and the shingle size N, from 1 to MaxShingle. Its errors start with s
// quoted, for the caller to put the flag's name before.
func ParseShingle(s string) (Mode, int, error) {
	name, n, ok := strings.Cut(s, ":")
	mode, err := ParseMode(name)
	if !ok || err != nil {
		return 0, 0, fmt.Errorf("%q: want char:N or word:N", s)
	}
	k, err := strconv.Atoi(n)
	if err != nil || k < 1 || k > MaxShingle || strconv.Itoa(k) != n {
		return 0, 0, fmt.Errorf("%q: want a shingle size from 1 to %d", s, MaxShingle)
	}
	return mode, k, nil
}

// Tokenizer cuts normalized text into tokens. A Tokenizer is safe for
// concurrent use: it holds no per-call state.
type Tokenizer struct {
	mode Mode
	seg  *gse.Segmenter // nil in Char mode
	auto bool           // dictionary Auto: traditional text goes to traditional()
}

// New returns a Tokenizer for mode. Word mode cuts CJK runs with the gse
// embedded dictionary dict: Auto ("" too), "zh_s" (simplified), "zh_t"
// (traditional) or "zh" (both in one segmenter); Char mode ignores dict. A
// dictionary is loaded on first use in the process (a few seconds, a few
// hundred MB; with Auto, the simplified one, and the traditional one at the
// first traditional text); later calls share it.
func New(mode Mode, dict string) (*Tokenizer, error) {
	switch mode {
	case Char:
		return &Tokenizer{mode: Char}, nil
	case Word:
		if dict != Auto && dict != "" {
			seg, err := segmenter(dict)
			if err != nil {
				return nil, err
			}
			return &Tokenizer{mode: Word, seg: seg}, nil
		}
		simp, err := segmenter("zh_s")
		if err != nil {
			return nil, err
		}
		return &Tokenizer{mode: Word, seg: simp, auto: true}, nil
	}
	return nil, fmt.Errorf("tokenize: unknown mode %d", int(mode))
}

// Mode reports the tokenizer's mode.
func (t *Tokenizer) Mode() Mode { return t.mode }

// Auto is the dictionary that picks a gse dictionary for each text by
// its script (DetectScript): the simplified one ("zh_s") for simplified
// text, both ("zh") for traditional text. gse's traditional dictionary
// (t_1.txt) holds only the words that differ between the scripts: alone, it
// cuts 城市, 很多 or 文化 into single characters.
const Auto = "auto"

// loaded holds one segmenter per gse dictionary name, each loaded once per
// process and shared by every Tokenizer of it: process-wide by nature, the
// dictionaries being read-only once loaded and costly to load.
var loaded struct {
	sync.Mutex
	segs map[string]*gse.Segmenter
}

// segmenter returns the process-wide gse segmenter of an embedded
// dictionary ("zh_s", "zh_t" or "zh"), loading it on first call. Workers on
// a cluster have no gse source tree, so only the dictionaries compiled into
// the binary are used.
func segmenter(dict string) (*gse.Segmenter, error) {
	loaded.Lock()
	defer loaded.Unlock()
	if s, ok := loaded.segs[dict]; ok {
		return s, nil
	}
	switch dict {
	case "zh_s", "zh_t", "zh":
	default:
		return nil, fmt.Errorf("tokenize: unknown gse dictionary %q (want auto, zh_s, zh_t or zh)", dict)
	}
	s := new(gse.Segmenter)
	s.SkipLog = true
	if err := s.LoadDictEmbed(dict); err != nil {
		return nil, fmt.Errorf("tokenize: loading gse dictionary %q: %w", dict, err)
	}
	if loaded.segs == nil {
		loaded.segs = map[string]*gse.Segmenter{}
	}
	loaded.segs[dict] = s
	return s, nil
}

// Segmenter returns the process-wide gse segmenter of dictionary dict (see
// New; with Auto, the simplified one), loading it on first call.
func Segmenter(dict string) (*gse.Segmenter, error) {
	if dict == Auto || dict == "" {
		return segmenter("zh_s")
	}
	return segmenter(dict)
}

// traditional returns the segmenter of traditional text with dictionary
// Auto, process-wide as loaded is, loading it on the first traditional
// text of the process, so that a
// corpus without one does not pay for its time and memory
// (docs/BENCHMARKS.md). The
// dictionaries are compiled in and gse's loading of them cannot fail, so an
// error here is a broken binary.
var traditional = sync.OnceValue(func() *gse.Segmenter {
	s, err := segmenter("zh")
	if err != nil {
		panic(err)
	}
	return s
})

// cut calls fn for each gse word of s, cutting each part of s by the
// segmenter of its script with dictionary Auto (see cutScripts).
func (t *Tokenizer) cut(s string, fn func(w string)) {
	if !t.auto {
		for _, w := range t.seg.Cut(s, false) {
			fn(w)
		}
		return
	}
	cutScripts(s, func(part string, sc Script) {
		seg := t.seg
		if sc == Traditional {
			seg = traditional()
		}
		for _, w := range seg.Cut(part, false) {
			fn(w)
		}
	})
}

// Each calls fn for every token of normalized text s, in order.
func (t *Tokenizer) Each(s string, fn func(tok string)) {
	if t.mode == Word && hasCJK(s) {
		t.cut(s, func(w string) {
			if !hasCJK(w) {
				eachChar(w, fn)
				return
			}
			for i := 0; ; {
				start, end := nextPiece(w, i)
				if start >= len(w) {
					return
				}
				fn(w[start:end])
				i = end
			}
		})
		return
	}
	eachChar(s, fn)
}

// AppendHashes appends the xxhash of every token of normalized text s to dst
// and returns the extended slice. In Char mode, and for text without CJK in
// Word mode, it allocates nothing beyond growing dst.
func (t *Tokenizer) AppendHashes(dst []uint64, s string) []uint64 {
	if t.mode == Word && hasCJK(s) {
		t.Each(s, func(tok string) { dst = append(dst, xxhash.Sum64String(tok)) })
		return dst
	}
	return appendCharHashes(dst, s)
}

// Strings returns the tokens of s as a new slice (for tools and tests).
func (t *Tokenizer) Strings(s string) []string {
	var out []string
	t.Each(s, func(tok string) { out = append(out, tok) })
	return out
}

// asciiWord marks ASCII letters and digits.
var asciiWord = func() (tab [utf8.RuneSelf]bool) {
	for c := '0'; c <= '9'; c++ {
		tab[c] = true
	}
	for c := 'a'; c <= 'z'; c++ {
		tab[c] = true
		tab[c-'a'+'A'] = true
	}
	return
}()

// class of a rune: separator, word character, or a CJK rune that stands alone.
const (
	sep = iota
	word
	cjk
)

func classify(r rune) int {
	if r < utf8.RuneSelf {
		if asciiWord[r] {
			return word
		}
		return sep
	}
	if r < bmpEnd {
		return int(bmpClass[r])
	}
	return classifySlow(r)
}

// bmpClass caches classifySlow for the Basic Multilingual Plane (64 KiB):
// the Unicode range tables it searches cost a quarter of the tokenizing
// time of Chinese text, most of it for punctuation.
const bmpEnd = 0x10000

var bmpClass = func() *[bmpEnd]uint8 {
	var t [bmpEnd]uint8
	for r := range rune(bmpEnd) {
		t[r] = uint8(classifySlow(r))
	}
	return &t
}()

func classifySlow(r rune) int {
	if r < utf8.RuneSelf {
		if asciiWord[r] {
			return word
		}
		return sep
	}
	if IsCJK(r) {
		return cjk
	}
	if unicode.IsLetter(r) || unicode.IsNumber(r) || unicode.IsMark(r) {
		return word
	}
	return sep
}

// IsCJK reports whether r is of the Han, Hiragana, Katakana or Hangul script.
func IsCJK(r rune) bool {
	if r < 0x1100 {
		return false
	}
	if r >= 0x4E00 && r <= 0x9FFF { // CJK Unified Ideographs, the common case
		return true
	}
	return unicode.Is(unicode.Han, r) || unicode.Is(unicode.Hiragana, r) ||
		unicode.Is(unicode.Katakana, r) || unicode.Is(unicode.Hangul, r)
}

func hasCJK(s string) bool {
	for i := 0; i < len(s); {
		c := s[i]
		if c < utf8.RuneSelf {
			i++
			continue
		}
		r, n := utf8.DecodeRuneInString(s[i:])
		if IsCJK(r) {
			return true
		}
		i += n
	}
	return false
}

// nextPiece finds the next run of runes that are not separators in a gse
// word w, at or after byte i: usually the whole word, but gse leaves some
// separators inside a word (a NUL after a Han character, say), and tokens
// never hold one. It returns the run's bounds, or start == len(w) when
// there is none.
func nextPiece(w string, i int) (start, end int) {
	for i < len(w) {
		r, n := utf8.DecodeRuneInString(w[i:])
		if classify(r) != sep {
			break
		}
		i += n
	}
	start = i
	for i < len(w) {
		r, n := utf8.DecodeRuneInString(w[i:])
		if classify(r) == sep {
			break
		}
		i += n
	}
	return start, i
}

// next finds the next token of s at or after byte i. It returns the token's
// bounds, or start == len(s) when there is none.
func next(s string, i int) (start, end int) {
	for i < len(s) {
		c := s[i]
		if c < utf8.RuneSelf {
			if asciiWord[c] {
				break
			}
			i++
			continue
		}
		r, n := utf8.DecodeRuneInString(s[i:])
		switch classify(r) {
		case cjk:
			return i, i + n
		case word:
			goto found
		}
		i += n
	}
found:
	start = i
	for i < len(s) {
		c := s[i]
		if c < utf8.RuneSelf {
			if !asciiWord[c] {
				break
			}
			i++
			continue
		}
		r, n := utf8.DecodeRuneInString(s[i:])
		if classify(r) != word {
			break
		}
		i += n
	}
	return start, i
}

func eachChar(s string, fn func(string)) {
	for i := 0; ; {
		start, end := next(s, i)
		if start >= len(s) {
			return
		}
		fn(s[start:end])
		i = end
	}
}

func appendCharHashes(dst []uint64, s string) []uint64 {
	han := hanHashes()
	for i := 0; ; {
		start, end := next(s, i)
		if start >= len(s) {
			return dst
		}
		tok := s[start:end]
		// A CJK Unified Ideograph of U+4E00-U+9FFF, three bytes E4-E9
		// 10xxxxxx 10xxxxxx: its hash from the table.
		if len(tok) == 3 && tok[0]-0xE4 <= 0xE9-0xE4 && tok[1]&0xC0 == 0x80 && tok[2]&0xC0 == 0x80 {
			if r := rune(tok[0]&0x0F)<<12 | rune(tok[1]&0x3F)<<6 | rune(tok[2]&0x3F); r >= hanFirst {
				dst = append(dst, han[r-hanFirst])
				i = end
				continue
			}
		}
		dst = append(dst, xxhash.Sum64String(tok))
		i = end
	}
}

// hanFirst and hanLast bound the CJK Unified Ideographs of the Basic
// Multilingual Plane, the tokens of most Chinese text.
const hanFirst, hanLast = 0x4E00, 0x9FFF

// hanHashes is the xxhash of each rune of [hanFirst, hanLast] in UTF-8,
// made on first use (160 KiB): a table load costs less than hashing the
// three bytes, token after token.
var hanHashes = sync.OnceValue(func() *[hanLast - hanFirst + 1]uint64 {
	var t [hanLast - hanFirst + 1]uint64
	var b [utf8.UTFMax]byte
	for r := rune(hanFirst); r <= hanLast; r++ {
		t[r-hanFirst] = xxhash.Sum64(b[:utf8.EncodeRune(b[:], r)])
	}
	return &t
})
