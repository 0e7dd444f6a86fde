package extsort

import (
	"encoding/binary"
	"math"
)

// Fields writes or reads the fields of a fixed-size record, one after the
// other, little-endian: the one list of a record's fields that Fixed makes
// its Codec's Size, Put and Get from. Each method handles the field at the
// next offset and returns the Fields for the next; a Fields of no bytes
// only counts them.
type Fields struct {
	b   []byte
	n   int
	get bool
}

// Fixed is the Codec of records of type T whose fields fields lists, in
// the order cmp gives them.
func Fixed[T any](fields func(f Fields, v *T) Fields, cmp func(a, b T) int) *Codec[T] {
	var zero T
	return &Codec[T]{
		Size: fields(Fields{}, &zero).n,
		Put:  func(b []byte, v *T) { fields(Fields{b: b}, v) },
		Get:  func(b []byte, v *T) { fields(Fields{b: b, get: true}, v) },
		Cmp:  cmp,
	}
}

var le = binary.LittleEndian

// U64 is a uint64 field.
func (f Fields) U64(p *uint64) Fields {
	switch {
	case f.b == nil:
	case f.get:
		*p = le.Uint64(f.b[f.n:])
	default:
		le.PutUint64(f.b[f.n:], *p)
	}
	f.n += 8
	return f
}

// I64 is an int64 field.
func (f Fields) I64(p *int64) Fields {
	u := uint64(*p)
	f = f.U64(&u)
	*p = int64(u)
	return f
}

// U32 is a uint32 field.
func (f Fields) U32(p *uint32) Fields {
	switch {
	case f.b == nil:
	case f.get:
		*p = le.Uint32(f.b[f.n:])
	default:
		le.PutUint32(f.b[f.n:], *p)
	}
	f.n += 4
	return f
}

// F32 is a float32 field.
func (f Fields) F32(p *float32) Fields {
	u := math.Float32bits(*p)
	f = f.U32(&u)
	*p = math.Float32frombits(u)
	return f
}

// U8 is a byte field.
func (f Fields) U8(p *uint8) Fields {
	switch {
	case f.b == nil:
	case f.get:
		*p = f.b[f.n]
	default:
		f.b[f.n] = *p
	}
	f.n++
	return f
}

// Bool is a bool field, a byte of 0 or 1.
func (f Fields) Bool(p *bool) Fields {
	var u uint8
	if *p {
		u = 1
	}
	f = f.U8(&u)
	*p = u != 0
	return f
}
