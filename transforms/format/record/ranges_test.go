package record

import (
	"bytes"
	"errors"
	"fmt"
	"io"
	"reflect"
	"strings"
	"testing"
	"testing/iotest"
)

// lineRead is what one read reported: docs (Raw copied), rejects, and
// whether OnLineIDs was called.
type lineRead struct {
	docs    []Doc
	rejects []Reject
	lineIDs bool
}

// readLineRange reads data with opt, in the range rg if not nil (from
// data[rg.Offset:]), adding what it reports to got.
func readLineRange(t *testing.T, data []byte, opt Options, rg *LineRange, got *lineRead) {
	t.Helper()
	opt.Lines = rg
	opt.OnLineIDs = func() { got.lineIDs = true }
	if rg != nil {
		data = data[rg.Offset:]
	}
	err := Read(bytes.NewReader(data), "f.jsonl", opt, func(d Doc) error {
		d.Raw = bytes.Clone(d.Raw)
		got.docs = append(got.docs, d)
		return nil
	}, func(r Reject) error {
		got.rejects = append(got.rejects, r)
		return nil
	})
	if err != nil {
		t.Fatalf("range %+v: %v", rg, err)
	}
}

// lineStarts is the oracle of where the lines of data start, as Read
// numbers them: at 0 and after every "\n" that is not the last byte (a
// stream that is only a byte order mark has no line).
func lineStarts(data []byte) []int64 {
	if len(data) == 0 || bytes.Equal(data, utf8BOM) {
		return nil
	}
	starts := []int64{0}
	for i, b := range data {
		if b == '\n' && i+1 < len(data) {
			starts = append(starts, int64(i+1))
		}
	}
	return starts
}

// lineFiles are streams with the edge cases of splitting: blank and empty
// lines, CRLF, lines over the limit (also over the 64 KiB read buffer),
// no final newline, a byte order mark (at the start, and starting a later
// line, where it is part of the line), invalid UTF-8, bad JSON, a lone
// CR, and IDAuto settled late or never.
func lineFiles() map[string]string {
	long := strings.Repeat("x", 100<<10)
	return map[string]string{
		"mixed": "{\"id\":\"a\",\"text\":\"one\"}\n\n   \n{bad json\r\n{\"id\":\"b\",\"text\":\"two\"}\r\n" +
			"{\"id\":\"c\",\"text\":\"" + long + "\"}\n{\"id\":\"d\",\"text\":\"\xff\xfe\"}\n" +
			"\xEF\xBB\xBF{\"id\":\"e\",\"text\":\"bom\"}\n{\"id\":\"f\",\"text\":\"" + strings.Repeat("y", 300) + "\"}\n" +
			"\r\n\r\n{\"text\":\"no id\"}\n[1,2]\n{\"id\":\"g\",\"text\":\"last\"}",
		"bom, crlf, final newline": "\xEF\xBB\xBF{\"id\":\"a\",\"text\":\"x\"}\r\n{\"id\":\"b\",\"text\":\"y\"}\r\n\r\n{\"id\":7,\"text\":\"z\"}\r\n",
		"line ids settled late":    "\n{oops\n" + long + "\n{\"text\":\"first\"}\n{\"id\":\"x\",\"text\":\"second\"}\n\"str\"\n{\"text\":\"third\"}\n",
		"never settled":            "not json\n\n[1]\n{bad\n",
		"long lines":               long + "\n" + long + long + "\n" + "{\"id\":\"a\",\"text\":\"t\"}\n" + long,
		"bom only":                 "\xEF\xBB\xBF",
		"empty":                    "",
		"newlines":                 "\n\n\n",
		"cr only":                  "{\"id\":\"a\",\"text\":\"b\"}\r",
		"tsv":                      "u1\tt1\tc1\r\nu2\tonly two\n\n\xEF\xBB\xBFu3\tt3\tc3\nu4\t\t\xff\nu5\tt\t" + long + "\nu6\tt6\tc6",
	}
}

// TestReadLineRanges checks that reads of a stream in line ranges give
// together what one read gives, byte for byte (docs, rejects with their
// line numbers, offsets, details and samples, OnLineIDs), cut at every
// line, between every two lines, and as SplitLines cuts it; with each ID
// source, a small MaxDocBytes, Raw and Only.
func TestReadLineRanges(t *testing.T) {
	opts := map[string]Options{
		"auto":       {IDs: IDAuto, MaxDocBytes: 64 << 10},
		"field":      {IDs: IDFromField},
		"line ids":   {IDs: IDFromLine, MaxDocBytes: 200},
		"raw":        {IDs: IDAuto, Raw: true, MaxDocBytes: 200},
		"only evens": {IDs: IDAuto, Only: func(i int64) bool { return i%2 == 0 }},
	}
	for name, text := range lineFiles() {
		data := []byte(text)
		starts := lineStarts(data)
		n := int64(len(starts))
		startOf := func(k int64) int64 { // the offset of line k; past the end: the end
			switch {
			case k == 0: // the start, even of a stream without lines
				return 0
			case k < n:
				return starts[k]
			}
			return int64(len(data))
		}
		for oname, opt := range opts {
			if name == "tsv" {
				opt.Format = TSV
			}
			what := name + ", " + oname
			var whole lineRead
			readLineRange(t, data, opt, nil, &whole)
			if name == "mixed" && (len(whole.docs) == 0 || len(whole.rejects) == 0) {
				t.Fatalf("%s: %d docs, %d rejects: the test reads no mix", what, len(whole.docs), len(whole.rejects))
			}
			one, err := SplitLines(bytes.NewReader(data), opt, 0)
			if err != nil {
				t.Fatal(err)
			}
			if one.Lines != n || one.Bytes != int64(len(data)) || !reflect.DeepEqual(one.Ranges, []LineRange{{End: n}}) {
				t.Errorf("%s: SplitLines(0) = %+v, want %d lines, %d bytes, one range", what, one, n, len(data))
			}
			opt.IDs = one.IDs
			// Every cut: [0,k) [k,n); every two cuts: [0,j) [j,k) [k,n).
			var splits [][]int64
			for j := int64(1); j < n; j++ {
				splits = append(splits, []int64{0, j, n})
				for k := j + 1; k < n && n < 20; k++ {
					splits = append(splits, []int64{0, j, k, n})
				}
			}
			for per := int64(1); per <= n+1; per++ {
				s, err := SplitLines(iotest.HalfReader(bytes.NewReader(data)), opt, per)
				if err != nil {
					t.Fatal(err)
				}
				cuts := []int64{}
				for k, rg := range s.Ranges {
					if rg.Offset != startOf(rg.First) || (k < len(s.Ranges)-1 && rg.End-rg.First != per) {
						t.Errorf("%s: per %d: range %d %+v; the lines start at %v", what, per, k, rg, starts)
					}
					cuts = append(cuts, rg.First)
				}
				if s.IDs != one.IDs || s.Lines != n || s.Ranges[len(s.Ranges)-1].End != n || int64(len(s.Ranges)) != max((n+per-1)/per, 1) {
					t.Errorf("%s: per %d: %+v, want %d lines in ranges of %d, ids %v", what, per, s, n, per, one.IDs)
				}
				splits = append(splits, append(cuts, n))
			}
			for _, cuts := range splits {
				var got lineRead
				for i := 0; i+1 < len(cuts); i++ {
					end := cuts[i+1]
					if i+2 == len(cuts) {
						end = 1 << 40 // the last range: to the end
					}
					readLineRange(t, data, opt, &LineRange{First: cuts[i], End: end, Offset: startOf(cuts[i])}, &got)
				}
				if !reflect.DeepEqual(got, whole) {
					t.Errorf("%s: cut at %v: the ranges read\n%+v\nwant\n%+v", what, cuts, summarize(got), summarize(whole))
				}
			}
		}
	}
}

// summarize is a short form of r for a test failure.
func summarize(r lineRead) string {
	var b strings.Builder
	fmt.Fprintf(&b, "line ids %v;", r.lineIDs)
	for _, d := range r.docs {
		fmt.Fprintf(&b, " doc %d@%d %q %.20q;", d.Index+1, d.Offset, d.ID, d.Raw)
	}
	for _, j := range r.rejects {
		fmt.Fprintf(&b, " reject %d@%d %s %.30q;", j.Line, j.Offset, j.Reason, j.Detail)
	}
	return b.String()
}

// TestLineRangeEdges: a range reads no line of another (End-First lines,
// none for an empty range), a range after line 0 keeps a byte order mark
// that starts it, and a Text read refuses a range.
func TestLineRangeEdges(t *testing.T) {
	data := []byte("{\"id\":\"a\",\"text\":\"x\"}\n\xEF\xBB\xBF{\"id\":\"b\",\"text\":\"y\"}\n{\"id\":\"c\",\"text\":\"z\"}\n")
	starts := lineStarts(data)
	for _, c := range []struct {
		rg   LineRange
		want string
	}{
		{LineRange{0, 1, 0}, "1:a"},
		{LineRange{0, 0, 0}, ""},
		{LineRange{1, 1, starts[1]}, ""},
		{LineRange{2, 3, starts[2]}, "3:c"},
		{LineRange{1, 3, starts[1]}, "3:c 2:bad_json"}, // the mark is the line's (docs, then rejects)
		{LineRange{3, 9, int64(len(data))}, ""},
	} {
		var got lineRead
		rg := c.rg
		readLineRange(t, data, Options{IDs: IDFromField}, &rg, &got)
		var s []string
		for _, d := range got.docs {
			s = append(s, fmt.Sprintf("%d:%s", d.Index+1, d.ID))
		}
		for _, r := range got.rejects {
			s = append(s, fmt.Sprintf("%d:%s", r.Line, r.Reason))
		}
		if strings.Join(s, " ") != c.want {
			t.Errorf("range %+v: %q, want %q", c.rg, strings.Join(s, " "), c.want)
		}
	}
	err := Read(bytes.NewReader(data), "f.txt", Options{Format: Text, Lines: &LineRange{0, 1, 0}},
		func(Doc) error { return nil }, func(Reject) error { return nil })
	if err == nil {
		t.Error("a Text read of a line range: no error")
	}
}

// TestLineRangeReadError: a read error ends the range with its final
// Reject at the line it cut, numbered in the stream; SplitLines returns
// it.
func TestLineRangeReadError(t *testing.T) {
	data := []byte("{\"id\":\"a\",\"text\":\"x\"}\n{\"id\":\"b\",\"text\":\"y\"}\n{\"id\":\"c\",\"text\":\"z\"}\n")
	boom := errors.New("boom")
	starts := lineStarts(data)
	r := io.MultiReader(bytes.NewReader(data[starts[1]:starts[1]+5]), iotest.ErrReader(boom))
	var rejects []Reject
	err := Read(r, "f.jsonl", Options{Lines: &LineRange{1, 3, starts[1]}}, func(Doc) error { return nil },
		func(rj Reject) error { rejects = append(rejects, rj); return nil })
	if err != nil || len(rejects) != 1 || rejects[0].Line != 2 || rejects[0].Offset != starts[1] || rejects[0].Reason != ReasonReadError {
		t.Errorf("read error in a range: %v, %+v; want one read_error at line 2, byte %d", err, rejects, starts[1])
	}
	if _, err := SplitLines(iotest.ErrReader(boom), Options{}, 1); !errors.Is(err, boom) {
		t.Errorf("SplitLines of a failing reader: %v, want %v", err, boom)
	}
	late := io.MultiReader(strings.NewReader(strings.Repeat("{}\n", 1000)), iotest.ErrReader(boom))
	if _, err := SplitLines(late, Options{}, 1); !errors.Is(err, boom) {
		t.Errorf("SplitLines failing after its first line: %v, want %v", err, boom)
	}
}
