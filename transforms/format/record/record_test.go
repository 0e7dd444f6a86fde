package record

import (
	"bytes"
	"compress/gzip"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"runtime"
	"slices"
	"strings"
	"testing"
	"unicode/utf8"

	kgzip "github.com/klauspost/compress/gzip"
)

// result is what Read reported for one input, in callback order.
type result struct {
	events  []string // "<line> doc <id> <quoted text>" or "<line> reject <reason>"
	docs    []Doc    // Raw copied
	rejects []Reject
}

// run decompresses in by file name and reads it with Read, collecting every
// callback. It fails the test if Read returns an error.
func run(t testing.TB, in []byte, file string, opt Options) result {
	t.Helper()
	r, err := Decompress(file, bytes.NewReader(in))
	if err != nil {
		t.Fatalf("Decompress(%q): %v", file, err)
	}
	var res result
	err = Read(r, file, opt, func(d Doc) error {
		d.Raw = bytes.Clone(d.Raw)
		res.docs = append(res.docs, d)
		res.events = append(res.events, fmt.Sprintf("%d doc %s %q", d.Index+1, d.ID, d.Text))
		return nil
	}, func(rj Reject) error {
		res.rejects = append(res.rejects, rj)
		res.events = append(res.events, fmt.Sprintf("%d reject %s", rj.Line, rj.Reason))
		return nil
	})
	if err != nil {
		t.Fatalf("Read(%q): %v", file, err)
	}
	return res
}

// decoded returns the data Read sees for in: in itself, or for a gzip file
// name what the gzip decoder that Decompress uses (klauspost/compress/gzip)
// decodes before any error, and whether an error (corrupt or truncated
// stream) cut it. How much of a damaged stream a decoder yields before
// reporting the damage is its own choice (klauspost's may stop a few bytes
// earlier than compress/gzip's); TestDecompressMatchesStdlib checks that it
// is always a prefix of what compress/gzip yields. What follows the last
// whole member is read as `gzip -t` does: zero padding is the end, other
// bytes no error (see trailingGarbage).
func decoded(t testing.TB, in []byte, file string) (data []byte, readErr bool) {
	t.Helper()
	if !IsGzip(file) {
		return in, false
	}
	data, _, readErr = gzipOracle(in)
	return data, readErr
}

// trailingGarbage reports whether in, read as the file name says, ends in
// bytes after its last whole gzip member that are neither a member nor zero
// padding.
func trailingGarbage(in []byte, file string) bool {
	if !IsGzip(file) {
		return false
	}
	_, garbage, _ := gzipOracle(in)
	return garbage
}

// gzipOracle decodes the gzip members of in one at a time, as `gzip -t`
// reads them: after a whole member, the end of in or only zero bytes end
// the stream; bytes that do not start with the gzip magic number are
// garbage.
func gzipOracle(in []byte) (data []byte, garbage, readErr bool) {
	br := bytes.NewReader(in)
	for member := 0; ; member++ {
		rest := in[len(in)-br.Len():]
		if member > 0 && (len(rest) == 0 || bytes.Count(rest, []byte{0}) == len(rest)) {
			return data, false, false
		}
		if member > 0 && !bytes.HasPrefix(rest, []byte{0x1F, 0x8B}) {
			return data, true, false
		}
		zr, err := kgzip.NewReader(br)
		if err != nil {
			return data, false, true
		}
		zr.Multistream(false)
		part, err := io.ReadAll(zr)
		data = append(data, part...)
		if err != nil {
			return data, false, true
		}
	}
}

// physLine is one physical line as the package documents it, computed
// independently of the package.
type physLine struct {
	num   int64
	off   int64
	raw   []byte // without "\n" or "\r\n"
	blank bool   // not a record: empty or spaces/tabs/CRs, within the size limit
	cut   bool   // cut by a read error: stands for the rest of the stream
}

// physicalLines splits decompressed data into its physical lines. max is the
// size limit (a blank line over it is still a too_large record).
func physicalLines(data []byte, readErr bool, max int) []physLine {
	var lines []physLine
	off := 0
	if bytes.HasPrefix(data, []byte("\xEF\xBB\xBF")) {
		off = 3
	}
	for num := int64(1); ; num++ {
		rest := data[off:]
		i := bytes.IndexByte(rest, '\n')
		if i < 0 {
			switch {
			case readErr:
				lines = append(lines, physLine{num: num, off: int64(off), raw: rest, cut: true})
			case len(rest) > 0:
				lines = append(lines, physLine{num: num, off: int64(off), raw: rest,
					blank: len(rest) <= max && strings.Trim(string(rest), " \t\r") == ""})
			}
			return lines
		}
		raw := bytes.TrimSuffix(rest[:i], []byte("\r"))
		lines = append(lines, physLine{num: num, off: int64(off), raw: raw,
			blank: len(raw) <= max && strings.Trim(string(raw), " \t\r") == ""})
		off += i + 1
	}
}

// checkInvariants checks what must hold for any input: callbacks in line
// order, Raw and Offset pointing at the record in the decompressed data,
// rejects well formed, docs with valid non-empty ID and Text, and for line
// formats every physical line accounted for exactly once: docs + rejects +
// blank lines == physical lines.
func checkInvariants(t *testing.T, in []byte, file string, opt Options, res result) {
	t.Helper()
	opt = opt.withDefaults()
	data, readErr := decoded(t, in, file)
	for _, d := range res.docs {
		if !utf8.ValidString(d.ID) || !utf8.ValidString(d.Text) || isSpaceOnly(d.ID) || isSpaceOnly(d.Text) {
			t.Errorf("doc at line %d: ID %q / Text %q not valid non-empty UTF-8", d.Index+1, d.ID, d.Text)
		}
		if end := d.Offset + int64(len(d.Raw)); end > int64(len(data)) || !bytes.Equal(data[d.Offset:end], d.Raw) {
			t.Errorf("doc at line %d: Raw %q is not the data at offset %d", d.Index+1, d.Raw, d.Offset)
		}
	}
	for _, rj := range res.rejects {
		checkReject(t, rj, file, data)
	}
	if opt.Format == Text {
		if n := len(res.docs) + len(res.rejects); n != 1 {
			t.Errorf("Text format: %d docs + rejects, want 1", n)
		}
		return
	}
	seen := map[int64]string{}
	last := int64(0)
	notRecords := 0
	for _, ev := range res.events {
		if strings.HasSuffix(ev, " reject "+ReasonTrailingGarbage) {
			notRecords++
			if ev != res.events[len(res.events)-1] || !trailingGarbage(in, file) {
				t.Errorf("event %q: want it last, and only for trailing garbage", ev)
			}
			continue
		}
		var line int64
		fmt.Sscan(ev, &line)
		if line <= last {
			t.Errorf("event %q out of line order (after line %d)", ev, last)
		}
		last = line
		seen[line] = ev
	}
	lines := physicalLines(data, readErr, opt.MaxDocBytes)
	blank := 0
	for _, pl := range lines {
		ev, ok := seen[pl.num]
		switch {
		case pl.blank && ok:
			t.Errorf("blank line %d reported as %q", pl.num, ev)
		case pl.blank:
			blank++
		case !ok:
			t.Errorf("line %d (%q) lost: neither doc nor reject", pl.num, Sample(pl.raw))
		case pl.cut && !strings.Contains(ev, "reject "+ReasonCorruptGzip) && !strings.Contains(ev, "reject "+ReasonReadError):
			t.Errorf("line %d cut by a read error reported as %q", pl.num, ev)
		}
	}
	if got := len(res.docs) + len(res.rejects) - notRecords + blank; got != len(lines) {
		t.Errorf("accounting: %d docs + %d rejects + %d blank = %d, want %d physical lines",
			len(res.docs), len(res.rejects), blank, got, len(lines))
	}
}

// checkReject checks one Reject against the decompressed data.
func checkReject(t *testing.T, rj Reject, file string, data []byte) {
	t.Helper()
	where := file
	if rj.Line > 0 {
		where = fmt.Sprintf("%s:%d", file, rj.Line)
	}
	if rj.File != file || !strings.HasPrefix(rj.Detail, where+": ") {
		t.Errorf("reject %+v: want File %q and Detail starting with %q", rj, file, where+": ")
	}
	if !utf8.ValidString(rj.Sample) || len(rj.Sample) > SampleBytes {
		t.Errorf("reject at line %d: Sample %q not valid UTF-8 of at most %d bytes", rj.Line, rj.Sample, SampleBytes)
	}
	if rj.Offset > int64(len(data)) {
		t.Errorf("reject at line %d: Offset %d past the data (%d bytes)", rj.Line, rj.Offset, len(data))
		return
	}
	head := data[rj.Offset:]
	head = head[:min(len(head), SampleBytes+utf8.UTFMax)]
	if !strings.HasPrefix(strings.ToValidUTF8(string(head), "\uFFFD"), rj.Sample) {
		t.Errorf("reject at line %d: Sample %q is not the start of the record at offset %d", rj.Line, rj.Sample, rj.Offset)
	}
}

// gzipMembers compresses each part as its own gzip member and concatenates
// the members.
func gzipMembers(t testing.TB, level int, parts ...string) []byte {
	t.Helper()
	var buf bytes.Buffer
	for _, p := range parts {
		zw, err := gzip.NewWriterLevel(&buf, level)
		if err != nil {
			t.Fatal(err)
		}
		if _, err := io.WriteString(zw, p); err != nil {
			t.Fatal(err)
		}
		if err := zw.Close(); err != nil {
			t.Fatal(err)
		}
	}
	return buf.Bytes()
}

// gzipBadBlockAfter compresses good, flushes (which ends the deflate data on
// a byte boundary), compresses rest, and then makes the block after the
// flush invalid (reserved block type 3). A decoder yields exactly good and
// then fails.
func gzipBadBlockAfter(t testing.TB, good, rest string) []byte {
	t.Helper()
	var buf bytes.Buffer
	zw := gzip.NewWriter(&buf)
	io.WriteString(zw, good)
	if err := zw.Flush(); err != nil {
		t.Fatal(err)
	}
	k := buf.Len()
	io.WriteString(zw, rest)
	if err := zw.Close(); err != nil {
		t.Fatal(err)
	}
	b := buf.Bytes()
	b[k] |= 0x06 // BTYPE bits = 11
	return b
}

// jsonLines returns n good JSONL lines with ids d1..dn.
func jsonLines(n int) string {
	var sb strings.Builder
	for i := 1; i <= n; i++ {
		fmt.Fprintf(&sb, `{"id":"d%d","text":"document number %d says %s"}`+"\n", i, i, strings.Repeat("word ", i%7+1))
	}
	return sb.String()
}

// jsonEvents returns the events of jsonLines(n)'s first m lines.
func jsonEvents(m int) []string {
	var ev []string
	for i := 1; i <= m; i++ {
		ev = append(ev, fmt.Sprintf("%d doc d%d %q", i, i, fmt.Sprintf("document number %d says %s", i, strings.Repeat("word ", i%7+1))))
	}
	return ev
}

// readCase is one input with the exact events Read must report.
type readCase struct {
	name string
	file string
	in   []byte
	opt  Options
	want []string
}

func readCases(t testing.TB) []readCase {
	b := func(s string) []byte { return []byte(s) }
	tsv := Options{Format: TSV}
	text := Options{Format: Text}
	good := jsonLines(40)
	stored := gzipMembers(t, gzip.NoCompression, good)
	compressed := gzipMembers(t, gzip.BestCompression, good)
	badCRC := gzipMembers(t, gzip.DefaultCompression, jsonLines(3))
	badCRC[len(badCRC)-8] ^= 0xFF
	return []readCase{
		{name: "jsonl good", file: "a.jsonl",
			in: b(`{"id":"a","text":"hello"}` + "\n" +
				`{"id":12,"text":"twelve"}` + "\r\n" +
				"\n" +
				"  \t\r\n" +
				`{"extra":[1,{"k":"}\""}],"id":"b","text":"x\"y\u00e9\n\ud83d\ude00\ud800","n":null}` + "\n" +
				`{"id":"c\\","k\"\\":"\\\"}","text":"last\\\\"}` + "\n" +
				`{"id":"\/d\b\f\r\t","text":"\u0041\u00DF\u6C34\uD834\uDD1E\uDD1E\uD834x"}`),
			// � is U+FFFD, the replacement of an unpaired surrogate.
			want: []string{`1 doc a "hello"`, `2 doc 12 "twelve"`, `5 doc b "x\"yé\n😀�"`, `6 doc c\ "last\\\\"`,
				"7 doc /d\b\f\r\t \"Aß水𝄞��x\""}},
		{name: "jsonl every reject", file: "r.jsonl", opt: Options{MaxDocBytes: 40},
			in: b(`{"id":"a","text":` + "\n" + // 1
				`[1,2]` + "\n" + // 2
				`"str"` + "\n" + // 3
				`{"text":"no id"}` + "\n" + // 4
				`{"id":{"x":1},"text":"t"}` + "\n" + // 5
				`{"id":[1],"text":"t"}` + "\n" + // 6
				`{"id":true,"text":"t"}` + "\n" + // 7
				`{"id":null,"text":"t"}` + "\n" + // 8
				`{"id":"x"}` + "\n" + // 9
				`{"id":"x","text":7}` + "\n" + // 10
				`{"id":"x","text":null}` + "\n" + // 11
				`{"id":"x","text":""}` + "\n" + // 12
				`{"id":"x","text":" \n\t\u3000"}` + "\n" + // 13
				`{"id":"x","text":"caf` + "\xe9" + `"}` + "\n" + // 14
				`{"id":"x","text":"0123456789012345678901234"}` + "\n" + // 15
				`{"id":"","text":"t"}` + "\n" + // 16
				`{"id":1e400,"text":"t"}` + "\n" + // 17
				"\f\n" + // 18
				`{"id":"ok","text":"fine"}` + "\n"), // 19
			want: []string{"1 reject bad_json", "2 reject bad_json", "3 reject bad_json", "4 reject missing_id",
				"5 reject id_not_string", "6 reject id_not_string", "7 reject id_not_string", "8 reject id_not_string",
				"9 reject missing_text", "10 reject text_not_string", "11 reject text_not_string",
				"12 reject empty_text", "13 reject empty_text", "14 reject invalid_utf8", "15 reject too_large",
				"16 reject missing_id", "17 reject id_not_string", "18 reject bad_json", `19 doc ok "fine"`}},
		{name: "jsonl numeric ids", file: "n.jsonl",
			in: b(`{"id":0,"text":"t"}` + "\n" + `{"id":-0,"text":"t"}` + "\n" + `{"id":-17,"text":"t"}` + "\n" +
				`{"id":12345678901234567890123,"text":"t"}` + "\n" + `{"id":1.2e1,"text":"t"}` + "\n" +
				`{"id":1.5,"text":"t"}` + "\n" + `{"id":-0.0,"text":"t"}` + "\n" + `{"id":1E300,"text":"t"}` + "\n"),
			want: []string{`1 doc 0 "t"`, `2 doc 0 "t"`, `3 doc -17 "t"`, `4 doc 12345678901234567890123 "t"`,
				`5 doc 12 "t"`, `6 doc 1.5 "t"`, `7 doc 0 "t"`, `8 doc 1e+300 "t"`}},
		{name: "jsonl custom fields, exact keys, last duplicate wins", file: "f.jsonl",
			opt: Options{IDField: "url", TextField: "body"},
			in: b(`{"url":"u1","body":"b1","id":"x","text":"y"}` + "\n" +
				`{"URL":"u2","body":"b2"}` + "\n" +
				`{"\u0075rl":"u3","b\u006fdy":"b3"}` + "\n" +
				`{"url":"u4","body":"first","body":"second"}` + "\n"),
			want: []string{`1 doc u1 "b1"`, "2 reject missing_id", `3 doc u3 "b3"`, `4 doc u4 "second"`}},
		{name: "jsonl BOM, size limit exact", file: "bom.jsonl", opt: Options{MaxDocBytes: 26},
			in: b("\xEF\xBB\xBF" + `{"id":"a","text":"123456"}` + "\r\n" + // 26 bytes: fits
				`{"id":"b","text":"1234567"}` + "\r\n" + // 27: too large
				`{"id":"c","text":"123456"}`), // 26 without newline
			want: []string{`1 doc a "123456"`, "2 reject too_large", `3 doc c "123456"`}},
		{name: "jsonl empty input", file: "e.jsonl", in: nil, want: nil},
		{name: "jsonl only blank lines", file: "bl.jsonl", in: b("\n\r\n \n\t\n"), want: nil},
		{name: "tsv good", file: "a.tsv", opt: tsv,
			in: b("http://a\tTitle A\tContent A\n" +
				"http://b\tTitle B\tpart 1\tpart 2\r\n" +
				"\n" +
				"http://c\t\tonly content"),
			want: []string{`1 doc http://a "Title A\nContent A"`, `2 doc http://b "Title B\npart 1\tpart 2"`,
				`4 doc http://c "\nonly content"`}},
		{name: "tsv rejects", file: "r.tsv", opt: Options{Format: TSV, MaxDocBytes: 30},
			in: b("just one column\n" +
				"url\ttitle only\n" +
				"\ttitle\tcontent\n" +
				"http://e\t \t \n" +
				"http://f\tt\tbad \xff byte\n" +
				"http://g\ttitle\tcontent that is too long\n" +
				"http://h\tok\tfine\n"),
			want: []string{"1 reject too_few_columns", "2 reject too_few_columns", "3 reject missing_id",
				"4 reject empty_text", "5 reject invalid_utf8", "6 reject too_large", `7 doc http://h "ok\nfine"`}},
		{name: "text good", file: "doc.txt", opt: text, in: b("Hello,\nworld.\n"),
			want: []string{`1 doc doc.txt "Hello,\nworld.\n"`}},
		{name: "text empty", file: "empty.txt", opt: text, in: nil, want: []string{"0 reject empty_text"}},
		{name: "text white space", file: "ws.txt", opt: text, in: b(" \n\t "), want: []string{"0 reject empty_text"}},
		{name: "text invalid", file: "bad.txt", opt: text, in: b("ok \xc3\x28 not"), want: []string{"0 reject invalid_utf8"}},
		{name: "text too large", file: "big.txt", opt: Options{Format: Text, MaxDocBytes: 4}, in: b("12345"),
			want: []string{"0 reject too_large"}},
		{name: "text at limit", file: "four.txt", opt: Options{Format: Text, MaxDocBytes: 4}, in: b("1234"),
			want: []string{`1 doc four.txt "1234"`}},
		{name: "text gzip", file: "doc.txt.gz", opt: text, in: gzipMembers(t, 6, "zipped ", "text"),
			want: []string{`1 doc doc.txt.gz "zipped text"`}},
		{name: "text truncated gzip", file: "cut.txt.gz", opt: text, in: stored[:len(stored)/2],
			want: []string{"0 reject corrupt_gzip"}},
		{name: "gzip good", file: "g.jsonl.gz", in: gzipMembers(t, 6, jsonLines(3)), want: jsonEvents(3)},
		{name: "gzip multi-member, line spanning members", file: "m.jsonl.GZ",
			in:   gzipMembers(t, 6, `{"id":"a","text":"x"}`+"\n"+`{"id":"b",`, `"text":"y"}`+"\n", "", `{"id":"c","text":"z"}`),
			want: []string{`1 doc a "x"`, `2 doc b "y"`, `3 doc c "z"`}},
		{name: "gzip stored, truncated mid-line", file: "t.jsonl.gz",
			// 10-byte header and 5-byte stored block header, then the data:
			// cut inside line 4.
			in:   stored[:15+len(jsonLines(3))+10],
			want: append(jsonEvents(3), "4 reject corrupt_gzip")},
		{name: "gzip stored, truncated at a line end", file: "t.jsonl.gz",
			in:   stored[:15+len(jsonLines(3))],
			want: append(jsonEvents(3), "4 reject corrupt_gzip")},
		{name: "gzip compressed, truncated in the middle", file: "t.jsonl.gz",
			in: compressed[:len(compressed)/2],
			// What the gzip decoder decodes from this prefix, checked against the
			// oracle in TestReadAccounting: lines up to the cut.
			want: nil},
		{name: "gzip invalid block after flush", file: "c.jsonl.gz",
			in:   gzipBadBlockAfter(t, jsonLines(5), "more data\n"),
			want: append(jsonEvents(5), "6 reject corrupt_gzip")},
		{name: "gzip bad checksum", file: "crc.jsonl.gz", in: badCRC,
			want: append(jsonEvents(3), "4 reject corrupt_gzip")},
		{name: "gzip header only", file: "h.jsonl.gz", in: stored[:5], want: []string{"1 reject corrupt_gzip"}},
		{name: "gzip empty file", file: "z.jsonl.gz", in: nil, want: []string{"1 reject corrupt_gzip"}},
		{name: "gzip trailing garbage", file: "tg.jsonl.gz", in: append(gzipMembers(t, 6, jsonLines(2)), "garbage"...),
			want: append(jsonEvents(2), "0 reject trailing_garbage")},
		{name: "gzip trailing garbage after an unended line", file: "tg.jsonl.gz", in: append(gzipMembers(t, 6, strings.TrimSuffix(jsonLines(2), "\n")), "\x1f"...),
			want: append(jsonEvents(2), "0 reject trailing_garbage")},
		{name: "gzip zero padding", file: "zp.jsonl.gz", in: append(gzipMembers(t, 6, jsonLines(2)), make([]byte, 512)...),
			want: jsonEvents(2)},
		{name: "gzip empty members, then zero padding", file: "em.jsonl.gz", in: append(gzipMembers(t, 6, slices.Repeat([]string{""}, 300)...), make([]byte, 9)...),
			want: nil},
		{name: "gzip empty members, then records", file: "em.jsonl.gz", in: gzipMembers(t, 6, append(slices.Repeat([]string{""}, 300), jsonLines(2))...),
			want: jsonEvents(2)},
		{name: "gzip one zero byte", file: "zp.jsonl.gz", in: append(gzipMembers(t, 6, jsonLines(2)), 0),
			want: jsonEvents(2)},
		{name: "gzip zero padding then garbage", file: "zp.jsonl.gz", in: append(append(gzipMembers(t, 6, jsonLines(2)), make([]byte, 5000)...), 'x'),
			want: append(jsonEvents(2), "0 reject trailing_garbage")},
		{name: "gzip zero padding, then a member", file: "zp.jsonl.gz", in: append(append(gzipMembers(t, 6, jsonLines(2)), 0, 0), gzipMembers(t, 6, jsonLines(1))...),
			want: append(jsonEvents(2), "0 reject trailing_garbage")}, // as gzip -t: padding ends the members
	}
}

func TestRead(t *testing.T) {
	for _, tc := range readCases(t) {
		t.Run(tc.name, func(t *testing.T) {
			if tc.want == nil && len(tc.in) > 0 && IsGzip(tc.file) {
				t.Skip("checked against the gzip oracle in TestReadAccounting")
			}
			res := run(t, tc.in, tc.file, tc.opt)
			if !equal(res.events, tc.want) {
				t.Errorf("events:\n got %s\nwant %s", strings.Join(res.events, "\n     "), strings.Join(tc.want, "\n     "))
			}
			checkInvariants(t, tc.in, tc.file, tc.opt, res)
		})
	}
}

// TestReadAccounting checks, for every case, that every physical line is a
// doc, a reject or a blank line, exactly once (docs + rejects + blank lines
// == physical lines), and for JSONL/TSV that each line's outcome matches an
// oracle built on encoding/json and strings.
func TestReadAccounting(t *testing.T) {
	for _, tc := range readCases(t) {
		t.Run(tc.name, func(t *testing.T) {
			res := run(t, tc.in, tc.file, tc.opt)
			checkInvariants(t, tc.in, tc.file, tc.opt, res)
			if tc.opt.Format == Text {
				return
			}
			data, readErr := decoded(t, tc.in, tc.file)
			want := oracleEvents(data, readErr, tc.opt)
			if trailingGarbage(tc.in, tc.file) {
				want = append(want, "0 reject "+ReasonTrailingGarbage)
			}
			if !equal(res.events, want) {
				t.Errorf("events:\n got %s\nwant %s (oracle)", strings.Join(res.events, "\n     "), strings.Join(want, "\n     "))
			}
			if tc.name == "gzip compressed, truncated in the middle" {
				if len(res.docs) == 0 || len(res.docs) >= 40 || len(res.rejects) != 1 || res.rejects[0].Reason != ReasonCorruptGzip {
					t.Errorf("want some but not all of 40 docs and one corrupt_gzip reject, got %d docs, rejects %v",
						len(res.docs), res.events[len(res.docs):])
				}
			}
		})
	}
}

func equal(a, b []string) bool {
	if len(a) != len(b) {
		return false
	}
	for i := range a {
		if a[i] != b[i] {
			return false
		}
	}
	return true
}

// oracleEvents computes the events Read should report for decompressed
// line-format data, line by line, independently of the package's parsers.
func oracleEvents(data []byte, readErr bool, opt Options) []string {
	opt = opt.withDefaults()
	var ev []string
	for _, pl := range physicalLines(data, readErr, opt.MaxDocBytes) {
		var id, text, reason string
		switch {
		case pl.cut:
			reason = ReasonCorruptGzip
		case len(pl.raw) > opt.MaxDocBytes:
			reason = ReasonTooLarge
		case pl.blank:
			continue
		case opt.Format == TSV:
			id, text, reason = oracleTSV(pl.raw)
		default:
			id, text, reason = oracleJSONL(pl.raw, opt)
		}
		if reason != "" {
			ev = append(ev, fmt.Sprintf("%d reject %s", pl.num, reason))
		} else {
			ev = append(ev, fmt.Sprintf("%d doc %s %q", pl.num, id, text))
		}
	}
	return ev
}

// oracleJSONL decodes a JSONL line with encoding/json into a map.
func oracleJSONL(raw []byte, opt Options) (id, text, reason string) {
	if !utf8.Valid(raw) {
		return "", "", ReasonInvalidUTF8
	}
	var m map[string]json.RawMessage
	if err := json.Unmarshal(raw, &m); err != nil || m == nil {
		return "", "", ReasonBadJSON
	}
	idv, ok := m[opt.IDField]
	if !ok {
		return "", "", ReasonMissingID
	}
	switch c := idv[0]; {
	case c == '"':
		json.Unmarshal(idv, &id)
		if strings.TrimSpace(id) == "" {
			return "", "", ReasonMissingID
		}
	case c == '-' || '0' <= c && c <= '9':
		if id, ok = canonicalNumber(idv); !ok {
			return "", "", ReasonIDNotString
		}
	default:
		return "", "", ReasonIDNotString
	}
	tv, ok := m[opt.TextField]
	if !ok {
		return "", "", ReasonMissingText
	}
	if tv[0] != '"' {
		return "", "", ReasonTextNotString
	}
	json.Unmarshal(tv, &text)
	if strings.TrimSpace(text) == "" {
		return "", "", ReasonEmptyText
	}
	return id, text, ""
}

// oracleTSV splits a TSV line with strings.SplitN.
func oracleTSV(raw []byte) (id, text, reason string) {
	if !utf8.Valid(raw) {
		return "", "", ReasonInvalidUTF8
	}
	cols := strings.SplitN(string(raw), "\t", 3)
	if len(cols) < 3 {
		return "", "", ReasonTooFewColumns
	}
	if strings.TrimSpace(cols[0]) == "" {
		return "", "", ReasonMissingID
	}
	text = cols[1] + "\n" + cols[2]
	if strings.TrimSpace(text) == "" {
		return "", "", ReasonEmptyText
	}
	return cols[0], text, ""
}

// TestReadDocFields checks Raw, Index and Offset of docs and rejects exactly.
func TestReadDocFields(t *testing.T) {
	in := "\xEF\xBB\xBF" + `{"id":"a","text":"x"}` + "\r\n\n" + `{"id":"b"}` + "\n" + `{"id":"c","text":"y","z":1}`
	res := run(t, []byte(in), "f.jsonl", Options{})
	if len(res.docs) != 2 || len(res.rejects) != 1 {
		t.Fatalf("got %v", res.events)
	}
	want := []Doc{
		{ID: "a", Text: "x", Raw: []byte(`{"id":"a","text":"x"}`), Index: 0, Offset: 3},
		{ID: "c", Text: "y", Raw: []byte(`{"id":"c","text":"y","z":1}`), Index: 3, Offset: 38},
	}
	for i, d := range res.docs {
		w := want[i]
		if d.ID != w.ID || d.Text != w.Text || !bytes.Equal(d.Raw, w.Raw) || d.Index != w.Index || d.Offset != w.Offset {
			t.Errorf("doc %d = %+v, want %+v", i, d, w)
		}
	}
	wantRj := Reject{File: "f.jsonl", Line: 3, Offset: 27, Reason: ReasonMissingText,
		Detail: `f.jsonl:3: no "text" field (the record's fields: id)`, Sample: `{"id":"b"}`}
	if res.rejects[0] != wantRj {
		t.Errorf("reject = %+v, want %+v", res.rejects[0], wantRj)
	}
}

// TestSample checks the cut on a rune boundary and the replacement of
// invalid bytes.
func TestSample(t *testing.T) {
	tests := []struct {
		in   string
		want string
	}{
		{"", ""},
		{"short", "short"},
		{strings.Repeat("a", 250), strings.Repeat("a", 200)},
		{strings.Repeat("a", 199) + "é" + "zz", strings.Repeat("a", 199)},
		{strings.Repeat("a", 198) + "é" + "zz", strings.Repeat("a", 198) + "é"},
		{"ab\xffcd", "ab\uFFFDcd"},
		{strings.Repeat("\xff.", 150), strings.Repeat("\uFFFD.", 50)},
		{strings.Repeat("😀", 60), strings.Repeat("😀", 50)},
	}
	for _, tc := range tests {
		got := Sample([]byte(tc.in))
		if got != tc.want || len(got) > SampleBytes || !utf8.ValidString(got) {
			t.Errorf("Sample(%q) = %q, want %q", tc.in, got, tc.want)
		}
	}
}

func TestParseFormat(t *testing.T) {
	for _, f := range []Format{JSONL, TSV, Text} {
		got, err := ParseFormat(strings.ToUpper(f.String()))
		if err != nil || got != f {
			t.Errorf("ParseFormat(%q) = %v, %v; want %v", f.String(), got, err, f)
		}
	}
	if _, err := ParseFormat("xml"); err == nil || !strings.Contains(err.Error(), `"xml"`) {
		t.Errorf("ParseFormat(xml) error = %v, want one naming the format", err)
	}
}

// TestCallbackError checks that a callback's error stops Read and comes
// back wrapped with the position.
func TestCallbackError(t *testing.T) {
	stop := errors.New("stop")
	in := strings.NewReader(`{"id":"a","text":"x"}` + "\n" + "bad\n" + `{"id":"b","text":"y"}` + "\n")
	n := 0
	err := Read(in, "cb.jsonl", Options{}, func(Doc) error { n++; return nil }, func(Reject) error { return stop })
	if !errors.Is(err, stop) || !strings.Contains(err.Error(), "cb.jsonl:2") || n != 1 {
		t.Errorf("Read = %v after %d docs; want the reject callback's error at cb.jsonl:2 after 1 doc", err, n)
	}
	noReject := func(Reject) error { return nil }
	err = Read(strings.NewReader("x"), "cb.txt", Options{Format: Text}, func(Doc) error { return stop }, noReject)
	if !errors.Is(err, stop) {
		t.Errorf("Read(Text) = %v, want the doc callback's error", err)
	}
}

// TestReadMisuse checks the errors for a nil callback and an unknown format.
func TestReadMisuse(t *testing.T) {
	doc, reject := func(Doc) error { return nil }, func(Reject) error { return nil }
	if err := Read(strings.NewReader("x"), "m.jsonl", Options{}, doc, nil); err == nil {
		t.Error("Read with a nil reject callback: no error")
	}
	if err := Read(strings.NewReader("x"), "m.jsonl", Options{Format: Format(9)}, doc, reject); err == nil ||
		!strings.Contains(err.Error(), "m.jsonl") {
		t.Errorf("Read with Format(9) = %v, want an error naming the file", err)
	}
}

// failingReader returns data, then err.
type failingReader struct {
	data []byte
	err  error
}

func (r *failingReader) Read(p []byte) (int, error) {
	if len(r.data) == 0 {
		return 0, r.err
	}
	n := copy(p, r.data)
	r.data = r.data[n:]
	return n, nil
}

// TestReadError checks that an I/O error ends the file with one read_error
// reject covering the cut line, for plain and gzip input.
func TestReadError(t *testing.T) {
	boom := errors.New("connection reset")
	for _, file := range []string{"e.jsonl", "e.jsonl.gz"} {
		data := []byte(jsonLines(2) + `{"id":"cut",`)
		if IsGzip(file) {
			full := gzipMembers(t, gzip.NoCompression, jsonLines(2)+`{"id":"cut","text":"t"}`+"\n")
			data = full[:15+len(jsonLines(2))+12]
		}
		r, _ := Decompress(file, &failingReader{data: data, err: boom})
		var events []string
		var rjs []Reject
		err := Read(r, file, Options{}, func(d Doc) error {
			events = append(events, d.ID)
			return nil
		}, func(rj Reject) error {
			rjs = append(rjs, rj)
			return nil
		})
		if err != nil || len(events) != 2 || len(rjs) != 1 {
			t.Fatalf("%s: Read = %v, docs %v, rejects %+v", file, err, events, rjs)
		}
		rj := rjs[0]
		if rj.Reason != ReasonReadError || rj.Line != 3 || rj.Sample != `{"id":"cut",` || !strings.Contains(rj.Detail, "connection reset") {
			t.Errorf("%s: reject %+v, want read_error at line 3 with the cut line as sample", file, rj)
		}
	}
}

// TestCorruptGzipFlips flips single bytes all over a compressed stream:
// Read must never panic, never return an error, end with exactly one
// corrupt_gzip reject, and account for every line it decoded.
func TestCorruptGzipFlips(t *testing.T) {
	lines := jsonLines(30)
	good := gzipMembers(t, gzip.DefaultCompression, lines)
	// Skip the 10-byte header: its MTIME, XFL and OS bytes are not checked.
	for pos := 10; pos < len(good); pos += 3 {
		in := bytes.Clone(good)
		in[pos] ^= 0x5A
		res := run(t, in, "flip.jsonl.gz", Options{})
		n := len(res.rejects)
		if n == 0 || res.rejects[n-1].Reason != ReasonCorruptGzip || !strings.HasSuffix(res.events[len(res.events)-1], "corrupt_gzip") {
			t.Errorf("flip at %d: events end %v, want a final corrupt_gzip reject", pos, res.events[max(0, len(res.events)-2):])
		}
		checkInvariants(t, in, "flip.jsonl.gz", Options{}, res)
	}
}

// endlessReader yields n bytes of c.
type endlessReader struct {
	n int64
	c byte
}

func (r *endlessReader) Read(p []byte) (int, error) {
	if r.n <= 0 {
		return 0, io.EOF
	}
	if int64(len(p)) > r.n {
		p = p[:r.n]
	}
	for i := range p {
		p[i] = r.c
	}
	r.n -= int64(len(p))
	return len(p), nil
}

// TestHugeLineBoundedMemory reads a 50 MB line with a 1 MiB limit: it must be
// rejected as too_large without holding it in memory, and reading must go on
// with the next line.
func TestHugeLineBoundedMemory(t *testing.T) {
	const big = 50 << 20
	prefix, suffix := `{"id":"big","text":"`, "\"}\n"+`{"id":"after","text":"ok"}`+"\n"
	in := io.MultiReader(strings.NewReader(prefix), &endlessReader{n: big, c: 'a'}, strings.NewReader(suffix))
	var docs []Doc
	var rjs []Reject
	var before, after runtime.MemStats
	runtime.GC()
	runtime.ReadMemStats(&before)
	err := Read(in, "huge.jsonl", Options{MaxDocBytes: 1 << 20}, func(d Doc) error {
		d.Raw = nil
		docs = append(docs, d)
		return nil
	}, func(rj Reject) error {
		rjs = append(rjs, rj)
		return nil
	})
	runtime.ReadMemStats(&after)
	if err != nil {
		t.Fatal(err)
	}
	if alloc := after.TotalAlloc - before.TotalAlloc; alloc > 8<<20 {
		t.Errorf("allocated %d MiB reading a 50 MiB line with a 1 MiB limit, want < 8 MiB", alloc>>20)
	}
	size := len(prefix) + big + 2
	if len(rjs) != 1 || rjs[0].Reason != ReasonTooLarge || rjs[0].Line != 1 ||
		!strings.Contains(rjs[0].Detail, fmt.Sprintf("huge.jsonl:1: line is %d bytes", size)) ||
		!strings.HasPrefix(rjs[0].Sample, prefix+"aaa") || len(rjs[0].Sample) != SampleBytes {
		t.Errorf("rejects = %+v, want one too_large at line 1 with a %d-byte sample", rjs, SampleBytes)
	}
	if len(docs) != 1 || docs[0].ID != "after" || docs[0].Index != 1 || docs[0].Offset != int64(size+1) {
		t.Errorf("docs = %+v, want doc \"after\" at index 1, offset %d", docs, size+1)
	}
}

// TestHugeTextBoundedMemory checks that a Text file over the limit is read
// only up to the limit.
func TestHugeTextBoundedMemory(t *testing.T) {
	src := &endlessReader{n: 50 << 20, c: 'a'}
	var rjs []Reject
	err := Read(src, "huge.txt", Options{Format: Text, MaxDocBytes: 1 << 20}, func(Doc) error {
		t.Error("unexpected doc")
		return nil
	}, func(rj Reject) error {
		rjs = append(rjs, rj)
		return nil
	})
	if err != nil || len(rjs) != 1 || rjs[0].Reason != ReasonTooLarge {
		t.Fatalf("Read = %v, rejects %+v; want one too_large", err, rjs)
	}
	if read := 50<<20 - src.n; read > 1<<20+readBufSize {
		t.Errorf("read %d bytes of a 50 MiB file with a 1 MiB limit", read)
	}
}

// badFiles lists the files of testdata/bad with the options to read them and
// the expected count of docs ("doc") and of rejects by reason. Keep in sync
// with testdata/bad/README.md.
var badFiles = []struct {
	name string
	opt  Options
	want map[string]int
}{
	{"bad.jsonl", Options{}, map[string]int{"doc": 4, ReasonBadJSON: 3, ReasonMissingID: 2, ReasonIDNotString: 4,
		ReasonMissingText: 1, ReasonTextNotString: 2, ReasonEmptyText: 2, ReasonInvalidUTF8: 1}},
	{"bad.jsonl", Options{MaxDocBytes: 1024}, map[string]int{"doc": 3, ReasonBadJSON: 3, ReasonMissingID: 2,
		ReasonIDNotString: 4, ReasonMissingText: 1, ReasonTextNotString: 2, ReasonEmptyText: 2, ReasonInvalidUTF8: 1,
		ReasonTooLarge: 1}},
	{"bad.tsv", Options{Format: TSV}, map[string]int{"doc": 3, ReasonTooFewColumns: 2, ReasonMissingID: 1,
		ReasonEmptyText: 1, ReasonInvalidUTF8: 1}},
	{"invalid_utf8.jsonl", Options{}, map[string]int{"doc": 2, ReasonInvalidUTF8: 6}},
	{"truncated.jsonl.gz", Options{}, map[string]int{"doc": 8, ReasonCorruptGzip: 1}},
	{"good.jsonl.gz", Options{}, map[string]int{"doc": 6}},
	{"empty.txt", Options{Format: Text}, map[string]int{ReasonEmptyText: 1}},
	{"doc1.txt", Options{Format: Text}, map[string]int{"doc": 1}},
}

// TestBadFiles reads each file of testdata/bad and checks the counts by
// reason that the pipeline tests rely on.
func TestBadFiles(t *testing.T) {
	for _, bf := range badFiles {
		t.Run(fmt.Sprintf("%s/max=%d", bf.name, bf.opt.MaxDocBytes), func(t *testing.T) {
			path := filepath.Join("..", "..", "..", "testdata", "bad", bf.name)
			in, err := os.ReadFile(path)
			if err != nil {
				t.Fatal(err)
			}
			if len(in) > 10<<10 {
				t.Errorf("%s is %d bytes, keep test files under 10 KB", path, len(in))
			}
			res := run(t, in, bf.name, bf.opt)
			got := map[string]int{}
			if len(res.docs) > 0 {
				got["doc"] = len(res.docs)
			}
			for _, rj := range res.rejects {
				got[rj.Reason]++
			}
			if fmt.Sprint(got) != fmt.Sprint(bf.want) {
				t.Errorf("counts = %v, want %v\nevents: %s", got, bf.want, strings.Join(res.events, "\n  "))
			}
			checkInvariants(t, in, bf.name, bf.opt, res)
		})
	}
}

// fuzzRead is the property shared by the fuzz targets: Read never panics or
// fails, every physical line is exactly one doc, reject or blank line, and
// each line's outcome matches the encoding/json / strings oracle.
func fuzzRead(t *testing.T, data []byte, limit uint8, format Format) {
	opt := Options{Format: format}
	if limit < 255 {
		opt.MaxDocBytes = int(limit) + 1 // small limits exercise too_large
	}
	file := "fuzz." + format.String()
	res := run(t, data, file, opt)
	if Sniff(data) != None {
		// Read takes data that starts with a gzip or zstd magic number for
		// compressed (Sniff), whatever the file's name; the physical lines
		// and the oracle here are those of plain data. Read must still
		// neither fail nor panic (run checks it); compressed data is
		// checked by the decompression tests.
		return
	}
	checkInvariants(t, data, file, opt, res)
	if want := oracleEvents(data, false, opt); !equal(res.events, want) {
		t.Errorf("events:\n got %s\nwant %s (oracle)", strings.Join(res.events, "\n     "), strings.Join(want, "\n     "))
	}
}

func FuzzReadJSONL(f *testing.F) {
	for _, tc := range readCases(f) {
		if tc.opt.Format == JSONL && !IsGzip(tc.file) && tc.opt.IDField == "" {
			f.Add(tc.in, uint8(255))
			f.Add(tc.in, uint8(30))
		}
	}
	f.Add([]byte(`{"id":"a","text":"\u00e9\\\"x","k":{"a":[1,"]}"]}}`+"\n"), uint8(255))
	f.Add([]byte(`{"id":-1.5e-3,"text":"t"} `+"\r\n\r\n"+`{"text":"t","id":"\ud83d\ude00"}`), uint8(255))
	f.Add([]byte(`{"id\\":"a\\","text":"\\\"","id":"b"}`+"\n"+`{"\u0069d":"x","t\"":"\\","text":"y"}`), uint8(255))
	f.Fuzz(func(t *testing.T, data []byte, limit uint8) {
		fuzzRead(t, data, limit, JSONL)
	})
}

func FuzzReadTSV(f *testing.F) {
	for _, tc := range readCases(f) {
		if tc.opt.Format == TSV {
			f.Add(tc.in, uint8(255))
			f.Add(tc.in, uint8(20))
		}
	}
	f.Add([]byte("\xEF\xBB\xBFu\tt\tc\r\n\t\t\n \tx\ty\nu\t\xff\t\n"), uint8(255))
	f.Fuzz(func(t *testing.T, data []byte, limit uint8) {
		fuzzRead(t, data, limit, TSV)
	})
}

// benchData returns up to the first 5 MB of the dev corpus, cut at a line
// end, or skips the benchmark.
func benchData(b *testing.B) []byte {
	f, err := os.Open("/work/shared/corpus/dev.jsonl")
	if err != nil {
		b.Skipf("dev corpus not available: %v", err)
	}
	defer f.Close()
	buf := make([]byte, 5<<20)
	n, err := io.ReadFull(f, buf)
	if err != nil && err != io.ErrUnexpectedEOF {
		b.Fatal(err)
	}
	buf = buf[:n]
	return buf[:bytes.LastIndexByte(buf, '\n')+1]
}

func BenchmarkReadJSONL(b *testing.B) {
	data := benchData(b)
	b.SetBytes(int64(len(data)))
	b.ReportAllocs()
	for b.Loop() {
		n := 0
		err := Read(bytes.NewReader(data), "dev.jsonl", Options{}, func(Doc) error { n++; return nil },
			func(rj Reject) error { return fmt.Errorf("unexpected reject %+v", rj) })
		if err != nil || n == 0 {
			b.Fatalf("Read = %v after %d docs", err, n)
		}
	}
}

func BenchmarkReadJSONLGzip(b *testing.B) {
	data := benchData(b)
	gz := gzipMembers(b, gzip.DefaultCompression, string(data))
	b.SetBytes(int64(len(data)))
	b.ReportAllocs()
	for b.Loop() {
		r, _ := Decompress("dev.jsonl.gz", bytes.NewReader(gz))
		err := Read(r, "dev.jsonl.gz", Options{}, func(Doc) error { return nil },
			func(rj Reject) error { return fmt.Errorf("unexpected reject %+v", rj) })
		if err != nil {
			b.Fatal(err)
		}
	}
}
