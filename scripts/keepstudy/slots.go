package main

import (
	"strings"
	"unicode"
	"unicode/utf8"

	"github.com/neardup/neardup/transforms/sketch/minhash"
)

// What the signature pass would add per document for the copied-in rule
// with MinHash positions (docs/QUALITY.md): for each sketch position, the
// index of the shingle giving the minimum (from which its place in the
// document and its tokens follow), and one count of formatting marks.
// Written allocation-free, as the pipeline's would be, so that cost_test.go
// measures what it would cost.

// slotInverse holds the classic MinHash permutations x -> a*x + b (mod
// 2^64) of minhash.New(slots, Classic, seed) and the inverses of the a.
type slotInverse struct {
	a, b, inv []uint64
	table     []uint64 // open addressing: recovered hash, 0 for empty
	slotOf    []int32  // per table entry: the first position with that hash
	next      []int32  // per position: the next position with the same hash, -1 for none
}

func newSlotInverse(k int, seed uint64) *slotInverse {
	s := &slotInverse{a: make([]uint64, k), b: make([]uint64, k), inv: make([]uint64, k),
		table: make([]uint64, 4*k), slotOf: make([]int32, 4*k), next: make([]int32, k)}
	st := seed
	for i := 0; i < k; i++ {
		s.a[i] = splitmix(&st) | 1
		s.b[i] = splitmix(&st)
		s.inv[i] = inverse(s.a[i])
	}
	return s
}

// inverse returns the multiplicative inverse of odd a modulo 2^64 (Newton).
func inverse(a uint64) uint64 {
	x := a // correct to 3 bits for odd a
	for i := 0; i < 5; i++ {
		x *= 2 - a*x
	}
	return x
}

// argmins writes into pos, for every sketch position, the index in
// shingles of the first shingle whose permuted value is the minimum mins
// holds (-1 for an empty sketch). The shingle hashes are recovered from
// the minima by inverting the permutations; one pass over shingles finds
// their indices.
func (s *slotInverse) argmins(mins, shingles []uint64, pos []int32) {
	clear(s.table)
	mask := uint64(len(s.table) - 1)
	for k, m := range mins {
		pos[k] = -1
		s.next[k] = -1
		if m == minhash.Empty && len(shingles) == 0 {
			continue
		}
		h := (m - s.b[k]) * s.inv[k]
		j := (h * 0x9E3779B97F4A7C15) >> 32 & mask
		for s.table[j] != 0 && s.table[j] != h+1 {
			j = (j + 1) & mask
		}
		if s.table[j] == 0 {
			s.table[j] = h + 1
			s.slotOf[j] = int32(k)
		} else {
			s.next[k] = s.slotOf[j]
			s.slotOf[j] = int32(k)
		}
	}
	found := 0
	for i, h := range shingles {
		j := (h * 0x9E3779B97F4A7C15) >> 32 & mask
		for s.table[j] != 0 && s.table[j] != h+1 {
			j = (j + 1) & mask
		}
		if s.table[j] == 0 {
			continue
		}
		for k := s.slotOf[j]; k >= 0; k = s.next[k] {
			if pos[k] < 0 {
				pos[k] = int32(i)
				found++
			}
		}
		s.slotOf[j] = -1
		if found == len(mins) {
			return
		}
	}
}

// marks counts formatting marks in raw text as formatting() does (CR,
// tabs, double spaces, indented lines, typographic quotes and dashes,
// half-width punctuation after a Han character, a space between Han and
// ASCII letters or digits): the ASCII marks with strings.Count, the ones
// next to a Han character only in text that has a byte of a 3- or 4-byte
// UTF-8 sequence.
func marks(r string) int {
	// One pass over the bytes: CR and tab, pairs of spaces (as
	// strings.Count counts "  ": a run of k spaces gives k/2), a space or tab
	// starting a line, and whether any byte leads a 3- or 4-byte sequence.
	n, run, wide := 0, 0, byte(0)
	start := true
	for i := 0; i < len(r); i++ {
		c := r[i]
		wide |= c & 0x80
		if c > ' ' {
			run, start = 0, false
			continue
		}
		switch c {
		case ' ':
			run++
			n += (run + 1) & 1 // every second space of a run
			if start {
				n++
				start = false
			}
		case '\t':
			n++
			if start {
				n++
				start = false
			}
			run = 0
		case '\r':
			n++
			run, start = 0, false
		case '\n':
			run, start = 0, true
		default:
			run, start = 0, false
		}
	}
	if wide == 0 {
		return n
	}
	for _, q := range []string{"“", "”", "’", "—", "…"} {
		n += strings.Count(r, q)
	}
	for i := 0; i < len(r); {
		if strings.HasPrefix(r[i:], "　") {
			n++
		}
		j := strings.IndexByte(r[i:], '\n')
		if j < 0 {
			break
		}
		i += j + 1
	}
	return n + hanMarks(r)
}

// hanMarks counts half-width punctuation after a Han character and spaces
// between a Han character and an ASCII letter or digit.
func hanMarks(r string) int {
	n := 0
	prevHan, prevLatin := false, false
	spaceAfterHan, spaceAfterLatin := false, false
	for i := 0; i < len(r); {
		c := r[i]
		if c < 0x80 {
			if prevHan && (c == ',' || c == '.' || c == ':' || c == ';' || c == '!' || c == '?' || c == '(' || c == ')' || c == '"') {
				n++
			}
			latin := c >= '0' && c <= '9' || c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z'
			if latin && spaceAfterHan {
				n++
			}
			spaceAfterHan = c == ' ' && prevHan
			spaceAfterLatin = c == ' ' && prevLatin
			prevHan, prevLatin = false, latin
			i++
			continue
		}
		x, size := utf8.DecodeRuneInString(r[i:])
		han := x >= 0x4E00 && x <= 0x9FFF || x >= 0x2E80 && unicode.Is(unicode.Han, x)
		if han && spaceAfterLatin {
			n++
		}
		spaceAfterHan, spaceAfterLatin = false, false
		prevHan, prevLatin = han, false
		i += size
	}
	return n
}

// marksLoop is marks in one pass over the bytes.
func marksLoop(r string) int {
	n := 0
	lineStart := true
	prevHan, prevLatin := false, false
	spaceAfterHan, spaceAfterLatin := false, false
	spaces := 0 // the length of the run of spaces before
	for i := 0; i < len(r); {
		c := r[i]
		if c < 0x80 {
			if c == '\r' || c == '\t' {
				n++
			}
			if c == ' ' {
				spaces++
				if spaces%2 == 0 { // strings.Count(r, "  ") counts runs by pairs
					n++
				}
			} else {
				spaces = 0
			}
			if lineStart && (c == ' ' || c == '\t') {
				n++
			}
			if prevHan && (c == ',' || c == '.' || c == ':' || c == ';' || c == '!' || c == '?' || c == '(' || c == ')' || c == '"') {
				n++
			}
			latin := c >= '0' && c <= '9' || c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z'
			if latin && spaceAfterHan {
				n++
			}
			spaceAfterHan = c == ' ' && prevHan
			spaceAfterLatin = c == ' ' && prevLatin
			prevHan, prevLatin = false, latin
			lineStart = c == '\n'
			i++
			continue
		}
		x, size := utf8.DecodeRuneInString(r[i:])
		switch x {
		case '“', '”', '’', '—', '…':
			n++
		}
		if lineStart && x == '　' {
			n++
		}
		han := x >= 0x4E00 && x <= 0x9FFF || x >= 0x2E80 && unicode.Is(unicode.Han, x)
		if han && spaceAfterLatin {
			n++
		}
		spaceAfterHan, spaceAfterLatin, spaces = false, false, 0
		prevHan, prevLatin = han, false
		lineStart = false
		i += size
	}
	return n
}
