package wire

import (
	"bytes"
	"encoding/binary"
	"errors"
	"math"
	"math/big"
	"math/rand/v2"
	"slices"
	"strings"
	"testing"

	"github.com/neardup/neardup/transforms/format/rank"
)

func TestDocNum(t *testing.T) {
	tests := []struct {
		file int
		line int64
		want Doc
	}{
		{0, 0, 0},
		{0, 5, 5},
		{1, 0, 1099511627776},             // 2^40
		{3, 7, 3*1099511627776 + 7},       // 3298534883335
		{0, MaxLines - 1, 1099511627775},  // 2^40-1
		{MaxFiles - 1, 0, 0xffffff << 40}, // top 24 bits
		{MaxFiles - 1, MaxLines - 1, math.MaxUint64},
	}
	for _, tt := range tests {
		got := DocNum(tt.file, tt.line)
		if got != tt.want {
			t.Errorf("DocNum(%d, %d) = %#x, want %#x", tt.file, tt.line, got, tt.want)
		}
		if f := File(got); f != tt.file {
			t.Errorf("File(%#x) = %d, want %d", got, f, tt.file)
		}
		if l := Line(got); l != tt.line {
			t.Errorf("Line(%#x) = %d, want %d", got, l, tt.line)
		}
	}
}

func TestDocNumOrder(t *testing.T) {
	// Document numbers order documents by (file, line).
	type fl struct {
		file int
		line int64
	}
	docs := []fl{{0, 0}, {0, 1}, {0, MaxLines - 1}, {1, 0}, {1, 2}, {2, 1}, {MaxFiles - 1, 0}}
	for i, a := range docs {
		for j, b := range docs {
			da, db := DocNum(a.file, a.line), DocNum(b.file, b.line)
			if (da < db) != (i < j) {
				t.Errorf("DocNum%v < DocNum%v = %v, want %v", a, b, da < db, i < j)
			}
		}
	}
}

// fmix64 is MurmurHash3's 64-bit finalizer, written out independently of mix.
func fmix64(k uint64) uint64 {
	k ^= k >> 33
	k *= 0xff51afd7ed558ccd
	k ^= k >> 33
	k *= 0xc4ceb9fe1a85ec53
	k ^= k >> 33
	return k
}

// partitionRef computes floor(fmix64(x) * n / 2^64) with big integers.
func partitionRef(x uint64, n int) int {
	p := new(big.Int).SetUint64(fmix64(x))
	p.Mul(p, big.NewInt(int64(n)))
	p.Rsh(p, 64)
	return int(p.Int64())
}

func TestPartition(t *testing.T) {
	ns := []int{1, 2, 3, 7, 16, 1000, 1 << 20}
	xs := []uint64{0, 1, 2, 42, 1 << 40, math.MaxUint64, 0xdeadbeefcafebabe}
	for _, n := range ns {
		for _, x := range xs {
			got := Partition(x, n)
			if got < 0 || got >= n {
				t.Errorf("Partition(%#x, %d) = %d, out of [0, %d)", x, n, got, n)
			}
			if want := partitionRef(x, n); got != want {
				t.Errorf("Partition(%#x, %d) = %d, want %d", x, n, got, want)
			}
		}
	}
	if got := Partition(0, 1); got != 0 {
		t.Errorf("Partition(0, 1) = %d, want 0", got)
	}
}

func TestPartitionSpread(t *testing.T) {
	// Sequential values (dense document numbers, small keys) must spread
	// evenly: each of 16 partitions within 5% of its share of 160000.
	const n, total = 16, 160000
	var counts [n]int
	for x := uint64(0); x < total; x++ {
		counts[Partition(x, n)]++
	}
	for p, c := range counts {
		if c < total/n*95/100 || c > total/n*105/100 {
			t.Errorf("partition %d holds %d of %d values, want about %d", p, c, total, total/n)
		}
	}
}

func TestAppendEntryLayout(t *testing.T) {
	prev := Doc(99) // a new chunk resets it
	got := AppendEntry(nil, Entry{Key: 0x0102030405060708, Doc: DocNum(1, 2)}, &prev)
	got = AppendEntry(got, Entry{Key: 0xff, Doc: DocNum(1, 300)}, &prev)
	got = AppendEntry(got, Entry{Key: 0xee, Doc: DocNum(1, 299)}, &prev)
	want := []byte{
		0x01,                         // file 1
		0x08, 0x07, 0x06, 0x05, 0x04, // low 40 bits of the key
		0x04, // line 2: +2 zigzag
		0xff, 0, 0, 0, 0,
		0xd4, 0x04, // line 300: +298, zigzag 596 as varint
		0xee, 0, 0, 0, 0,
		0x01, // line 299: -1 zigzag
	}
	if !bytes.Equal(got, want) {
		t.Errorf("AppendEntry = % x, want % x", got, want)
	}
	got = AppendSimEntry(nil, SimEntry{Key: 1, Doc: 2, FP: 0x8000000000000003, Table: 2}, &prev)
	got = AppendSimEntry(got, SimEntry{Key: 1, Doc: 66, FP: 1, Table: 300}, &prev)
	want = []byte{
		0, // file 0
		4, // line 2: +2 zigzag
		2, // table 2; no key
		3, 0, 0, 0, 0, 0, 0, 0x80,
		0x80, 0x01, // line 66: +64 zigzag 128 as varint
		0xac, 0x02, // table 300
		1, 0, 0, 0, 0, 0, 0, 0,
	}
	if !bytes.Equal(got, want) {
		t.Errorf("AppendSimEntry = % x, want % x", got, want)
	}
	got = AppendPair(nil, Pair{A: 0xff, B: 0x0100})
	want = []byte{0xff, 0, 0, 0, 0, 0, 0, 0, 0, 1, 0, 0, 0, 0, 0, 0}
	if !bytes.Equal(got, want) {
		t.Errorf("AppendPair = % x, want % x", got, want)
	}
}

func TestAppendEntryOtherFilePanics(t *testing.T) {
	defer func() {
		if recover() == nil {
			t.Error("no panic for an entry of another file")
		}
	}()
	var prev Doc
	AppendEntry(AppendEntry(nil, Entry{Key: 1, Doc: DocNum(1, 1)}, &prev), Entry{Key: 1, Doc: DocNum(2, 1)}, &prev)
}

const lowKey = 1<<KeyBits - 1

func TestEntriesRoundTrip(t *testing.T) {
	in := []Entry{{0, DocNum(3, 0)}, {1, DocNum(3, 2)}, {math.MaxUint64, DocNum(3, MaxLines-1)}, {42, DocNum(3, 42)}}
	var chunk []byte
	var prev Doc
	for _, e := range in {
		chunk = AppendEntry(chunk, e, &prev)
	}
	prefix := []Entry{{7, 7}}
	got, err := AppendEntries(slices.Clone(prefix), chunk)
	if err != nil {
		t.Fatal(err)
	}
	want := slices.Clone(prefix)
	for _, e := range in {
		want = append(want, Entry{Key: e.Key & lowKey, Doc: e.Doc})
	}
	if !slices.Equal(got, want) {
		t.Errorf("AppendEntries = %v, want %v", got, want)
	}
	got, err = AppendEntries(nil, nil)
	if err != nil || len(got) != 0 {
		t.Errorf("AppendEntries(nil, nil) = %v, %v, want empty, nil", got, err)
	}
}

// testTables derives keys as a hash of table and fingerprint.
type testTables int

func (n testTables) Len() int                      { return int(n) }
func (testTables) Key(table int, fp uint64) uint64 { return fp*0x9e3779b97f4a7c15 + uint64(table) }

func TestSimEntriesRoundTrip(t *testing.T) {
	tables := testTables(1000)
	var in []SimEntry
	for i, e := range []struct {
		doc   Doc
		fp    uint64
		table int
	}{{DocNum(MaxFiles-1, 0), 0, 0}, {DocNum(MaxFiles-1, 2), 3, 999}, {DocNum(MaxFiles-1, 77777), 0x5555aaaa5555aaaa, 128}, {DocNum(MaxFiles-1, 5), math.MaxUint64, 1}} {
		in = append(in, SimEntry{Key: uint64(i), Doc: e.doc, FP: e.fp, Table: e.table})
	}
	var chunk []byte
	var prev Doc
	for _, e := range in {
		chunk = AppendSimEntry(chunk, e, &prev)
	}
	prefix := []SimEntry{{Key: 7}}
	got, err := AppendSimEntries(slices.Clone(prefix), chunk, tables)
	if err != nil {
		t.Fatal(err)
	}
	// The key is not shipped: the decoder derives it from table and FP.
	want := slices.Clone(prefix)
	for _, e := range in {
		e.Key = tables.Key(e.Table, e.FP)
		want = append(want, e)
	}
	if !slices.Equal(got, want) {
		t.Errorf("AppendSimEntries = %v, want %v", got, want)
	}
	// A table index the decoder's tables do not have is corrupt.
	if got, err := AppendSimEntries(slices.Clone(prefix), chunk, testTables(999)); !errors.Is(err, ErrCorrupt) || !slices.Equal(got, prefix) {
		t.Errorf("table 999 of 999 tables: %v, %v; want the prefix and ErrCorrupt", got, err)
	}
}

func TestEntriesCorrupt(t *testing.T) {
	var ent, sim []byte
	var pe, ps Doc
	for i := 0; i < 3; i++ {
		ent = AppendEntry(ent, Entry{Key: uint64(i) * 0x0101010101, Doc: DocNum(5, int64(i)*200)}, &pe)
		sim = AppendSimEntry(sim, SimEntry{Doc: DocNum(5, int64(i)*200), FP: 9, Table: 200 * i}, &ps)
	}
	// Every cut that is not at an entry boundary is corrupt and leaves dst
	// as it was.
	for _, tc := range []struct {
		name   string
		chunk  []byte
		decode func([]byte) (int, error)
	}{
		{"entries", ent, func(c []byte) (int, error) {
			e, err := AppendEntries([]Entry{{9, 9}}, c)
			return len(e) - 1, err
		}},
		{"simentries", sim, func(c []byte) (int, error) {
			e, err := AppendSimEntries(nil, c, testTables(1000))
			return len(e), err
		}},
	} {
		boundaries := map[int]int{0: 0} // cut length -> entries before it
		full, _ := tc.decode(tc.chunk)
		for n := 1; n <= len(tc.chunk); n++ {
			got, err := tc.decode(tc.chunk[:n])
			if err == nil {
				boundaries[n] = got
				continue
			}
			if !errors.Is(err, ErrCorrupt) {
				t.Errorf("%s cut at %d: error %v does not wrap ErrCorrupt", tc.name, n, err)
			}
			if got != 0 {
				t.Errorf("%s cut at %d: error but %d entries appended", tc.name, n, got)
			}
		}
		if boundaries[len(tc.chunk)] != full || full != 3 {
			t.Errorf("%s: whole chunk gave %d entries, want 3", tc.name, full)
		}
		if len(boundaries) != 5 { // empty, after the header, and after each entry
			t.Errorf("%s: %d cuts decode without error, want 5: %v", tc.name, len(boundaries), boundaries)
		}
	}
	if _, err := AppendEntries(nil, []byte{0xff, 0xff, 0xff, 0xff, 0x0f}); !errors.Is(err, ErrCorrupt) {
		t.Errorf("file index over MaxFiles: %v", err)
	}
}

func TestPairsRoundTrip(t *testing.T) {
	in := []Pair{{0, 1}, {DocNum(0, 5), DocNum(3, 1)}, {math.MaxUint64 - 1, math.MaxUint64}}
	var chunk []byte
	for _, p := range in {
		chunk = AppendPair(chunk, p)
	}
	if len(chunk) != len(in)*PairSize {
		t.Fatalf("chunk of %d bytes, want %d", len(chunk), len(in)*PairSize)
	}
	got, err := AppendPairs(nil, chunk)
	if err != nil {
		t.Fatal(err)
	}
	if !slices.Equal(got, in) {
		t.Errorf("AppendPairs = %v, want %v", got, in)
	}
}

func TestFixedWidthCorrupt(t *testing.T) {
	// Every length that is not a multiple of the record size is corrupt and
	// leaves dst as it was.
	full := make([]byte, 3*PairSize)
	for i := range full {
		full[i] = byte(i)
	}
	for n := 0; n <= len(full); n++ {
		chunk := full[:n]
		p, err := AppendPairs(nil, chunk)
		checkFixed(t, "AppendPairs", n, PairSize, err, len(p))
	}
}

func checkFixed(t *testing.T, name string, n, size int, err error, got int) {
	t.Helper()
	if n%size != 0 {
		if !errors.Is(err, ErrCorrupt) {
			t.Errorf("%s(%d bytes) error = %v, want ErrCorrupt", name, n, err)
		}
		return
	}
	if err != nil {
		t.Errorf("%s(%d bytes) error = %v, want nil", name, n, err)
	}
	if got != n/size {
		t.Errorf("%s(%d bytes) decoded %d records, want %d", name, n, got, n/size)
	}
}

func testInfos() []Info {
	sketch := make([]uint8, 128)
	for i := range sketch {
		sketch[i] = uint8(i * 7)
	}
	return []Info{
		{},
		{Doc: DocNum(2, 9), ID: "doc-1", Len: 1234, Exact: 0x1122334455667788, SimHash: math.MaxUint64, Sketch: sketch, Shingles: 1 << 40},
		{Doc: 1, ID: "文档 ü", Len: -1, Exact: 1, SimHash: 2, Sketch: []uint8{0}},
		{Doc: math.MaxUint64, ID: strings.Repeat("x", 300), Len: math.MaxInt64, Sketch: []uint8{255, 0, 255}},
		{Doc: 3, ID: "", Len: 0, Exact: 0, SimHash: 0, Sketch: nil},
		{Doc: 4, ID: "r", Len: 7, Rank: rank.Key{Hi: 1, Lo: math.MaxUint64}},
	}
}

func infoEqual(a, b *Info) bool {
	return a.Doc == b.Doc && a.ID == b.ID && a.Len == b.Len && a.Exact == b.Exact &&
		a.SimHash == b.SimHash && bytes.Equal(a.Sketch, b.Sketch) && a.Shingles == b.Shingles && a.Rank == b.Rank
}

func TestInfoLayout(t *testing.T) {
	in := &Info{Doc: 0x0102, ID: "ab", Len: 300, Exact: 5, SimHash: 6, Sketch: []uint8{9, 8}, Shingles: 130}
	want := []byte{
		0x02, 0x01, 0, 0, 0, 0, 0, 0, // Doc
		2, 'a', 'b', // ID
		0xac, 0x02, // Len 300 as uvarint
		5, 0, 0, 0, 0, 0, 0, 0, // Exact
		6, 0, 0, 0, 0, 0, 0, 0, // SimHash
		2, 9, 8, // Sketch
		0x82, 0x01, // Shingles 130 as uvarint
		0, // no Rank
	}
	if got := AppendInfo(nil, in); !bytes.Equal(got, want) {
		t.Errorf("AppendInfo = % x, want % x", got, want)
	}
	in.Rank = rank.Key{Hi: 0x0807060504030201, Lo: 9}
	want = append(want[:len(want)-1], 1, 1, 2, 3, 4, 5, 6, 7, 8, 9, 0, 0, 0, 0, 0, 0, 0)
	if got := AppendInfo(nil, in); !bytes.Equal(got, want) {
		t.Errorf("AppendInfo with a rank = % x, want % x", got, want)
	}
}

func TestInfoRoundTrip(t *testing.T) {
	infos := testInfos()
	var chunk []byte
	for i := range infos {
		chunk = AppendInfo(chunk, &infos[i])
	}
	rest := chunk
	var got Info
	for i := range infos {
		var err error
		rest, err = DecodeInfo(rest, &got)
		if err != nil {
			t.Fatalf("DecodeInfo record %d: %v", i, err)
		}
		if !infoEqual(&got, &infos[i]) {
			t.Errorf("DecodeInfo record %d = %+v, want %+v", i, got, infos[i])
		}
	}
	if len(rest) != 0 {
		t.Errorf("DecodeInfo left %d bytes, want 0", len(rest))
	}
}

func TestDecodeInfoReusesSketch(t *testing.T) {
	src := testInfos()[1]
	chunk := AppendInfo(nil, &src)
	buf := make([]uint8, 0, 256)
	got := Info{Sketch: buf}
	if _, err := DecodeInfo(chunk, &got); err != nil {
		t.Fatal(err)
	}
	if &got.Sketch[0] != &buf[:1][0] {
		t.Error("DecodeInfo allocated a new sketch instead of reusing in.Sketch")
	}
	// The sketch must not alias the chunk: the chunk's memory is reused by
	// the runner.
	clear(chunk)
	if !bytes.Equal(got.Sketch, src.Sketch) {
		t.Error("decoded sketch changed when the chunk was cleared")
	}
}

func TestDecodeInfoTruncated(t *testing.T) {
	for i, in := range testInfos() {
		full := AppendInfo(nil, &in)
		for n := 0; n < len(full); n++ {
			var got Info
			rest, err := DecodeInfo(full[:n], &got)
			if !errors.Is(err, ErrCorrupt) {
				t.Errorf("info %d truncated to %d of %d bytes: error = %v, want ErrCorrupt", i, n, len(full), err)
			}
			if rest != nil {
				t.Errorf("info %d truncated to %d bytes: rest = % x, want nil", i, n, rest)
			}
		}
	}
}

func TestDecodeInfoCorrupt(t *testing.T) {
	doc := []byte{1, 0, 0, 0, 0, 0, 0, 0}
	fixed16 := make([]byte, 16)
	overflow := bytes.Repeat([]byte{0xff}, 11) // uvarint overflows 64 bits
	huge := []byte{0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0x01}
	cat := func(parts ...[]byte) []byte { return bytes.Join(parts, nil) }
	tests := []struct {
		name  string
		chunk []byte
	}{
		{"id length overflows", cat(doc, overflow)},
		{"id length 2^64-1", cat(doc, huge, []byte("abc"))},
		{"id longer than chunk", cat(doc, []byte{5, 'a', 'b'})},
		{"len overflows", cat(doc, []byte{0}, overflow, fixed16)},
		{"len without hashes", cat(doc, []byte{0, 1}, make([]byte, 15))},
		{"sketch length overflows", cat(doc, []byte{0, 1}, fixed16, overflow)},
		{"sketch length 2^64-1", cat(doc, []byte{0, 1}, fixed16, huge, []byte{1, 2})},
		{"sketch longer than chunk", cat(doc, []byte{0, 1}, fixed16, []byte{3, 1, 2})},
	}
	for _, tt := range tests {
		var got Info
		rest, err := DecodeInfo(tt.chunk, &got)
		if !errors.Is(err, ErrCorrupt) || rest != nil {
			t.Errorf("%s: DecodeInfo = % x, %v, want nil, ErrCorrupt", tt.name, rest, err)
		}
	}
}

func testMatches() []Match {
	return []Match{
		{},
		{A: 1, B: 2, IDA: "a", IDB: "b", LenA: 10, LenB: 20, Jaccard: 0.8125, Hamming: 3, Method: MinHash},
		{A: 1, B: 3, Jaccard: 0.9216, Hamming: 7, Method: MinHash, Estimated: true},
		{A: DocNum(1, 1), B: math.MaxUint64, IDA: "文档", IDB: strings.Repeat("y", 200), LenA: math.MaxInt64, LenB: -5, Jaccard: 1, Hamming: 64, Method: Exact},
		{A: 5, B: 6, IDA: "", IDB: "", Jaccard: float32(math.Inf(1)), Hamming: 255, Method: SimHash},
		{A: 7, B: 8, Jaccard: -0.5, Method: Method(200)},
		{A: 3, B: 9, Jaccard: 0.25, Method: Containment, Inside: SideB, Containment: 0.875},
		{A: 3, B: 10, Jaccard: 0.3, Method: Containment, Inside: SideA, Containment: 0.8, Estimated: true},
		{A: 4, B: 11, Jaccard: 0.9, Method: MinHash, RankA: rank.Key{Hi: math.MaxUint64, Lo: 1}, RankB: rank.Key{Hi: 1 << 63}},
	}
}

func TestMatchLayout(t *testing.T) {
	m := &Match{A: 1, B: 2, IDA: "x", IDB: "yz", LenA: 128, LenB: 3, Jaccard: 1, Hamming: 4, Method: SimHash}
	want := []byte{
		1, 0, 0, 0, 0, 0, 0, 0,
		2, 0, 0, 0, 0, 0, 0, 0,
		1, 'x',
		2, 'y', 'z',
		0x80, 0x01, // 128
		3,
		0x00, 0x00, 0x80, 0x3f, // float32 1.0
		4, 2, 0, // Hamming, Method, Inside
		0, 0, 0, 0, // Containment
		0, 0, // no ranks
	}
	if got := AppendMatch(nil, m); !bytes.Equal(got, want) {
		t.Errorf("AppendMatch = % x, want % x", got, want)
	}
	// An estimate sets the high bit of the Inside byte.
	m.Estimated, m.Inside = true, SideB
	want[len(want)-7] = 0x82
	if got := AppendMatch(nil, m); !bytes.Equal(got, want) {
		t.Errorf("AppendMatch of an estimate = % x, want % x", got, want)
	}
}

func matchEqual(a, b *Match) bool {
	return a.A == b.A && a.B == b.B && a.IDA == b.IDA && a.IDB == b.IDB && a.LenA == b.LenA &&
		a.LenB == b.LenB && math.Float32bits(a.Jaccard) == math.Float32bits(b.Jaccard) &&
		a.Hamming == b.Hamming && a.Method == b.Method && a.Inside == b.Inside &&
		math.Float32bits(a.Containment) == math.Float32bits(b.Containment) && a.Estimated == b.Estimated &&
		a.RankA == b.RankA && a.RankB == b.RankB
}

func TestMatchRoundTrip(t *testing.T) {
	ms := testMatches()
	ms = append(ms, Match{A: 9, Jaccard: float32(math.NaN())})
	var chunk []byte
	for i := range ms {
		chunk = AppendMatch(chunk, &ms[i])
	}
	rest := chunk
	for i := range ms {
		var got Match
		var err error
		rest, err = DecodeMatch(rest, &got)
		if err != nil {
			t.Fatalf("DecodeMatch record %d: %v", i, err)
		}
		if !matchEqual(&got, &ms[i]) {
			t.Errorf("DecodeMatch record %d = %+v, want %+v", i, got, ms[i])
		}
	}
	if len(rest) != 0 {
		t.Errorf("DecodeMatch left %d bytes, want 0", len(rest))
	}
}

func TestDecodeMatchTruncated(t *testing.T) {
	for i, m := range testMatches() {
		full := AppendMatch(nil, &m)
		for n := 0; n < len(full); n++ {
			var got Match
			rest, err := DecodeMatch(full[:n], &got)
			if !errors.Is(err, ErrCorrupt) || rest != nil {
				t.Errorf("match %d truncated to %d of %d bytes: DecodeMatch = % x, %v, want nil, ErrCorrupt", i, n, len(full), rest, err)
			}
		}
	}
}

func TestDecodeMatchCorrupt(t *testing.T) {
	ab := make([]byte, 16)
	overflow := bytes.Repeat([]byte{0x80}, 10)
	overflow = append(overflow, 0x02) // 11-byte uvarint: overflows
	huge := []byte{0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0x01}
	cat := func(parts ...[]byte) []byte { return bytes.Join(parts, nil) }
	tests := []struct {
		name  string
		chunk []byte
	}{
		{"IDA length overflows", cat(ab, overflow)},
		{"IDA length 2^64-1", cat(ab, huge, []byte("abcdef"))},
		{"IDB longer than chunk", cat(ab, []byte{0, 9, 'a'}, make([]byte, 6))},
		{"LenA overflows", cat(ab, []byte{0, 0}, overflow, make([]byte, 7))},
		{"LenB overflows", cat(ab, []byte{0, 0, 1}, overflow, make([]byte, 6))},
		{"tail short", cat(ab, []byte{0, 0, 1, 1}, make([]byte, 5))},
	}
	for _, tt := range tests {
		var got Match
		rest, err := DecodeMatch(tt.chunk, &got)
		if !errors.Is(err, ErrCorrupt) || rest != nil {
			t.Errorf("%s: DecodeMatch = % x, %v, want nil, ErrCorrupt", tt.name, rest, err)
		}
	}
}

func TestMethodString(t *testing.T) {
	tests := []struct {
		m    Method
		want string
	}{
		{Exact, "exact"},
		{MinHash, "minhash"},
		{SimHash, "simhash"},
		{Containment, "containment"},
		{Method(4), "Method(4)"},
		{Method(255), "Method(255)"},
	}
	for _, tt := range tests {
		if got := tt.m.String(); got != tt.want {
			t.Errorf("Method(%d).String() = %q, want %q", uint8(tt.m), got, tt.want)
		}
	}
}

func TestLinesRoundTrip(t *testing.T) {
	in := []OutLine{
		{K1: 1, K2: 2, Text: []byte(`{"a":"x"}`)},
		{K1: math.MaxUint64, K2: 0, Text: []byte{}},
		{K1: 3, K2: 4, Text: bytes.Repeat([]byte("z"), 200)},
	}
	var chunk []byte
	var ends []int // chunk length after each line
	for _, l := range in {
		chunk = AppendLine(chunk, l.K1, l.K2, l.Text)
		ends = append(ends, len(chunk))
	}
	// 16 + 1 + 9, 16 + 1 + 0, 16 + 2 + 200
	if want := []int{26, 43, 261}; !slices.Equal(ends, want) {
		t.Fatalf("chunk ends %v, want %v", ends, want)
	}
	prefix := []OutLine{{K1: 9}}
	got, err := AppendLines(slices.Clone(prefix), chunk)
	if err != nil {
		t.Fatal(err)
	}
	want := append(prefix, in...)
	if len(got) != len(want) {
		t.Fatalf("AppendLines decoded %d lines, want %d", len(got), len(want))
	}
	for i := range want {
		if got[i].K1 != want[i].K1 || got[i].K2 != want[i].K2 || !bytes.Equal(got[i].Text, want[i].Text) {
			t.Errorf("line %d = {%d %d %q}, want {%d %d %q}", i, got[i].K1, got[i].K2, got[i].Text, want[i].K1, want[i].K2, want[i].Text)
		}
	}
	// The texts share the chunk's memory.
	chunk[ends[0]-1] = '!'
	if got[1].Text[len(got[1].Text)-1] != '!' {
		t.Error("AppendLines copied the text; want it to share the chunk")
	}

	// Truncation: a prefix ending on a line boundary decodes the lines
	// before it; any other prefix is corrupt.
	chunk[ends[0]-1] = '}'
	for n := 0; n <= len(chunk); n++ {
		got, err := AppendLines(nil, chunk[:n])
		whole := slices.Index(ends, n) + 1 // lines wholly inside chunk[:n]
		if n == 0 || whole > 0 {
			if err != nil || len(got) != whole {
				t.Errorf("AppendLines(%d bytes) = %d lines, %v, want %d, nil", n, len(got), err, whole)
			}
			continue
		}
		if !errors.Is(err, ErrCorrupt) {
			t.Errorf("AppendLines(%d bytes) error = %v, want ErrCorrupt", n, err)
		}
	}
}

func TestAppendLinesCorrupt(t *testing.T) {
	keys := make([]byte, 16)
	tests := []struct {
		name  string
		chunk []byte
	}{
		{"short keys", make([]byte, 15)},
		{"no length", keys},
		{"length overflows", append(slices.Clone(keys), bytes.Repeat([]byte{0xff}, 11)...)},
		{"length 2^64-1", append(slices.Clone(keys), 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0x01, 'a')},
		{"text short", append(slices.Clone(keys), 3, 'a', 'b')},
	}
	for _, tt := range tests {
		if _, err := AppendLines(nil, tt.chunk); !errors.Is(err, ErrCorrupt) {
			t.Errorf("%s: AppendLines error = %v, want ErrCorrupt", tt.name, err)
		}
	}
}

type emitted struct {
	part  int
	chunk []byte
}

func TestBatcher(t *testing.T) {
	// Chunks are emitted when another record would not fit: with 16-byte
	// pairs and max 48 (or up to 63), every third Add to a partition emits
	// 48 bytes.
	b := NewBatcher(48)
	var out []emitted
	emit := func(p int64, c []byte) { out = append(out, emitted{int(p), c}) }
	add := func(part int, key uint64) {
		b.Add(part, func(c []byte) []byte { return AppendPair(c, Pair{A: key, B: key}) }, emit)
	}
	seq := []struct {
		part int
		key  uint64
	}{{0, 1}, {5, 2}, {0, 3}, {2, 4}, {0, 5}, {5, 6}, {5, 7}, {0, 8}, {2, 9}, {5, 10}, {7, 11}}
	var wantEmits []int // number of emitted chunks after each Add
	for _, s := range seq {
		add(s.part, s.key)
		wantEmits = append(wantEmits, len(out))
	}
	if want := []int{0, 0, 0, 0, 1, 1, 2, 2, 2, 2, 2}; !slices.Equal(wantEmits, want) {
		t.Errorf("emitted chunk counts after each Add = %v, want %v", wantEmits, want)
	}
	b.Flush(emit)
	// Full chunks: partition 0 {1,3,5}, partition 5 {2,6,7}. Flush in
	// partition order: 0 {8}, 2 {4,9}, 5 {10}, 7 {11}.
	want := []struct {
		part int
		keys []uint64
	}{{0, []uint64{1, 3, 5}}, {5, []uint64{2, 6, 7}}, {0, []uint64{8}}, {2, []uint64{4, 9}}, {5, []uint64{10}}, {7, []uint64{11}}}
	if len(out) != len(want) {
		t.Fatalf("emitted %d chunks, want %d", len(out), len(want))
	}
	for i, w := range want {
		ps, err := AppendPairs(nil, out[i].chunk)
		if err != nil {
			t.Fatal(err)
		}
		var keys []uint64
		for _, p := range ps {
			keys = append(keys, p.A)
		}
		if out[i].part != w.part || !slices.Equal(keys, w.keys) {
			t.Errorf("chunk %d = partition %d keys %v, want partition %d keys %v", i, out[i].part, keys, w.part, w.keys)
		}
	}
	// Flush empties the Batcher.
	n := len(out)
	b.Flush(emit)
	if len(out) != n {
		t.Errorf("second Flush emitted %d chunks, want 0", len(out)-n)
	}
	// Emitted chunks are not overwritten by later Adds.
	snap := slices.Clone(out[0].chunk)
	for k := uint64(100); k < 110; k++ {
		add(0, k)
	}
	if !bytes.Equal(out[0].chunk, snap) {
		t.Error("an emitted chunk changed after later Adds")
	}
}

// TestBatcherKeys: keys beyond the partitions (an index's file indexes
// from 1<<23, a negative key) batch and flush like partitions, all in key
// order.
func TestBatcherKeys(t *testing.T) {
	b := NewBatcher(0)
	var got []int
	emit := func(p int64, c []byte) {
		ps, err := AppendPairs(nil, c)
		if err != nil || len(ps) != 1 || ps[0].A != uint64(p+10) {
			t.Errorf("chunk of key %d: %v, %v; want the one pair added under it", p, ps, err)
		}
		got = append(got, int(p))
	}
	keys := []int{1 << 23, 3, -2, denseKeys, denseKeys - 1, 0, 1<<23 + 1}
	for _, k := range keys {
		b.Add(k, func(c []byte) []byte { return AppendPair(c, Pair{A: uint64(k + 10)}) }, emit)
	}
	b.Flush(emit)
	if want := slices.Sorted(slices.Values(keys)); !slices.Equal(got, want) {
		t.Errorf("Flush emitted keys %v, want %v", got, want)
	}
	got = nil
	b.Flush(emit)
	if len(got) != 0 {
		t.Errorf("second Flush emitted keys %v, want none", got)
	}
}

func TestBatcherDefault(t *testing.T) {
	for _, max := range []int{0, -1} {
		b := NewBatcher(max)
		emits := 0
		adds := 0
		var size int
		for emits == 0 {
			b.Add(3, func(c []byte) []byte { return AppendPair(c, Pair{}) }, func(_ int64, c []byte) { emits++; size = len(c) })
			adds++
			if adds > DefaultChunkBytes {
				t.Fatal("no chunk emitted")
			}
		}
		// The chunk and its prefix fit Go's 32 KiB size class.
		if want := (DefaultChunkBytes - ChunkHeadroom) / PairSize; adds != want || size != want*PairSize {
			t.Errorf("NewBatcher(%d) emitted %d bytes after %d pairs, want %d pairs", max, size, adds, want)
		}
	}
}

// FuzzDecodeInfo decodes every Info of a chunk: the chunk decodes or fails
// with an error wrapping ErrCorrupt, never panics, and what decodes
// re-encodes to something that decodes to the same value.
func FuzzDecodeInfo(f *testing.F) {
	infos := testInfos()
	var all []byte
	for i := range infos {
		one := AppendInfo(nil, &infos[i])
		f.Add(one)
		f.Add(one[:len(one)/2])
		all = append(all, one...)
	}
	f.Add(all)
	f.Add([]byte{})
	f.Fuzz(func(t *testing.T, data []byte) {
		rest := data
		for len(rest) > 0 {
			var in Info
			next, err := DecodeInfo(rest, &in)
			if err != nil {
				if !errors.Is(err, ErrCorrupt) {
					t.Fatalf("DecodeInfo error %v does not wrap ErrCorrupt", err)
				}
				if next != nil {
					t.Fatalf("DecodeInfo returned rest % x with error", next)
				}
				return
			}
			consumed := len(rest) - len(next)
			if consumed <= 0 || !bytes.Equal(rest[consumed:], next) {
				t.Fatalf("DecodeInfo rest is not a proper suffix of its input")
			}
			enc := AppendInfo(nil, &in)
			if len(enc) > consumed {
				t.Fatalf("re-encoding takes %d bytes, decoded from %d", len(enc), consumed)
			}
			var again Info
			tail, err := DecodeInfo(enc, &again)
			if err != nil || len(tail) != 0 || !infoEqual(&again, &in) {
				t.Fatalf("re-encoded info decodes to %+v, %v (tail %d), want %+v", again, err, len(tail), in)
			}
			rest = next
		}
	})
}

// FuzzDecodeMatch is FuzzDecodeInfo for Match records.
func FuzzDecodeMatch(f *testing.F) {
	ms := testMatches()
	var all []byte
	for i := range ms {
		one := AppendMatch(nil, &ms[i])
		f.Add(one)
		f.Add(one[:len(one)-1])
		all = append(all, one...)
	}
	f.Add(all)
	f.Add([]byte{})
	f.Fuzz(func(t *testing.T, data []byte) {
		rest := data
		for len(rest) > 0 {
			var m Match
			next, err := DecodeMatch(rest, &m)
			if err != nil {
				if !errors.Is(err, ErrCorrupt) {
					t.Fatalf("DecodeMatch error %v does not wrap ErrCorrupt", err)
				}
				if next != nil {
					t.Fatalf("DecodeMatch returned rest % x with error", next)
				}
				return
			}
			consumed := len(rest) - len(next)
			if consumed <= 0 || !bytes.Equal(rest[consumed:], next) {
				t.Fatalf("DecodeMatch rest is not a proper suffix of its input")
			}
			enc := AppendMatch(nil, &m)
			if len(enc) > consumed {
				t.Fatalf("re-encoding takes %d bytes, decoded from %d", len(enc), consumed)
			}
			var again Match
			tail, err := DecodeMatch(enc, &again)
			if err != nil || len(tail) != 0 || !matchEqual(&again, &m) {
				t.Fatalf("re-encoded match decodes to %+v, %v (tail %d), want %+v", again, err, len(tail), m)
			}
			rest = next
		}
	})
}

func TestMemberRoundTripAndTruncation(t *testing.T) {
	ms := []Member{
		{},
		{Root: 1, Doc: 2, ID: "d1", Len: 300},
		{Root: math.MaxUint64, Doc: DocNum(3, 4), ID: strings.Repeat("文", 100), Len: math.MaxInt64},
		{Root: 5, Doc: 6, ID: "r", Len: 1, Rank: rank.Key{Hi: 1 << 63, Lo: 2}},
	}
	var chunk []byte
	for i := range ms {
		chunk = AppendMember(chunk, &ms[i])
	}
	rest := chunk
	for i := range ms {
		var got Member
		var err error
		if rest, err = DecodeMember(rest, &got); err != nil || got != ms[i] {
			t.Fatalf("DecodeMember record %d = %+v, %v; want %+v", i, got, err, ms[i])
		}
	}
	if len(rest) != 0 {
		t.Errorf("DecodeMember left %d bytes", len(rest))
	}
	for i := range ms {
		full := AppendMember(nil, &ms[i])
		for n := range len(full) {
			var got Member
			if _, err := DecodeMember(full[:n], &got); !errors.Is(err, ErrCorrupt) {
				t.Errorf("record %d cut to %d bytes: err %v, want ErrCorrupt", i, n, err)
			}
		}
	}
}

// TestSetRoundTrip: sets of every size class, including the extreme
// values, decode to themselves, take less than L+3 bits a value (plus the
// header), and the rest of the chunk is returned intact.
func TestSetRoundTrip(t *testing.T) {
	rng := rand.New(rand.NewPCG(7, 11))
	sizes := []int{0, 1, 2, 3, 4, 5, 7, 8, 9, 100, 300, 1000, 8000, 70000}
	for _, n := range sizes {
		seen := map[uint32]bool{}
		var set []uint32
		if n >= 2 {
			set, seen[0], seen[1<<32-1] = append(set, 0, 1<<32-1), true, true
		}
		for len(set) < n {
			v := rng.Uint32()
			if !seen[v] {
				seen[v] = true
				set = append(set, v)
			}
		}
		slices.Sort(set)
		tail := []byte{0xde, 0xad}
		b := append(AppendSet(nil, set), tail...)
		got, rest, err := DecodeSet(b, []uint32{42})
		if err != nil {
			t.Fatalf("n=%d: %v", n, err)
		}
		if !slices.Equal(got, set) || !bytes.Equal(rest, tail) {
			t.Fatalf("n=%d: decoded %d values (equal %v), rest %x", n, len(got), slices.Equal(got, set), rest)
		}
		if n > 0 {
			bound := (n*(lowBits(n)+3)+7)/8 + 2 + binary.PutUvarint(make([]byte, 10), uint64(n))
			if len(b)-len(tail) > bound {
				t.Errorf("n=%d: %d bytes, want at most %d", n, len(b)-len(tail), bound)
			}
		}
	}
	// Dense sets: consecutive values, and every value of a small range.
	for _, set := range [][]uint32{{5, 6, 7, 8, 9, 10}, {1<<32 - 3, 1<<32 - 2, 1<<32 - 1}} {
		got, _, err := DecodeSet(AppendSet(nil, set), nil)
		if err != nil || !slices.Equal(got, set) {
			t.Errorf("%v decoded as %v, %v", set, got, err)
		}
	}
}

// TestSetCorrupt: every truncation of an encoded set, and encodings with a
// wrong L, an inflated count or values out of order, fail with ErrCorrupt.
func TestSetCorrupt(t *testing.T) {
	set := []uint32{3, 900, 70000, 1 << 20, 1 << 31, 1<<32 - 1}
	b := AppendSet(nil, set)
	for i := range len(b) {
		if _, _, err := DecodeSet(b[:i], nil); !errors.Is(err, ErrCorrupt) {
			t.Errorf("truncated to %d of %d bytes: %v", i, len(b), err)
		}
	}
	bad := map[string][]byte{
		"wrong L":        func() []byte { c := slices.Clone(b); c[1]++; return c }(),
		"count too high": append(binary.AppendUvarint(nil, 7), b[1:]...),
		"huge count":     binary.AppendUvarint(nil, 1<<40),
	}
	for name, c := range bad {
		if _, _, err := DecodeSet(c, nil); !errors.Is(err, ErrCorrupt) {
			t.Errorf("%s: %v", name, err)
		}
	}
}

// FuzzDecodeSet: any bytes decode to a sorted set that encodes back to the
// same bytes, or fail with ErrCorrupt.
func FuzzDecodeSet(f *testing.F) {
	f.Add(AppendSet(nil, []uint32{1, 2, 3, 1 << 31}))
	f.Add(AppendSet(nil, nil))
	f.Add([]byte{2, 31, 0xff, 0xff, 0xff, 0xff})
	f.Fuzz(func(t *testing.T, b []byte) {
		set, rest, err := DecodeSet(b, nil)
		if err != nil {
			if !errors.Is(err, ErrCorrupt) {
				t.Fatalf("error %v is not ErrCorrupt", err)
			}
			return
		}
		if !slices.IsSorted(set) {
			t.Fatalf("decoded set not sorted: %v", set)
		}
		again, _, err := DecodeSet(AppendSet(nil, set), nil)
		if err != nil || !slices.Equal(again, set) {
			t.Fatalf("re-encoded set decodes as %v, %v", again, err)
		}
		_ = rest
	})
}

func BenchmarkSet(b *testing.B) {
	rng := rand.New(rand.NewPCG(1, 2))
	set := make([]uint32, 300)
	for i := range set {
		set[i] = rng.Uint32()
	}
	slices.Sort(set)
	set = slices.Compact(set)
	buf := AppendSet(nil, set)
	b.Run("Append", func(b *testing.B) {
		b.ReportAllocs()
		b.SetBytes(int64(4 * len(set)))
		var out []byte
		for b.Loop() {
			out = AppendSet(out[:0], set)
		}
	})
	b.Run("Decode", func(b *testing.B) {
		b.ReportAllocs()
		b.SetBytes(int64(4 * len(set)))
		var dst []uint32
		for b.Loop() {
			dst, _, _ = DecodeSet(buf, dst)
		}
	})
	b.Run("DecodeNew", func(b *testing.B) { // into a new slice each time, as the exact checks keep them
		b.ReportAllocs()
		b.SetBytes(int64(4 * len(set)))
		for b.Loop() {
			DecodeSet(buf, nil)
		}
	})
}

func TestCandidateRoundTrip(t *testing.T) {
	pairs := []Pair{
		{A: DocNum(3, 0), B: DocNum(3, 1)},
		{A: DocNum(3, 0), B: DocNum(9, 123456)},
		{A: DocNum(3, 7), B: DocNum(0, MaxLines-1)},
		{A: DocNum(2, 5), B: DocNum(MaxFiles-1, 2)}, // out of order: a negative difference
		{A: DocNum(MaxFiles-1, MaxLines-1), B: DocNum(MaxFiles-1, MaxLines-1)},
	}
	var chunk []byte
	prev := Doc(12345) // reset by the first append
	for _, p := range pairs {
		chunk = AppendCandidate(chunk, p, &prev)
	}
	got, err := AppendCandidates([]Pair{{A: 1, B: 2}}, chunk)
	if err != nil {
		t.Fatal(err)
	}
	if want := append([]Pair{{A: 1, B: 2}}, pairs...); !slices.Equal(got, want) {
		t.Errorf("AppendCandidates = %v, want %v", got, want)
	}
	// In order, a pair sharing its first document with the one before takes
	// 1 + 1 + 3 bytes.
	c := AppendCandidate(nil, Pair{A: DocNum(1, 10), B: DocNum(2, 70000)}, &prev)
	n := len(c)
	c = AppendCandidate(c, Pair{A: DocNum(1, 10), B: DocNum(2, 70001)}, &prev)
	if len(c)-n != 5 {
		t.Errorf("second pair took %d bytes, want 5", len(c)-n)
	}
}

func TestCandidateCorrupt(t *testing.T) {
	var prev Doc
	full := AppendCandidate(nil, Pair{A: DocNum(4, 300), B: DocNum(5, 70000)}, &prev)
	for n := 1; n < len(full); n++ {
		if _, err := AppendCandidates(nil, full[:n]); !errors.Is(err, ErrCorrupt) {
			t.Errorf("%d of %d bytes: err %v, want ErrCorrupt", n, len(full), err)
		}
	}
	bad := binary.AppendVarint(nil, 1)
	bad = binary.AppendUvarint(bad, MaxFiles)
	bad = binary.AppendUvarint(bad, 1)
	if _, err := AppendCandidates(nil, bad); !errors.Is(err, ErrCorrupt) {
		t.Errorf("file %d: err %v, want ErrCorrupt", MaxFiles, err)
	}
}

// FuzzDecodeCandidates: any bytes decode to pairs or to ErrCorrupt, never
// a panic, and what decodes encodes back to the same pairs.
func FuzzDecodeCandidates(f *testing.F) {
	var prev Doc
	var all []byte
	for _, p := range []Pair{
		{A: DocNum(0, 1), B: DocNum(0, 2)},
		{A: DocNum(0, 1), B: DocNum(7, 99999)},
		{A: DocNum(3, 5), B: DocNum(2, 0)},
		{A: DocNum(MaxFiles-1, MaxLines-1), B: DocNum(MaxFiles-1, MaxLines-1)},
	} {
		one := AppendCandidate(nil, p, &prev)
		f.Add(one)
		f.Add(one[:len(one)-1])
		all = AppendCandidate(all, p, &prev)
	}
	f.Add(all)
	f.Add([]byte{})
	f.Fuzz(func(t *testing.T, data []byte) {
		pairs, err := AppendCandidates(nil, data)
		if err != nil {
			if !errors.Is(err, ErrCorrupt) {
				t.Fatalf("AppendCandidates error %v does not wrap ErrCorrupt", err)
			}
			if len(pairs) != 0 {
				t.Fatalf("AppendCandidates returned %d pairs with an error", len(pairs))
			}
			return
		}
		var re []byte
		var prev Doc
		for _, p := range pairs {
			re = AppendCandidate(re, p, &prev)
		}
		again, err := AppendCandidates(nil, re)
		if err != nil || !slices.Equal(again, pairs) {
			t.Fatalf("re-encoded pairs decode to %v, %v; want %v", again, err, pairs)
		}
	})
}

// FuzzDecodeEntries checks that any chunk decodes, as band or SimHash
// entries, to entries that re-encode and decode to themselves, or to
// ErrCorrupt with nothing appended.
func FuzzDecodeEntries(f *testing.F) {
	var pe, ps Doc
	var ent, sim []byte
	for i, d := range []Doc{DocNum(2, 0), DocNum(2, 3), DocNum(2, 300), DocNum(2, 299)} {
		ent = AppendEntry(ent, Entry{Key: uint64(i) * 0x0123456789, Doc: d}, &pe)
		sim = AppendSimEntry(sim, SimEntry{Doc: d, FP: uint64(i) << 60, Table: i * 100}, &ps)
	}
	f.Add(ent)
	f.Add(sim)
	f.Add(ent[:len(ent)-1])
	f.Add(sim[:len(sim)-1])
	f.Add([]byte{})
	tables := testTables(400)
	f.Fuzz(func(t *testing.T, data []byte) {
		if es, err := AppendEntries(nil, data); err != nil {
			if !errors.Is(err, ErrCorrupt) || len(es) != 0 {
				t.Fatalf("AppendEntries: %d entries and error %v, want none and ErrCorrupt", len(es), err)
			}
		} else if len(es) > 0 {
			var re []byte
			var prev Doc
			for _, e := range es {
				re = AppendEntry(re, e, &prev)
			}
			if again, err := AppendEntries(nil, re); err != nil || !slices.Equal(again, es) {
				t.Fatalf("re-encoded entries decode to %v, %v; want %v", again, err, es)
			}
		}
		if ss, err := AppendSimEntries(nil, data, tables); err != nil {
			if !errors.Is(err, ErrCorrupt) || len(ss) != 0 {
				t.Fatalf("AppendSimEntries: %d entries and error %v, want none and ErrCorrupt", len(ss), err)
			}
		} else if len(ss) > 0 {
			var re []byte
			var prev Doc
			for _, e := range ss {
				if e.Key != tables.Key(e.Table, e.FP) {
					t.Fatalf("entry %+v: key not derived from table and fingerprint", e)
				}
				re = AppendSimEntry(re, e, &prev)
			}
			if again, err := AppendSimEntries(nil, re, tables); err != nil || !slices.Equal(again, ss) {
				t.Fatalf("re-encoded SimHash entries decode to %v, %v; want %v", again, err, ss)
			}
		}
	})
}

// TestEachMatch: EachMatch gives every match of a chunk with its record's
// bytes, which coded again are the same; it stops at fn's error and at a
// damaged record.
func TestEachMatch(t *testing.T) {
	ms := []Match{{A: DocNum(0, 1), B: DocNum(2, 3), IDA: "a", IDB: "b", LenA: 5, LenB: 7, Jaccard: 0.9, Method: MinHash},
		{A: DocNum(1, 1), B: DocNum(1, 9), IDA: "c", IDB: "d", Hamming: 3, Method: SimHash}}
	var chunk []byte
	for i := range ms {
		chunk = AppendMatch(chunk, &ms[i])
	}
	var got []Match
	err := EachMatch(chunk, func(m *Match, rec []byte) error {
		if string(rec) != string(AppendMatch(nil, m)) {
			t.Errorf("record of %+v: %x", *m, rec)
		}
		got = append(got, *m)
		return nil
	})
	if err != nil || len(got) != 2 || got[0] != ms[0] || got[1] != ms[1] {
		t.Fatalf("EachMatch: %+v, %v", got, err)
	}
	stop := errors.New("stop")
	n := 0
	if err := EachMatch(chunk, func(*Match, []byte) error { n++; return stop }); err != stop || n != 1 {
		t.Errorf("fn's error: %v after %d calls", err, n)
	}
	if err := EachMatch(chunk[:len(chunk)-1], func(*Match, []byte) error { return nil }); !errors.Is(err, ErrCorrupt) {
		t.Errorf("damaged chunk: %v, want ErrCorrupt", err)
	}
}

// BenchmarkBatcher packs 16-byte records into the default chunks of 64
// partitions, as the shuffles' DoFns do.
func BenchmarkBatcher(b *testing.B) {
	const parts, recs = 64, 1 << 19
	b.ReportAllocs()
	b.SetBytes(16 * recs)
	emit := func(int64, []byte) {}
	for b.Loop() {
		bt := NewBatcher(0)
		for i := range uint64(recs) {
			bt.Add(int(i*7919%parts), func(c []byte) []byte {
				c = binary.LittleEndian.AppendUint64(c, i)
				return binary.LittleEndian.AppendUint64(c, i*i)
			}, emit)
		}
		bt.Flush(emit)
	}
}
