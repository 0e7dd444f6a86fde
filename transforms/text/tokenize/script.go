package tokenize

import "strings"

//go:generate go run gen_script.go

// Script is the variant of written Chinese a text is in, as far as Word mode
// needs to know it: which of gse's two dictionaries segments it.
type Script int

const (
	// Simplified: no evidence of traditional characters (also the answer
	// for text without Han characters, or with as many of each kind).
	Simplified Script = iota
	// Traditional: more traditional-only than simplified-only characters.
	Traditional
)

func (s Script) String() string {
	if s == Traditional {
		return "traditional"
	}
	return "simplified"
}

// scriptBits marks, for each rune of the Basic Multilingual Plane, whether
// only gse's traditional dictionary uses it (bit 0) or only its simplified
// one (bit 1). golang.org/x/text has no table of script variants, and a
// conversion table (OpenCC's) would be a dependency for one bit per
// character, so the two lists are derived from gse's own dictionaries, the
// ones the segmentation depends on (gen_script.go, script_table.go).
var scriptBits = func() *[bmpEnd / 4]uint8 {
	var t [bmpEnd / 4]uint8 // 2 bits per rune
	for _, r := range traditionalOnly {
		t[r>>2] |= 1 << (2 * (r & 3))
	}
	for _, r := range simplifiedOnly {
		t[r>>2] |= 2 << (2 * (r & 3))
	}
	return &t
}()

// scriptCounts counts the traditional-only and simplified-only characters
// of s.
func scriptCounts(s string) (trad, simp int) {
	for _, r := range s {
		if r < 0x3400 || r >= bmpEnd {
			continue
		}
		switch (scriptBits[r>>2] >> (2 * (r & 3))) & 3 {
		case 1:
			trad++
		case 2:
			simp++
		}
	}
	return trad, simp
}

// DetectScript tells whether s is traditional or simplified Chinese: it is
// Traditional when it holds more characters that only gse's traditional
// dictionary uses than characters that only its simplified dictionary uses.
// Characters common to both scripts (most of any text: 的, 人, 不, ...) are
// not evidence either way; a text without evidence is Simplified.
func DetectScript(s string) Script {
	if t, sm := scriptCounts(s); t > sm {
		return Traditional
	}
	return Simplified
}

// cutScripts calls cut(part, script) for consecutive parts of s that
// together make s, in order: each line gets the script of its own
// characters (DetectScript), or the document's when it has no evidence
// either way (a line of characters common to both scripts), and adjacent
// lines of one script form one part. A document in one script is one part,
// so it is cut whole, as before; a document mixing a simplified line with a
// traditional poem has each cut by the matching dictionary.
func cutScripts(s string, cut func(part string, sc Script)) {
	dt, ds := scriptCounts(s)
	doc := Simplified
	if dt > ds {
		doc = Traditional
	}
	if dt == 0 || ds == 0 { // one script throughout
		cut(s, doc)
		return
	}
	start, cur := 0, Script(-1)
	for i := 0; i < len(s); {
		end := len(s)
		if j := strings.IndexByte(s[i:], '\n'); j >= 0 {
			end = i + j + 1
		}
		sc := doc
		if t, sm := scriptCounts(s[i:end]); t > sm {
			sc = Traditional
		} else if sm > t {
			sc = Simplified
		}
		if sc != cur && i > 0 {
			cut(s[start:i], cur)
			start = i
		}
		cur = sc
		i = end
	}
	cut(s[start:], cur)
}
