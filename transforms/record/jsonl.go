package record

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"math"
	"strconv"
	"strings"
	"unicode/utf16"
	"unicode/utf8"
)

// jsonFields holds the JSONL field names to look up.
type jsonFields struct {
	id, text []byte
}

// newJSONFields returns the lookup for the given ID and text field names.
func newJSONFields(id, text string) jsonFields {
	return jsonFields{id: []byte(id), text: []byte(text)}
}

// parseJSONL parses one non-blank JSONL line into a Doc with ID and Text
// set, or returns a reason code and a detail (without position) for a
// reject. Fields other than the ID and text fields are skipped, not decoded.
func (p *parser) parseJSONL(raw []byte) (d Doc, reason, detail string) {
	// encoding/json would silently replace invalid bytes: check first.
	if !utf8.Valid(raw) {
		return d, ReasonInvalidUTF8, invalidUTF8Detail(raw)
	}
	if !json.Valid(raw) {
		return d, ReasonBadJSON, "bad JSON: " + syntaxDetail(raw)
	}
	obj := raw[skipWS(raw, 0):]
	if obj[0] != '{' {
		return d, ReasonBadJSON, fmt.Sprintf("bad JSON: top-level value is %s, want an object", kind(obj[0]))
	}
	idVal, textVal := p.json.lookup(obj)
	if d.ID, reason, detail = p.jsonID(idVal); reason != "" {
		return d, reason, detail
	}
	d.Text, reason, detail = p.jsonText(textVal)
	return d, reason, detail
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

// lookup walks the top-level members of obj, a valid JSON object, and
// returns the raw values of the ID and text fields, or nil for a field that
// is absent. Keys match exactly (case-sensitive, after unescaping); when a
// key repeats, the last value wins, as with encoding/json.
func (f *jsonFields) lookup(obj []byte) (id, text []byte) {
	i := skipWS(obj, 1)
	if obj[i] == '}' {
		return nil, nil
	}
	for {
		keyEnd := skipString(obj, i)
		key := obj[i+1 : keyEnd-1]
		i = skipWS(obj, keyEnd) // at ':'
		i = skipWS(obj, i+1)
		valEnd := skipValue(obj, i)
		if keyIs(key, f.id) {
			id = obj[i:valEnd]
		}
		if keyIs(key, f.text) {
			text = obj[i:valEnd]
		}
		i = skipWS(obj, valEnd) // at ',' or '}'
		if obj[i] == '}' {
			return id, text
		}
		i = skipWS(obj, i+1)
	}
}

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

// skipString returns the index just past the JSON string that starts at
// b[i] == '"'. b must be valid JSON.
func skipString(b []byte, i int) int {
	j := i + 1
	for {
		end := j + bytes.IndexByte(b[j:], '"')
		// The quote ends the string unless an odd number of backslashes
		// escapes it. The opening quote stops the count.
		bs := 0
		for k := end - 1; b[k] == '\\'; k-- {
			bs++
		}
		if bs%2 == 0 {
			return end + 1
		}
		j = end + 1
	}
}

// skipValue returns the index just past the JSON value that starts at b[i].
// b must be valid JSON.
func skipValue(b []byte, i int) int {
	switch b[i] {
	case '"':
		return skipString(b, i)
	case '{', '[':
		depth := 0
		for j := i; ; {
			switch b[j] {
			case '"':
				j = skipString(b, j)
				continue
			case '{', '[':
				depth++
			case '}', ']':
				depth--
				if depth == 0 {
					return j + 1
				}
			}
			j++
		}
	}
	// A number or literal runs up to a delimiter.
	j := i
	for j < len(b) {
		switch b[j] {
		case ',', '}', ']', ' ', '\t', '\r', '\n':
			return j
		}
		j++
	}
	return j
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
			i = bytes.IndexByte(s, '\\')
			continue
		default: // '"', '\\', '/'
			sb.WriteByte(c)
		}
		s = s[2:]
		i = bytes.IndexByte(s, '\\')
	}
	sb.Write(s)
	return sb.String()
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
