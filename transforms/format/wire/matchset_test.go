package wire

import (
	"bytes"
	"encoding/binary"
	"errors"
	"slices"
	"testing"
)

// plainAppendMatchSet and plainDecodeMatchSet are the match-set record
// written out plainly, apart from the package's code: the oracle the tests
// hold AppendMatchSet and DecodeMatchSet to.
func plainAppendMatchSet(c []byte, ms []Match, group []int, set []uint32) []byte {
	c = binary.AppendUvarint(c, uint64(len(group)))
	for _, i := range group {
		c = AppendMatch(c, &ms[i])
	}
	return AppendSet(c, set)
}

func plainDecodeMatchSet(c []byte) ([]byte, []Match, []uint32, error) {
	n, k := binary.Uvarint(c)
	if k <= 0 || n == 0 || n > uint64(len(c)) {
		return nil, nil, nil, ErrCorrupt
	}
	c = c[k:]
	group := make([]Match, n)
	var err error
	for i := range group {
		if c, err = DecodeMatch(c, &group[i]); err != nil {
			return nil, nil, nil, err
		}
	}
	var set []uint32
	if set, c, err = DecodeSet(c, nil); err != nil {
		return nil, nil, nil, err
	}
	return c, group, set, nil
}

type matchSetRec struct {
	ms  []Match
	set []uint32
}

func testMatchSets() []matchSetRec {
	ms := testMatches()
	return []matchSetRec{
		{ms[:1], nil},
		{ms[1:2], []uint32{0}},
		{ms[1:4], []uint32{1, 5, 1 << 20, 1<<32 - 1}},
		{ms, []uint32{7, 8, 9, 10, 11, 12}},
	}
}

// appendMS appends a record of all of ms.
func appendMS(chunk []byte, ms []Match, set []uint32) []byte {
	return AppendMatchSet(chunk, len(ms), func(i int) *Match { return &ms[i] }, set)
}

func matchesEqual(a, b []Match) bool {
	return slices.EqualFunc(a, b, func(x, y Match) bool { return matchEqual(&x, &y) })
}

func TestMatchSetLayout(t *testing.T) {
	ms := testMatches()
	// Matches picked by index, as the shingle-set stage picks them.
	idx := []int{3, 1}
	got := AppendMatchSet([]byte{0xee}, len(idx), func(i int) *Match { return &ms[idx[i]] }, []uint32{4, 9})
	want := []byte{0xee, 2}
	want = AppendMatch(want, &ms[3])
	want = AppendMatch(want, &ms[1])
	want = AppendSet(want, []uint32{4, 9})
	if !bytes.Equal(got, want) {
		t.Errorf("AppendMatchSet = % x, want % x", got, want)
	}
	if plain := plainAppendMatchSet([]byte{0xee}, ms, idx, []uint32{4, 9}); !bytes.Equal(got, plain) {
		t.Errorf("AppendMatchSet = % x, plain % x", got, plain)
	}
}

func TestMatchSetRoundTrip(t *testing.T) {
	recs := testMatchSets()
	var chunk []byte
	for _, r := range recs {
		chunk = appendMS(chunk, r.ms, r.set)
	}
	rest := chunk
	var ms []Match
	for i, r := range recs {
		var set []uint32
		var err error
		if rest, ms, set, err = DecodeMatchSet(rest, ms, nil); err != nil {
			t.Fatalf("record %d: %v", i, err)
		}
		if !matchesEqual(ms, r.ms) || !slices.Equal(set, r.set) {
			t.Errorf("record %d = %+v %v, want %+v %v", i, ms, set, r.ms, r.set)
		}
	}
	if len(rest) != 0 {
		t.Errorf("DecodeMatchSet left %d bytes", len(rest))
	}
	// The set buffer is reused when given.
	buf := make([]uint32, 0, 64)
	_, _, set, err := DecodeMatchSet(chunk, nil, buf)
	if err != nil || &set[:1][0] != &buf[:1][0] {
		t.Errorf("DecodeMatchSet did not decode into the set buffer given: %v", err)
	}
}

func TestAppendMatchSetEmptyPanics(t *testing.T) {
	defer func() {
		if recover() == nil {
			t.Error("no panic for a record without matches")
		}
	}()
	AppendMatchSet(nil, 0, nil, []uint32{1})
}

func TestDecodeMatchSetCorrupt(t *testing.T) {
	for i, r := range testMatchSets() {
		full := appendMS(nil, r.ms, r.set)
		for n := range len(full) {
			if rest, ms, set, err := DecodeMatchSet(full[:n], nil, nil); !errors.Is(err, ErrCorrupt) || rest != nil || len(ms) != 0 || set != nil {
				t.Errorf("record %d cut to %d of %d bytes: % x, %d, %v, %v; want nil, none, nil, ErrCorrupt", i, n, len(full), rest, len(ms), set, err)
			}
		}
	}
	m := AppendMatch(nil, &Match{A: 1, B: 2})
	set := AppendSet(nil, []uint32{1, 2})
	cat := func(parts ...[]byte) []byte { return bytes.Join(parts, nil) }
	for _, tt := range []struct {
		name  string
		chunk []byte
	}{
		{"no matches", cat([]byte{0}, set)},
		{"count overflows", bytes.Repeat([]byte{0xff}, 11)},
		{"count over the chunk's length", cat([]byte{200}, m, set)},
		{"fewer matches than counted", cat([]byte{2}, m, set)},
		{"no set", cat([]byte{1}, m)},
		{"set cut", cat([]byte{1}, m, []byte{2, 31, 3, 0})},
		// {1, 1}: L 31, low bits 1 and 1, high bits 0 and 0.
		{"set repeats a value", cat([]byte{1}, m, []byte{2, 31, 0x01, 0, 0, 0x80, 0, 0, 0, 0, 0x03})},
	} {
		if rest, ms, set, err := DecodeMatchSet(tt.chunk, nil, nil); !errors.Is(err, ErrCorrupt) || rest != nil || len(ms) != 0 || set != nil {
			t.Errorf("%s: DecodeMatchSet = % x, %d, %v, %v; want ErrCorrupt", tt.name, rest, len(ms), set, err)
		}
	}
}

// FuzzDecodeMatchSet: any chunk decodes, record by record, to match-set
// records that re-encode and decode to themselves, or fails with
// ErrCorrupt, exactly where the transforms' old decoder failed.
func FuzzDecodeMatchSet(f *testing.F) {
	var all []byte
	for _, r := range testMatchSets() {
		one := appendMS(nil, r.ms, r.set)
		f.Add(one)
		f.Add(one[:len(one)-1])
		all = append(all, one...)
	}
	f.Add(all)
	f.Add([]byte{})
	f.Fuzz(func(t *testing.T, data []byte) {
		var ms []Match
		var set []uint32
		for rest, lrest := data, data; len(rest) > 0; {
			next, m, s, err := DecodeMatchSet(rest, ms, set)
			ms, set = m, s
			lnext, lms, lset, lerr := plainDecodeMatchSet(lrest)
			if (err == nil) != (lerr == nil) {
				t.Fatalf("DecodeMatchSet error %v, plain error %v", err, lerr)
			}
			if err != nil {
				if !errors.Is(err, ErrCorrupt) || next != nil || len(ms) != 0 || set != nil {
					t.Fatalf("DecodeMatchSet = % x, %d, %v, %v with an error", next, len(ms), set, err)
				}
				return
			}
			if !bytes.Equal(next, lnext) || !matchesEqual(ms, lms) || !slices.Equal(set, lset) {
				t.Fatalf("DecodeMatchSet and the plain decoder disagree")
			}
			if len(ms) == 0 || len(next) >= len(rest) || !slices.IsSorted(set) {
				t.Fatalf("DecodeMatchSet: %d matches, rest %d of %d bytes, set %v", len(ms), len(next), len(rest), set)
			}
			enc := appendMS(nil, ms, set)
			tail, again, aset, err := DecodeMatchSet(enc, nil, nil)
			if err != nil || len(tail) != 0 || !matchesEqual(again, ms) || !slices.Equal(aset, set) {
				t.Fatalf("re-encoded record decodes to %+v %v, %v (tail %d), want %+v %v", again, aset, err, len(tail), ms, set)
			}
			rest, lrest = next, lnext
		}
	})
}
