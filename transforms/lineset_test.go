package transforms

import (
	"encoding/binary"
	"errors"
	"maps"
	"math/rand/v2"
	"slices"
	"testing"

	"github.com/neardup/neardup/transforms/format/wire"
)

func TestLineSet(t *testing.T) {
	var s lineSet
	for _, l := range []int64{-1, 0, 1, 63, 64, 1000} {
		if s.has(l) {
			t.Errorf("empty set has %d", l)
		}
	}
	r := rand.New(rand.NewPCG(1, 2))
	want := map[int64]bool{}
	for range 2000 {
		l := r.Int64N(50000)
		if r.IntN(10) == 0 {
			l = r.Int64N(130) // word boundaries, repeats
		}
		s.add(l)
		want[l] = true
	}
	for l := int64(-70); l < 50100; l++ {
		if s.has(l) != want[l] {
			t.Fatalf("has(%d) = %v, want %v", l, s.has(l), want[l])
		}
	}
	sorted := slices.Sorted(maps.Keys(want))
	if got := s.lines(); !slices.Equal(got, sorted) {
		t.Errorf("lines() gives %d lines, want the %d added, in order", len(got), len(sorted))
	}

	var chunks [][]byte
	var c []byte
	for i, l := range sorted {
		c = binary.AppendUvarint(c, uint64(l))
		if i%100 == 99 {
			chunks, c = append(chunks, c), nil
		}
	}
	chunks = append(chunks, c)
	read, err := readLineSet(iterChunks(chunks))
	if err != nil || !slices.Equal(read.lines(), sorted) {
		t.Errorf("readLineSet: %d lines, %v; want the %d encoded", len(read.lines()), err, len(sorted))
	}
	for _, bad := range [][]byte{{0x80}, binary.AppendUvarint(nil, 1<<40)} {
		if _, err := readLineSet(iterChunks([][]byte{bad})); !errors.Is(err, wire.ErrCorrupt) {
			t.Errorf("readLineSet(%x): %v, want ErrCorrupt", bad, err)
		}
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

// BenchmarkOnly is the test a reader makes for every line of a file of 100k
// records, 20% of them selected: with a lineSet and with the map it
// replaced.
func BenchmarkOnly(b *testing.B) {
	r := rand.New(rand.NewPCG(3, 4))
	var set lineSet
	m := map[int64]bool{}
	for range 20000 {
		l := r.Int64N(100000)
		set.add(l)
		m[l] = true
	}
	b.Run("lineSet", func(b *testing.B) {
		n := 0
		for b.Loop() {
			for l := range int64(100000) {
				if set.has(l) {
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
