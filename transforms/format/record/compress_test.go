package record

import (
	"bytes"
	stdgzip "compress/gzip"
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

	kgzip "github.com/klauspost/compress/gzip"
	"github.com/klauspost/compress/zstd"
	"github.com/klauspost/pgzip"
)

// compressed returns data compressed with c by NewWriter.
func compressed(t testing.TB, c Compression, data string) []byte {
	t.Helper()
	var buf bytes.Buffer
	w, err := NewWriter(&buf, c)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := io.WriteString(w, data); err != nil {
		t.Fatal(err)
	}
	if err := w.Close(); err != nil {
		t.Fatal(err)
	}
	return buf.Bytes()
}

func TestCompressionNames(t *testing.T) {
	for _, tt := range []struct {
		name string
		want Compression
	}{
		{"a.jsonl", Unknown}, {"a.jsonl.gz", Gzip}, {"A.JSONL.GZ", Gzip}, {"a.jsonl.zst", Zstd},
		{"a.zstd", Zstd}, {"a.ZST", Zstd}, {"a.gzip", Unknown}, {"gz", Unknown}, {"dir.gz/a.jsonl", Unknown},
	} {
		if got := ByName(tt.name); got != tt.want {
			t.Errorf("ByName(%q) = %v, want %v", tt.name, got, tt.want)
		}
	}
	for _, c := range []Compression{None, Gzip, Zstd} {
		if got, err := ParseCompression(strings.ToUpper(c.String())); err != nil || got != c {
			t.Errorf("ParseCompression(%q) = %v, %v", c, got, err)
		}
	}
	if _, err := ParseCompression("lz4"); err == nil || !strings.Contains(err.Error(), "want none, gzip or zstd") {
		t.Errorf("ParseCompression(lz4) = %v", err)
	}
}

// TestDetect reads good and damaged streams under several names: the
// compression is found by name, else by content, and damage is reported
// with the reason of the compression found, saying when the content, not
// the name, told it.
func TestDetect(t *testing.T) {
	const data = `{"id":"a","text":"one"}` + "\n" + `{"id":"b","text":"two"}` + "\n"
	gz, zs := compressed(t, Gzip, data), compressed(t, Zstd, data)
	cut := func(b []byte) []byte { return b[:len(b)-6] }
	flip := func(b []byte) []byte {
		b = bytes.Clone(b)
		b[len(b)/2] ^= 0xFF
		return b
	}
	for _, tt := range []struct {
		name, file string
		in         []byte
		want       Compression
		docs       int    // -1: any number (a truncated stream yields what it can)
		reason     string // the final reject's, "" for none
		detail     string // in its detail
	}{
		{"plain", "x.jsonl", []byte(data), None, 2, "", ""},
		{"empty", "x.jsonl", nil, None, 0, "", ""},
		{"gzip by name", "x.jsonl.gz", gz, Gzip, 2, "", ""},
		{"zstd by name", "x.jsonl.zst", zs, Zstd, 2, "", ""},
		{"zstd by .zstd", "x.zstd", zs, Zstd, 2, "", ""},
		{"gzip by content", "x.jsonl", gz, Gzip, 2, "", ""},
		{"zstd by content", "x.jsonl", zs, Zstd, 2, "", ""},
		{"two zstd frames", "x.jsonl.zst", append(bytes.Clone(zs), zs...), Zstd, 4, "", ""},
		{"truncated zstd", "x.jsonl.zst", cut(zs), Zstd, 0, ReasonCorruptZstd, "corrupt zstd stream"},
		{"damaged zstd", "x.jsonl.zst", flip(zs), Zstd, 0, ReasonCorruptZstd, "corrupt zstd stream"},
		{"empty zstd", "x.jsonl.zst", nil, Zstd, 0, ReasonCorruptZstd, "corrupt zstd stream"},
		{"plain named zst", "x.jsonl.zst", []byte(data), Zstd, 0, ReasonCorruptZstd, "corrupt zstd stream"},
		{"zstd named gz", "x.jsonl.gz", zs, Gzip, 0, ReasonCorruptGzip, "corrupt gzip stream"},
		{"truncated gzip misnamed", "x.jsonl", cut(gz), Gzip, -1, ReasonCorruptGzip, "gzip data in a file named x.jsonl"},
		{"damaged zstd misnamed", "x.jsonl", flip(zs), Zstd, 0, ReasonCorruptZstd, "zstd data in a file named x.jsonl"},
		{"gzip magic only", "x.jsonl", []byte{0x1F, 0x8B}, Gzip, 0, ReasonCorruptGzip, "gzip data in a file named x.jsonl: truncated"},
		// After the last member or frame, as `gzip -t`: zero padding is the
		// end, other bytes one trailing_garbage reject after the records.
		{"gzip zero padding", "x.jsonl.gz", pad(gz, 0, 4096), Gzip, 2, "", ""},
		{"gzip zero padding by content", "x.jsonl", pad(gz, 0, 3), Gzip, 2, "", ""},
		{"gzip trailing garbage", "x.jsonl.gz", pad(gz, 'x', 1), Gzip, 2, ReasonTrailingGarbage, fmt.Sprintf("after the last gzip member of x.jsonl.gz: the bytes from offset %d are neither a gzip member nor zero padding", len(gz))},
		{"gzip trailing garbage by content", "x.jsonl", pad(gz, 7, 100), Gzip, 2, ReasonTrailingGarbage, "neither a gzip member nor zero padding; the 48 bytes of data before them are all read"},
		{"zstd zero padding", "x.jsonl.zst", pad(zs, 0, 4096), Zstd, 2, "", ""},
		{"zstd frames, zero padding", "x.jsonl.zst", pad(append(bytes.Clone(zs), zs...), 0, 4), Zstd, 4, "", ""},
		{"zstd zero padding by content", "x.jsonl", pad(zs, 0, 512), Zstd, 2, "", ""},
		{"zstd trailing garbage", "x.jsonl.zst", pad(zs, 'x', 4), Zstd, 2, ReasonTrailingGarbage, fmt.Sprintf("after the last zstd frame of x.jsonl.zst: the bytes from offset %d are neither a zstd frame nor zero padding", len(zs))},
		{"zstd zero padding, then garbage", "x.jsonl.zst", append(pad(zs, 0, 9000), 1), Zstd, 2, ReasonTrailingGarbage, "neither a zstd frame nor zero padding"},
		// Fewer than 4 bytes, the size of a frame's magic number, are a
		// cut frame to the decoder, but not to neardup: see
		// TestZstdShortTrailer.
		{"zstd 3 zero bytes", "x.jsonl.zst", pad(zs, 0, 3), Zstd, 2, "", ""},
	} {
		t.Run(tt.name, func(t *testing.T) {
			r := NewReader(tt.file, bytes.NewReader(tt.in), Unknown)
			var docs int
			var last *Reject
			err := Read(r, tt.file, Options{}, func(Doc) error { docs++; return nil },
				func(rj Reject) error { last = &rj; return nil })
			if err != nil {
				t.Fatal(err)
			}
			if tt.in != nil || tt.want != None { // an empty plain stream is never read
				if got := r.Compression(); got != tt.want {
					t.Errorf("Compression() = %v, want %v", got, tt.want)
				}
			}
			if tt.docs >= 0 && docs != tt.docs {
				t.Errorf("%d docs, want %d", docs, tt.docs)
			}
			switch {
			case tt.reason == "" && last != nil:
				t.Errorf("unexpected reject %+v", *last)
			case tt.reason != "" && last == nil:
				t.Errorf("no reject, want %s", tt.reason)
			case tt.reason != "" && (last.Reason != tt.reason || !strings.Contains(last.Detail, tt.detail)):
				t.Errorf("reject %s %q, want %s with %q", last.Reason, last.Detail, tt.reason, tt.detail)
			}
		})
	}
}

// pad returns b followed by n bytes c.
func pad(b []byte, c byte, n int) []byte {
	return append(bytes.Clone(b), bytes.Repeat([]byte{c}, n)...)
}

// TestTrailingGarbageText: a text file's document is read whole before
// trailing garbage, which is one more reject of the file.
func TestTrailingGarbageText(t *testing.T) {
	const doc = "one document\n"
	for _, tt := range []struct {
		name string
		in   []byte
		want []string
	}{
		{"gzip", compressed(t, Gzip, doc), []string{"doc"}},
		{"gzip zero padding", pad(compressed(t, Gzip, doc), 0, 10), []string{"doc"}},
		{"gzip garbage", pad(compressed(t, Gzip, doc), 'x', 10), []string{"doc", "reject " + ReasonTrailingGarbage}},
		{"zstd garbage", pad(compressed(t, Zstd, doc), 'x', 10), []string{"doc", "reject " + ReasonTrailingGarbage}},
	} {
		t.Run(tt.name, func(t *testing.T) {
			var got []string
			err := Read(NewReader("x.txt", bytes.NewReader(tt.in), Unknown), "x.txt", Options{Format: Text},
				func(d Doc) error {
					if d.Text != doc {
						t.Errorf("text %q, want %q", d.Text, doc)
					}
					got = append(got, "doc")
					return nil
				},
				func(rj Reject) error {
					if rj.Line != 0 || IsRecord(rj.Reason) {
						t.Errorf("reject %+v: want line 0 and no record", rj)
					}
					got = append(got, "reject "+rj.Reason)
					return nil
				})
			if err != nil || !slices.Equal(got, tt.want) {
				t.Errorf("got %q, %v; want %q", got, err, tt.want)
			}
		})
	}
}

// TestNewReaderForced: a given compression is not second-guessed by the
// content (a spool copy holds decompressed bytes, whatever they are).
func TestNewReaderForced(t *testing.T) {
	gz := compressed(t, Gzip, "x\n")
	got, err := io.ReadAll(NewReader("input-00001", bytes.NewReader(gz), None))
	if err != nil || !bytes.Equal(got, gz) {
		t.Errorf("read %q, %v; want the bytes as they are", got, err)
	}
}

// TestSourceError: a failure of the source is a read error, not damage.
func TestSourceError(t *testing.T) {
	boom := errors.New("boom")
	for _, file := range []string{"x.jsonl", "x.jsonl.zst", "x.jsonl.gz"} {
		_, err := io.ReadAll(NewReader(file, &failingReader{data: compressed(t, Zstd, "abc\n")[:3], err: boom}, Unknown))
		if !errors.Is(err, boom) || errors.Is(err, ErrCorruptZstd) || errors.Is(err, ErrCorruptGzip) {
			t.Errorf("%s: %v, want boom and no corruption", file, err)
		}
	}
}

// TestWriterDeterministic: NewWriter's output decompresses to its input
// and is the same bytes every time; the zstd frame is one any decoder
// reads.
func TestWriterDeterministic(t *testing.T) {
	data := strings.Repeat(`{"id":"a","text":"some text to compress"}`+"\n", 2000)
	for _, c := range []Compression{None, Gzip, Zstd} {
		a, b := compressed(t, c, data), compressed(t, c, data)
		if !bytes.Equal(a, b) {
			t.Errorf("%v: two compressions of the same data differ", c)
		}
		if c != None && len(a) >= len(data)/10 {
			t.Errorf("%v: %d bytes for %d, not compressed", c, len(a), len(data))
		}
		got, err := io.ReadAll(NewReader("out"+c.Ext(), bytes.NewReader(a), Unknown))
		if err != nil || string(got) != data {
			t.Errorf("%v: round trip gave %d bytes, %v", c, len(got), err)
		}
	}
	dec, _ := zstd.NewReader(nil)
	defer dec.Close()
	if got, err := dec.DecodeAll(compressed(t, Zstd, data), nil); err != nil || string(got) != data {
		t.Errorf("zstd DecodeAll: %d bytes, %v", len(got), err)
	}
}

// compressedLevel returns data compressed with c at level by
// NewWriterLevel, written in pieces of at most piece bytes (0: at once).
func compressedLevel(t testing.TB, c Compression, level Level, data string, piece int) []byte {
	t.Helper()
	var buf bytes.Buffer
	w, err := NewWriterLevel(&buf, c, level)
	if err != nil {
		t.Fatal(err)
	}
	for rest := data; len(rest) > 0; {
		n := len(rest)
		if piece > 0 {
			n = min(n, piece)
		}
		if _, err := io.WriteString(w, rest[:n]); err != nil {
			t.Fatal(err)
		}
		rest = rest[n:]
	}
	if err := w.Close(); err != nil {
		t.Fatal(err)
	}
	return buf.Bytes()
}

// TestGzipWriterBlocks: at every level, a gzip output of several blocks is
// the same bytes whatever the number of cores compressing it and however
// the data is split into writes, any gzip reader reads it back, and it is
// within 1% of the size a serial gzip of the same library at the same
// level gives (0.04% more on a SCALE shard at level 6).
func TestGzipWriterBlocks(t *testing.T) {
	var sb strings.Builder
	for i := 0; sb.Len() < 3*gzipBlock+12345; i++ {
		fmt.Fprintf(&sb, `{"id":"d%d","text":"document %d of a test corpus, %x, with some words repeated"}`+"\n", i, i*7919, i*i)
	}
	data := sb.String()
	defer runtime.GOMAXPROCS(runtime.GOMAXPROCS(0))
	for _, level := range []Level{LevelFast, LevelDefault, LevelBest, 3} {
		flateLevel, _ := level.gzipLevel()
		var outs [][]byte
		for _, run := range []struct{ procs, piece int }{{1, 0}, {2, 0}, {8, 0}, {2, 4093}, {1, 70001}} {
			runtime.GOMAXPROCS(run.procs)
			outs = append(outs, compressedLevel(t, Gzip, level, data, run.piece))
		}
		for i, out := range outs[1:] {
			if !bytes.Equal(out, outs[0]) {
				t.Errorf("level %v: gzip output of run %d differs from the first (1 core, one write)", level, i+1)
			}
		}
		zr, err := stdgzip.NewReader(bytes.NewReader(outs[0]))
		if err != nil {
			t.Fatal(err)
		}
		got, err := io.ReadAll(zr)
		if err != nil || string(got) != data {
			t.Fatalf("level %v: compress/gzip read back %d of %d bytes: %v", level, len(got), len(data), err)
		}
		var serial bytes.Buffer
		zw, _ := kgzip.NewWriterLevel(&serial, flateLevel)
		zw.Write([]byte(data))
		zw.Close()
		if n, s := len(outs[0]), serial.Len(); float64(n) > 1.01*float64(s) {
			t.Errorf("level %v: %d bytes in blocks, against %d serially", level, n, s)
		}
	}
}

// TestLevels: the levels by name and number, which compressions take
// them, and that a higher level gives a smaller file and the same data.
func TestLevels(t *testing.T) {
	for _, tt := range []struct {
		in        string
		want      Level
		gzip, bad bool
	}{
		{"fast", LevelFast, true, false},
		{" Default ", LevelDefault, true, false},
		{"BEST", LevelBest, true, false},
		{"1", 1, true, false},
		{"9", 9, true, false},
		{"19", 19, false, false},
		{"22", 22, false, false},
		{"0", 0, false, true},
		{"23", 0, false, true},
		{"-1", 0, false, true},
		{"quick", 0, false, true},
		{"", 0, false, true},
	} {
		got, err := ParseLevel(tt.in)
		if (err != nil) != tt.bad || !tt.bad && got != tt.want {
			t.Errorf("ParseLevel(%q) = %v, %v; want %v, error %v", tt.in, got, err, tt.want, tt.bad)
			continue
		}
		if tt.bad {
			continue
		}
		if back, err := ParseLevel(got.String()); err != nil || back != got {
			t.Errorf("ParseLevel(%q.String() = %q) = %v, %v", tt.in, got.String(), back, err)
		}
		if err := got.Check(Gzip); (err == nil) != tt.gzip {
			t.Errorf("level %v: Check(Gzip) = %v", got, err)
		}
		if err := got.Check(Zstd); err != nil {
			t.Errorf("level %v: Check(Zstd) = %v", got, err)
		}
		if _, err := NewWriterLevel(io.Discard, Gzip, got); (err == nil) != tt.gzip {
			t.Errorf("level %v: NewWriterLevel(Gzip) error %v", got, err)
		}
	}
	data := strings.Repeat(`{"id":"a","text":"some text to compress, and more text, 1234"}`+"\n", 3000)
	for _, c := range []Compression{Gzip, Zstd} {
		fast, best := compressedLevel(t, c, LevelFast, data, 0), compressedLevel(t, c, LevelBest, data, 0)
		for _, out := range [][]byte{fast, best} {
			if got, err := io.ReadAll(NewReader("out"+c.Ext(), bytes.NewReader(out), Unknown)); err != nil || string(got) != data {
				t.Errorf("%v: round trip gave %d bytes, %v", c, len(got), err)
			}
		}
		if len(best) > len(fast) {
			t.Errorf("%v: best level %d bytes, more than fast's %d", c, len(best), len(fast))
		}
		if !bytes.Equal(compressed(t, c, data), fast) {
			t.Errorf("%v: NewWriter is not NewWriterLevel at LevelFast", c)
		}
	}
}

// TestDottedPaths: nested fields by dotted path, a literal top-level key
// winning over the path.
func TestDottedPaths(t *testing.T) {
	opt := Options{IDField: "meta.url", TextField: "content.text"}
	for _, tt := range []struct {
		name, in, want string
	}{
		{"nested", `{"meta":{"url":"u1","x":[{"url":"no"}]},"content":{"text":"t"}}`, `1 doc u1 "t"`},
		{"literal key wins", `{"meta":{"url":"deep"},"meta.url":"flat","content.text":"x","content":{"text":"y"}}`, `1 doc flat "x"`},
		{"literal key after", `{"meta.url":"flat","meta":{"url":"deep"},"content":{"text":"y"}}`, `1 doc flat "y"`},
		{"number id", `{"meta":{"url":17},"content":{"text":"t"}}`, `1 doc 17 "t"`},
		{"repeated parent, last wins", `{"meta":{"url":"a"},"meta":{"other":1},"content":{"text":"t"}}`, `1 reject missing_id`},
		{"not an object", `{"meta":"u","content":{"text":"t"}}`, `1 reject missing_id`},
		{"in an array", `{"meta":[{"url":"u"}],"content":{"text":"t"}}`, `1 reject missing_id`},
		{"too deep", `{"meta":{"x":{"url":"u"}},"content":{"text":"t"}}`, `1 reject missing_id`},
		{"sibling object first", `{"x":{"url":"no"},"meta":{"url":"u"},"content":{"text":"t"}}`, `1 doc u "t"`},
		{"empty objects around", `{"meta":{},"meta":{"a":{},"url":"u","b":{}},"content":{"text":"t"}}`, `1 doc u "t"`},
		{"text not string", `{"meta":{"url":"u"},"content":{"text":{"a":1}}}`, `1 reject text_not_string`},
		{"escaped key", `{"m\u0065ta":{"ur\u006c":"u"},"content":{"text":"t"}}`, `1 doc u "t"`},
	} {
		t.Run(tt.name, func(t *testing.T) {
			res := run(t, []byte(tt.in+"\n"), "x.jsonl", opt)
			if len(res.events) != 1 || res.events[0] != tt.want {
				t.Errorf("events %q, want %q", res.events, tt.want)
			}
		})
	}
	// Three levels, and allocation-free scanning.
	f := newJSONFields("a.b.c", "text", "")
	line := []byte(`{"a":{"b":{"c":"deep","d":1},"e":2},"text":"t"}`)
	if id, text, ok := f.scan(line); !ok || string(id) != `"deep"` || string(text) != `"t"` {
		t.Errorf("scan = %s, %s, %v", id, text, ok)
	}
	if n := testing.AllocsPerRun(100, func() { f.scan(line) }); n != 0 {
		t.Errorf("scan allocates %v times", n)
	}
}

// FuzzScanPaths checks dotted-path lookup against encoding/json on any
// input: the value of the top-level key "a.b" if there is one, else of key
// "b" of the object at top-level key "a".
func FuzzScanPaths(f *testing.F) {
	for _, s := range []string{`{"a":{"b":1},"t":"x"}`, `{"a.b":2,"a":{"b":1}}`, `{"a":{"b":1},"a":{"c":1}}`,
		`{"a":[{"b":1}],"x":{"a":{"b":3}}}`, `{"a":{"a":{"b":4}}}`, `{"a":{},"a":{"b":{}}}`} {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, b []byte) {
		fs := newJSONFields("a.b", "t", "")
		id, _, ok := fs.scan(b)
		var m map[string]json.RawMessage
		if !ok || json.Unmarshal(b, &m) != nil || m == nil {
			return
		}
		want, found := m["a.b"]
		if !found {
			var inner map[string]json.RawMessage
			if a, ok := m["a"]; ok && json.Unmarshal(a, &inner) == nil && inner != nil {
				want, found = inner["b"]
			}
		}
		if found != (id != nil) || found && !bytes.Equal(id, want) {
			t.Fatalf("scan(%q) = %q, want %q (found %v)", b, id, want, found)
		}
	})
}

// TestLineIDs: files without an ID field get FILE:LINE IDs, decided once
// per file by its first parsable record, in every pass alike.
func TestLineIDs(t *testing.T) {
	const noIDs = "\n" + `not json` + "\n" + `{"text":"one"}` + "\n" + `{"id":"x","text":"two"}` + "\n" + `{"text":""}` + "\n"
	const withIDs = `{"id":"a","text":"one"}` + "\n" + `{"text":"two"}` + "\n"
	for _, tt := range []struct {
		name string
		in   string
		ids  IDSource
		only func(int64) bool
		want []string
		line bool // OnLineIDs called
	}{
		{"field, no ids", noIDs, IDFromField, nil,
			[]string{"2 reject bad_json", "3 reject missing_id", `4 doc x "two"`, "5 reject missing_id"}, false},
		{"auto, no ids", noIDs, IDAuto, nil,
			[]string{"2 reject bad_json", `3 doc d/f.jsonl:3 "one"`, `4 doc d/f.jsonl:4 "two"`, "5 reject empty_text"}, true},
		{"auto, no ids, first record not selected", noIDs, IDAuto, func(i int64) bool { return i == 3 },
			[]string{`4 doc d/f.jsonl:4 "two"`}, true},
		{"auto, ids", withIDs, IDAuto, nil, []string{`1 doc a "one"`, "2 reject missing_id"}, false},
		{"auto, ids, first record not selected", withIDs, IDAuto, func(i int64) bool { return i == 1 },
			[]string{"2 reject missing_id"}, false},
		{"line", withIDs, IDFromLine, nil, []string{`1 doc d/f.jsonl:1 "one"`, `2 doc d/f.jsonl:2 "two"`}, true},
	} {
		t.Run(tt.name, func(t *testing.T) {
			line := false
			res := run(t, []byte(tt.in), "d/f.jsonl", Options{IDs: tt.ids, Only: tt.only, OnLineIDs: func() { line = true }})
			if strings.Join(res.events, "\n") != strings.Join(tt.want, "\n") {
				t.Errorf("events\n%s\nwant\n%s", strings.Join(res.events, "\n"), strings.Join(tt.want, "\n"))
			}
			if line != tt.line {
				t.Errorf("OnLineIDs called: %v, want %v", line, tt.line)
			}
		})
	}
}

func BenchmarkReadJSONLZstd(b *testing.B) {
	data := benchData(b)
	zs := compressed(b, Zstd, string(data))
	b.SetBytes(int64(len(data)))
	b.ReportAllocs()
	for b.Loop() {
		r, _ := Decompress("dev.jsonl.zst", bytes.NewReader(zs))
		err := Read(r, "dev.jsonl.zst", Options{}, func(Doc) error { return nil },
			func(rj Reject) error { return fmt.Errorf("unexpected reject %+v", rj) })
		if err != nil {
			b.Fatal(err)
		}
	}
}

// TestGzipWriterReuse: a gzip writer taken back from the pool after
// another output writes the same bytes as a new one, at each level; a
// closed writer refuses writes and a second Close does not give it out
// twice.
func TestGzipWriterReuse(t *testing.T) {
	fresh := func(data string, level int) []byte {
		var b bytes.Buffer
		zw, err := pgzip.NewWriterLevel(&b, level)
		if err != nil {
			t.Fatal(err)
		}
		zw.SetConcurrency(gzipBlock, max(2, runtime.GOMAXPROCS(0)))
		zw.Write([]byte(data))
		zw.Close()
		return b.Bytes()
	}
	a := strings.Repeat("first output, a few blocks long. ", 100_000)
	b := strings.Repeat("the second one differs: ", 70_000)
	for _, level := range []Level{LevelFast, LevelDefault, 4} {
		n, _ := level.gzipLevel()
		for i, data := range []string{a, b, a, ""} {
			if got := compressedLevel(t, Gzip, level, data, 0); !bytes.Equal(got, fresh(data, n)) {
				t.Errorf("level %v, output %d: %d bytes, differs from a new writer's %d", level, i, len(got), len(fresh(data, n)))
			}
		}
	}
	var buf bytes.Buffer
	w, err := NewWriter(&buf, Gzip)
	if err != nil {
		t.Fatal(err)
	}
	if err := w.Close(); err != nil {
		t.Fatal(err)
	}
	if _, err := w.Write([]byte("x")); err == nil {
		t.Error("write after Close: no error")
	}
	w.Close() // a second Close must not pool the writer again
	w1, _ := NewWriter(io.Discard, Gzip)
	w2, _ := NewWriter(io.Discard, Gzip)
	if w1.(*pooledGzip).zw == w2.(*pooledGzip).zw {
		t.Error("one pooled writer handed out twice")
	}
	w1.Close()
	w2.Close()
}

// TestZstdShortTrailer (issue 32): 1 to 3 bytes after the last zstd
// frame, too few for a frame's magic number, are what 4 or more are, as
// for gzip: zero padding is the end, other bytes one trailing_garbage
// reject after the records, at the end of the last frame. A frame cut
// short stays corrupt_zstd, however it is framed.
func TestZstdShortTrailer(t *testing.T) {
	const data = `{"id":"a","text":"one"}` + "\n" + `{"id":"b","text":"two"}` + "\n"
	var long strings.Builder // several blocks, RLE ones too
	for i := range 20000 {
		fmt.Fprintf(&long, "{\"id\":\"%d\",\"text\":\"%s\"}\n", i, strings.Repeat("a", i%50+1))
	}
	zs := compressed(t, Zstd, data)
	big := compressed(t, Zstd, long.String())
	var noSum bytes.Buffer // no checksum, a skippable frame after it
	zw, err := zstd.NewWriter(&noSum, zstd.WithEncoderCRC(false), zstd.WithEncoderConcurrency(1))
	if err != nil {
		t.Fatal(err)
	}
	zw.Write([]byte(data))
	zw.Close()
	noSum.Write([]byte{0x5A, 0x2A, 0x4D, 0x18, 3, 0, 0, 0, 'a', 'b', 'c'})
	for _, tt := range []struct {
		name, file string
		in         []byte
		frames     int  // the whole frames' length
		docs       int  // the records read
		garbage    bool // a trailing_garbage reject, at the end of the frames
		corrupt    bool // a corrupt_zstd reject
	}{
		{"1 zero byte", "x.jsonl.zst", pad(zs, 0, 1), len(zs), 2, false, false},
		{"2 zero bytes", "x.jsonl.zst", pad(zs, 0, 2), len(zs), 2, false, false},
		{"3 zero bytes by content", "x.jsonl", pad(zs, 0, 3), len(zs), 2, false, false},
		{"1 byte", "x.jsonl.zst", pad(zs, 'x', 1), len(zs), 2, true, false},
		{"2 bytes", "x.jsonl.zst", pad(zs, 0xFD, 2), len(zs), 2, true, false},
		{"3 bytes by content", "x.jsonl", pad(zs, 1, 3), len(zs), 2, true, false},
		{"zero, then a byte", "x.jsonl.zst", append(pad(zs, 0, 1), 7), len(zs), 2, true, false},
		{"two frames, 2 bytes", "x.jsonl.zst", pad(append(bytes.Clone(zs), zs...), 'x', 2), 2 * len(zs), 4, true, false},
		{"blocks, 3 bytes", "x.jsonl.zst", pad(big, 'x', 3), len(big), 20000, true, false},
		{"no checksum, a skippable frame, 1 byte", "x.jsonl.zst", pad(noSum.Bytes(), 'x', 1), noSum.Len(), 2, true, false},
		{"no checksum, a skippable frame, 3 zero bytes", "x.jsonl.zst", pad(noSum.Bytes(), 0, 3), noSum.Len(), 2, false, false},
		{"cut by 1 byte", "x.jsonl.zst", zs[:len(zs)-1], 0, 0, false, true},
		{"cut by 3 bytes", "x.jsonl.zst", zs[:len(zs)-3], 0, 0, false, true},
		// 3 bytes of a magic number are no frame (as 1 of gzip's is no member).
		{"a magic number's 3 bytes", "x.jsonl.zst", append(bytes.Clone(zs), zs[:3]...), len(zs), 2, true, false},
		{"second frame cut to 5 bytes", "x.jsonl.zst", append(bytes.Clone(zs), zs[:5]...), len(zs), 2, false, true},
		{"blocks cut by 2 bytes", "x.jsonl.zst", big[:len(big)-2], 0, -1, false, true},
	} {
		t.Run(tt.name, func(t *testing.T) {
			var docs int
			var rejects []Reject
			err := Read(NewReader(tt.file, bytes.NewReader(tt.in), Unknown), tt.file, Options{},
				func(Doc) error { docs++; return nil }, func(rj Reject) error { rejects = append(rejects, rj); return nil })
			if err != nil {
				t.Fatal(err)
			}
			if tt.docs >= 0 && docs != tt.docs {
				t.Errorf("%d records, want %d", docs, tt.docs)
			}
			var want []string
			switch {
			case tt.garbage:
				want = []string{ReasonTrailingGarbage}
			case tt.corrupt:
				want = []string{ReasonCorruptZstd}
			}
			var got []string
			for _, rj := range rejects {
				got = append(got, rj.Reason)
			}
			if !slices.Equal(got, want) {
				t.Fatalf("rejects %v, want %v (%+v)", got, want, rejects)
			}
			if at := fmt.Sprintf("the bytes from offset %d are", tt.frames); tt.garbage && !strings.Contains(rejects[0].Detail, at) {
				t.Errorf("detail %q, want %q", rejects[0].Detail, at)
			}
		})
	}
}

// TestZstdLongWindow: a frame with the 2 GiB window of zstd --long=31
// (testdata/bad/long31.jsonl.zst, written by the zstd command from a pipe)
// is read; one whose header asks for 4 GiB, more than MaxZstdWindow, is
// corrupt_zstd.
func TestZstdLongWindow(t *testing.T) {
	in, err := os.ReadFile(filepath.Join("..", "..", "..", "testdata", "bad", "long31.jsonl.zst"))
	if err != nil {
		t.Fatal(err)
	}
	var h zstd.Header
	if err := h.Decode(in); err != nil || h.WindowSize != MaxZstdWindow || in[5] != 0xA8 {
		t.Fatalf("long31.jsonl.zst: window %d, descriptor %#x, %v; want %d, 0xa8", h.WindowSize, in[5], err, MaxZstdWindow)
	}
	if res := run(t, in, "long31.jsonl.zst", Options{}); len(res.docs) != 2 || len(res.rejects) != 0 {
		t.Errorf("a 2 GiB window: %d docs, rejects %v; want 2, none", len(res.docs), res.rejects)
	}
	larger := bytes.Clone(in)
	larger[5] = 0xB0 // a window of 1<<32
	res := run(t, larger, "long32.jsonl.zst", Options{})
	if len(res.docs) != 0 || len(res.rejects) != 1 || res.rejects[0].Reason != ReasonCorruptZstd {
		t.Errorf("a 4 GiB window: %d docs, rejects %v; want one corrupt_zstd", len(res.docs), res.rejects)
	}
}
