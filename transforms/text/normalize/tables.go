package normalize

import (
	"sync"
	"unicode"
	"unicode/utf8"

	"golang.org/x/text/unicode/norm"
)

// Classes of the non-ASCII runes of the Basic Multilingual Plane (BMP), as
// computed by classify.
const (
	// classSlow marks a rune that Text hands to norm.NFKC with its
	// neighbors. lookup also returns it for invalid UTF-8 and for runes
	// outside the BMP.
	classSlow = iota
	// classCopy marks a rune that Text writes as it is: NFKC and lower
	// case leave it unchanged.
	classCopy
	// classSpace marks a rune whose NFKC form is one white-space rune.
	classSpace
	// classMap and above mark a rune for which Text writes
	// maps[class-classMap], its NFKC form lower-cased, which contains no
	// white space.
	classMap
)

// tables classifies the non-ASCII runes of the BMP. The class of rune r is
// pages[index[r>>8]<<8 | r&0xFF]; blocks of 256 runes with the same
// classes, such as those of the CJK ideographs, share a page.
//
// The tables are derived from the norm and unicode packages (and, if fold,
// foldPairs) when first needed, rather than generated ahead of time, so
// that they cannot disagree with the definition of Text.
type tables struct {
	index [256]uint16
	pages []uint16
	maps  []string
	// fold says that every rune is written folded (Fold): the classes
	// of the runes that fold are classMap.
	fold bool
}

// plainTables and foldTables return the rune tables of Text and of Text
// with Form.FoldScript, building them on first use.
var (
	plainTables = sync.OnceValue(func() *tables { return buildTables(false) })
	foldTables  = sync.OnceValue(func() *tables { return buildTables(true) })
)

// lookup returns the class of the rune that s starts with, and its length.
// s[0] must not be ASCII. For invalid UTF-8 and for runes outside the BMP,
// lookup returns classSlow and 1.
func (t *tables) lookup(s string) (class uint16, size int) {
	c := s[0]
	var r uint16
	switch {
	case c < 0xC2: // continuation byte, or the lead byte of an overlong form
		return classSlow, 1
	case c < 0xE0:
		if len(s) < 2 || s[1]&0xC0 != 0x80 {
			return classSlow, 1
		}
		r, size = uint16(c&0x1F)<<6|uint16(s[1]&0x3F), 2
	case c < 0xF0:
		if len(s) < 3 || s[1]&0xC0 != 0x80 || s[2]&0xC0 != 0x80 {
			return classSlow, 1
		}
		r, size = uint16(c&0x0F)<<12|uint16(s[1]&0x3F)<<6|uint16(s[2]&0x3F), 3
		if r < 0x800 || 0xD800 <= r && r <= 0xDFFF {
			return classSlow, 1
		}
	default:
		return classSlow, 1
	}
	return t.class(r), size
}

// class returns the class of the non-ASCII rune r.
func (t *tables) class(r uint16) uint16 {
	return t.pages[int(t.index[r>>8])<<8|int(r&0xFF)]
}

// buildTables classifies every non-ASCII rune of the BMP with classify,
// folding if fold.
func buildTables(fold bool) *tables {
	t := &tables{fold: fold}
	pageOf := make(map[[256]uint16]uint16)
	mapOf := make(map[string]uint16)
	var page [256]uint16
	var work [2][]byte
	for hi := range 256 {
		for lo := range 256 {
			r := rune(hi<<8 | lo)
			out, class := classify(r, fold, &work)
			if class == classMap {
				m, ok := mapOf[string(out)]
				if !ok {
					m = classMap + uint16(len(t.maps))
					t.maps = append(t.maps, string(out))
					mapOf[string(out)] = m
				}
				class = m
			}
			page[lo] = class
		}
		p, ok := pageOf[page]
		if !ok {
			p = uint16(len(t.pages) >> 8)
			t.pages = append(t.pages, page[:]...)
			pageOf[page] = p
		}
		t.index[hi] = p
	}
	return t
}

// classify returns the class of the non-ASCII BMP rune r and, for classMap,
// what Text writes for it (folded by foldRune if fold), which is valid
// until the next call. It uses work as scratch space.
//
// A rune r is not classSlow only if it starts a normalization segment (NFKC
// canonical combining class 0, no leading non-starters in its decomposition,
// cannot combine with a rune before it) and each rune of NFKC(r) starts a
// segment and is unchanged by NFKC. Then NFKC(x+r+y) == NFKC(x)+NFKC(r)+NFKC(y)
// whenever y is empty or starts with such a rune, so the output for r,
// lower-cased NFKC(r), does not depend on x; Text hands r to norm.NFKC
// with what follows it when y does not start with such a rune.
//
// Folding keeps these properties: foldRune maps a Han ideograph, which
// starts a segment and is unchanged by NFKC and lower case, to another.
func classify(r rune, fold bool, work *[2][]byte) (out []byte, class uint16) {
	if r < utf8.RuneSelf || 0xD800 <= r && r <= 0xDFFF || r > 0xFFFF {
		return nil, classSlow
	}
	s := utf8.AppendRune(work[0][:0], r)
	work[0] = s
	p := norm.NFKC.Properties(s)
	if !isStarter(p) {
		return nil, classSlow
	}
	m := s // NFKC(r)
	if p.Decomposition() != nil {
		if d := norm.NFKD.Bytes(s); norm.NFKC.Properties(d).CCC() != 0 {
			return nil, classSlow // leading non-starter
		}
		if !norm.NFKC.IsNormal(s) {
			m = norm.NFKC.Bytes(s)
		}
	} else if !norm.NFKC.IsNormal(s) {
		return nil, classSlow // not expected: the rune is always left alone
	}
	b := work[1][:0]
	defer func() { work[1] = b }()
	spaces, n := 0, 0
	for len(m) > 0 {
		x, size := utf8.DecodeRune(m)
		if &m[0] != &s[0] { // a rune of NFKC(r) other than r itself
			if !isStarter(norm.NFKC.Properties(m)) || !norm.NFKC.IsNormal(m[:size]) {
				return nil, classSlow
			}
		}
		m = m[size:]
		n++
		if x = unicode.ToLower(x); isSpace(x) {
			spaces++
			continue
		}
		if fold {
			x = foldRune(x)
		}
		b = utf8.AppendRune(b, x)
	}
	switch {
	case spaces == 1 && n == 1:
		return nil, classSpace
	case spaces > 0 || n == 0:
		return nil, classSlow
	case string(b) == string(s):
		return nil, classCopy
	}
	return b, classMap
}

// isStarter reports whether a rune with properties p starts a segment for
// NFKC: it has canonical combining class 0 and cannot combine with a
// preceding rune.
func isStarter(p norm.Properties) bool {
	return p.BoundaryBefore() && p.CCC() == 0 && p.LeadCCC() == 0
}
