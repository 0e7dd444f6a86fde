package wire

import (
	"errors"
	"slices"
	"testing"
)

func TestKeySetRoundTrip(t *testing.T) {
	tests := []struct {
		tag  byte
		keys []uint64
	}{
		{KeySetExact, []uint64{0, 1, 1 << 63, 42}},
		{KeySetBlock, []uint64{7, 1<<KeyBits - 1}},
		{KeySetExact, nil},
	}
	for _, tc := range tests {
		c := NewKeySet(tc.tag)
		for _, k := range tc.keys {
			c = AppendKey(c, k)
		}
		var got []uint64
		tag, err := DecodeKeySet(c, func(tag byte, k uint64) { got = append(got, k) }, nil)
		if err != nil || tag != tc.tag || !slices.Equal(got, tc.keys) {
			t.Errorf("%c: got %c %v %v, want %v", tc.tag, tag, got, err, tc.keys)
		}
	}
	for _, tag := range []byte{KeySetSim, KeySetContain} {
		c := AppendKeyPair(AppendKeyPair(NewKeySet(tag), 1, 2), 3, 1<<64-1)
		var pairs [][2]uint64
		got, err := DecodeKeySet(c, nil, func(t byte, k, fp uint64) {
			if t == tag {
				pairs = append(pairs, [2]uint64{k, fp})
			}
		})
		if err != nil || got != tag {
			t.Fatal(got, err)
		}
		if !slices.Equal(pairs, [][2]uint64{{1, 2}, {3, 1<<64 - 1}}) {
			t.Errorf("%c: pairs %v", tag, pairs)
		}
	}
}

func TestKeySetCorrupt(t *testing.T) {
	for _, c := range [][]byte{nil, {'X', 0, 0, 0, 0, 0, 0, 0, 0}, {KeySetExact, 1, 2, 3}, AppendKey(NewKeySet(KeySetSim), 9)} {
		n := 0
		_, err := DecodeKeySet(c, func(byte, uint64) { n++ }, func(byte, uint64, uint64) { n++ })
		if !errors.Is(err, ErrCorrupt) || n != 0 {
			t.Errorf("%v: err %v after %d values, want ErrCorrupt and none", c, err, n)
		}
	}
}

// FuzzDecodeKeySet: any bytes decode to values that re-encode to the same
// chunk, or fail with ErrCorrupt having passed nothing on.
func FuzzDecodeKeySet(f *testing.F) {
	f.Add(AppendKey(NewKeySet(KeySetBlock), 5))
	f.Add(AppendKeyPair(NewKeySet(KeySetSim), 5, 6))
	f.Add(AppendKeyPair(NewKeySet(KeySetContain), 5, 6))
	f.Add([]byte{KeySetExact, 1})
	f.Fuzz(func(t *testing.T, b []byte) {
		var re []byte
		tag, err := DecodeKeySet(b,
			func(tag byte, k uint64) { re = AppendKey(re, k) },
			func(_ byte, k, fp uint64) { re = AppendKeyPair(re, k, fp) })
		if err != nil {
			if !errors.Is(err, ErrCorrupt) || len(re) > 0 {
				t.Fatalf("error %v after %d bytes of values", err, len(re))
			}
			return
		}
		if got := append(NewKeySet(tag), re...); !slices.Equal(got, b) {
			t.Fatalf("re-encoded %x, want %x", got, b)
		}
	})
}
