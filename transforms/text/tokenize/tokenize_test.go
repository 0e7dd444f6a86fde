package tokenize

import (
	"reflect"
	"slices"
	"testing"
	"unicode"
	"unicode/utf8"

	"github.com/cespare/xxhash/v2"
)

func TestCharMode(t *testing.T) {
	tok, err := New(Char, Auto)
	if err != nil {
		t.Fatal(err)
	}
	tests := []struct {
		name string
		in   string
		want []string
	}{
		{"empty", "", nil},
		{"punctuation only", "... !!! ,,,", nil},
		{"words", "hello, world! it's x86_64", []string{"hello", "world", "it", "s", "x86", "64"}},
		{"chinese chars", "中文分词,很好", []string{"中", "文", "分", "词", "很", "好"}},
		{"mixed", "go语言 v1.2 很快", []string{"go", "语", "言", "v1", "2", "很", "快"}},
		{"kana and hangul", "カタカナ한글", []string{"カ", "タ", "カ", "ナ", "한", "글"}},
		{"marks stay in words", "café naïve", []string{"café", "naïve"}},
		{"cyrillic", "привет мир", []string{"привет", "мир"}},
		{"symbols separate", "a+b=c © d", []string{"a", "b", "c", "d"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got := tok.Strings(tt.in)
			if !reflect.DeepEqual(got, tt.want) {
				t.Errorf("Strings(%q) = %q, want %q", tt.in, got, tt.want)
			}
			hashes := tok.AppendHashes(nil, tt.in)
			if len(hashes) != len(tt.want) {
				t.Fatalf("AppendHashes gave %d hashes, want %d", len(hashes), len(tt.want))
			}
			for i, w := range tt.want {
				if hashes[i] != xxhash.Sum64String(w) {
					t.Errorf("hash %d is not xxhash(%q)", i, w)
				}
			}
		})
	}
}

func TestWordMode(t *testing.T) {
	if testing.Short() {
		t.Skip("loads gse dictionary")
	}
	tok, err := New(Word, Auto)
	if err != nil {
		t.Fatal(err)
	}
	tests := []struct {
		name string
		in   string
		want []string
	}{
		{"empty", "", nil},
		{"latin untouched by gse", "hello, world! x86_64", []string{"hello", "world", "x86", "64"}},
		{"chinese words", "我们是中国人", []string{"我们", "是", "中国", "人"}},
		{"mixed, punctuation dropped", "go语言,很快!", []string{"go", "语言", "很快"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got := tok.Strings(tt.in)
			if !reflect.DeepEqual(got, tt.want) {
				t.Errorf("Strings(%q) = %q, want %q", tt.in, got, tt.want)
			}
			hashes := tok.AppendHashes(nil, tt.in)
			if len(hashes) != len(got) {
				t.Fatalf("AppendHashes gave %d hashes for %d tokens", len(hashes), len(got))
			}
			for i, w := range got {
				if hashes[i] != xxhash.Sum64String(w) {
					t.Errorf("hash %d is not xxhash(%q)", i, w)
				}
			}
		})
	}
}

func TestParseMode(t *testing.T) {
	for _, m := range []Mode{Char, Word} {
		got, err := ParseMode(m.String())
		if err != nil || got != m {
			t.Errorf("ParseMode(%q) = %v, %v", m.String(), got, err)
		}
	}
	if _, err := ParseMode("bytes"); err == nil {
		t.Error("ParseMode(bytes) gave no error")
	}
}

func TestAppendHashesAllocs(t *testing.T) {
	tok, _ := New(Char, Auto)
	s := "the quick brown fox 中文分词 jumps over the lazy dog"
	buf := make([]uint64, 0, 64)
	if n := testing.AllocsPerRun(100, func() { buf = tok.AppendHashes(buf[:0], s) }); n != 0 {
		t.Errorf("AppendHashes allocates %v times per call", n)
	}
}

// TestClassifyTable checks the cached classes of the BMP against the range
// tables, and the runes beyond it.
func TestClassifyTable(t *testing.T) {
	for r := rune(0); r <= unicode.MaxRune; r++ {
		if got, want := classify(r), classifySlow(r); got != want {
			t.Fatalf("classify(%U) = %d, classifySlow = %d", r, got, want)
		}
	}
	for _, tc := range []struct {
		r    rune
		want int
	}{{'a', word}, {' ', sep}, {'中', cjk}, {'，', sep}, {'。', sep}, {'é', word}, {'ア', cjk}, {'한', cjk}, {0x20000, cjk}, {utf8.RuneError, sep}} {
		if got := classify(tc.r); got != tc.want {
			t.Errorf("classify(%U) = %d, want %d", tc.r, got, tc.want)
		}
	}
}

// TestHanHashes: the table's hash of every rune it holds is the xxhash of
// the rune's UTF-8, and the tokens around its range hash as before.
func TestHanHashes(t *testing.T) {
	for r := rune(hanFirst - 300); r <= hanLast+300; r++ {
		s := string(r) + " " + string(r) + "a"
		got := appendCharHashes(nil, s)
		var want []uint64
		eachChar(s, func(tok string) { want = append(want, xxhash.Sum64String(tok)) })
		if !slices.Equal(got, want) {
			t.Fatalf("%U: hashes %x, want %x", r, got, want)
		}
	}
	// Three bytes with a Han lead byte that are no rune.
	for _, s := range []string{"\xe4ab", "\xe4\x80a", "a\xe9\xbf", "\xe9\xbf\xbf\xbf"} {
		got := appendCharHashes(nil, s)
		var want []uint64
		eachChar(s, func(tok string) { want = append(want, xxhash.Sum64String(tok)) })
		if !slices.Equal(got, want) {
			t.Errorf("%q: hashes %x, want %x", s, got, want)
		}
	}
}

func TestParseShingle(t *testing.T) {
	tests := []struct {
		in      string
		mode    Mode
		n       int
		wantErr string
	}{
		{"char:5", Char, 5, ""},
		{"word:3", Word, 3, ""},
		{"word:100", Word, 100, ""},
		{"char5", 0, 0, `"char5": want char:N or word:N`},
		{"byte:5", 0, 0, `"byte:5": want char:N or word:N`},
		{"char:0", 0, 0, `"char:0": want a shingle size from 1 to 100`},
		{"char:101", 0, 0, `"char:101": want a shingle size from 1 to 100`},
		{"char:05", 0, 0, `"char:05": want a shingle size from 1 to 100`},
		{"char:", 0, 0, `"char:": want a shingle size from 1 to 100`},
	}
	for _, tt := range tests {
		mode, n, err := ParseShingle(tt.in)
		if tt.wantErr != "" {
			if err == nil || err.Error() != tt.wantErr {
				t.Errorf("ParseShingle(%q) error %v, want %q", tt.in, err, tt.wantErr)
			}
			continue
		}
		if err != nil || mode != tt.mode || n != tt.n {
			t.Errorf("ParseShingle(%q) = %v, %d, %v; want %v, %d", tt.in, mode, n, err, tt.mode, tt.n)
		}
	}
}
