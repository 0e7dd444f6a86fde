package wire

import (
	"bytes"
	"encoding/binary"
	"errors"
	"maps"
	"math/rand/v2"
	"slices"
	"testing"
)

func TestLineNumLayout(t *testing.T) {
	tests := []struct {
		line int64
		want []byte
	}{
		{0, []byte{0}},
		{127, []byte{0x7f}},
		{128, []byte{0x80, 0x01}},
		{300, []byte{0xac, 0x02}},
		{MaxLines - 1, []byte{0xff, 0xff, 0xff, 0xff, 0xff, 0x1f}},
	}
	for _, tt := range tests {
		got := AppendLineNum([]byte{9}, tt.line)
		if !bytes.Equal(got[1:], tt.want) || got[0] != 9 {
			t.Errorf("AppendLineNum(%d) = % x, want 09 % x", tt.line, got, tt.want)
		}
		// The layout written out plainly.
		if plain := binary.AppendUvarint(nil, uint64(tt.line)); !bytes.Equal(got[1:], plain) {
			t.Errorf("AppendLineNum(%d) = % x, plain % x", tt.line, got[1:], plain)
		}
		line, rest, err := DecodeLineNum(append(got[1:], 7))
		if err != nil || line != tt.line || !bytes.Equal(rest, []byte{7}) {
			t.Errorf("DecodeLineNum(% x) = %d, % x, %v; want %d, 07, nil", got[1:], line, rest, err, tt.line)
		}
	}
}

func TestDecodeLineNumCorrupt(t *testing.T) {
	for _, tt := range []struct {
		name  string
		chunk []byte
	}{
		{"empty", nil},
		{"cut", []byte{0x80}},
		{"cut long", []byte{0xff, 0xff, 0xff}},
		{"MaxLines", binary.AppendUvarint(nil, MaxLines)},
		{"2^64-1", binary.AppendUvarint(nil, 1<<64-1)},
		{"overflow", bytes.Repeat([]byte{0xff}, 11)},
	} {
		if line, rest, err := DecodeLineNum(tt.chunk); !errors.Is(err, ErrCorrupt) || rest != nil {
			t.Errorf("%s: DecodeLineNum = %d, % x, %v; want ErrCorrupt", tt.name, line, rest, err)
		}
	}
}

func TestLineSet(t *testing.T) {
	var s LineSet
	for _, l := range []int64{-1, 0, 1, 63, 64, 1000} {
		if s.Has(l) {
			t.Errorf("empty set has %d", l)
		}
	}
	if got := s.Lines(); len(got) != 0 {
		t.Errorf("empty set lines %v", got)
	}
	r := rand.New(rand.NewPCG(1, 2))
	want := map[int64]bool{}
	for range 2000 {
		l := r.Int64N(50000)
		if r.IntN(10) == 0 {
			l = r.Int64N(130) // word boundaries, repeats
		}
		s.Add(l)
		want[l] = true
	}
	for l := int64(-70); l < 50100; l++ {
		if s.Has(l) != want[l] {
			t.Fatalf("Has(%d) = %v, want %v", l, s.Has(l), want[l])
		}
	}
	sorted := slices.Sorted(maps.Keys(want))
	if got := s.Lines(); !slices.Equal(got, sorted) {
		t.Errorf("Lines() gives %d lines, want the %d added, in order", len(got), len(sorted))
	}

	// Chunks in any order, with repeats, read back into the same set.
	shuffled := slices.Clone(sorted)
	r.Shuffle(len(shuffled), func(i, j int) { shuffled[i], shuffled[j] = shuffled[j], shuffled[i] })
	shuffled = append(shuffled, sorted[:10]...)
	var chunks [][]byte
	var c []byte
	for i, l := range shuffled {
		c = AppendLineNum(c, l)
		if i%100 == 99 {
			chunks, c = append(chunks, c), nil
		}
	}
	chunks = append(chunks, c, nil)
	read, err := ReadLineSet(iterChunks(chunks))
	if err != nil || !slices.Equal(read.Lines(), sorted) {
		t.Errorf("ReadLineSet: %d lines, %v; want the %d encoded", len(read.Lines()), err, len(sorted))
	}
	if read, err := ReadLineSet(iterChunks(nil)); err != nil || len(read.Lines()) != 0 {
		t.Errorf("ReadLineSet of no chunks = %v, %v", read.Lines(), err)
	}
	for _, bad := range [][]byte{{0x80}, binary.AppendUvarint(nil, MaxLines), append(AppendLineNum(nil, 5), 0xff)} {
		if set, err := ReadLineSet(iterChunks([][]byte{AppendLineNum(nil, 3), bad})); !errors.Is(err, ErrCorrupt) || set != nil {
			t.Errorf("ReadLineSet(% x): %v, %v; want nil, ErrCorrupt", bad, set, err)
		}
	}
	// The largest line fits.
	if read, err := ReadLineSet(iterChunks([][]byte{AppendLineNum(nil, 1<<20)})); err != nil || !read.Has(1<<20) {
		t.Errorf("ReadLineSet(2^20): %v", err)
	}
}

// iterChunks is a Beam-style iterator over chunks.
func iterChunks(chunks [][]byte) func(*[]byte) bool {
	return func(c *[]byte) bool {
		if len(chunks) == 0 {
			return false
		}
		*c, chunks = chunks[0], chunks[1:]
		return true
	}
}

// plainReadLineSet decodes a line set plainly, into a map, apart from the
// package's code: the oracle the tests hold DecodeLineNum and ReadLineSet to.
func plainReadLineSet(chunk []byte) (map[int64]bool, error) {
	set := map[int64]bool{}
	for c := chunk; len(c) > 0; {
		line, n := binary.Uvarint(c)
		if n <= 0 || line >= 1<<40 {
			return nil, ErrCorrupt
		}
		set[int64(line)] = true
		c = c[n:]
	}
	return set, nil
}

// FuzzDecodeLineNums: any chunk decodes to line numbers, which re-encode
// and decode to themselves, or fails with ErrCorrupt; DecodeLineNum,
// ReadLineSet and the transforms' old decoder agree.
func FuzzDecodeLineNums(f *testing.F) {
	var all []byte
	for _, l := range []int64{0, 1, 127, 128, 300, 70000, MaxLines - 1, 5} {
		all = AppendLineNum(all, l)
	}
	f.Add(all)
	f.Add(all[:len(all)-1])
	f.Add(binary.AppendUvarint(nil, MaxLines))
	f.Add([]byte{})
	f.Fuzz(func(t *testing.T, data []byte) {
		var lines []int64
		var err error
		for c := data; len(c) > 0; {
			var l int64
			if l, c, err = DecodeLineNum(c); err != nil {
				if !errors.Is(err, ErrCorrupt) || c != nil {
					t.Fatalf("DecodeLineNum error %v, rest % x", err, c)
				}
				break
			}
			if l < 0 || l >= MaxLines {
				t.Fatalf("DecodeLineNum = %d, out of range", l)
			}
			lines = append(lines, l)
		}
		plain, lerr := plainReadLineSet(data)
		if (err == nil) != (lerr == nil) {
			t.Fatalf("DecodeLineNum error %v, plain error %v", err, lerr)
		}
		if err != nil {
			return
		}
		var re []byte
		for _, l := range lines {
			re = AppendLineNum(re, l)
			if !plain[l] {
				t.Fatalf("line %d not in the plain set", l)
			}
		}
		var again []int64
		for c := re; len(c) > 0; {
			var l int64
			if l, c, err = DecodeLineNum(c); err != nil {
				t.Fatalf("re-encoded lines: %v", err)
			}
			again = append(again, l)
		}
		if !slices.Equal(again, lines) {
			t.Fatalf("re-encoded lines decode to %v, want %v", again, lines)
		}
		// A LineSet of huge lines is too large to build here: check the
		// others.
		if len(data) > 0 && slices.Max(lines) < 1<<24 {
			set, err := ReadLineSet(iterChunks([][]byte{data}))
			if err != nil {
				t.Fatalf("ReadLineSet: %v", err)
			}
			sorted := slices.Sorted(maps.Keys(plain))
			if !slices.Equal(set.Lines(), sorted) {
				t.Fatalf("ReadLineSet = %v, want %v", set.Lines(), sorted)
			}
		}
	})
}

// BenchmarkOnly is the test a reader makes for every line of a file of 100k
// records, 20% of them selected: with a LineSet and with the map it
// replaced.
func BenchmarkOnly(b *testing.B) {
	r := rand.New(rand.NewPCG(3, 4))
	var set LineSet
	m := map[int64]bool{}
	for range 20000 {
		l := r.Int64N(100000)
		set.Add(l)
		m[l] = true
	}
	b.Run("LineSet", func(b *testing.B) {
		n := 0
		for b.Loop() {
			for l := range int64(100000) {
				if set.Has(l) {
					n++
				}
			}
		}
	})
	b.Run("map", func(b *testing.B) {
		n := 0
		for b.Loop() {
			for l := range int64(100000) {
				if m[l] {
					n++
				}
			}
		}
	})
}
