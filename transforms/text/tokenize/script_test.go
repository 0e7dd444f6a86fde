package tokenize

import (
	"strings"
	"testing"
	"unicode/utf8"
)

// A passage and its character-for-character traditional counterpart.
const (
	simplifiedText  = "我们的国家有很多历史悠久的城市，这些城市里面有许多著名的建筑和博物馆。每年都有来自世界各地的游客来这里参观学习，了解当地的传统文化和风俗习惯。"
	traditionalText = "我們的國家有很多歷史悠久的城市，這些城市裡面有許多著名的建築和博物館。每年都有來自世界各地的遊客來這裡參觀學習，了解當地的傳統文化和風俗習慣。"
)

func TestDetectScript(t *testing.T) {
	tests := []struct {
		name string
		in   string
		want Script
	}{
		{"empty", "", Simplified},
		{"latin", "hello world", Simplified},
		{"simplified", simplifiedText, Simplified},
		{"traditional", traditionalText, Traditional},
		{"common characters only", "人山人海，天下大同", Simplified},
		{"single traditional character", "我們", Traditional},
		{"single simplified character", "我们", Simplified},
		{"more traditional than simplified", "這個國家的学校", Traditional},
		{"more simplified than traditional", "这个国家的學校", Simplified},
		{"poem", "蒹葭蒼蒼，白露為霜。所謂伊人，在水一方。", Traditional},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if got := DetectScript(tt.in); got != tt.want {
				tr, sm := scriptCounts(tt.in)
				t.Errorf("DetectScript(%q) = %v (counts %d traditional, %d simplified), want %v", tt.in, got, tr, sm, tt.want)
			}
		})
	}
}

// TestScriptTables checks the generated lists: disjoint, Han, in the BMP,
// and holding both forms of common characters on the right side.
func TestScriptTables(t *testing.T) {
	trad := map[rune]bool{}
	for _, r := range traditionalOnly {
		trad[r] = true
	}
	for _, r := range simplifiedOnly {
		if trad[r] {
			t.Errorf("%c is in both lists", r)
		}
	}
	for _, r := range traditionalOnly + simplifiedOnly {
		if !IsCJK(r) || r >= bmpEnd {
			t.Errorf("%U is not a BMP Han character", r)
		}
	}
	for i, s := range []rune(simplifiedText) {
		tr := []rune(traditionalText)[i]
		if s == tr {
			if c, _ := scriptCounts(string(s)); c != 0 {
				t.Errorf("%c, the same in both scripts, counts as traditional", s)
			}
			continue
		}
		if _, sm := scriptCounts(string(tr)); sm != 0 {
			t.Errorf("traditional %c counts as simplified", tr)
		}
		if tc, _ := scriptCounts(string(s)); tc != 0 {
			t.Errorf("simplified %c counts as traditional", s)
		}
	}
}

func TestCutScripts(t *testing.T) {
	type part struct {
		text string
		sc   Script
	}
	tests := []struct {
		name string
		in   string
		want []part
	}{
		{"one script", "我们\n这里\n", []part{{"我们\n这里\n", Simplified}}},
		{"no evidence", "人山人海", []part{{"人山人海", Simplified}}},
		{"two lines, two scripts", "本文转载自网络\n蒹葭蒼蒼，白露為霜。", []part{{"本文转载自网络\n", Simplified}, {"蒹葭蒼蒼，白露為霜。", Traditional}}},
		{"neutral line takes the document's script", "這個\n人山人海\n那個国\n", []part{{"這個\n人山人海\n那個国\n", Traditional}}},
		{"runs of lines", "这个\n那个\n這個\n那個\n还是", []part{{"这个\n那个\n", Simplified}, {"這個\n那個\n", Traditional}, {"还是", Simplified}}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			var got []part
			cutScripts(tt.in, func(p string, sc Script) { got = append(got, part{p, sc}) })
			if len(got) != len(tt.want) {
				t.Fatalf("cutScripts(%q) = %v, want %v", tt.in, got, tt.want)
			}
			for i := range got {
				if got[i] != tt.want[i] {
					t.Errorf("part %d = %v, want %v", i, got[i], tt.want[i])
				}
			}
		})
	}
}

// boundaries returns the rune offsets at which the tokens of s end.
func boundaries(tok *Tokenizer, s string) map[int]bool {
	out := map[int]bool{}
	i := 0
	tok.Each(s, func(w string) {
		j := strings.Index(s[i:], w) + i
		i = j + len(w)
		out[utf8.RuneCountInString(s[:i])] = true
	})
	return out
}

func agreement(a, b map[int]bool) float64 {
	same := 0
	for k := range a {
		if b[k] {
			same++
		}
	}
	return float64(same) / float64(max(len(a), len(b)))
}

// TestWordModeScripts checks that a traditional text and its simplified
// counterpart are cut at (nearly) the same places with dictionary Auto,
// which the simplified dictionary alone does not do: it cuts most of the
// traditional text into single characters.
func TestWordModeScripts(t *testing.T) {
	if testing.Short() {
		t.Skip("loads gse dictionaries")
	}
	simp, err := segmenter("zh_s")
	if err != nil {
		t.Fatal(err)
	}
	auto := &Tokenizer{mode: Word, seg: simp, auto: true}
	simpOnly := &Tokenizer{mode: Word, seg: simp}
	ref := boundaries(auto, simplifiedText)
	gotAuto := agreement(ref, boundaries(auto, traditionalText))
	gotSimp := agreement(ref, boundaries(simpOnly, traditionalText))
	t.Logf("boundary agreement with the simplified text's: auto %.3f, zh_s only %.3f (%d tokens)", gotAuto, gotSimp, len(ref))
	if gotAuto < 0.9 {
		t.Errorf("auto cuts the traditional text at %.3f of the simplified text's boundaries, want >= 0.9", gotAuto)
	}
	if gotAuto <= gotSimp {
		t.Errorf("auto (%.3f) agrees no better than the simplified dictionary alone (%.3f)", gotAuto, gotSimp)
	}
	if n, m := len(auto.Strings(traditionalText)), len(simpOnly.Strings(traditionalText)); n >= m {
		t.Errorf("auto gives %d tokens for the traditional text, zh_s alone %d: want fewer (words, not characters)", n, m)
	}
}

func BenchmarkDetectScript(b *testing.B) {
	s := strings.Repeat(simplifiedText+traditionalText, 20)
	b.SetBytes(int64(len(s)))
	for b.Loop() {
		DetectScript(s)
	}
}

// BenchmarkWordDictionaries compares Word-mode tokenizing of simplified,
// traditional and mixed text with the simplified dictionary alone and with
// Auto (script detection, then the matching dictionary).
func BenchmarkWordDictionaries(b *testing.B) {
	simp, err := segmenter("zh_s")
	if err != nil {
		b.Fatal(err)
	}
	traditional() // loaded before timing
	texts := map[string]string{
		"simplified":  strings.Repeat(simplifiedText+"\n", 10),
		"traditional": strings.Repeat(traditionalText+"\n", 10),
		"mixed":       strings.Repeat(simplifiedText+"\n"+traditionalText+"\n", 5),
	}
	for _, name := range []string{"simplified", "traditional", "mixed"} {
		s := texts[name]
		for _, tc := range []struct {
			dict string
			tok  *Tokenizer
		}{{"zh_s", &Tokenizer{mode: Word, seg: simp}}, {"auto", &Tokenizer{mode: Word, seg: simp, auto: true}}} {
			b.Run(name+"/"+tc.dict, func(b *testing.B) {
				var buf []uint64
				b.SetBytes(int64(len(s)))
				for b.Loop() {
					buf = tc.tok.AppendHashes(buf[:0], s)
				}
			})
		}
	}
}
