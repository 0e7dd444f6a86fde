package wire

import (
	"bytes"
	"errors"
	"math"
	"slices"
	"testing"
)

func TestAppendSizedEntryLayout(t *testing.T) {
	prev := Doc(99) // a new chunk resets it
	got := AppendSizedEntry(nil, SizedEntry{Key: 0x0102030405060708, Doc: DocNum(1, 2), Size: 10, Band: 7}, &prev)
	got = AppendSizedEntry(got, SizedEntry{Key: 0xff, Doc: DocNum(1, 1), Size: 300, Band: 255}, &prev)
	want := []byte{
		0x01,                         // file 1
		0x08, 0x07, 0x06, 0x05, 0x04, // low 40 bits of the key
		0x04, // line 2: +2 zigzag
		10,   // size
		7,    // band
		0xff, 0, 0, 0, 0,
		0x01,       // line 1: -1 zigzag
		0xac, 0x02, // size 300
		0xff,
	}
	if !bytes.Equal(got, want) {
		t.Errorf("AppendSizedEntry = % x, want % x", got, want)
	}
}

func TestSizedEntriesRoundTrip(t *testing.T) {
	for _, tc := range []struct {
		name string
		in   []SizedEntry
	}{
		{"none", nil},
		{"one", []SizedEntry{{Key: 5, Doc: DocNum(0, 0), Size: 0, Band: 0}}},
		{"extremes", []SizedEntry{
			{Key: math.MaxUint64, Doc: DocNum(MaxFiles-1, MaxLines-1), Size: math.MaxUint32, Band: 255},
			{Key: 1, Doc: DocNum(MaxFiles-1, 0), Size: 1, Band: 1},
			{Key: 1 << 41, Doc: DocNum(MaxFiles-1, 77), Size: 12345, Band: 200},
		}},
	} {
		var chunk []byte
		var prev Doc
		for _, e := range tc.in {
			chunk = AppendSizedEntry(chunk, e, &prev)
		}
		prefix := []SizedEntry{{Key: 7, Doc: 7, Size: 7, Band: 7}}
		got, err := AppendSizedEntries(slices.Clone(prefix), chunk)
		if err != nil {
			t.Fatalf("%s: %v", tc.name, err)
		}
		want := slices.Clone(prefix)
		for _, e := range tc.in {
			e.Key &= lowKey
			want = append(want, e)
		}
		if !slices.Equal(got, want) {
			t.Errorf("%s: AppendSizedEntries = %v, want %v", tc.name, got, want)
		}
	}
}

// TestSizedEntriesCorrupt checks that every cut of a chunk that is not at
// an entry boundary, a size past uint32 and a file index past MaxFiles
// are ErrCorrupt and leave dst as it was.
func TestSizedEntriesCorrupt(t *testing.T) {
	var chunk []byte
	var prev Doc
	for i := range 3 {
		chunk = AppendSizedEntry(chunk, SizedEntry{Key: uint64(i) * 0x0101010101, Doc: DocNum(5, int64(i)*200), Size: uint32(i) * 1000, Band: uint8(i)}, &prev)
	}
	prefix := []SizedEntry{{Key: 9}}
	boundaries := 0
	for n := 1; n <= len(chunk); n++ {
		got, err := AppendSizedEntries(slices.Clone(prefix), chunk[:n])
		if err == nil {
			boundaries++
			continue
		}
		if !errors.Is(err, ErrCorrupt) {
			t.Errorf("cut at %d: error %v does not wrap ErrCorrupt", n, err)
		}
		if !slices.Equal(got, prefix) {
			t.Errorf("cut at %d: error but dst changed to %v", n, got)
		}
	}
	if boundaries != 4 { // after the header, and after each entry
		t.Errorf("%d cuts decode without error, want 4", boundaries)
	}
	for _, c := range []struct {
		name  string
		chunk []byte
	}{
		{"size past uint32", []byte{0, 1, 2, 3, 4, 5, 0, 0x80, 0x80, 0x80, 0x80, 0x10, 0}},
		{"file past MaxFiles", []byte{0xff, 0xff, 0xff, 0xff, 0x0f}},
		{"negative line", []byte{0, 1, 2, 3, 4, 5, 0x01, 1, 0}},
	} {
		if _, err := AppendSizedEntries(nil, c.chunk); !errors.Is(err, ErrCorrupt) {
			t.Errorf("%s: %v, want ErrCorrupt", c.name, err)
		}
	}
}

func BenchmarkAppendSizedEntries(b *testing.B) {
	var chunk []byte
	var prev Doc
	for i := range 3000 {
		chunk = AppendSizedEntry(chunk, SizedEntry{Key: uint64(i) * 0x9E3779B97F4A7C15, Doc: DocNum(3, int64(i/150)), Size: uint32(100 + i%500), Band: uint8(i % 150)}, &prev)
	}
	dst := make([]SizedEntry, 0, 3000)
	b.SetBytes(int64(len(chunk)))
	b.ReportAllocs()
	for b.Loop() {
		dst, _ = AppendSizedEntries(dst[:0], chunk)
	}
	b.ReportMetric(float64(len(chunk))/3000, "bytes/entry")
}
