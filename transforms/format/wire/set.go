package wire

import (
	"encoding/binary"
	"fmt"
	"math/bits"
)

// A shingle set (sorted, distinct 32-bit hashes) travels Elias-Fano coded:
// each value's low L bits verbatim and its high bits in unary, where
// L = floor(log2(2^32 / n)) for n values. That is L + 1 + 2^(32-L)/n < L+3
// bits a value instead of 32: 25.7 bits for a 300-shingle document, 21.1
// for 8,000.
//
//	uvarint n | byte L | n*L low bits, packed | high bits: one 1 per value at
//	position (value >> L) + i, 0s between, up to the last 1
//
// Bits are packed little-endian: bit k of a stream is bit k%8 of byte k/8.

// AppendSet appends the encoding of set, which must be sorted and without
// repeats, to chunk.
func AppendSet(chunk []byte, set []uint32) []byte {
	n := len(set)
	chunk = binary.AppendUvarint(chunk, uint64(n))
	if n == 0 {
		return chunk
	}
	l := lowBits(n)
	chunk = append(chunk, byte(l))
	lowLen := (n*l + 7) / 8
	last := int(set[n-1] >> l)
	highLen := (n + last + 7) / 8
	start := len(chunk)
	chunk = append(chunk, make([]byte, lowLen+highLen)...)
	low, high := chunk[start:start+lowLen], chunk[start+lowLen:]
	mask := uint32(1)<<l - 1
	for i, v := range set {
		if off := i * l; off/8+8 <= len(low) {
			w := binary.LittleEndian.Uint64(low[off/8:]) | uint64(v&mask)<<(off%8)
			binary.LittleEndian.PutUint64(low[off/8:], w)
		} else {
			putBits(low, off, l, v&mask)
		}
		p := int(v>>l) + i
		high[p/8] |= 1 << (p % 8)
	}
	return chunk
}

// DecodeSet decodes the set at the start of chunk, appending its values to
// dst[:0] (a new slice of the set's size if dst has not the capacity), and
// returns the set and the rest of the chunk. It fails on a
// truncated or malformed encoding, including values out of order.
func DecodeSet(chunk []byte, dst []uint32) ([]uint32, []byte, error) {
	dst = dst[:0]
	n64, k := binary.Uvarint(chunk)
	if k <= 0 || n64 > uint64(len(chunk))*8 {
		return nil, nil, fmt.Errorf("%w: set size", ErrCorrupt)
	}
	chunk = chunk[k:]
	n := int(n64)
	if n == 0 {
		return dst, chunk, nil
	}
	if len(chunk) < 1 || int(chunk[0]) != lowBits(n) {
		return nil, nil, fmt.Errorf("%w: set of %d with low bits %v", ErrCorrupt, n, chunk[:min(1, len(chunk))])
	}
	l := int(chunk[0])
	chunk = chunk[1:]
	lowLen := (n*l + 7) / 8
	if len(chunk) < lowLen {
		return nil, nil, fmt.Errorf("%w: short set", ErrCorrupt)
	}
	low, high := chunk[:lowLen], chunk[lowLen:]
	if cap(dst) < n { // one allocation of the size, not appends that grow it
		dst = make([]uint32, 0, n)
	}
	mask := uint32(1)<<l - 1
	i := 0
	for b := 0; b < len(high); b += 8 {
		var w uint64
		if b+8 <= len(high) {
			w = binary.LittleEndian.Uint64(high[b:])
		} else {
			for k, c := range high[b:] {
				w |= uint64(c) << (8 * k)
			}
		}
		for w != 0 {
			pos := b*8 + bits.TrailingZeros64(w)
			h := pos - i // position minus rank: the high bits
			w &= w - 1
			if uint64(h) > uint64(1<<32-1)>>l {
				return nil, nil, fmt.Errorf("%w: set value out of range", ErrCorrupt)
			}
			off := i * l
			var lo uint32
			if off/8+8 <= len(low) {
				lo = uint32(binary.LittleEndian.Uint64(low[off/8:])>>(off%8)) & mask
			} else {
				lo = getBits(low, off, l)
			}
			v := uint32(h)<<l | lo
			if i > 0 && v <= dst[len(dst)-1] {
				return nil, nil, fmt.Errorf("%w: set values out of order", ErrCorrupt)
			}
			dst = append(dst, v)
			i++
			if i == n {
				return dst, high[pos/8+1:], nil // the encoding ends with the byte of the last 1
			}
		}
	}
	return nil, nil, fmt.Errorf("%w: set of %d holds %d values", ErrCorrupt, n, i)
}

// lowBits is L for a set of n > 0 values: floor(log2(2^32 / n)), which is
// 32 - ceil(log2(n)).
func lowBits(n int) int { return 32 - bits.Len(uint(n-1)) }

// putBits writes the w low bits of v at bit offset off of b.
func putBits(b []byte, off, w int, v uint32) {
	for w > 0 {
		i, s := off/8, off%8
		take := min(8-s, w)
		b[i] |= byte(v&(1<<take-1)) << s
		v >>= take
		off += take
		w -= take
	}
}

// getBits reads w bits at bit offset off of b.
func getBits(b []byte, off, w int) uint32 {
	var v uint32
	for shift := 0; w > 0; {
		i, s := off/8, off%8
		take := min(8-s, w)
		v |= uint32(b[i]>>s&(1<<take-1)) << shift
		shift += take
		off += take
		w -= take
	}
	return v
}
