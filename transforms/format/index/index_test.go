package index

import (
	"bytes"
	"encoding/binary"
	"errors"
	"fmt"
	"hash/crc32"
	"reflect"
	"strings"
	"testing"

	"github.com/neardup/neardup/transforms/format/wire"
)

func sampleRecords(n int) []Record {
	var rs []Record
	for i := range n {
		r := Record{Line: int64(i * 3), ID: "doc-" + strings.Repeat("x", i%7), Len: int64(100 + i),
			Exact: uint64(i) * 0x9e3779b97f4a7c15, SimHash: ^uint64(i)}
		if i%5 != 4 { // every fifth without shingles: no sketch, no bands
			for j := range 16 {
				r.Sketch = append(r.Sketch, uint8(i+j))
			}
			for j := range 4 {
				r.Bands = append(r.Bands, uint64(i*1000+j))
			}
		}
		rs = append(rs, r)
	}
	return rs
}

// writeShard encodes records as one shard of source.
func writeShard(t *testing.T, source string, rs []Record) ([]byte, Shard) {
	t.Helper()
	var buf bytes.Buffer
	w := NewWriter(&buf, source)
	for i := range rs {
		if err := w.Add(&rs[i]); err != nil {
			t.Fatal(err)
		}
	}
	s, err := w.Close()
	if err != nil {
		t.Fatal(err)
	}
	s.Name, s.Source = ShardName(0), source
	return buf.Bytes(), s
}

// readShard decodes a whole shard and checks it against s.
func readShard(b []byte, s Shard) ([]Record, error) {
	rd, err := NewReader(bytes.NewReader(b), "test")
	if err != nil {
		return nil, err
	}
	var out []Record
	for {
		var r Record
		ok, err := rd.Next(&r)
		if err != nil {
			return out, err
		}
		if !ok {
			break
		}
		out = append(out, r)
	}
	return out, rd.Check(s)
}

func TestShardRoundTrip(t *testing.T) {
	for _, n := range []int{0, 1, 10, 20000} { // 20000 records span several blocks
		rs := sampleRecords(n)
		b, s := writeShard(t, "gs://bucket/in/part-1.jsonl.gz", rs)
		if s.Records != int64(n) || s.Bytes != int64(len(b)) {
			t.Fatalf("n=%d: shard says %d records, %d bytes; wrote %d bytes", n, s.Records, s.Bytes, len(b))
		}
		got, err := readShard(b, s)
		if err != nil {
			t.Fatalf("n=%d: %v", n, err)
		}
		for i := range rs { // decoded empty slices are non-nil
			if len(got[i].Sketch) == 0 {
				got[i].Sketch = nil
			}
			if len(got[i].Bands) == 0 {
				got[i].Bands = nil
			}
		}
		if n > 0 && !reflect.DeepEqual(got, rs) {
			t.Fatalf("n=%d: round trip differs", n)
		}
		if len(got) != n {
			t.Fatalf("n=%d: read %d records", n, len(got))
		}
	}
}

func TestShardDamage(t *testing.T) {
	good, s := writeShard(t, "/data/a.jsonl", sampleRecords(3000))
	mod := func(f func(b []byte) []byte) []byte { return f(append([]byte(nil), good...)) }
	headerLen := len(magic) + 4 + 1 + len("/data/a.jsonl") + 4
	dirLen := dirEntry*int(numBlocks(3000)+1) + footerLen // and the footer
	cases := []struct {
		name string
		b    []byte
		want error
		msg  string
	}{
		{"empty file", nil, ErrCorrupt, "truncated in the header"},
		{"not a shard", []byte("{\"id\":1}\n{\"id\":2}\n"), ErrCorrupt, "bad magic"},
		{"newer version", mod(func(b []byte) []byte { binary.LittleEndian.PutUint32(b[len(magic):], RankedShardVersion+1); return b }), ErrVersion, fmt.Sprintf("version %d", RankedShardVersion+1)},
		{"version 1", mod(func(b []byte) []byte { binary.LittleEndian.PutUint32(b[len(magic):], 1); return b }), ErrVersion, "unsupported version 1 (this neardup reads versions 2 to 7; rebuild the index with `neardup run --index-out`)"},
		{"header bit flip", mod(func(b []byte) []byte { b[len(magic)+6] ^= 1; return b }), ErrCorrupt, "header checksum"},
		{"payload bit flip", mod(func(b []byte) []byte { b[headerLen+20] ^= 0x10; return b }), ErrCorrupt, "block checksum"},
		{"truncated in a block", good[:len(good)/2], ErrCorrupt, "truncated in the block"},
		{"no trailer", good[:len(good)-16], ErrCorrupt, "truncated"},
		{"short trailer", good[:len(good)-dirLen-3], ErrCorrupt, "truncated in the trailer"},
		{"short directory", good[:len(good)-footerLen-3], ErrCorrupt, "truncated in the block directory"},
		{"no footer", good[:len(good)-footerLen], ErrCorrupt, "truncated in the footer"},
		{"footer bit flip", mod(func(b []byte) []byte { b[len(b)-1] ^= 8; return b }), ErrCorrupt, "footer checksum mismatch"},
		{"directory bit flip", mod(func(b []byte) []byte { b[len(b)-dirLen+13] ^= 4; return b }), ErrCorrupt, "block directory entry 1 is damaged"},
		{"trailing garbage", append(append([]byte(nil), good...), 'x'), ErrCorrupt, "data after the trailer"},
		{"huge block length", mod(func(b []byte) []byte { binary.LittleEndian.PutUint32(b[headerLen:], 1<<31); return b }), ErrCorrupt, "block of"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			_, err := readShard(c.b, s)
			if !errors.Is(err, c.want) || !strings.Contains(err.Error(), c.msg) {
				t.Fatalf("got %v, want %v containing %q", err, c.want, c.msg)
			}
		})
	}
	// A shard that reads cleanly but is not the one the manifest describes.
	other, _ := writeShard(t, "/data/a.jsonl", sampleRecords(2999))
	if _, err := readShard(other, s); !errors.Is(err, ErrCorrupt) || !strings.Contains(err.Error(), "the manifest says") {
		t.Fatalf("shard swapped: got %v", err)
	}
	// One of the same size and records, one id changed: its footer is its
	// own CRC-32C, not the manifest's.
	rs := sampleRecords(3000)
	rs[7].ID = strings.Replace(rs[7].ID, "doc", "DOC", 1)
	same, sameS := writeShard(t, "/data/a.jsonl", rs)
	if len(same) != len(good) || sameS.CRC32C == s.CRC32C {
		t.Fatalf("the shard of another id: %d bytes, CRC-32C %08x; want %d and not %08x", len(same), sameS.CRC32C, len(good), s.CRC32C)
	}
	if _, err := readShard(same, s); !errors.Is(err, ErrForeign) || !strings.Contains(err.Error(), fmt.Sprintf("its CRC-32C is %08x, the manifest's %08x", sameS.CRC32C, s.CRC32C)) {
		t.Fatalf("shard of the same size swapped: got %v, want ErrForeign naming both CRC-32C values", err)
	}
	// A shard of version 5 (no footer) reads; where the manifest says its
	// generation's files have footers, it is not the file listed.
	old, oldS := olderShard(good, s)
	if _, err := readShard(old, oldS); err != nil {
		t.Fatalf("version 5 shard: %v", err)
	}
	oldS.Footer = true
	if _, err := readShard(old, oldS); !errors.Is(err, ErrForeign) || !strings.Contains(err.Error(), "a shard of version 5, without the footer") {
		t.Fatalf("version 5 shard where one with a footer is listed: got %v", err)
	}
}

// olderShard returns the shard b of version 6 (described by s) as it was
// written in version 5, without its footer, and its description.
func olderShard(b []byte, s Shard) ([]byte, Shard) {
	b = bytes.Clone(b[:len(b)-footerLen])
	binary.LittleEndian.PutUint32(b[len(magic):], 5)
	n, k := binary.Uvarint(b[len(magic)+4:])
	h := len(magic) + 4 + k + int(n)
	binary.LittleEndian.PutUint32(b[h:], crc32.Checksum(b[:h], castagnoli))
	s.Bytes, s.CRC32C = int64(len(b)), crc32.Checksum(b, castagnoli)
	return b, s
}

func TestManifest(t *testing.T) {
	cfg := Config{Tokens: "char", Shingle: 5, Perms: 128, MinHash: "classic", Method: "both", Threshold: 0.8, Hamming: 3, Bands: 16, Rows: 8, SimBlocks: 5, Format: "jsonl", IDField: "id", TextField: "text"}
	m := NewManifest(cfg, []Generation{testGeneration(t, 3, 4)})
	b, err := m.Marshal()
	if err != nil {
		t.Fatal(err)
	}
	got, err := ParseManifest(b, "x/index.json")
	if err != nil || !reflect.DeepEqual(*got, m) || got.Documents != 7 {
		t.Fatalf("round trip: %v %+v", err, got)
	}
	cases := []struct {
		name, json string
		want       error
		msg        string
	}{
		{"not json", "PK\x03\x04", ErrCorrupt, "not a JSON manifest"},
		{"other format", `{"format":"parquet","version":1}`, ErrCorrupt, `format "parquet"`},
		{"no version", `{"format":"neardup-index"}`, ErrCorrupt, "no version field"},
		{"newer version", fmt.Sprintf(`{"format":"neardup-index","version":%d,"shards":"whatever"}`, Version+1), ErrVersion, fmt.Sprintf("version %d", Version+1)},
		// Version 1 measured a JSONL or TSV record by its line, not its text.
		{"version 1", `{"format":"neardup-index","version":1,"shards":[]}`, ErrVersion, "unsupported version 1 (this neardup reads versions 2 to 5; rebuild the index with `neardup run --index-out`)"},
		{"relative generation", strings.Replace(string(b), `"dir": ""`, `"dir": "day1"`, 1), ErrCorrupt, "neither absolute nor a URL"},
		{"bad generation count", strings.Replace(string(b), `"documents": 7,
      "partition_bits"`, `"documents": 6,
      "partition_bits"`, 1), ErrCorrupt, "its shards hold 7"},
		{"partition bits", strings.Replace(string(b), `"partition_bits": 0`, `"partition_bits": 17`, 1), ErrCorrupt, "partition bits 17"},
		{"unknown field", fmt.Sprintf(`{"format":"neardup-index","version":%d,"extra":1}`, Version), ErrCorrupt, "unknown field"},
		{"bad count", strings.Replace(string(b), `"documents": 7`, `"documents": 8`, 1), ErrCorrupt, "the shards hold 7"},
		{"bad shard name", strings.Replace(string(b), "index-00001.bin", "index-00002.bin", 1), ErrCorrupt, "is named"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			_, err := ParseManifest([]byte(c.json), "x/index.json")
			if !errors.Is(err, c.want) || !strings.Contains(err.Error(), c.msg) || !strings.Contains(err.Error(), "x/index.json") {
				t.Fatalf("got %v, want %v containing %q", err, c.want, c.msg)
			}
		})
	}
}

func TestConfigCheck(t *testing.T) {
	base := Config{Tokens: "char", Dictionary: "zh_s", Shingle: 5, Perms: 128, Method: "both", Threshold: 0.8, Bands: 16, Rows: 8, SimBlocks: 5}
	cases := []struct {
		name string
		edit func(*Config)
		want []string
	}{
		{"same", func(*Config) {}, nil},
		{"dictionary unused in char mode", func(c *Config) { c.Dictionary = "zh" }, nil},
		{"perms", func(c *Config) { c.Perms = 64 }, []string{"perms: index 128, now 64"}},
		{"two", func(c *Config) { c.Threshold, c.SimBlocks = 0.9, 6 }, []string{"threshold: index 0.8, now 0.9", "simhash_blocks: index 5, now 6"}},
		{"word mode dictionary", func(c *Config) { c.Tokens, c.Dictionary = "word", "zh" }, []string{"tokens: index char, now word", "dictionary: index zh_s, now zh"}},
		{"script folding", func(c *Config) { c.FoldScript = true }, []string{"fold_script: index false, now true"}},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			o := base
			c.edit(&o)
			if got := base.Diff(o); !reflect.DeepEqual(got, c.want) {
				t.Fatalf("Diff = %q, want %q", got, c.want)
			}
			err := base.Check(o)
			if (err != nil) != (c.want != nil) || (err != nil && !errors.Is(err, ErrMismatch)) {
				t.Fatalf("Check = %v", err)
			}
		})
	}
}

// FuzzReadShard: any bytes either read as a shard or fail with an error that
// wraps ErrCorrupt or ErrVersion; the reader never panics.
func FuzzReadShard(f *testing.F) {
	rs := sampleRecords(30)
	var buf bytes.Buffer
	w := NewWriter(&buf, "/data/part-0.jsonl")
	for i := range rs {
		if err := w.Add(&rs[i]); err != nil {
			f.Fatal(err)
		}
	}
	if _, err := w.Close(); err != nil {
		f.Fatal(err)
	}
	good := buf.Bytes()
	f.Add(good)
	f.Add(good[:len(good)/2])
	f.Add([]byte("NDUPIDX\n"))
	f.Fuzz(func(t *testing.T, b []byte) {
		rd, err := NewReader(bytes.NewReader(b), "fuzz")
		for err == nil {
			var r Record
			var ok bool
			if ok, err = rd.Next(&r); !ok {
				break
			}
		}
		if err != nil && !errors.Is(err, ErrCorrupt) && !errors.Is(err, ErrVersion) {
			t.Fatalf("error %v wraps neither ErrCorrupt nor ErrVersion", err)
		}
	})
}

// TestReaderEach: Each hands over every record in order, and an error of fn
// stops it and is returned.
func TestReaderEach(t *testing.T) {
	rs := sampleRecords(9)
	b, _ := writeShard(t, "src", rs)
	rd, err := NewReader(bytes.NewReader(b), "shard")
	if err != nil {
		t.Fatal(err)
	}
	var lines []int64
	if err := rd.Each(func(r *Record) error { lines = append(lines, r.Line); return nil }); err != nil {
		t.Fatal(err)
	}
	for i, l := range lines {
		if l != rs[i].Line {
			t.Fatalf("record %d has line %d, want %d", i, l, rs[i].Line)
		}
	}
	if len(lines) != len(rs) {
		t.Fatalf("%d records, want %d", len(lines), len(rs))
	}
	stop := errors.New("stop")
	rd, _ = NewReader(bytes.NewReader(b), "shard")
	n := 0
	if err := rd.Each(func(*Record) error { n++; return stop }); err != stop || n != 1 {
		t.Fatalf("Each returned %v after %d records, want %v after 1", err, n, stop)
	}
}

// TestRecordLayout pins a record's bytes (docs/INDEX_FORMAT.md): the line,
// the body of the document's wire.Info, the band keys, the shingle count
// and the containment keys.
func TestRecordLayout(t *testing.T) {
	r := &Record{Line: 300, ID: "ab", Len: 5, Exact: 6, SimHash: 7, Sketch: []uint8{9, 8}, Bands: []uint64{0x0102}, Shingles: 130,
		Contain: []uint64{0x0504030201, 7}}
	want := []byte{
		0xac, 0x02, // Line 300 as uvarint
		2, 'a', 'b', // ID
		5,                      // Len
		6, 0, 0, 0, 0, 0, 0, 0, // Exact
		7, 0, 0, 0, 0, 0, 0, 0, // SimHash
		2, 9, 8, // Sketch
		1, 0x02, 0x01, 0, 0, 0, 0, 0, 0, // Bands
		0x82, 0x01, // Shingles 130 as uvarint
		2, 1, 2, 3, 4, 5, 0, 0, 0, 7, 0, 0, 0, 0, 0, 0, 0, // Contain
	}
	got := AppendRecord(nil, r, true)
	if !bytes.Equal(got, want) {
		t.Fatalf("AppendRecord = % x, want % x", got, want)
	}
	var back Record
	rest, err := DecodeRecord(append(got, 0xff), &back)
	if err != nil || !reflect.DeepEqual(&back, r) || !bytes.Equal(rest, []byte{0xff}) {
		t.Errorf("DecodeRecord = %+v, rest % x, %v; want %+v, rest ff", back, rest, err, *r)
	}
	for n := range len(got) {
		if _, err := DecodeRecord(got[:n], &back); err == nil {
			t.Errorf("DecodeRecord of the first %d of %d bytes: no error", n, len(got))
		}
	}
	// A version 4 record is the same without the containment keys.
	v4 := AppendRecord(nil, r, false)
	if !bytes.Equal(v4, want[:len(want)-17]) {
		t.Fatalf("AppendRecord of version 4 = % x, want % x", v4, want[:len(want)-17])
	}
	rest, err = decodeRecord(append(v4, 0xff), &back, 4)
	if err != nil || len(back.Contain) != 0 || back.Shingles != 130 || !bytes.Equal(rest, []byte{0xff}) {
		t.Errorf("decodeRecord of version 4 = %+v, rest % x, %v", back, rest, err)
	}
	// A version 3 record is version 4's without the shingle count.
	v3 := v4[:len(v4)-2]
	rest, err = decodeRecord(append(v3, 0xff), &back, 3)
	if want := (*r); err != nil || back.Shingles != 0 || !bytes.Equal(rest, []byte{0xff}) {
		want.Shingles = 0
		t.Errorf("decodeRecord of version 3 = %+v, rest % x, %v; want %+v, rest ff", back, rest, err, want)
	}
}

func TestNewRecord(t *testing.T) {
	in := wire.Info{Doc: wire.DocNum(3, 17), ID: "d", Len: 40, Exact: 99, SimHash: 7, Sketch: []uint8{1, 2}, Shingles: 12}
	got := NewRecord(&in, 5, []uint64{8, 9})
	want := Record{Line: 17, ID: "d", Len: 40, Exact: 5, SimHash: 7, Sketch: []uint8{1, 2}, Bands: []uint64{8, 9}, Shingles: 12}
	if !reflect.DeepEqual(got, want) {
		t.Errorf("NewRecord = %+v, want %+v", got, want)
	}
}

func BenchmarkRecord(b *testing.B) {
	r := sampleRecords(1)[0]
	r.Sketch, r.Bands = make([]uint8, 128), make([]uint64, 16)
	buf := AppendRecord(nil, &r, true)
	b.Run("Append", func(b *testing.B) {
		b.ReportAllocs()
		dst := make([]byte, 0, len(buf))
		for b.Loop() {
			dst = AppendRecord(dst[:0], &r, true)
		}
	})
	b.Run("Decode", func(b *testing.B) {
		b.ReportAllocs()
		var back Record
		for b.Loop() {
			if _, err := DecodeRecord(buf, &back); err != nil {
				b.Fatal(err)
			}
		}
	})
}
