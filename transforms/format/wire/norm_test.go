package wire

import (
	"bufio"
	"bytes"
	"encoding/binary"
	"errors"
	"io"
	"math"
	"strings"
	"testing"
	"testing/iotest"

	"github.com/neardup/neardup/transforms/format/rank"
)

// plainNormAdd writes a normalized-text record plainly (the head, then the
// text), apart from the package's code: the oracle the tests hold
// AppendNormRecord to.
func plainNormAdd(w *bytes.Buffer, index int64, rawLen int, r rank.Key, id string, norm []byte) {
	b := binary.AppendUvarint(nil, uint64(index))
	b = binary.AppendUvarint(b, uint64(rawLen))
	if r.IsZero() {
		b = append(b, 0)
	} else {
		b = append(b, 1)
		b = binary.LittleEndian.AppendUint64(b, r.Hi)
		b = binary.LittleEndian.AppendUint64(b, r.Lo)
	}
	b = binary.AppendUvarint(b, uint64(len(id)))
	b = append(b, id...)
	b = binary.AppendUvarint(b, uint64(len(norm)))
	w.Write(b)
	w.Write(norm)
}

type normRec struct {
	index  uint64
	rawLen uint64
	rank   rank.Key
	id     string
	text   string
}

// plainReadNorm reads every normalized-text record of data plainly, apart
// from the package's code: the oracle the tests hold ReadNormRecord to. An
// id or text longer than what data holds is a truncation, found without
// allocating its length first.
func plainReadNorm(data []byte) ([]normRec, error) {
	r := bufio.NewReader(bytes.NewReader(data))
	var out []normRec
	readN := func(n int) ([]byte, error) {
		if n > len(data) {
			return nil, io.ErrUnexpectedEOF
		}
		b := make([]byte, n)
		_, err := io.ReadFull(r, b)
		if err == io.EOF {
			err = io.ErrUnexpectedEOF
		}
		return b, err
	}
	for {
		index, err := binary.ReadUvarint(r)
		if err == io.EOF {
			return out, nil
		}
		var rawLen, idLen, textLen uint64
		if err == nil {
			rawLen, err = binary.ReadUvarint(r)
		}
		var rk rank.Key
		if err == nil {
			var tag byte
			if tag, err = r.ReadByte(); err == nil && tag == 1 {
				var w []byte
				if w, err = readN(16); err == nil {
					rk = rank.Key{Hi: binary.LittleEndian.Uint64(w), Lo: binary.LittleEndian.Uint64(w[8:])}
				}
			} else if err == nil && tag != 0 {
				err = errors.New("rank tag")
			}
			if err == io.EOF {
				err = io.ErrUnexpectedEOF
			}
		}
		if err == nil {
			idLen, err = binary.ReadUvarint(r)
		}
		if err == nil && idLen > 1<<31 {
			err = errors.New("id too long")
		}
		var id []byte
		if err == nil {
			id, err = readN(int(idLen))
		}
		if err == nil {
			textLen, err = binary.ReadUvarint(r)
		}
		if err == nil && textLen > 1<<31 {
			err = errors.New("text too long")
		}
		var text []byte
		if err == nil {
			text, err = readN(int(textLen))
		}
		if err != nil {
			return out, err
		}
		out = append(out, normRec{index, rawLen, rk, string(id), string(text)})
	}
}

func testNorms() []normRec {
	return []normRec{
		{0, 0, rank.Key{}, "", ""},
		{1, 17, rank.Key{Hi: 1 << 63}, "a", "one two"},
		{300, 1 << 20, rank.Key{}, "文档 ü", strings.Repeat("word ", 100)},
		{MaxLines - 1, math.MaxInt64, rank.Key{Hi: math.MaxUint64, Lo: 3}, strings.Repeat("i", 130), "x"},
		{5, 3, rank.Key{}, "e", ""},
	}
}

func appendNorms(dst []byte, recs []normRec) []byte {
	for _, n := range recs {
		dst = AppendNormRecord(dst, int64(n.index), int(n.rawLen), n.rank, n.id, []byte(n.text))
	}
	return dst
}

func TestNormLayout(t *testing.T) {
	got := AppendNormRecord([]byte{0xee}, 300, 2, rank.Key{}, "ab", []byte("xyz"))
	want := []byte{0xee, 0xac, 0x02, 2, 0, 2, 'a', 'b', 3, 'x', 'y', 'z'}
	if !bytes.Equal(got, want) {
		t.Errorf("AppendNormRecord = % x, want % x", got, want)
	}
	if head := AppendNormHead(nil, 300, 2, rank.Key{}, "ab", 3); !bytes.Equal(head, want[1:9]) {
		t.Errorf("AppendNormHead = % x, want % x", head, want[1:9])
	}
	var plain bytes.Buffer
	for _, n := range testNorms() {
		plainNormAdd(&plain, int64(n.index), int(n.rawLen), n.rank, n.id, []byte(n.text))
	}
	if got := appendNorms(nil, testNorms()); !bytes.Equal(got, plain.Bytes()) {
		t.Errorf("AppendNormRecord = % x, plain % x", got, plain.Bytes())
	}
}

// readNorms reads every record only selects.
func readNorms(data []byte, only func(int64) bool, bufSize int) ([]normRec, error) {
	r := bufio.NewReaderSize(bytes.NewReader(data), bufSize)
	var buf []byte
	var out []normRec
	for {
		rec, err := ReadNormRecord(r, &buf, only)
		if err != nil {
			return out, err
		}
		out = append(out, normRec{uint64(rec.Index), uint64(rec.Len), rec.Rank, string(rec.ID), string(rec.Text)})
	}
}

func TestNormRoundTrip(t *testing.T) {
	recs := testNorms()
	data := appendNorms(nil, recs)
	for _, size := range []int{16, 4096} {
		got, err := readNorms(data, nil, size)
		if err != io.EOF || !equalNorms(got, recs) {
			t.Errorf("buffer %d: ReadNormRecord = %v, %v; want %v, EOF", size, got, err, recs)
		}
		got, err = readNorms(data, func(i int64) bool { return i == 300 || i == 5 }, size)
		if err != io.EOF || !equalNorms(got, []normRec{recs[2], recs[4]}) {
			t.Errorf("buffer %d: only 300 and 5: %v, %v", size, got, err)
		}
		got, err = readNorms(data, func(int64) bool { return false }, size)
		if err != io.EOF || len(got) != 0 {
			t.Errorf("buffer %d: none selected: %v, %v", size, got, err)
		}
	}
	if got, err := readNorms(nil, nil, 16); err != io.EOF || len(got) != 0 {
		t.Errorf("empty copy: %v, %v; want EOF", got, err)
	}
	// A reader that hands out a byte at a time.
	r := bufio.NewReaderSize(iotest.OneByteReader(bytes.NewReader(data)), 16)
	var buf []byte
	for i := range recs {
		rec, err := ReadNormRecord(r, &buf, nil)
		if err != nil || string(rec.ID) != recs[i].id || string(rec.Text) != recs[i].text {
			t.Fatalf("one byte at a time, record %d: %+v, %v", i, rec, err)
		}
	}
}

func equalNorms(a, b []normRec) bool {
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

// TestNormBuffer: the record's ID and Text live in the caller's buffer,
// which grows to the largest record and is then reused without allocating;
// the ID cannot be appended to over the text.
func TestNormBuffer(t *testing.T) {
	big := strings.Repeat("z", 200<<10) // grown in steps
	data := AppendNormRecord(nil, 1, 1, rank.Key{}, "big", []byte(big))
	data = appendNorms(data, testNorms())
	r := bufio.NewReader(bytes.NewReader(data))
	var buf []byte
	rec, err := ReadNormRecord(r, &buf, nil)
	if err != nil || string(rec.ID) != "big" || string(rec.Text) != big {
		t.Fatalf("big record: %v", err)
	}
	if &buf[0] != &rec.ID[0] || cap(rec.ID) != len(rec.ID) {
		t.Error("ID not at the start of the buffer, or appendable")
	}
	capBefore := cap(buf)
	rec, err = ReadNormRecord(r, &buf, nil)
	if err != nil || cap(buf) != capBefore {
		t.Fatalf("second record: %v, buffer %d -> %d", err, capBefore, cap(buf))
	}
	rd := bytes.NewReader(data)
	r = bufio.NewReaderSize(rd, 1<<20)
	allocs := testing.AllocsPerRun(100, func() {
		rd.Reset(data)
		r.Reset(rd)
		for {
			if _, err := ReadNormRecord(r, &buf, nil); err != nil {
				if err != io.EOF {
					t.Fatal(err)
				}
				return
			}
		}
	})
	if allocs != 0 {
		t.Errorf("reading a copy with a grown buffer: %v allocations, want 0", allocs)
	}
}

func TestReadNormRecordCorrupt(t *testing.T) {
	recs := testNorms()
	data := appendNorms(nil, recs)
	boundaries := map[int]bool{0: true}
	for i := range recs {
		boundaries[len(appendNorms(nil, recs[:i+1]))] = true
	}
	for _, only := range []func(int64) bool{nil, func(int64) bool { return false }} {
		for n := range len(data) {
			got, err := readNorms(data[:n], only, 16)
			if boundaries[n] {
				if err != io.EOF {
					t.Errorf("cut at a record boundary %d: %v, want EOF", n, err)
				}
				continue
			}
			if !errors.Is(err, ErrCorrupt) || !errors.Is(err, io.ErrUnexpectedEOF) {
				t.Errorf("cut at %d of %d: %d records, %v; want ErrCorrupt and ErrUnexpectedEOF", n, len(data), len(got), err)
			}
		}
	}
	overflow := bytes.Repeat([]byte{0xff}, 11)
	cat := func(parts ...[]byte) []byte { return bytes.Join(parts, nil) }
	u := func(v uint64) []byte { return binary.AppendUvarint(nil, v) }
	for _, tt := range []struct {
		name string
		data []byte
	}{
		{"index overflows", cat(overflow, []byte{0, 0, 0})},
		{"index MaxLines", cat(u(MaxLines), []byte{0, 0, 0})},
		{"raw length overflows", cat([]byte{0}, overflow, []byte{0, 0})},
		{"raw length over MaxInt", cat([]byte{0}, u(math.MaxInt+1), []byte{0, 0})},
		{"id length overflows", cat([]byte{0, 0}, overflow, []byte{0})},
		{"id too long", cat([]byte{0, 0}, u(MaxNormField+1), []byte{0})},
		{"text length overflows", cat([]byte{0, 0, 1, 'a'}, overflow)},
		{"text too long", cat([]byte{0, 0, 1, 'a'}, u(MaxNormField+1), []byte("abc"))},
		{"text longer than the copy", cat([]byte{0, 0, 1, 'a'}, u(MaxNormField), []byte("abc"))},
	} {
		for _, only := range []func(int64) bool{nil, func(int64) bool { return false }} {
			if got, err := readNorms(tt.data, only, 16); !errors.Is(err, ErrCorrupt) || len(got) != 0 {
				t.Errorf("%s: %v, %v; want ErrCorrupt", tt.name, got, err)
			}
		}
	}
	// A read error is reported, as corrupt.
	r := bufio.NewReaderSize(iotest.TimeoutReader(bytes.NewReader(data)), 16)
	var buf []byte
	var err error
	for err == nil {
		_, err = ReadNormRecord(r, &buf, nil)
	}
	if !errors.Is(err, ErrCorrupt) || !errors.Is(err, iotest.ErrTimeout) {
		t.Errorf("read error: %v, want ErrCorrupt and the error", err)
	}
}

// FuzzReadNormRecord: any copy reads, with or without a selection, to the
// records the transforms' old reader read (up to a line index or raw length
// out of range, which is now corrupt), and then io.EOF, or fails with
// ErrCorrupt where the old reader failed; what reads re-encodes to what it
// was read from.
func FuzzReadNormRecord(f *testing.F) {
	data := appendNorms(nil, testNorms())
	f.Add(data, uint8(0))
	f.Add(data, uint8(2))
	f.Add(data[:len(data)-1], uint8(0))
	f.Add(data[:len(data)-1], uint8(3))
	f.Add(AppendNormRecord(nil, MaxLines, 1, rank.Key{}, "a", nil), uint8(0))
	f.Add([]byte{}, uint8(0))
	f.Fuzz(func(t *testing.T, data []byte, sel uint8) {
		var only func(int64) bool
		if sel > 0 {
			only = func(i int64) bool { return i%int64(sel) == 0 }
		}
		plain, lerr := plainReadNorm(data)
		strict := false // a record out of the new bounds
		for i, n := range plain {
			if n.index >= MaxLines || n.rawLen > math.MaxInt {
				plain, strict = plain[:i], true
				break
			}
		}
		var want []normRec
		for _, n := range plain {
			if only == nil || only(int64(n.index)) {
				want = append(want, n)
			}
		}
		got, err := readNorms(data, only, 16)
		if err == io.EOF {
			if lerr != nil || strict {
				t.Fatalf("read to EOF, plain error %v, out of bounds %v", lerr, strict)
			}
		} else if !errors.Is(err, ErrCorrupt) {
			t.Fatalf("ReadNormRecord error %v is not ErrCorrupt", err)
		} else if lerr == nil && !strict {
			t.Fatalf("ReadNormRecord error %v, plain read to the end", err)
		}
		if !equalNorms(got, want) {
			t.Fatalf("ReadNormRecord = %v, plain %v", got, want)
		}
		if err != io.EOF || only != nil {
			return
		}
		if re := appendNorms(nil, got); len(re) > len(data) {
			t.Fatalf("re-encoding takes %d bytes, read from %d", len(re), len(data))
		} else if again, err := readNorms(re, nil, 16); err != io.EOF || !equalNorms(again, got) {
			t.Fatalf("re-encoded records read as %v, %v", again, err)
		}
	})
}
