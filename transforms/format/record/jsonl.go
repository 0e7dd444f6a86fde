package record

import (
	"bytes"
	"encoding/binary"
	"encoding/json"
	"errors"
	"fmt"
	"math"
	"math/bits"
	"strconv"
	"strings"
	"unicode/utf16"
	"unicode/utf8"
)

// jsonFields holds the JSONL fields to look up (the ID's, the text's and
// the keep field's),
// and the scanner's nesting stack, kept between lines.
type jsonFields struct {
	f     [3]fieldPath
	deep  bool   // a field name has a dot: look at keys below the top level
	stack []byte // '{' or '[' for each open object or array
}

// fieldPath is a field to look up: a top-level key equal to its whole name
// or, when the name has dots and no top-level key is that name, the path of
// keys its parts name through nested objects ("meta.url": the "url" key of
// the object at the top-level "meta" key).
type fieldPath struct {
	name []byte   // the whole name
	segs [][]byte // its parts, when it has a dot (else nil)
	// open is the number of parts the objects now open match: the
	// objects at stack depths 2 .. open+1 are the values of segs[0 ..
	// open-1].
	open  int
	depth int  // stack depth of the value being captured; 0: none
	start int  // where that value starts
	lit   bool // it is the value of the top-level key name
	// The values found (nil: none): of the top-level key name, and at the
	// end of the path segs.
	top, nested []byte
}

// newJSONFields returns the lookup for the given ID, text and keep field
// names; keep "" looks up no keep field.
func newJSONFields(id, text, keep string) jsonFields {
	var f jsonFields
	for i, name := range []string{id, text, keep} {
		if name == "" {
			continue
		}
		f.f[i].name = []byte(name)
		if strings.Contains(name, ".") {
			for _, seg := range strings.Split(name, ".") {
				f.f[i].segs = append(f.f[i].segs, []byte(seg))
			}
			f.deep = true
		}
	}
	return f
}

// key notes the key k of a member at stack depth depth whose value starts
// at b[i], and returns the number of fields that capture that value.
func (f *jsonFields) key(k, b []byte, depth, i int) (capturing int) {
	for j := range f.f {
		fp := &f.f[j]
		if fp.name == nil {
			continue
		}
		if depth == 1 && keyIs(k, fp.name) {
			fp.depth, fp.start, fp.lit = 1, i, true
			capturing++
			continue
		}
		if fp.segs == nil || depth-1 != fp.open || !keyIs(k, fp.segs[fp.open]) {
			continue
		}
		// A new value for this part of the path replaces the one before,
		// as when encoding/json decodes a repeated key.
		fp.nested = nil
		if fp.open == len(fp.segs)-1 {
			fp.depth, fp.start, fp.lit = depth, i, false
			capturing++
		} else if i < len(b) && b[i] == '{' {
			fp.open++
		}
	}
	return capturing
}

// valueEnd records the values that end at b[i], at stack depth depth, and
// returns how many it recorded.
func (f *jsonFields) valueEnd(b []byte, depth, i int) (done int) {
	for j := range f.f {
		fp := &f.f[j]
		if fp.depth != depth {
			continue
		}
		if fp.lit {
			fp.top = b[fp.start:i]
		} else {
			fp.nested = b[fp.start:i]
		}
		fp.depth = 0
		done++
	}
	return done
}

// closeObject notes the end of the object at stack depth depth.
func (f *jsonFields) closeObject(depth int) {
	for j := range f.f {
		if fp := &f.f[j]; fp.open > 0 && fp.open == depth-1 {
			fp.open--
		}
	}
}

// reset clears what the last line found.
func (f *jsonFields) reset() {
	for j := range f.f {
		fp := &f.f[j]
		fp.open, fp.depth, fp.top, fp.nested = 0, 0, nil, nil
	}
}

// value is the value found for field j: the top-level key's, else the
// path's.
func (f *jsonFields) value(j int) []byte {
	if f.f[j].top != nil {
		return f.f[j].top
	}
	return f.f[j].nested
}

// parseJSONL parses one non-blank JSONL line, line number num, into a Doc
// with ID and Text set, or returns a reason code and a detail (without
// position) for a reject. The line is checked (UTF-8 and JSON syntax) and
// its ID and text fields found in one pass (see scan); other fields are not
// decoded. With line IDs, the ID field is not looked at.
func (p *parser) parseJSONL(raw []byte, num int64) (d Doc, reason, detail string) {
	idVal, textVal, ok := p.json.scan(raw)
	if !ok {
		// Invalid UTF-8 anywhere takes precedence over bad syntax (and
		// encoding/json would silently replace invalid bytes).
		if !utf8.Valid(raw) {
			return d, ReasonInvalidUTF8, invalidUTF8Detail(raw)
		}
		return d, ReasonBadJSON, "bad JSON: " + syntaxDetail(raw)
	}
	if c := raw[skipWS(raw, 0)]; c != '{' {
		return d, ReasonBadJSON, fmt.Sprintf("bad JSON: top-level value is %s, want an object", kind(c))
	}
	if p.lineIDs {
		d.ID = LineID(p.file, num)
	} else if d.ID, reason, detail = p.jsonID(idVal); reason != "" {
		return d, reason, withFields(reason, detail, raw)
	}
	d.Text, reason, detail = p.jsonText(textVal)
	if p.opt.Keep.Name != "" {
		if v, ok := jsonKeep(p.json.value(2)); ok {
			d.Rank = p.opt.Keep.Of(v)
		}
	}
	return d, reason, withFields(reason, detail, raw)
}

// jsonKeep converts the raw JSON value of the keep field (nil when absent)
// to the text Doc.Rank is the Key of, and whether there is one.
func jsonKeep(v []byte) (string, bool) {
	switch {
	case v == nil:
		return "", false
	case v[0] == '"':
		return unquote(v), true
	case v[0] == '-' || '0' <= v[0] && v[0] <= '9':
		return string(v), true
	case bytes.Equal(v, litTrue):
		return "1", true
	case bytes.Equal(v, litFalse):
		return "0", true
	}
	return "", false // null, an object or an array
}

// withFields adds to the detail of a missing field the fields the record
// raw has, so that a misnamed field shows the name meant.
func withFields(reason, detail string, raw []byte) string {
	if reason != ReasonMissingID && reason != ReasonMissingText {
		return detail
	}
	var s Survey
	for _, k := range orderedKeys(raw) {
		s.field(k)
	}
	return detail + " (the record's fields: " + s.FieldList() + ")"
}

// jsonID converts the raw JSON value of the ID field (nil when absent) to
// the document ID: a string as is, a number in canonical form (see
// canonicalNumber).
func (p *parser) jsonID(v []byte) (id, reason, detail string) {
	name := p.opt.IDField
	switch {
	case v == nil:
		return "", ReasonMissingID, fmt.Sprintf("no %q field", name)
	case v[0] == '"':
		id = unquote(v)
		if isSpaceOnly(id) {
			return "", ReasonMissingID, fmt.Sprintf("%q field is empty", name)
		}
		return id, "", ""
	case v[0] == '-' || '0' <= v[0] && v[0] <= '9':
		id, ok := canonicalNumber(v)
		if !ok {
			return "", ReasonIDNotString, fmt.Sprintf("%q field is a number out of range: %s", name, Sample(v))
		}
		return id, "", ""
	}
	return "", ReasonIDNotString, fmt.Sprintf("%q field is %s, want a string or number", name, kind(v[0]))
}

// jsonText converts the raw JSON value of the text field (nil when absent)
// to the document text.
func (p *parser) jsonText(v []byte) (text, reason, detail string) {
	name := p.opt.TextField
	switch {
	case v == nil:
		return "", ReasonMissingText, fmt.Sprintf("no %q field", name)
	case v[0] != '"':
		return "", ReasonTextNotString, fmt.Sprintf("%q field is %s, want a string", name, kind(v[0]))
	}
	text = unquote(v)
	if isSpaceOnly(text) {
		return "", ReasonEmptyText, fmt.Sprintf("%q field is empty or white space", name)
	}
	return text, "", ""
}

// maxJSONDepth is the nesting limit of encoding/json: Valid rejects a value
// with more than this many arrays and objects open at once.
const maxJSONDepth = 10000

// scan checks that b is valid UTF-8 and exactly one JSON value with
// optional white space around it: it accepts exactly the valid UTF-8 inputs
// that encoding/json.Valid accepts. When the value is an object, it returns
// the raw values of its ID and text fields (nil for a field that is
// absent; see fieldPath for dotted names). Keys match exactly
// (case-sensitive, after unescaping); when a key repeats, the last value
// wins, as with encoding/json.
//
// Outside strings, JSON allows only ASCII, so checking the UTF-8 of the
// strings is enough: when scan returns true, all of b is valid UTF-8.
//
// scan is one pass over b: an iterative recursive-descent parser whose only
// state is the stack of open arrays and objects, and the fields' states.
// It is a hand-written decoder and stays one function: its labels (value,
// end, key) are the states of one loop that share the position, the stack
// and the capture count, and split into functions they would pass that
// state back and forth for every value of every JSONL record read.
func (f *jsonFields) scan(b []byte) (id, text []byte, ok bool) {
	var (
		stack     = f.stack[:0]
		i         = skipWS(b, 0)
		keyStart  int // index of the current key's opening quote
		keyEnd    int // index just past its closing quote
		capturing int // fields capturing a value that has not ended
	)
	f.reset()

value: // b[i] starts a value (white space skipped)
	if i >= len(b) {
		goto fail
	}
	switch b[i] {
	case '{':
		if len(stack) == maxJSONDepth {
			goto fail
		}
		stack = append(stack, '{')
		if i = skipWS(b, i+1); i < len(b) && b[i] == '}' {
			if f.deep {
				f.closeObject(len(stack))
			}
			stack = stack[:len(stack)-1]
			i++
			goto end
		}
		goto key
	case '[':
		if len(stack) == maxJSONDepth {
			goto fail
		}
		stack = append(stack, '[')
		if i = skipWS(b, i+1); i < len(b) && b[i] == ']' {
			stack = stack[:len(stack)-1]
			i++
			goto end
		}
		goto value
	case '"':
		if i, ok = scanString(b, i); !ok {
			goto fail
		}
	case 't':
		if !bytes.HasPrefix(b[i:], litTrue) {
			goto fail
		}
		i += len(litTrue)
	case 'f':
		if !bytes.HasPrefix(b[i:], litFalse) {
			goto fail
		}
		i += len(litFalse)
	case 'n':
		if !bytes.HasPrefix(b[i:], litNull) {
			goto fail
		}
		i += len(litNull)
	default:
		if i, ok = scanNumber(b, i); !ok {
			goto fail
		}
	}

end: // a value ends just before b[i]
	if capturing > 0 {
		capturing -= f.valueEnd(b, len(stack), i)
	}
	i = skipWS(b, i)
	if len(stack) == 0 {
		if i != len(b) {
			goto fail
		}
		f.stack = stack
		return f.value(0), f.value(1), true
	}
	if i >= len(b) {
		goto fail
	}
	switch b[i] {
	case ',':
		i = skipWS(b, i+1)
		if stack[len(stack)-1] == '{' {
			goto key
		}
		goto value
	case '}', ']':
		// '}'^'{' == ']'^'[' == 6: the closer must match the opener.
		if b[i]^stack[len(stack)-1] != 6 {
			goto fail
		}
		if f.deep && b[i] == '}' {
			f.closeObject(len(stack))
		}
		stack = stack[:len(stack)-1]
		i++
		goto end
	}
	goto fail

key: // b[i] should start an object member's key (white space skipped)
	if i >= len(b) || b[i] != '"' {
		goto fail
	}
	keyStart = i
	if i, ok = scanString(b, i); !ok {
		goto fail
	}
	keyEnd = i
	if i = skipWS(b, i); i >= len(b) || b[i] != ':' {
		goto fail
	}
	i = skipWS(b, i+1)
	if len(stack) == 1 || f.deep {
		capturing += f.key(b[keyStart+1:keyEnd-1], b, len(stack), i)
	}
	goto value

fail:
	f.stack = stack
	return nil, nil, false
}

var (
	litTrue  = []byte("true")
	litFalse = []byte("false")
	litNull  = []byte("null")
)

// keyIs reports whether the JSON string content key (without quotes, maybe
// escaped) equals name.
func keyIs(key, name []byte) bool {
	if bytes.IndexByte(key, '\\') < 0 {
		return bytes.Equal(key, name)
	}
	return unquoteContent(key) == string(name)
}

// skipWS returns the index of the first byte at or after i that is not JSON
// white space, or len(b).
func skipWS(b []byte, i int) int {
	for i < len(b) {
		switch b[i] {
		case ' ', '\t', '\r', '\n':
			i++
		default:
			return i
		}
	}
	return i
}

// Masks for testing the eight bytes of a uint64 at once.
const (
	ones  = 0x0101010101010101 // 0x01 in every byte
	highs = 0x8080808080808080 // the high bit of every byte
)

// stringStop returns a mask with the high bit set in the lowest byte of x
// that is a control character (< 0x20), '"', '\\' or non-ASCII (>= 0x80), or
// 0 if there is none. Higher bytes may be flagged spuriously (by a borrow),
// never a lower one, so the lowest flag is exact.
func stringStop(x uint64) uint64 {
	q := x ^ (ones * '"')
	bs := x ^ (ones * '\\')
	return ((x-ones*0x20)&^x | (q-ones)&^q | (bs-ones)&^bs | x) & highs
}

// scanString returns the index just past the JSON string that starts at
// b[i] == '"', and false if the string is not valid JSON (unterminated,
// with a control character or a bad escape) or not valid UTF-8.
func scanString(b []byte, i int) (int, bool) {
	j := i + 1
	for {
		// Skip eight plain bytes at a time, then one at a time.
		for j+8 <= len(b) {
			if m := stringStop(binary.LittleEndian.Uint64(b[j:])); m != 0 {
				j += bits.TrailingZeros64(m) >> 3
				break
			}
			j += 8
		}
		for j < len(b) && 0x20 <= b[j] && b[j] < utf8.RuneSelf && b[j] != '"' && b[j] != '\\' {
			j++
		}
		if j >= len(b) {
			return j, false
		}
		switch b[j] {
		case '"':
			return j + 1, true
		case '\\':
			if j+1 >= len(b) {
				return j, false
			}
			switch b[j+1] {
			case '"', '\\', '/', 'b', 'f', 'n', 'r', 't':
				j += 2
			case 'u':
				if j+6 > len(b) || !isHex(b[j+2]) || !isHex(b[j+3]) || !isHex(b[j+4]) || !isHex(b[j+5]) {
					return j, false
				}
				j += 6
			default:
				return j, false
			}
		default:
			if b[j] < utf8.RuneSelf { // a control character
				return j, false
			}
			var ok bool
			if j, ok = skipUTF8(b, j); !ok {
				return j, false
			}
		}
	}
}

// skipUTF8 returns the index of the first ASCII byte at or after i, or
// len(b), and false if the non-ASCII bytes before it are not valid UTF-8
// (by the rules of utf8.Valid: no overlong forms, surrogates or code points
// past U+10FFFF). It is the check of utf8.Valid without its call, for the
// short runs of non-ASCII text in JSON strings.
func skipUTF8(b []byte, i int) (int, bool) {
	for i < len(b) {
		c := b[i]
		switch {
		case c < utf8.RuneSelf:
			return i, true
		case c < 0xC2: // a continuation byte, or an overlong 2-byte form
			return i, false
		case c < 0xE0:
			if i+1 >= len(b) || b[i+1]&0xC0 != 0x80 {
				return i, false
			}
			i += 2
		case c < 0xF0:
			lo, hi := byte(0x80), byte(0xBF)
			switch c {
			case 0xE0:
				lo = 0xA0 // not overlong
			case 0xED:
				hi = 0x9F // not a surrogate
			}
			if i+2 >= len(b) || b[i+1] < lo || b[i+1] > hi || b[i+2]&0xC0 != 0x80 {
				return i, false
			}
			i += 3
		case c < 0xF5:
			lo, hi := byte(0x80), byte(0xBF)
			switch c {
			case 0xF0:
				lo = 0x90 // not overlong
			case 0xF4:
				hi = 0x8F // not past U+10FFFF
			}
			if i+3 >= len(b) || b[i+1] < lo || b[i+1] > hi || b[i+2]&0xC0 != 0x80 || b[i+3]&0xC0 != 0x80 {
				return i, false
			}
			i += 4
		default:
			return i, false
		}
	}
	return i, true
}

// scanNumber returns the index just past the JSON number that starts at
// b[i], and false if there is no valid number there. The byte after the
// number is not checked.
func scanNumber(b []byte, i int) (int, bool) {
	if b[i] == '-' {
		i++
	}
	switch {
	case i >= len(b):
		return i, false
	case b[i] == '0':
		i++
	case '1' <= b[i] && b[i] <= '9':
		i = skipDigits(b, i+1)
	default:
		return i, false
	}
	if i < len(b) && b[i] == '.' {
		if i++; i >= len(b) || !isDigit(b[i]) {
			return i, false
		}
		i = skipDigits(b, i+1)
	}
	if i < len(b) && (b[i] == 'e' || b[i] == 'E') {
		if i++; i < len(b) && (b[i] == '+' || b[i] == '-') {
			i++
		}
		if i >= len(b) || !isDigit(b[i]) {
			return i, false
		}
		i = skipDigits(b, i+1)
	}
	return i, true
}

// skipDigits returns the index of the first byte at or after i that is not
// a decimal digit, or len(b).
func skipDigits(b []byte, i int) int {
	for i < len(b) && isDigit(b[i]) {
		i++
	}
	return i
}

func isDigit(c byte) bool { return '0' <= c && c <= '9' }

func isHex(c byte) bool {
	return '0' <= c && c <= '9' || 'a' <= c && c <= 'f' || 'A' <= c && c <= 'F'
}

// unquote decodes the valid JSON string literal s (with its quotes), like
// encoding/json: an unpaired surrogate escape becomes U+FFFD.
func unquote(s []byte) string {
	return unquoteContent(s[1 : len(s)-1])
}

// unquoteContent decodes the content of a valid JSON string literal.
func unquoteContent(s []byte) string {
	i := bytes.IndexByte(s, '\\')
	if i < 0 {
		return string(s)
	}
	var sb strings.Builder
	sb.Grow(len(s))
	for i >= 0 {
		sb.Write(s[:i])
		s = s[i:] // s[0] == '\\'
		switch c := s[1]; c {
		case 'b':
			sb.WriteByte('\b')
		case 'f':
			sb.WriteByte('\f')
		case 'n':
			sb.WriteByte('\n')
		case 'r':
			sb.WriteByte('\r')
		case 't':
			sb.WriteByte('\t')
		case 'u':
			var r rune
			r, s = unquoteRune(s)
			sb.WriteRune(r)
			i = indexBackslash(s)
			continue
		default: // '"', '\\', '/'
			sb.WriteByte(c)
		}
		s = s[2:]
		i = indexBackslash(s)
	}
	sb.Write(s)
	return sb.String()
}

// indexBackslash is bytes.IndexByte(s, '\\'), faster when the backslash is
// near: escapes in JSON text are often a few dozen bytes apart, too close
// for bytes.IndexByte to make up for its call and setup.
func indexBackslash(s []byte) int {
	i := 0
	for ; i+8 <= len(s) && i < 64; i += 8 {
		v := binary.LittleEndian.Uint64(s[i:]) ^ (ones * '\\')
		if m := (v - ones) &^ v & highs; m != 0 {
			return i + bits.TrailingZeros64(m)>>3
		}
	}
	if j := bytes.IndexByte(s[i:], '\\'); j >= 0 {
		return i + j
	}
	return -1
}

// unquoteRune decodes the \uXXXX escape at the start of s, with the low
// surrogate escape that follows when it is a high surrogate, and returns the
// rune and the rest of s. An unpaired surrogate gives U+FFFD.
func unquoteRune(s []byte) (rune, []byte) {
	r := hex4(s[2:6])
	s = s[6:]
	if !utf16.IsSurrogate(r) {
		return r, s
	}
	if len(s) >= 6 && s[0] == '\\' && s[1] == 'u' {
		if dec := utf16.DecodeRune(r, hex4(s[2:6])); dec != utf8.RuneError {
			return dec, s[6:]
		}
	}
	return utf8.RuneError, s
}

// hex4 decodes four valid hex digits.
func hex4(h []byte) rune {
	var r rune
	for _, c := range h[:4] {
		switch {
		case c <= '9':
			c -= '0'
		case c <= 'F':
			c -= 'A' - 10
		default:
			c -= 'a' - 10
		}
		r = r<<4 | rune(c)
	}
	return r
}

// canonicalNumber formats the valid JSON number lit as an ID. An integer
// literal keeps its digits exactly ("-0" becomes "0"). Any other number is
// parsed as a float64: an integral value of magnitude at most 2^53 is
// written as a decimal integer (12.0 and 1.2e1 give "12"), others in
// strconv 'g' form with the fewest digits that round-trip (1.5 gives "1.5",
// 1e300 gives "1e+300"). ok is false for a number out of float64 range.
func canonicalNumber(lit []byte) (id string, ok bool) {
	if bytes.IndexAny(lit, ".eE") < 0 {
		if string(lit) == "-0" {
			return "0", true
		}
		return string(lit), true
	}
	f, err := strconv.ParseFloat(string(lit), 64)
	if err != nil {
		return "", false
	}
	if f == math.Trunc(f) && math.Abs(f) <= 1<<53 {
		return strconv.FormatInt(int64(f), 10), true
	}
	return strconv.FormatFloat(f, 'g', -1, 64), true
}

// kind names the JSON value type that starts with byte c.
func kind(c byte) string {
	switch c {
	case '{':
		return "an object"
	case '[':
		return "an array"
	case '"':
		return "a string"
	case 't', 'f':
		return "a boolean"
	case 'n':
		return "null"
	}
	return "a number"
}

// syntaxDetail describes why raw is not valid JSON.
func syntaxDetail(raw []byte) string {
	err := json.Unmarshal(raw, new(json.RawMessage))
	var se *json.SyntaxError
	if errors.As(err, &se) {
		return fmt.Sprintf("%v (at byte %d)", se, se.Offset)
	}
	if err != nil {
		return err.Error()
	}
	return "rejected by the JSON validator"
}

// invalidUTF8Detail says where the first invalid UTF-8 byte of b is.
func invalidUTF8Detail(b []byte) string {
	for i := 0; i < len(b); {
		r, size := utf8.DecodeRune(b[i:])
		if r == utf8.RuneError && size == 1 {
			return fmt.Sprintf("invalid UTF-8 at byte %d (0x%02x)", i, b[i])
		}
		i += size
	}
	return "invalid UTF-8"
}
