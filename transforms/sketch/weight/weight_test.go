package weight

import (
	"errors"
	"math"
	"slices"
	"strconv"
	"strings"
	"testing"

	"github.com/cespare/xxhash/v2"

	"github.com/neardup/neardup/transforms/sketch/similarity"
)

func TestParseScheme(t *testing.T) {
	tests := []struct {
		in      string
		want    Scheme
		wantErr bool
	}{
		{"tf", TF, false},
		{"tfidf", TFIDF, false},
		{"binary", Binary, false},
		{"", 0, true},
		{"TF", 0, true},
		{"tf-idf", 0, true},
	}
	for _, tt := range tests {
		got, err := ParseScheme(tt.in)
		if (err != nil) != tt.wantErr || got != tt.want {
			t.Errorf("ParseScheme(%q) = %v, %v; want %v, error %v", tt.in, got, err, tt.want, tt.wantErr)
		}
		if err == nil && got.String() != tt.in {
			t.Errorf("ParseScheme(%q).String() = %q", tt.in, got.String())
		}
	}
	if got := Scheme(5).String(); got != "Scheme(5)" {
		t.Errorf("Scheme(5).String() = %q, want %q", got, "Scheme(5)")
	}
}

func TestParseTable(t *testing.T) {
	tests := []struct {
		name    string
		text    string
		idf     map[string]float64
		len     int
		deflt   float64
		missing []string
	}{
		{"empty", "", nil, 0, 0, []string{"a"}},
		{"blank lines only", "\n  \n\t\n", nil, 0, 0, []string{"a"}},
		{
			// Median of {1, 3, 5}: 3.
			"odd count", "a 5\nb 1\nc 3\n",
			map[string]float64{"a": 5, "b": 1, "c": 3}, 3, 3, []string{"d", "A"},
		},
		{
			// Sorted {1, 2, 3, 4}: the upper median vals[4/2] = 3, as
			// jieba's sorted(values)[len // 2].
			"even count", "w1 4\nw2 2\nw3 1\nw4 3",
			map[string]float64{"w1": 4, "w2": 2, "w3": 1, "w4": 3}, 4, 3, []string{"w5"},
		},
		{
			"tabs, blank lines, extra fields, no final newline",
			"\n劳动防护\t13.900677652\n\n  中国   3.02732068666  extra\r\nx -1.5e0",
			map[string]float64{"劳动防护": 13.900677652, "中国": 3.02732068666, "x": -1.5}, 3, 3.02732068666, []string{"y"},
		},
		{"single", "only 7.25", map[string]float64{"only": 7.25}, 1, 7.25, []string{"other"}},
	}
	for _, tt := range tests {
		tab, err := ParseTable(tt.text)
		if err != nil {
			t.Errorf("%s: ParseTable error %v", tt.name, err)
			continue
		}
		if tab.Len() != tt.len {
			t.Errorf("%s: Len = %d, want %d", tt.name, tab.Len(), tt.len)
		}
		if tab.Default != tt.deflt {
			t.Errorf("%s: Default = %v, want %v", tt.name, tab.Default, tt.deflt)
		}
		for w, v := range tt.idf {
			// Values are stored as float32.
			if got, want := tab.IDF(xxhash.Sum64String(w)), float64(float32(v)); got != want {
				t.Errorf("%s: IDF(%q) = %v, want %v", tt.name, w, got, want)
			}
		}
		for _, w := range tt.missing {
			if got := tab.IDF(xxhash.Sum64String(w)); got != tt.deflt {
				t.Errorf("%s: IDF of unknown %q = %v, want the default %v", tt.name, w, got, tt.deflt)
			}
		}
	}
}

func TestParseTableErrors(t *testing.T) {
	tests := []struct {
		name    string
		text    string
		line    string // "line N" the error must name
		wrapped error
	}{
		{"word alone", "a 1\nb 2\nlonely\n", "line 3", nil},
		{"word alone after blank lines", "\n\na 1\n\nlonely", "line 5", nil},
		{"bad number", "a 1\nb x\n", "line 2", strconv.ErrSyntax},
		{"number out of range", "a 1e999\n", "line 1", strconv.ErrRange},
	}
	for _, tt := range tests {
		tab, err := ParseTable(tt.text)
		if err == nil {
			t.Errorf("%s: ParseTable = %v, nil; want an error", tt.name, tab)
			continue
		}
		if !strings.Contains(err.Error(), "IDF table "+tt.line+":") {
			t.Errorf("%s: error %q does not name %s", tt.name, err, tt.line)
		}
		if tt.wrapped != nil && !errors.Is(err, tt.wrapped) {
			t.Errorf("%s: error %q does not wrap %v", tt.name, err, tt.wrapped)
		}
	}
}

func TestGseIDF(t *testing.T) {
	tab, err := GseIDF()
	if err != nil {
		t.Fatal(err)
	}
	// gse v0.80.3's data/dict/zh/idf.txt: 270132 words, no repeats; the
	// sorted values' element 135066 is 11.9547675029.
	if tab.Len() != 270132 {
		t.Errorf("Len = %d, want 270132", tab.Len())
	}
	if tab.Default != 11.9547675029 {
		t.Errorf("Default = %v, want 11.9547675029", tab.Default)
	}
	for w, v := range map[string]float64{"中国": 3.02732068666, "劳动防护": 13.900677652, "岗上": 11.5027823792} {
		if got, want := tab.IDF(xxhash.Sum64String(w)), float64(float32(v)); got != want {
			t.Errorf("IDF(%q) = %v, want %v", w, got, want)
		}
	}
	again, err := GseIDF()
	if again != tab || err != nil {
		t.Errorf("second GseIDF = %p, %v; want the same table %p", again, err, tab)
	}
}

func TestFromDocFreq(t *testing.T) {
	const ln10, ln2 = 2.302585092994046, 0.6931471805599453
	// n = 9 documents: idf = ln(10/(df+1)) + 1.
	tab := FromDocFreq(map[uint64]int{1: 0, 2: 4, 3: 9, 4: 1}, 9)
	tests := []struct {
		h    uint64
		want float64
	}{
		{1, ln10 + 1},       // ln(10/1) + 1
		{2, ln2 + 1},        // ln(10/5) + 1
		{3, 1},              // ln(10/10) + 1
		{4, ln10 - ln2 + 1}, // ln(10/2) + 1
		{5, ln10 + 1},       // never seen: as df = 0
	}
	for _, tt := range tests {
		// Explicit values are float32.
		if got := tab.IDF(tt.h); math.Abs(got-tt.want) > 1e-6 {
			t.Errorf("IDF(%d) = %v, want %v", tt.h, got, tt.want)
		}
	}
	if tab.Len() != 4 {
		t.Errorf("Len = %d, want 4", tab.Len())
	}
	if math.Abs(tab.Default-(ln10+1)) > 1e-15 {
		t.Errorf("Default = %v, want %v", tab.Default, ln10+1)
	}
	// No documents: everything has IDF 1.
	empty := FromDocFreq(nil, 0)
	if empty.Len() != 0 || empty.Default != 1 || empty.IDF(7) != 1 {
		t.Errorf("FromDocFreq(nil, 0): Len %d, Default %v, IDF %v; want 0, 1, 1", empty.Len(), empty.Default, empty.IDF(7))
	}
}

func TestVector(t *testing.T) {
	const ln10, ln2 = 2.302585092994046, 0.6931471805599453
	idf := FromDocFreq(map[uint64]int{3: 4, 5: 9}, 9) // 3: ln 2 + 1, 5: 1, others ln 10 + 1
	hashes := []uint64{5, 3, 5, 5, 7}
	in := slices.Clone(hashes)
	tests := []struct {
		s    Scheme
		want similarity.Vector
	}{
		{TF, similarity.Vector{{Hash: 3, Weight: 1}, {Hash: 5, Weight: 3}, {Hash: 7, Weight: 1}}},
		{Binary, similarity.Vector{{Hash: 3, Weight: 1}, {Hash: 5, Weight: 1}, {Hash: 7, Weight: 1}}},
		{TFIDF, similarity.Vector{{Hash: 3, Weight: ln2 + 1}, {Hash: 5, Weight: 3}, {Hash: 7, Weight: ln10 + 1}}},
	}
	for _, tt := range tests {
		got := Vector(in, tt.s, idf)
		if len(got) != len(tt.want) {
			t.Errorf("%v: Vector = %v, want %v", tt.s, got, tt.want)
			continue
		}
		for i := range got {
			if got[i].Hash != tt.want[i].Hash || math.Abs(got[i].Weight-tt.want[i].Weight) > 1e-6 {
				t.Errorf("%v: Vector = %v, want %v", tt.s, got, tt.want)
				break
			}
		}
		if !slices.Equal(in, hashes) {
			t.Errorf("%v: Vector changed its input to %v", tt.s, in)
		}
	}
	// TF and Binary need no table.
	if got := Vector([]uint64{2, 2}, TF, nil); len(got) != 1 || got[0].Weight != 2 {
		t.Errorf("Vector(TF, nil table) = %v, want [{2 2}]", got)
	}
	if got := Vector(nil, TFIDF, idf); len(got) != 0 {
		t.Errorf("Vector(nil) = %v, want empty", got)
	}
}
