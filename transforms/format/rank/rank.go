// Package rank turns the values of a record field into keys that order
// documents for --keep field:NAME: numbers by value, timestamps and dates
// by time, other strings by their bytes.
//
// In: a field's value as text (a JSON string unquoted, a JSON number as
// written, a Parquet value formatted by package record) and the Type the
// field was found to have (Detect). Out: a Key; a larger Key is kept
// first. A value that does not parse as the Type, or is absent, has the
// zero Key, below every value that parses.
package rank

import (
	"cmp"
	"encoding/binary"
	"math"
	"strconv"
	"strings"
	"time"
	"unicode/utf8"

	"github.com/neardup/neardup/transforms/choice"
)

// Type is what the values of a field are.
type Type uint8

const (
	// Unset: not detected yet.
	Unset Type = iota
	// Number: decimal numbers (JSON numbers, or strings holding one),
	// compared as float64.
	Number
	// Time: RFC 3339 timestamps, or dates (2006-01-02), compared to the
	// microsecond; a date is its midnight UTC.
	Time
	// String: any text, compared byte by byte on its first StringBytes
	// bytes.
	String
)

// StringBytes is how many leading bytes of a string value its Key holds:
// strings that agree on them tie.
const StringBytes = 16

var typeNames = choice.Names[Type]{{Value: Unset, Name: "unset"}, {Value: Number, Name: "number"}, {Value: Time, Name: "time"}, {Value: String, Name: "string"}}

// String returns the name of t: unset, number, time or string.
func (t Type) String() string {
	name, _ := typeNames.Name(t)
	return name
}

// MarshalText returns the name of t.
func (t Type) MarshalText() ([]byte, error) { return typeNames.Marshal("field type", t) }

// UnmarshalText sets t to the type text names.
func (t *Type) UnmarshalText(text []byte) (err error) {
	*t, err = typeNames.Parse(string(text))
	return err
}

// Detect returns the type of a field from values of it: Number if more
// than half the values are numbers, else Time if more than half are
// timestamps or dates, else String. Empty values are left out; with none
// left, String. A value that does not parse as the type detected ranks
// last (Of), so that a stray "N/A" among dates leaves them dates.
func Detect(values []string) Type {
	nums, times, n := 0, 0, 0
	for _, v := range values {
		if v = strings.TrimSpace(v); v == "" {
			continue
		}
		n++
		if _, ok := number(v); ok {
			nums++
		}
		if _, ok := timestamp(v); ok {
			times++
		}
	}
	switch {
	case 2*nums > n:
		return Number
	case 2*times > n:
		return Time
	}
	return String
}

// Key orders documents: a larger Key is kept first (Compare). The zero
// Key is a value that is missing or does not parse.
type Key struct {
	Hi, Lo uint64
}

// IsZero reports whether k is the zero Key.
func (k Key) IsZero() bool { return k == Key{} }

// Compare orders a before b when a is the larger Key, which is kept
// first: -1, 0 or +1.
func Compare(a, b Key) int {
	if c := cmp.Compare(b.Hi, a.Hi); c != 0 {
		return c
	}
	return cmp.Compare(b.Lo, a.Lo)
}

// Of returns the Key of value v of type t: for the smallest value first,
// or with desc the largest first. ok is false, with the zero Key, when v is
// empty or white space, or does not parse as t.
func Of(t Type, v string, desc bool) (k Key, ok bool) {
	if strings.TrimSpace(v) == "" {
		return Key{}, false // empty or white space: no value, of any type
	}
	if t != String {
		v = strings.TrimSpace(v)
	}
	var u uint64
	switch t {
	case Number:
		f, ok := number(v)
		if !ok {
			return Key{}, false
		}
		u = floatBits(f)
	case Time:
		us, ok := timestamp(v)
		if !ok {
			return Key{}, false
		}
		u = uint64(us) ^ 1<<63
	case String:
		var b [StringBytes]byte
		copy(b[:], v)
		k = Key{binary.BigEndian.Uint64(b[:8]), binary.BigEndian.Uint64(b[8:])}
		if !desc {
			k = Key{^k.Hi, ^k.Lo}
		}
		return above(k), true
	default:
		return Key{}, false
	}
	if !desc {
		u = ^u
	}
	return above(Key{Hi: u}), true
}

// above keeps a parsed value's Key off the zero Key, which is the missing
// values': the one value it would be (the largest string of 0xFF bytes,
// say) ties with the next below it instead.
func above(k Key) Key {
	if k.IsZero() {
		k.Lo = 1
	}
	return k
}

// number parses a decimal number: finite, as strconv.ParseFloat reads it,
// without hexadecimal forms, underscores, Inf or NaN.
func number(v string) (float64, bool) {
	for i := 0; i < len(v); i++ {
		c := v[i]
		if !('0' <= c && c <= '9' || c == '.' || c == '-' || c == '+' || c == 'e' || c == 'E') {
			return 0, false
		}
	}
	f, err := strconv.ParseFloat(v, 64)
	if err != nil || math.IsInf(f, 0) || math.IsNaN(f) {
		return 0, false
	}
	return f, true
}

// floatBits maps f to an unsigned integer of the same order (-0 and +0
// alike).
func floatBits(f float64) uint64 {
	if f == 0 {
		f = 0 // -0 to +0
	}
	b := math.Float64bits(f)
	if b&(1<<63) != 0 {
		return ^b
	}
	return b | 1<<63
}

// timestamp parses an RFC 3339 timestamp (a "T" or a space between date
// and time) or a date, to microseconds since 1970 UTC.
func timestamp(v string) (int64, bool) {
	if len(v) == len(time.DateOnly) {
		t, err := time.Parse(time.DateOnly, v)
		if err != nil {
			return 0, false
		}
		return t.UnixMicro(), true
	}
	if len(v) > 10 && v[10] == ' ' {
		v = v[:10] + "T" + v[11:]
	}
	t, err := time.Parse(time.RFC3339Nano, v)
	if err != nil {
		return 0, false
	}
	return t.UnixMicro(), true
}

// Field is a field to rank documents by: its name (as record.Options names
// fields), the type of its values and whether the largest comes first.
// The zero Field ranks by nothing.
type Field struct {
	Name string
	Type Type
	Desc bool
}

// Of returns the Key of v, a value of f, or the zero Key when v does not
// parse (Of).
func (f Field) Of(v string) Key {
	k, _ := Of(f.Type, v, f.Desc)
	return k
}

// Value returns the value of f that k holds, for an output to show: a
// float64 for a Number, an RFC 3339 timestamp in UTC for a Time (to the
// microsecond), and for a String its first StringBytes bytes, cut to whole
// UTF-8 characters. ok is false for the zero Key, a missing value.
func (f Field) Value(k Key) (v any, ok bool) {
	if k.IsZero() {
		return nil, false
	}
	if !f.Desc {
		k = Key{^k.Hi, ^k.Lo}
	}
	switch f.Type {
	case Number:
		b := k.Hi
		if b&(1<<63) != 0 {
			b &^= 1 << 63
		} else {
			b = ^b
		}
		return math.Float64frombits(b), true
	case Time:
		return time.UnixMicro(int64(k.Hi ^ 1<<63)).UTC().Format(time.RFC3339Nano), true
	case String:
		var b [StringBytes]byte
		binary.BigEndian.PutUint64(b[:8], k.Hi)
		binary.BigEndian.PutUint64(b[8:], k.Lo)
		s := strings.TrimRight(string(b[:]), "\x00")
		for len(s) > 0 && !utf8.ValidString(s) {
			s = s[:len(s)-1]
		}
		return s, true
	}
	return nil, false
}
