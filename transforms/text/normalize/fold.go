package normalize

//go:generate go run ../../../scripts/foldtable -out foldtable.go

import (
	"sort"
	"strings"
)

// Fold returns s with every Chinese character that OpenCC writes in
// Traditional script, or as a Taiwan or Hong Kong variant form, replaced
// by its Simplified form, one rune for one rune; all else is left alone.
// Where OpenCC gives a Traditional character several Simplified
// candidates, the first is taken, and a Simplified character and every
// form OpenCC's s2t may write for it fold to one character (see
// scripts/foldtable, which generates the table from OpenCC's
// dictionaries). Phrase-level regional vocabulary (軟體 for 软件) is not
// folded. Fold(Fold(s)) == Fold(s). As in strings.Map, each invalid UTF-8
// byte becomes U+FFFD.
func Fold(s string) string {
	return strings.Map(foldRune, s)
}

// foldRune returns what r folds to: its entry of foldPairs, or r.
func foldRune(r rune) rune {
	if r < 0x3400 { // below every entry (CJK Extension A)
		return r
	}
	const n = len(foldPairs) / 2
	i := sort.Search(n, func(i int) bool { return foldPairs[2*i] >= uint32(r) })
	if i < n && foldPairs[2*i] == uint32(r) {
		return rune(foldPairs[2*i+1])
	}
	return r
}
