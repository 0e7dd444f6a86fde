package rank

import (
	"fmt"
	"slices"
	"testing"
)

func TestDetect(t *testing.T) {
	for _, c := range []struct {
		values []string
		want   Type
	}{
		{[]string{"1", "2.5", "-3e2", " 7 "}, Number},
		{[]string{"1", "", "  "}, Number},
		{[]string{"2024-01-05", "2023-12-31T23:59:59Z", "2024-02-01 10:00:00+08:00"}, Time},
		{[]string{"2024-01-05", "12"}, String},
		{[]string{"1", "N/A"}, String},
		{[]string{"1", "2", "N/A"}, Number},
		{[]string{"2024-01-05", "2024-02-01", "last week"}, Time},
		{[]string{"https://example.org/a"}, String},
		{[]string{"0x10"}, String},
		{[]string{"NaN", "Inf"}, String},
		{nil, String},
	} {
		if got := Detect(c.values); got != c.want {
			t.Errorf("Detect(%q) = %v, want %v", c.values, got, c.want)
		}
	}
}

// TestOrder: sorting values by their Keys (Compare) gives the order asked
// for, smallest or largest first, with values that do not parse last.
func TestOrder(t *testing.T) {
	for _, c := range []struct {
		typ    Type
		desc   bool
		values []string // in the order wanted
	}{
		{Number, false, []string{"-1e300", "-2", "-0.5", "0", "1e-9", "3", "10", "1e300", "", "x"}},
		{Number, true, []string{"1e300", "10", "3", "-0", "-2", "x"}},
		{Time, false, []string{"1900-01-01", "1999-12-31T23:59:59Z", "2000-01-01", "2000-01-01T00:00:00.000001Z", "2000-01-01 08:00:01+08:00", "not a date"}},
		{Time, true, []string{"2262-04-12T00:00:00Z", "2024-02-28T23:00:00-05:00", "2024-02-29", "1970-01-01", ""}},
		{String, false, []string{"\x00", "2024/01/05 09:00", "2024/01/05 10:00", "a", "ab", "b", "\xff\xff", ""}},
		{String, true, []string{"b", "ab", "a", "2024/01/05 10:00", "2024/01/05 09:00"}},
	} {
		keys := make([]Key, len(c.values))
		for i, v := range c.values {
			keys[i], _ = Of(c.typ, v, c.desc)
		}
		sorted := slices.Clone(keys)
		slices.SortStableFunc(sorted, Compare)
		for i := range keys {
			if Compare(sorted[i], keys[i]) != 0 {
				t.Errorf("%v desc=%v: position %d has the key of %q, want %q's", c.typ, c.desc, i, valueOf(c.values, keys, sorted[i]), c.values[i])
			}
		}
	}
}

func valueOf(values []string, keys []Key, k Key) string {
	for i := range keys {
		if keys[i] == k {
			return values[i]
		}
	}
	return "?"
}

func TestOfMissing(t *testing.T) {
	for _, c := range []struct {
		typ Type
		v   string
	}{{Number, ""}, {Number, "one"}, {Time, "2024-13-01"}, {Time, "yesterday"}, {String, ""}, {String, " \t "}, {Unset, "1"}} {
		if k, ok := Of(c.typ, c.v, false); ok || !k.IsZero() {
			t.Errorf("Of(%v, %q) = %v, %v; want the zero Key, false", c.typ, c.v, k, ok)
		}
	}
	// A value that parses is never the zero Key, even the extremes.
	for _, v := range []string{"\xff\xff\xff\xff\xff\xff\xff\xff\xff\xff\xff\xff\xff\xff\xff\xff\xff", "\x00"} {
		for _, desc := range []bool{false, true} {
			if k, ok := Of(String, v, desc); !ok || k.IsZero() {
				t.Errorf("Of(String, %q, %v) = %v, %v; want a key above zero", v, desc, k, ok)
			}
		}
	}
}

func TestStringPrefix(t *testing.T) {
	a, _ := Of(String, "0123456789abcdefX", false)
	b, _ := Of(String, "0123456789abcdefY", false)
	if Compare(a, b) != 0 {
		t.Errorf("strings equal on their first %d bytes compare %d, want a tie", StringBytes, Compare(a, b))
	}
}

func ExampleOf() {
	dates := []string{"2024-03-01", "2023-11-20T08:00:00Z", "unknown", "2024-01-15"}
	keys := map[string]Key{}
	for _, d := range dates {
		keys[d], _ = Of(Time, d, false) // the earliest first
	}
	slices.SortFunc(dates, func(a, b string) int { return Compare(keys[a], keys[b]) })
	fmt.Println(dates)
	// Output: [2023-11-20T08:00:00Z 2024-01-15 2024-03-01 unknown]
}

// TestValue: a Key gives back the value it was made of, in either order:
// numbers as float64, times in UTC to the microsecond, strings as their
// first StringBytes bytes cut to whole characters; the zero Key none.
func TestValue(t *testing.T) {
	for _, tt := range []struct {
		typ  Type
		in   string
		want any
	}{
		{Number, "-3.5", -3.5},
		{Number, "0", 0.0},
		{Number, " 12 ", 12.0},
		{Number, "1e10", 1e10},
		{Time, "2026-01-02", "2026-01-02T00:00:00Z"},
		{Time, "2026-01-02T03:04:05.1234567+02:00", "2026-01-02T01:04:05.123456Z"},
		{Time, "1969-12-31 23:59:59Z", "1969-12-31T23:59:59Z"},
		{String, "abc", "abc"},
		{String, "https://example.com/a/long/path", "https://example.c"[:StringBytes]},
		{String, "新闻联播新闻联播", "新闻联播新"},
	} {
		for _, desc := range []bool{false, true} {
			f := Field{Name: "f", Type: tt.typ, Desc: desc}
			got, ok := f.Value(f.Of(tt.in))
			if !ok || got != tt.want {
				t.Errorf("%v %q (desc %v): Value = %v, %v; want %v", tt.typ, tt.in, desc, got, ok, tt.want)
			}
		}
	}
	if v, ok := (Field{Type: Number}).Value(Key{}); ok {
		t.Errorf("the zero Key's Value = %v, true; want none", v)
	}
}
