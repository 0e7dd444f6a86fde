// Package normalize turns raw document text into the canonical form that
// tokenization and exact-duplicate detection work on: Unicode NFKC, lower case,
// every run of white space collapsed to one space, no leading or trailing space.
//
// Text in, text out; Key maps the normalized text to the 64-bit exact-duplicate
// key (xxhash). Two documents with equal keys are treated as exact duplicates.
package normalize

import (
	"strings"
	"unicode"
	"unicode/utf8"

	"github.com/cespare/xxhash/v2"
	"golang.org/x/text/unicode/norm"
)

// Text returns s in normalized form: NFKC, lower-cased with the simple
// Unicode mapping (strings.ToLower), white space runs replaced by one space,
// trimmed. Pure-ASCII input takes a single-pass path with one allocation.
func Text(s string) string {
	if isASCII(s) {
		return collapseASCII(s)
	}
	s = norm.NFKC.String(s)
	s = strings.ToLower(s)
	return collapse(s)
}

// Key returns the exact-duplicate key of already normalized text.
func Key(normalized string) uint64 {
	return xxhash.Sum64String(normalized)
}

func isASCII(s string) bool {
	for i := 0; i < len(s); i++ {
		if s[i] >= utf8.RuneSelf {
			return false
		}
	}
	return true
}

var asciiSpace = [256]bool{'\t': true, '\n': true, '\v': true, '\f': true, '\r': true, ' ': true, 0x1c: true, 0x1d: true, 0x1e: true, 0x1f: true}

// collapseASCII lower-cases and collapses white space of ASCII s in one pass.
func collapseASCII(s string) string {
	var b strings.Builder
	b.Grow(len(s))
	pendingSpace := false
	for i := 0; i < len(s); i++ {
		c := s[i]
		if asciiSpace[c] {
			pendingSpace = b.Len() > 0
			continue
		}
		if pendingSpace {
			b.WriteByte(' ')
			pendingSpace = false
		}
		if 'A' <= c && c <= 'Z' {
			c += 'a' - 'A'
		}
		b.WriteByte(c)
	}
	return b.String()
}

// collapse replaces every run of Unicode white space with one space and trims.
func collapse(s string) string {
	var b strings.Builder
	b.Grow(len(s))
	pendingSpace := false
	for _, r := range s {
		if unicode.IsSpace(r) || (r < utf8.RuneSelf && asciiSpace[r]) {
			pendingSpace = b.Len() > 0
			continue
		}
		if pendingSpace {
			b.WriteByte(' ')
			pendingSpace = false
		}
		b.WriteRune(r)
	}
	return b.String()
}
