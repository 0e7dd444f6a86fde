package wire

import (
	"bytes"
	"encoding/binary"
	"errors"
	"math"
	"slices"
	"testing"
)

// plainAppendHalf and plainDecodeHalf are the half-join record written out
// plainly, apart from the package's code: the oracle the tests hold
// AppendHalf and DecodeHalf to.
func plainAppendHalf(c []byte, a *Info, bs []Doc) []byte {
	c = binary.AppendUvarint(c, uint64(len(bs)))
	for _, d := range bs {
		c = binary.AppendUvarint(c, d)
	}
	return AppendInfo(c, a)
}

func plainDecodeHalf(c []byte, a *Info, docs []Doc) ([]byte, []Doc, error) {
	n, k := binary.Uvarint(c)
	if k <= 0 || n == 0 || n > uint64(len(c)) {
		return nil, nil, ErrCorrupt
	}
	c = c[k:]
	docs = docs[:0]
	for range n {
		d, k := binary.Uvarint(c)
		if k <= 0 {
			return nil, nil, ErrCorrupt
		}
		docs = append(docs, d)
		c = c[k:]
	}
	c, err := DecodeInfo(c, a)
	return c, docs, err
}

type halfRec struct {
	a    Info
	docs []Doc
}

func testHalves() []halfRec {
	infos := testInfos()
	return []halfRec{
		{infos[0], []Doc{0}},
		{infos[1], []Doc{DocNum(2, 10), DocNum(2, 11), DocNum(7, 0)}},
		{infos[2], []Doc{math.MaxUint64}},
		{infos[3], []Doc{DocNum(MaxFiles-1, MaxLines-1), 1, 1}},
		{infos[4], []Doc{DocNum(1, 127), DocNum(1, 128)}},
	}
}

func TestHalfLayout(t *testing.T) {
	a := &Info{Doc: 5, ID: "x", Len: 3, Sketch: []uint8{1}}
	got := AppendHalf([]byte{0xee}, a, []Doc{300, 1})
	want := append([]byte{0xee,
		2,          // two second documents
		0xac, 0x02, // 300
		1, // 1
	}, AppendInfo(nil, a)...)
	if !bytes.Equal(got, want) {
		t.Errorf("AppendHalf = % x, want % x", got, want)
	}
	for _, h := range testHalves() {
		if got, want := AppendHalf(nil, &h.a, h.docs), plainAppendHalf(nil, &h.a, h.docs); !bytes.Equal(got, want) {
			t.Errorf("AppendHalf(%v) = % x, plain % x", h.docs, got, want)
		}
	}
}

func TestHalfRoundTrip(t *testing.T) {
	hs := testHalves()
	var chunk []byte
	for _, h := range hs {
		chunk = AppendHalf(chunk, &h.a, h.docs)
	}
	var a Info
	docs := make([]Doc, 5, 16) // reused from [:0]
	rest := chunk
	for i, h := range hs {
		var err error
		if rest, docs, err = DecodeHalf(rest, &a, docs); err != nil {
			t.Fatalf("record %d: %v", i, err)
		}
		if !infoEqual(&a, &h.a) || !slices.Equal(docs, h.docs) {
			t.Errorf("record %d = %+v %v, want %+v %v", i, a, docs, h.a, h.docs)
		}
		if cap(docs) != 16 {
			t.Errorf("record %d: docs reallocated", i)
		}
	}
	if len(rest) != 0 {
		t.Errorf("DecodeHalf left %d bytes", len(rest))
	}
}

func TestAppendHalfEmptyPanics(t *testing.T) {
	defer func() {
		if recover() == nil {
			t.Error("no panic for a record without second documents")
		}
	}()
	AppendHalf(nil, &Info{}, nil)
}

func TestDecodeHalfCorrupt(t *testing.T) {
	for _, h := range testHalves() {
		full := AppendHalf(nil, &h.a, h.docs)
		for n := range len(full) {
			var a Info
			if rest, _, err := DecodeHalf(full[:n], &a, nil); !errors.Is(err, ErrCorrupt) || rest != nil {
				t.Errorf("%v cut to %d of %d bytes: % x, %v; want nil, ErrCorrupt", h.docs, n, len(full), rest, err)
			}
		}
	}
	info := AppendInfo(nil, &Info{Doc: 1})
	for _, tt := range []struct {
		name  string
		chunk []byte
	}{
		{"no documents", append([]byte{0}, info...)},
		{"count overflows", bytes.Repeat([]byte{0xff}, 11)},
		{"count over the chunk's length", append([]byte{40, 1, 2}, info...)},
		{"document overflows", append(append([]byte{1}, bytes.Repeat([]byte{0x80}, 10)...), 0x02)},
		{"info cut", append([]byte{1, 5}, info[:len(info)-1]...)},
	} {
		var a Info
		if rest, docs, err := DecodeHalf(tt.chunk, &a, nil); !errors.Is(err, ErrCorrupt) || rest != nil || len(docs) != 0 {
			t.Errorf("%s: DecodeHalf = % x, %v, %v; want nil, none, ErrCorrupt", tt.name, rest, docs, err)
		}
	}
}

// FuzzDecodeHalf: any chunk decodes, record by record, to half-join
// records that re-encode and decode to themselves, or fails with
// ErrCorrupt, exactly where the transforms' old decoder failed.
func FuzzDecodeHalf(f *testing.F) {
	var all []byte
	for _, h := range testHalves() {
		one := AppendHalf(nil, &h.a, h.docs)
		f.Add(one)
		f.Add(one[:len(one)-1])
		all = append(all, one...)
	}
	f.Add(all)
	f.Add([]byte{})
	f.Fuzz(func(t *testing.T, data []byte) {
		var docs, ldocs []Doc
		for rest, lrest := data, data; len(rest) > 0; {
			var a, la Info
			next, d, err := DecodeHalf(rest, &a, docs)
			docs = d
			lnext, ld, lerr := plainDecodeHalf(lrest, &la, ldocs)
			ldocs = ld
			if (err == nil) != (lerr == nil) {
				t.Fatalf("DecodeHalf error %v, plain error %v", err, lerr)
			}
			if err != nil {
				if !errors.Is(err, ErrCorrupt) || next != nil || len(docs) != 0 {
					t.Fatalf("DecodeHalf = % x, %v, %v with an error", next, docs, err)
				}
				return
			}
			if !bytes.Equal(next, lnext) || !slices.Equal(docs, ldocs) || !infoEqual(&a, &la) {
				t.Fatalf("DecodeHalf and the plain decoder disagree")
			}
			consumed := len(rest) - len(next)
			if consumed <= 0 || len(docs) == 0 {
				t.Fatalf("DecodeHalf consumed %d bytes, %d documents", consumed, len(docs))
			}
			enc := AppendHalf(nil, &a, docs)
			if len(enc) > consumed {
				t.Fatalf("re-encoding takes %d bytes, decoded from %d", len(enc), consumed)
			}
			var again Info
			tail, adocs, err := DecodeHalf(enc, &again, nil)
			if err != nil || len(tail) != 0 || !infoEqual(&again, &a) || !slices.Equal(adocs, docs) {
				t.Fatalf("re-encoded record decodes to %+v %v, %v (tail %d), want %+v %v", again, adocs, err, len(tail), a, docs)
			}
			rest, lrest = next, lnext
		}
	})
}
