package normalize

import "testing"

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
