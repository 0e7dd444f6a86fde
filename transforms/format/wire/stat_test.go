package wire

import (
	"bytes"
	"encoding/binary"
	"errors"
	"math"
	"strings"
	"testing"
)

// plainEncodeStat and plainDecodeStat are the stat record written out
// plainly, apart from the package's code: the oracle the tests hold
// AppendStat and DecodeStat to.
func plainEncodeStat(name string, v int64) []byte {
	b := binary.AppendUvarint(nil, uint64(len(name)))
	b = append(b, name...)
	return binary.AppendVarint(b, v)
}

func plainDecodeStat(b []byte) (string, int64, error) {
	n, k := binary.Uvarint(b)
	if k <= 0 || uint64(len(b)-k) < n {
		return "", 0, ErrCorrupt
	}
	name := string(b[k : k+int(n)])
	v, k2 := binary.Varint(b[k+int(n):])
	if k2 <= 0 {
		return "", 0, ErrCorrupt
	}
	return name, v, nil
}

type statRec struct {
	name string
	v    int64
}

func testStats() []statRec {
	return []statRec{
		{"", 0},
		{"input", 1},
		{"removed", -1},
		{"candidate_pairs", 1 << 40},
		{"文档", math.MaxInt64},
		{strings.Repeat("n", 200), math.MinInt64},
	}
}

func TestStatLayout(t *testing.T) {
	got := AppendStat([]byte{0xee}, "ab", -2)
	want := []byte{0xee, 2, 'a', 'b', 3} // -2 zigzag is 3
	if !bytes.Equal(got, want) {
		t.Errorf("AppendStat = % x, want % x", got, want)
	}
	if got := AppendStat(nil, "x", 300); !bytes.Equal(got, []byte{1, 'x', 0xd8, 0x04}) {
		t.Errorf("AppendStat(x, 300) = % x", got)
	}
	for _, s := range testStats() {
		if got, want := AppendStat(nil, s.name, s.v), plainEncodeStat(s.name, s.v); !bytes.Equal(got, want) {
			t.Errorf("AppendStat(%q, %d) = % x, plain % x", s.name, s.v, got, want)
		}
	}
}

func TestStatRoundTrip(t *testing.T) {
	for _, s := range testStats() {
		name, v, err := DecodeStat(AppendStat(nil, s.name, s.v))
		if err != nil || name != s.name || v != s.v {
			t.Errorf("DecodeStat(AppendStat(%q, %d)) = %q, %d, %v", s.name, s.v, name, v, err)
		}
	}
}

func TestDecodeStatCorrupt(t *testing.T) {
	for _, s := range testStats() {
		full := AppendStat(nil, s.name, s.v)
		for n := range len(full) {
			if name, v, err := DecodeStat(full[:n]); !errors.Is(err, ErrCorrupt) || name != "" || v != 0 {
				t.Errorf("%q cut to %d of %d bytes: %q, %d, %v; want ErrCorrupt", s.name, n, len(full), name, v, err)
			}
		}
	}
	for _, tt := range []struct {
		name string
		b    []byte
	}{
		{"name length overflows", bytes.Repeat([]byte{0xff}, 11)},
		{"name length 2^64-1", []byte{0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0x01, 'a', 2}},
		{"value overflows", append([]byte{1, 'a'}, bytes.Repeat([]byte{0xff}, 11)...)},
		{"bytes after the value", []byte{1, 'a', 2, 0}},
	} {
		if _, _, err := DecodeStat(tt.b); !errors.Is(err, ErrCorrupt) {
			t.Errorf("%s: DecodeStat error %v, want ErrCorrupt", tt.name, err)
		}
	}
}

// FuzzDecodeStat: any element decodes to a stat that re-encodes and decodes
// to itself, or fails with ErrCorrupt; what decodes, the transforms' old
// decoder (which ignored bytes after the value) decodes alike.
func FuzzDecodeStat(f *testing.F) {
	for _, s := range testStats() {
		one := AppendStat(nil, s.name, s.v)
		f.Add(one)
		f.Add(one[:len(one)-1])
		f.Add(append(one, 0))
	}
	f.Add([]byte{})
	f.Fuzz(func(t *testing.T, data []byte) {
		name, v, err := DecodeStat(data)
		lname, lv, lerr := plainDecodeStat(data)
		if err != nil {
			if !errors.Is(err, ErrCorrupt) || name != "" || v != 0 {
				t.Fatalf("DecodeStat = %q, %d, %v", name, v, err)
			}
			return
		}
		if lerr != nil || lname != name || lv != v {
			t.Fatalf("DecodeStat = %q, %d; plain %q, %d, %v", name, v, lname, lv, lerr)
		}
		enc := AppendStat(nil, name, v)
		if len(enc) > len(data) {
			t.Fatalf("re-encoding takes %d bytes, decoded from %d", len(enc), len(data))
		}
		if again, av, err := DecodeStat(enc); err != nil || again != name || av != v {
			t.Fatalf("re-encoded stat decodes to %q, %d, %v; want %q, %d", again, av, err, name, v)
		}
	})
}
