package wire

import (
	"encoding/binary"
	"fmt"
)

// A stat record is one (name, value) count on its way to the summary, one
// record an element:
//
//	uvarint name length | name | varint (zigzag) value

// AppendStat appends the stat record of (name, v) to dst.
func AppendStat(dst []byte, name string, v int64) []byte {
	dst = appendString(dst, name)
	return binary.AppendVarint(dst, v)
}

// DecodeStat decodes a stat record that fills b. Bytes after the value are
// corrupt.
func DecodeStat(b []byte) (string, int64, error) {
	name, rest, err := decodeString(b)
	if err != nil {
		return "", 0, fmt.Errorf("%w: stat name", ErrCorrupt)
	}
	v, k := binary.Varint(rest)
	if k <= 0 || k != len(rest) {
		return "", 0, fmt.Errorf("%w: stat value", ErrCorrupt)
	}
	return name, v, nil
}
