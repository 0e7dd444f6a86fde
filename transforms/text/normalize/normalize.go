// Package normalize turns raw document text into the canonical form that
// tokenization and exact-duplicate detection work on: Unicode NFKC, lower case,
// every run of white space collapsed to one space, no leading or trailing space,
// and, with Form.FoldScript, Chinese characters folded to one script (Fold).
//
// Text in, text out; Key maps the normalized text to the 64-bit exact-duplicate
// key (xxhash). Two documents with equal keys are treated as exact duplicates.
package normalize

import (
	"slices"
	"unicode"
	"unicode/utf8"
	"unsafe"

	"github.com/cespare/xxhash/v2"
	"golang.org/x/text/unicode/norm"
)

// Form is how a text is normalized beyond NFKC, lower case and white space.
// The zero Form is Text.
type Form struct {
	// FoldScript folds Chinese text to one script: Form{FoldScript: true}.Text(s)
	// is Fold(Text(s)), a Traditional-script copy of a Simplified text has
	// the same normalized text as the original (character by character).
	FoldScript bool
}

// Text returns s in normalized form: NFKC, lower-cased with the simple
// Unicode mapping (strings.ToLower), white space runs replaced by one space,
// trimmed. White space is a rune for which unicode.IsSpace reports true, or
// one of the ASCII separators 0x1C to 0x1F.
//
// Text is defined as the composition of three passes: norm.NFKC.String,
// strings.ToLower (which also replaces each invalid UTF-8 byte by U+FFFD)
// and the white-space collapse. It computes exactly the same result in one
// pass over s, with one allocation for almost all inputs.
//
// The pass looks up each non-ASCII rune in a table (see classify) of the
// runes whose output, their NFKC form lower-cased, does not depend on the
// runes before them: each starts a normalization segment, so
// NFKC(x+y) == NFKC(x)+NFKC(y) whenever y starts with one. Most text,
// including CJK ideographs, Hangul syllables, Kana, full-width forms and
// precomposed Latin, Greek and Cyrillic letters, consists of such runes.
// Any other rune (a combining mark, a conjoining jamo, a rune outside the
// Basic Multilingual Plane, invalid UTF-8) goes to norm.NFKC together with
// the rune before it, which it may combine with, and the runes after it up
// to the next table rune.
func Text(s string) string { return Form{}.Text(s) }

// Into is Text written over buf, whose storage it reuses (it grows it when
// needed): the returned bytes are Text(s), valid until buf is used again.
func Into(buf []byte, s string) []byte { return Form{}.Into(buf, s) }

// Text returns s normalized in form f: Text(s), and with f.FoldScript
// Fold(Text(s)), in the same one pass. Folding writes a folded rune
// where Text writes the rune, so it costs nothing on text that has no
// rune to fold: its table of the runes that fold (see classify) is the
// one Text looks up.
func (f Form) Text(s string) string {
	buf := into(f.tables(), make([]byte, 0, len(s)), s)
	if len(buf) == 0 {
		return ""
	}
	// buf is not modified after this point.
	return unsafe.String(unsafe.SliceData(buf), len(buf))
}

// Into is f.Text written over buf, whose storage it reuses (it grows it
// when needed): the returned bytes are f.Text(s), valid until buf is used
// again.
func (f Form) Into(buf []byte, s string) []byte {
	return into(f.tables(), buf[:0], s)
}

// tables returns the rune tables of f, building them on first use.
func (f Form) tables() *tables {
	if f.FoldScript {
		return foldTables()
	}
	return plainTables()
}

// into appends the text of s normalized with t to the empty buf.
func into(t *tables, buf []byte, s string) []byte {
	var (
		scratch []byte
		// The last rune handled without the norm package starts at
		// s[lastIn], and its output at buf[lastOut]. Text undoes it when
		// the rune after it turns out to need norm.NFKC.
		lastIn, lastOut int
	)
	// A white-space run is written as one space as soon as it is seen,
	// unless buf is empty or ends in a space; a final space is trimmed at
	// the end. Every ' ' in buf is such a space: the output of other
	// runes contains no 0x20 byte.
	for i := 0; i < len(s); {
		if s[i] < utf8.RuneSelf {
			var n int
			buf, n = appendASCII(buf, s[i:])
			if i += n; i == len(s) {
				break
			}
			// s[i] is not ASCII. The output of the rune before it, if
			// not white space, is the last byte of buf. White space needs
			// no undoing, as it never interacts with what follows it.
			lastIn, lastOut = i, len(buf)
			if !asciiSpace[s[i-1]] {
				lastIn, lastOut = i-1, len(buf)-1
			}
		}
		// Handle runes up to the next ASCII byte. Runes that normalize to
		// themselves are appended in runs, from s[run:i].
		run := i
		for i < len(s) && s[i] >= utf8.RuneSelf {
			var class uint16
			var size int
			if c := s[i]; 0xE1 <= c && c <= 0xEF && c != 0xED && i+2 < len(s) &&
				s[i+1]&0xC0 == 0x80 && s[i+2]&0xC0 == 0x80 {
				// Inlined lookup of the most common case, a three-byte
				// encoding (U+1000 to U+FFFF but not surrogates) that can
				// be neither overlong nor a surrogate.
				class, size = t.class(uint16(c&0x0F)<<12|uint16(s[i+1]&0x3F)<<6|uint16(s[i+2]&0x3F)), 3
			} else {
				class, size = t.lookup(s[i:])
			}
			if class == classCopy {
				i += size
				continue
			}
			if run < i {
				buf = append(buf, s[run:i]...)
				lastIn = i - 1
				for s[lastIn]&0xC0 == 0x80 { // continuation byte
					lastIn--
				}
				lastOut = len(buf) - (i - lastIn)
			}
			switch class {
			case classSlow:
				// Undo the previous rune and normalize from it with
				// norm.NFKC. The rune at the new i, if any, sets lastIn
				// before it is needed.
				buf, scratch, i = appendSlow(t, buf[:lastOut], scratch, s, lastIn, i+size)
			case classSpace:
				lastIn, lastOut = i, len(buf)
				buf = appendSpace(buf)
				i += size
			default:
				lastIn, lastOut = i, len(buf)
				buf = append(buf, t.maps[class-classMap]...)
				i += size
			}
			run = i
		}
		buf = append(buf, s[run:i]...)
	}
	if n := len(buf); n > 0 && buf[n-1] == ' ' {
		buf = buf[:n-1]
	}
	return buf
}

// appendSlow appends to buf the normalized text of s[start:j], the runes
// from start (the rune before the one that needs norm.NFKC, already undone
// from buf) to j, the start of the first rune after end that does not need
// it (extended by extendSegment). It returns buf, the scratch space it
// used, and j.
func appendSlow(t *tables, buf, scratch []byte, s string, start, end int) ([]byte, []byte, int) {
	j := end
	for j < len(s) && s[j] >= utf8.RuneSelf {
		class, size := t.lookup(s[j:])
		if class != classSlow {
			break
		}
		j += size
	}
	j = extendSegment(t, s, start, j)
	seg := s[start:j]
	if norm.NFKC.IsNormalString(seg) {
		return lowerCollapse(t, buf, seg), scratch, j
	}
	scratch = norm.NFKC.AppendString(scratch[:0], seg)
	return lowerCollapse(t, buf, unsafe.String(unsafe.SliceData(scratch), len(scratch))), scratch, j
}

// Key returns the exact-duplicate key of already normalized text.
func Key(normalized string) uint64 {
	return xxhash.Sum64String(normalized)
}

// extendSegment returns where the segment s[start:end], which Text hands to
// norm.NFKC, must end so that norm.NFKC treats it as it treats it inside
// s. Unless end is len(s), the rune at end is a table rune.
//
// norm.NFKC takes a lead byte whose sequence would extend past the end of
// its input for an incomplete rune, and leaves the rest of the input alone,
// whereas followed by more text it is one invalid byte. So the segment must
// not end within 3 bytes after such a lead byte: extendSegment extends it by
// whole runes, and then by any runes after them that need norm.NFKC.
func extendSegment(t *tables, s string, start, end int) int {
	for end < len(s) && truncated(s[start:end]) {
		size := 1
		if s[end] >= utf8.RuneSelf {
			_, size = t.lookup(s[end:])
		}
		for end += size; end < len(s) && s[end] >= utf8.RuneSelf; end += size {
			var class uint16
			if class, size = t.lookup(s[end:]); class != classSlow {
				break
			}
		}
	}
	return end
}

// truncated reports whether one of the last 3 bytes of s is a byte that
// norm takes for the lead byte of a sequence longer than the rest of s.
func truncated(s string) bool {
	for i := max(len(s)-3, 0); i < len(s); i++ {
		n := 0
		switch c := s[i]; {
		case c < 0xC2:
			continue
		case c < 0xE0:
			n = 2
		case c < 0xF0:
			n = 3
		case c < 0xF8:
			n = 4
		default:
			continue
		}
		if i+n > len(s) {
			return true
		}
	}
	return false
}

// appendASCII appends the longest ASCII prefix of s to buf, lower-cased
// and with white space collapsed, and returns the extended buffer and the
// length of the prefix.
func appendASCII(buf []byte, s string) ([]byte, int) {
	buf = slices.Grow(buf, len(s))
	out := buf[:cap(buf)]
	w := len(buf)
	// Each byte is stored at out[w]; w advances past it unless both it and
	// the byte before it in the output are spaces. prev is 1 when the
	// output is empty or ends in a space.
	prev := byte(1)
	if w > 0 && out[w-1] != ' ' {
		prev = 0
	}
	i := 0
	for ; i < len(s); i++ {
		c := s[i]
		if c >= utf8.RuneSelf {
			break
		}
		sp := asciiSpaceBit[c]
		out[w] = asciiFold[c]
		w += int(1 - sp&prev)
		prev = sp
	}
	return out[:w], i
}

// appendSpace appends a space to buf unless buf is empty or ends in one.
func appendSpace(buf []byte) []byte {
	if n := len(buf); n > 0 && buf[n-1] != ' ' {
		buf = append(buf, ' ')
	}
	return buf
}

// lowerCollapse appends s, which must already be in NFKC, to buf,
// lower-cased, with white space collapsed and, if t folds, folded, and
// returns the extended buffer. Each invalid UTF-8 byte of s becomes
// U+FFFD, as in strings.ToLower.
func lowerCollapse(t *tables, buf []byte, s string) []byte {
	for _, r := range s {
		// An invalid byte decodes as utf8.RuneError, which is
		// unchanged by unicode.ToLower: it is written as U+FFFD.
		if r = unicode.ToLower(r); isSpace(r) {
			buf = appendSpace(buf)
			continue
		}
		if t.fold {
			r = foldRune(r)
		}
		buf = utf8.AppendRune(buf, r)
	}
	return buf
}

// isSpace reports whether r is white space for the collapse: Unicode white
// space or an ASCII separator 0x1C to 0x1F.
func isSpace(r rune) bool {
	if r < utf8.RuneSelf {
		return asciiSpace[r]
	}
	return unicode.IsSpace(r)
}

// asciiSpace reports which bytes are ASCII white space; it is indexed by
// byte to avoid bounds checks.
var asciiSpace = [256]bool{'\t': true, '\n': true, '\v': true, '\f': true, '\r': true, ' ': true, 0x1c: true, 0x1d: true, 0x1e: true, 0x1f: true}

// asciiSpaceBit is 1 for ASCII white space and 0 for other ASCII bytes.
var asciiSpaceBit [utf8.RuneSelf]byte

// asciiFold maps ASCII white space to ' ' and other ASCII bytes to their
// lower case.
var asciiFold [utf8.RuneSelf]byte

func init() {
	for c := range utf8.RuneSelf {
		switch {
		case asciiSpace[c]:
			asciiSpaceBit[c], asciiFold[c] = 1, ' '
		case 'A' <= c && c <= 'Z':
			asciiFold[c] = byte(c) + ('a' - 'A')
		default:
			asciiFold[c] = byte(c)
		}
	}
}
