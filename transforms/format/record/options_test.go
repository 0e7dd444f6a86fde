package record

import (
	"bytes"
	"compress/gzip"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"slices"
	"strings"
	"testing"
	"unicode/utf8"
)

// onlyLines returns an Options.Only that selects the given 0-based line
// indexes and records every call in *calls.
func onlyLines(calls *[]int64, idx ...int64) func(int64) bool {
	return func(i int64) bool {
		*calls = append(*calls, i)
		return slices.Contains(idx, i)
	}
}

// mixedJSONL has good, malformed, blank and over-size (with MaxDocBytes 50)
// lines; the comment gives each line's 0-based index.
const mixedJSONL = `{"id":"a","text":"first"}` + "\n" + // 0
	`{"id":"b","text":"second"}` + "\r\n" + // 1
	`{"id":"c","text":` + "\n" + // 2: bad JSON
	"\n" + // 3: blank
	`{"id":"d","text":"fourth \u00e9"}` + "\n" + // 4
	`{"id":"e"}` + "\n" + // 5: no text
	`{"id":"f","text":"this line is longer than fifty bytes"}` + "\n" + // 6: too large
	`{"id":"g","text":"caf` + "\xe9" + `"}` + "\n" + // 7: invalid UTF-8
	`{"id":"h","text":"last"}` // 8, no newline

const mixedTSV = "http://a\tA\ta\n" + // 0
	"just one column\n" + // 1
	"\n" + // 2
	"http://c\tC\tc\n" + // 3
	"http://d\tD\td\r\n" + // 4
	"http://e\t\xff\te\n" // 5

// TestReadOnly checks Options.Only: exactly the selected lines are
// reported, with the same Doc and Reject fields as a full read; lines not
// selected produce no callback, not even a reject, but still count in
// Index, Line and Offset; the final read-error reject is always reported.
func TestReadOnly(t *testing.T) {
	stored := gzipMembers(t, gzip.NoCompression, jsonLines(6))
	cut := stored[:15+len(jsonLines(3))+10] // inside line 4 (index 3)
	tests := []struct {
		name string
		file string
		in   []byte
		opt  Options
		only []int64
		want []string
	}{
		{name: "lines 1 and 4", file: "m.jsonl", in: []byte(mixedJSONL), opt: Options{MaxDocBytes: 50},
			only: []int64{1, 4}, want: []string{`2 doc b "second"`, `5 doc d "fourth é"`}},
		{name: "bad lines not selected give no reject", file: "m.jsonl", in: []byte(mixedJSONL),
			opt: Options{MaxDocBytes: 50}, only: []int64{0, 8}, want: []string{`1 doc a "first"`, `9 doc h "last"`}},
		{name: "selected bad lines are rejected", file: "m.jsonl", in: []byte(mixedJSONL),
			opt: Options{MaxDocBytes: 50}, only: []int64{2, 5, 6, 7},
			want: []string{"3 reject bad_json", "6 reject missing_text", "7 reject too_large", "8 reject invalid_utf8"}},
		{name: "blank line selected", file: "m.jsonl", in: []byte(mixedJSONL), opt: Options{MaxDocBytes: 50},
			only: []int64{3}, want: nil},
		{name: "nothing selected", file: "m.jsonl", in: []byte(mixedJSONL), opt: Options{MaxDocBytes: 50},
			only: nil, want: nil},
		{name: "past the end", file: "m.jsonl", in: []byte(mixedJSONL), opt: Options{MaxDocBytes: 50},
			only: []int64{9, 100}, want: nil},
		{name: "everything", file: "m.jsonl", in: []byte(mixedJSONL), opt: Options{MaxDocBytes: 50},
			only: []int64{0, 1, 2, 3, 4, 5, 6, 7, 8},
			want: []string{`1 doc a "first"`, `2 doc b "second"`, "3 reject bad_json", `5 doc d "fourth é"`,
				"6 reject missing_text", "7 reject too_large", "8 reject invalid_utf8", `9 doc h "last"`}},
		{name: "tsv", file: "m.tsv", in: []byte(mixedTSV), opt: Options{Format: TSV},
			only: []int64{1, 4}, want: []string{"2 reject too_few_columns", `5 doc http://d "D\nd"`}},
		{name: "tsv bad line not selected", file: "m.tsv", in: []byte(mixedTSV), opt: Options{Format: TSV},
			only: []int64{3, 5}, want: []string{`4 doc http://c "C\nc"`, "6 reject invalid_utf8"}},
		{name: "gzip multi-member", file: "m.jsonl.gz",
			in:   gzipMembers(t, 6, mixedJSONL[:100], mixedJSONL[100:]),
			opt:  Options{MaxDocBytes: 50},
			only: []int64{1, 4}, want: []string{`2 doc b "second"`, `5 doc d "fourth é"`}},
		{name: "truncated gzip, cut line not selected", file: "t.jsonl.gz", in: cut,
			only: []int64{1}, want: []string{`2 doc d2 "document number 2 says word word word "`, "4 reject corrupt_gzip"}},
		{name: "truncated gzip, cut line selected", file: "t.jsonl.gz", in: cut,
			only: []int64{3, 4}, want: []string{"4 reject corrupt_gzip"}},
		{name: "text selected", file: "d.txt", in: []byte("hello"), opt: Options{Format: Text},
			only: []int64{0}, want: []string{`1 doc d.txt "hello"`}},
		{name: "text not selected", file: "d.txt", in: []byte("hello"), opt: Options{Format: Text},
			only: []int64{1}, want: nil},
		{name: "bad text not selected", file: "d.txt", in: []byte("\xff"), opt: Options{Format: Text},
			only: nil, want: nil},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			full := run(t, tc.in, tc.file, tc.opt)
			var calls []int64
			opt := tc.opt
			opt.Only = onlyLines(&calls, tc.only...)
			res := run(t, tc.in, tc.file, opt)
			if !equal(res.events, tc.want) {
				t.Errorf("events:\n got %s\nwant %s", strings.Join(res.events, "\n     "), strings.Join(tc.want, "\n     "))
			}
			// The same docs and rejects as the full read, filtered.
			var wantDocs []Doc
			for _, d := range full.docs {
				if slices.Contains(tc.only, d.Index) {
					wantDocs = append(wantDocs, d)
				}
			}
			var wantRjs []Reject
			for _, rj := range full.rejects {
				if slices.Contains(tc.only, max(rj.Line-1, 0)) || rj.Reason == ReasonCorruptGzip || rj.Reason == ReasonReadError {
					wantRjs = append(wantRjs, rj)
				}
			}
			if len(res.docs) != len(wantDocs) {
				t.Fatalf("%d docs, want %d", len(res.docs), len(wantDocs))
			}
			for i, d := range res.docs {
				w := wantDocs[i]
				if d.ID != w.ID || d.Text != w.Text || !bytes.Equal(d.Raw, w.Raw) || d.Index != w.Index || d.Offset != w.Offset {
					t.Errorf("doc %d = %+v, want %+v (full read)", i, d, w)
				}
			}
			if !slices.Equal(res.rejects, wantRjs) {
				t.Errorf("rejects = %+v, want %+v (full read)", res.rejects, wantRjs)
			}
			// Only is called at most once per line, in increasing order.
			for i := 1; i < len(calls); i++ {
				if calls[i] <= calls[i-1] {
					t.Errorf("Only calls %v: not increasing", calls)
					break
				}
			}
		})
	}
}

// countingReader counts the calls to Read.
type countingReader struct {
	r     io.Reader
	reads int
}

func (c *countingReader) Read(p []byte) (int, error) {
	c.reads++
	return c.r.Read(p)
}

// TestReadOnlyTextSkipsReading checks that a Text file whose line 0 is not
// selected is not even read: a failing reader gives no reject.
func TestReadOnlyTextSkipsReading(t *testing.T) {
	src := &countingReader{r: &failingReader{err: errors.New("boom")}}
	none := func(int64) bool { return false }
	err := Read(src, "x.txt", Options{Format: Text, Only: none},
		func(Doc) error { t.Error("unexpected doc"); return nil },
		func(rj Reject) error { t.Errorf("unexpected reject %+v", rj); return nil })
	if err != nil || src.reads != 0 {
		t.Errorf("Read = %v after %d reads, want nil and no read", err, src.reads)
	}
}

// rawEvents reads in with opt and returns "<line> raw <quoted Raw>" for
// each doc and "<line> reject <reason>" for each reject, checking that docs
// have no ID or Text and that Raw is the data at Offset.
func rawEvents(t *testing.T, in []byte, file string, opt Options) []string {
	t.Helper()
	res := run(t, in, file, opt)
	data, _ := decoded(t, in, file)
	var ev []string
	di, ri := 0, 0
	for _, e := range res.events {
		if strings.Contains(e, " reject ") {
			ev = append(ev, fmt.Sprintf("%d reject %s", res.rejects[ri].Line, res.rejects[ri].Reason))
			ri++
			continue
		}
		d := res.docs[di]
		di++
		if d.ID != "" || d.Text != "" {
			t.Errorf("raw doc at index %d has ID %q, Text %q; want both empty", d.Index, d.ID, d.Text)
		}
		if end := d.Offset + int64(len(d.Raw)); end > int64(len(data)) || !bytes.Equal(data[d.Offset:end], d.Raw) {
			t.Errorf("raw doc at index %d: Raw %q is not the data at offset %d", d.Index, d.Raw, d.Offset)
		}
		ev = append(ev, fmt.Sprintf("%d raw %q", d.Index+1, d.Raw))
	}
	return ev
}

// rawOracle returns the events Options.Raw should give for line-format
// input, from the physical lines of the decompressed data: every non-blank
// line within the limit as is (without its "\n": the "\r" of "\r\n"
// stays), over-size lines and the cut line as rejects.
func rawOracle(t *testing.T, in []byte, file string, opt Options) []string {
	t.Helper()
	opt = opt.withDefaults()
	data, readErr := decoded(t, in, file)
	var ev []string
	for _, pl := range physicalLines(data, readErr, opt.MaxDocBytes) {
		switch {
		case opt.Only != nil && !pl.cut && !opt.Only(pl.num-1):
		case pl.cut:
			ev = append(ev, fmt.Sprintf("%d reject %s", pl.num, ReasonCorruptGzip))
		case len(pl.raw) > opt.MaxDocBytes:
			ev = append(ev, fmt.Sprintf("%d reject %s", pl.num, ReasonTooLarge))
		case pl.blank:
		default: // the line without its "\n" only
			raw := pl.raw
			if end := int(pl.off) + len(raw); end+1 < len(data) && data[end] == '\r' && data[end+1] == '\n' {
				raw = data[pl.off : end+1]
			}
			ev = append(ev, fmt.Sprintf("%d raw %q", pl.num, raw))
		}
	}
	return ev
}

// TestReadRaw checks Options.Raw: every non-blank line within MaxDocBytes
// comes back byte for byte, parsed or not; over-size lines and damaged gzip
// data still give their rejects.
func TestReadRaw(t *testing.T) {
	stored := gzipMembers(t, gzip.NoCompression, jsonLines(3)+"{not json\n"+jsonLines(2))
	var only []int64
	tests := []struct {
		name string
		file string
		in   []byte
		opt  Options
		want []string
	}{
		{name: "jsonl good and malformed", file: "m.jsonl", in: []byte("\xEF\xBB\xBF" + mixedJSONL + "\n \t\n[1,2]\n\f\n"),
			opt: Options{Raw: true},
			want: []string{`1 raw "{\"id\":\"a\",\"text\":\"first\"}"`, `2 raw "{\"id\":\"b\",\"text\":\"second\"}\r"`,
				`3 raw "{\"id\":\"c\",\"text\":"`, `5 raw "{\"id\":\"d\",\"text\":\"fourth \\u00e9\"}"`,
				`6 raw "{\"id\":\"e\"}"`, `7 raw "{\"id\":\"f\",\"text\":\"this line is longer than fifty bytes\"}"`,
				`8 raw "{\"id\":\"g\",\"text\":\"caf\xe9\"}"`, `9 raw "{\"id\":\"h\",\"text\":\"last\"}"`,
				`11 raw "[1,2]"`, `12 raw "\f"`}},
		{name: "jsonl over-size lines rejected", file: "m.jsonl", in: []byte(mixedJSONL),
			opt: Options{Raw: true, MaxDocBytes: 25},
			want: []string{`1 raw "{\"id\":\"a\",\"text\":\"first\"}"`, "2 reject too_large",
				`3 raw "{\"id\":\"c\",\"text\":"`, "5 reject too_large", `6 raw "{\"id\":\"e\"}"`,
				"7 reject too_large", `8 raw "{\"id\":\"g\",\"text\":\"caf\xe9\"}"`,
				`9 raw "{\"id\":\"h\",\"text\":\"last\"}"`}},
		{name: "jsonl with Only", file: "m.jsonl", in: []byte(mixedJSONL),
			opt:  Options{Raw: true, MaxDocBytes: 50, Only: onlyLines(&only, 2, 3, 5, 6)},
			want: []string{`3 raw "{\"id\":\"c\",\"text\":"`, `6 raw "{\"id\":\"e\"}"`, "7 reject too_large"}},
		{name: "gzip truncated", file: "t.jsonl.gz", in: stored[:15+len(jsonLines(3))+12],
			opt: Options{Raw: true},
			want: []string{`1 raw "{\"id\":\"d1\",\"text\":\"document number 1 says word word \"}"`,
				`2 raw "{\"id\":\"d2\",\"text\":\"document number 2 says word word word \"}"`,
				`3 raw "{\"id\":\"d3\",\"text\":\"document number 3 says word word word word \"}"`,
				`4 raw "{not json"`, "5 reject corrupt_gzip"}},
		{name: "gzip bad block", file: "c.jsonl.gz", in: gzipBadBlockAfter(t, "not json\n\n"+`{"id":1}`+"\n", "more\n"),
			opt:  Options{Raw: true},
			want: []string{`1 raw "not json"`, `3 raw "{\"id\":1}"`, "4 reject corrupt_gzip"}},
		{name: "gzip empty", file: "z.jsonl.gz", in: nil, opt: Options{Raw: true},
			want: []string{"1 reject corrupt_gzip"}},
		{name: "tsv", file: "m.tsv", in: []byte(mixedTSV), opt: Options{Format: TSV, Raw: true},
			want: []string{`1 raw "http://a\tA\ta"`, `2 raw "just one column"`, `4 raw "http://c\tC\tc"`,
				`5 raw "http://d\tD\td\r"`, `6 raw "http://e\t\xff\te"`}},
		{name: "tsv over-size", file: "m.tsv", in: []byte(mixedTSV), opt: Options{Format: TSV, Raw: true, MaxDocBytes: 12},
			want: []string{`1 raw "http://a\tA\ta"`, "2 reject too_large", `4 raw "http://c\tC\tc"`,
				`5 raw "http://d\tD\td\r"`, `6 raw "http://e\t\xff\te"`}},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			only = nil
			got := rawEvents(t, tc.in, tc.file, tc.opt)
			if !equal(got, tc.want) {
				t.Errorf("events:\n got %s\nwant %s", strings.Join(got, "\n     "), strings.Join(tc.want, "\n     "))
			}
			only = nil
			if want := rawOracle(t, tc.in, tc.file, tc.opt); !equal(got, want) {
				t.Errorf("events:\n got %s\nwant %s (oracle)", strings.Join(got, "\n     "), strings.Join(want, "\n     "))
			}
		})
	}
}

// TestReadRawText checks Options.Raw for the Text format: the whole content
// as Raw, with the usual size, UTF-8 and empty rejects.
func TestReadRawText(t *testing.T) {
	stored := gzipMembers(t, gzip.NoCompression, "some text\n")
	tests := []struct {
		name string
		file string
		in   string
		opt  Options
		want []string
	}{
		{name: "good", file: "d.txt", in: "Hello,\r\nworld.\n", want: []string{`1 raw "Hello,\r\nworld.\n"`}},
		{name: "gzip", file: "d.txt.gz", in: string(gzipMembers(t, 6, "zipped ", "text")),
			want: []string{`1 raw "zipped text"`}},
		{name: "at limit", file: "d.txt", in: "1234", opt: Options{MaxDocBytes: 4}, want: []string{`1 raw "1234"`}},
		{name: "too large", file: "d.txt", in: "12345", opt: Options{MaxDocBytes: 4}, want: []string{"0 reject too_large"}},
		{name: "invalid UTF-8", file: "d.txt", in: "ok \xff", want: []string{"0 reject invalid_utf8"}},
		{name: "white space", file: "d.txt", in: " \n\t", want: []string{"0 reject empty_text"}},
		{name: "truncated gzip", file: "d.txt.gz", in: string(stored[:len(stored)-4]),
			want: []string{"0 reject corrupt_gzip"}},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			opt := tc.opt
			opt.Format, opt.Raw = Text, true
			got := rawEvents(t, []byte(tc.in), tc.file, opt)
			if !equal(got, tc.want) {
				t.Errorf("events = %q, want %q", got, tc.want)
			}
		})
	}
}

// readAllStd decodes in with compress/gzip, the reference decoder.
func readAllStd(in []byte) ([]byte, error) {
	zr, err := gzip.NewReader(bytes.NewReader(in))
	if err != nil {
		return nil, err
	}
	return io.ReadAll(zr)
}

// TestDecompressMatchesStdlib checks the gzip decoder of Decompress against
// compress/gzip on whole, truncated and damaged streams: where compress/gzip
// decodes a stream, Decompress yields the same bytes; where it fails,
// Decompress fails with ErrCorruptGzip after a prefix of what compress/gzip
// yielded (never different data).
func TestDecompressMatchesStdlib(t *testing.T) {
	multi := gzipMembers(t, gzip.DefaultCompression, jsonLines(60), "", jsonLines(5))
	tests := []struct {
		name   string
		inputs func() [][]byte
	}{
		{"whole streams", func() [][]byte {
			var ins [][]byte
			for _, level := range []int{gzip.NoCompression, gzip.BestSpeed, gzip.DefaultCompression, gzip.BestCompression, gzip.HuffmanOnly} {
				ins = append(ins, gzipMembers(t, level, jsonLines(60)), gzipMembers(t, level, jsonLines(7), "", "x", jsonLines(9)))
			}
			return append(ins, gzipMembers(t, 6, ""))
		}},
		{"every truncation", func() [][]byte {
			var ins [][]byte
			for n := range len(multi) {
				ins = append(ins, multi[:n])
			}
			return ins
		}},
		{"every byte flipped", func() [][]byte {
			var ins [][]byte
			for pos := range len(multi) {
				for _, x := range []byte{0x01, 0x5A, 0xFF} {
					in := bytes.Clone(multi)
					in[pos] ^= x
					ins = append(ins, in)
				}
			}
			return ins
		}},
		{"trailing bytes", func() [][]byte {
			return [][]byte{append(bytes.Clone(multi), 0), append(bytes.Clone(multi), "garbage"...), append(bytes.Clone(multi), 0x1f, 0x8b)}
		}},
	}
	// What follows the last whole member: compress/gzip fails on anything,
	// Decompress, as `gzip -t`, ends at zero padding and returns all the
	// data, then ErrTrailingGarbage, before other bytes that are no member.
	trailing := func(in []byte) (garbage, padding bool) {
		_, garbage, readErr := gzipOracle(in)
		return garbage, !garbage && !readErr
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			for k, in := range tc.inputs() {
				want, stdErr := readAllStd(in)
				r, _ := Decompress("x.gz", bytes.NewReader(in))
				got, err := io.ReadAll(r)
				garbage, padding := trailing(in)
				switch {
				case garbage && (!errors.Is(err, ErrTrailingGarbage) || errors.Is(err, ErrCorruptGzip) || !bytes.Equal(got, want)):
					t.Errorf("input %d: got %d bytes, %v; want the %d bytes of compress/gzip and ErrTrailingGarbage", k, len(got), err, len(want))
				case garbage:
				case padding && stdErr != nil && (err != nil || !bytes.Equal(got, want)):
					t.Errorf("input %d: got %d bytes, %v; want the %d bytes of compress/gzip before the zero padding", k, len(got), err, len(want))
				case padding && stdErr != nil:
				case stdErr == nil && (err != nil || !bytes.Equal(got, want)):
					t.Errorf("input %d: got %d bytes, %v; compress/gzip decodes %d bytes", k, len(got), err, len(want))
				case stdErr != nil && !errors.Is(err, ErrCorruptGzip):
					t.Errorf("input %d: error %v, want one wrapping ErrCorruptGzip (compress/gzip: %v)", k, err, stdErr)
				case stdErr != nil && !bytes.HasPrefix(want, got):
					t.Errorf("input %d: %d bytes before the error are not a prefix of the %d bytes of compress/gzip", k, len(got), len(want))
				}
			}
		})
	}
}

// TestReadGzipReservedFlags checks a gzip header with a reserved FLG bit
// set: RFC 1952 says a decoder must report an error, as
// klauspost/compress/gzip does (compress/gzip ignores the bits).
func TestReadGzipReservedFlags(t *testing.T) {
	for _, bit := range []byte{0x20, 0x40, 0x80} {
		in := gzipMembers(t, 6, jsonLines(2), jsonLines(1))
		second := len(gzipMembers(t, 6, jsonLines(2)))
		tests := []struct {
			name string
			pos  int
			want []string
		}{
			{"first member", 3, []string{"1 reject corrupt_gzip"}},
			{"second member", second + 3, append(jsonEvents(2), "3 reject corrupt_gzip")},
		}
		for _, tc := range tests {
			t.Run(fmt.Sprintf("%s/%#x", tc.name, bit), func(t *testing.T) {
				bad := bytes.Clone(in)
				bad[tc.pos] |= bit
				res := run(t, bad, "f.jsonl.gz", Options{})
				if !equal(res.events, tc.want) {
					t.Errorf("events = %q, want %q", res.events, tc.want)
				}
			})
		}
	}
}

// nested returns depth opening brackets of open, then close.
func nested(depth int, open, close string) string {
	return strings.Repeat(open, depth) + strings.Repeat(close, depth)
}

// TestScanMatchesJSONValid checks the single-pass JSON scanner against
// utf8.Valid && json.Valid on inputs chosen to hit each rule, and on every
// one- and two-byte sequence (and many longer ones) inside a string.
func TestScanMatchesJSONValid(t *testing.T) {
	tests := []string{
		"", " ", "\t\r\n", "{}", "[]", " { } ", "{", "}", "[", "]", "{]", "[}", "{}}", "[]]", "{}{}", "[][]",
		`{"a":1}`, `{"a":1,}`, `{,"a":1}`, `{"a" 1}`, `{"a":}`, `{1:2}`, `{a:1}`, `{"a":1 "b":2}`, `{"a":1,"b":2}`,
		`{"a":1}{"b":2}`, `{"a":1} x`, `{"a":1}` + "\x00", `{"a":[1,{"b":[]}],"c":{}}`, `{"a":[1,{"b":[}],"c":{}}`,
		`[1,]`, `[,1]`, `[1 2]`, `[1,,2]`, `["a""b"]`, `[1]]`, `[[1]`, `{"a":{"b":1}`, `{"a":{"b":1}}}`,
		"0", "-0", "01", "-01", "-", "--1", "+1", "1.", "1.e5", ".5", "1.5", "1e", "1e+", "1e-", "1E+7", "1e07",
		"-1.25e-300", "1e400", "123456789012345678901234567890", "0x10", "1_0", "Infinity", "NaN", "1.2.3",
		"true", "false", "null", "tru", "fals", "nul", "truex", "True", "NULL", "[true,false,null]", "[truefalse]",
		`""`, `"abc"`, `"abc`, `"abc\"`, `"\\"`, `"\\\"`, `"\/"`, `"\b\f\n\r\t"`, `"\a"`, `"\x41"`, `"\'"`,
		`"\u0041"`, `"\u00g0"`, `"\u00"`, `"\u"`, `"\uD83D\uDE00"`, `"\uDE00"`, `"\U0041"`,
		"\"a\x01b\"", "\"a\x1fb\"", "\"a\x7fb\"", "\"a\tb\"", "\"a\nb\"", "\"\x00\"", "\"tab\"\t", "\f{}", "{}\f",
		"\"é😀\"", "\"\xc3\"", "\"\xc3\xa9\xc3\"", "\"\xc0\x80\"", "\"\xed\xa0\x80\"", "\"\xf4\x90\x80\x80\"",
		"\"\xef\xbf\xbd\"", "\"\xf0\x9f\x98\"", "{}\u00a0", "\u00a0{}", "{\"k\xff\":1}", "[1,\xff]", "é",
		`{"a":"` + strings.Repeat("x", 100) + `\n` + strings.Repeat("é", 30) + `"}`,
		nested(maxJSONDepth, "[", "]"), nested(maxJSONDepth+1, "[", "]"), nested(maxJSONDepth-1, "[", "]") + "[",
		strings.Repeat(`{"a":`, maxJSONDepth) + "1" + strings.Repeat("}", maxJSONDepth),
		strings.Repeat(`{"a":`, maxJSONDepth+1) + "1" + strings.Repeat("}", maxJSONDepth+1),
		strings.Repeat(`[{"a":`, maxJSONDepth/2) + "1" + strings.Repeat("}]", maxJSONDepth/2),
		strings.Repeat(`[{"a":`, maxJSONDepth/2) + "[1]" + strings.Repeat("}]", maxJSONDepth/2),
	}
	// Strings of one to four bytes: every pair, and triples and quads of
	// the bytes at the edges of the UTF-8 and JSON rules.
	edges := []byte{0x00, 0x1f, 0x20, '"', '\\', 'u', 0x7f, 0x80, 0x8f, 0x90, 0x9f, 0xa0, 0xbf, 0xc0, 0xc1, 0xc2,
		0xdf, 0xe0, 0xe1, 0xec, 0xed, 0xee, 0xef, 0xf0, 0xf1, 0xf3, 0xf4, 0xf5, 0xff}
	var seqs []string
	for a := range 256 {
		seqs = append(seqs, string([]byte{byte(a)}))
		for b := range 256 {
			seqs = append(seqs, string([]byte{byte(a), byte(b)}))
		}
	}
	for _, a := range edges {
		for _, b := range edges {
			for _, c := range edges {
				seqs = append(seqs, string([]byte{a, b, c}))
				for _, d := range edges {
					seqs = append(seqs, string([]byte{a, b, c, d}))
				}
			}
		}
	}
	for _, s := range seqs {
		// Short and long enough for the eight-byte steps of scanString.
		tests = append(tests, `"`+s+`"`, `{"id":"x","text":"abcdefghij`+s+`klmnopqrstuvwxyz"}`)
	}
	var f jsonFields
	for _, in := range tests {
		b := []byte(in)
		_, _, got := f.scan(b)
		if want := utf8.Valid(b) && json.Valid(b); got != want {
			t.Errorf("scan(%q) = %v, want %v (utf8.Valid && json.Valid)", Sample(b), got, want)
		}
	}
}

// BenchmarkReadJSONLGzipRaw is BenchmarkReadJSONLGzip with Options.Raw, as
// for writing the deduplicated copy of a file.
func BenchmarkReadJSONLGzipRaw(b *testing.B) {
	benchGzipOpt(b, Options{Raw: true})
}

// BenchmarkReadJSONLGzipOnly is BenchmarkReadJSONLGzip with Options.Only
// selecting one line in ten, as for a pass that needs some records only.
func BenchmarkReadJSONLGzipOnly(b *testing.B) {
	benchGzipOpt(b, Options{Only: func(i int64) bool { return i%10 == 0 }})
}

func benchGzipOpt(b *testing.B, opt Options) {
	data := benchData(b)
	gz := gzipMembers(b, gzip.DefaultCompression, string(data))
	b.SetBytes(int64(len(data)))
	b.ReportAllocs()
	for b.Loop() {
		r, _ := Decompress("dev.jsonl.gz", bytes.NewReader(gz))
		n := 0
		err := Read(r, "dev.jsonl.gz", opt, func(Doc) error { n++; return nil },
			func(rj Reject) error { return fmt.Errorf("unexpected reject %+v", rj) })
		if err != nil || n == 0 {
			b.Fatalf("Read = %v after %d docs", err, n)
		}
	}
}

// FuzzScan checks the JSON scanner against utf8.Valid && json.Valid on any
// input, and that the members it finds are those encoding/json decodes.
func FuzzScan(f *testing.F) {
	for _, s := range []string{`{"id":"a","text":"b"}`, `{"id":1.5e3,"x":[{"id":2}],"text":"\u00e9\n"}`,
		`[1,{"a":null}]`, `{"i\u0064":true,"text":"t","text":"u"}`, "\"\xc3\xa9\"", `{"a":{"b":[[]]}}`} {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, b []byte) {
		f := newJSONFields("id", "text", "")
		id, text, ok := f.scan(b)
		if want := utf8.Valid(b) && json.Valid(b); ok != want {
			t.Fatalf("scan(%q) = %v, want %v", b, ok, want)
		}
		var m map[string]json.RawMessage
		if !ok || json.Unmarshal(b, &m) != nil || m == nil {
			return
		}
		for _, c := range []struct {
			name string
			got  []byte
		}{{"id", id}, {"text", text}} {
			want, found := m[c.name]
			if found != (c.got != nil) || found && !bytes.Equal(c.got, want) {
				t.Fatalf("scan(%q): %s member %q, want %q (found %v)", b, c.name, c.got, want, found)
			}
		}
	})
}

// TestRawCopyKeepsLineEndings: a copy of a file's lines made as the
// deduplicated copy is (each Options.Raw Doc.Raw and "\n") is the file's
// bytes, "\r\n" line endings included, while a full read gives the same
// texts and Raw (without "\r\n") whatever the line endings.
func TestRawCopyKeepsLineEndings(t *testing.T) {
	for _, tt := range []struct {
		name, in string
		format   Format
		max      int
	}{
		{"jsonl lf", "{\"id\":1,\"text\":\"a\"}\n{\"id\":2,\"text\":\"b\"}\n", JSONL, 0},
		{"jsonl crlf", "{\"id\":1,\"text\":\"a\"}\r\n{\"id\":2,\"text\":\"b\"}\r\n", JSONL, 0},
		{"jsonl mixed", "{\"id\":1,\"text\":\"a\"}\r\n{\"id\":2,\"text\":\"b\"}\n{\"id\":3,\"text\":\"c\"}\r\r\n", JSONL, 0},
		{"tsv crlf", "u1\tt\ta\r\nu2\tt\tb\r\n", TSV, 0},
		{"crlf, lines at the size limit", "u1\tt\tab\r\nu2\tt\tcd\r\n", TSV, 8},
		{"crlf, gzip", "{\"id\":1,\"text\":\"a\"}\r\n{\"id\":2,\"text\":\"b\"}\r\n", JSONL, 0},
	} {
		t.Run(tt.name, func(t *testing.T) {
			file, in := "x", []byte(tt.in)
			if strings.HasSuffix(tt.name, "gzip") {
				file, in = "x.gz", gzipMembers(t, 6, tt.in)
			}
			read := func(raw bool) (copied []byte, texts []string) {
				opt := Options{Format: tt.format, Raw: raw, MaxDocBytes: tt.max}
				err := Read(NewReader(file, bytes.NewReader(in), Unknown), file, opt, func(d Doc) error {
					copied = append(append(copied, d.Raw...), '\n')
					texts = append(texts, d.Text)
					return nil
				}, func(rj Reject) error { return fmt.Errorf("reject %+v", rj) })
				if err != nil {
					t.Fatal(err)
				}
				return copied, texts
			}
			if got, _ := read(true); string(got) != tt.in {
				t.Errorf("raw copy %q, want the input %q", got, tt.in)
			}
			lf := strings.ReplaceAll(tt.in, "\r\n", "\n")
			got, texts := read(false)
			if string(got) != lf {
				t.Errorf("full read's Raw lines %q, want %q", got, lf)
			}
			for _, text := range texts {
				if strings.HasSuffix(text, "\r") {
					t.Errorf("text %q ends in the line's CR", text)
				}
			}
		})
	}
}
