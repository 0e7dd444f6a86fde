package extsort

import (
	"encoding/binary"
	"fmt"
	"unsafe"
)

// Fields lists the fields of a fixed-size record, in the order they are
// written, each little-endian at the next offset: the one list of a
// record's fields that Fixed makes its Codec's Size, Put and Get from.
// Each method adds a field of the record and returns the Fields for the
// next.
type Fields struct {
	base unsafe.Pointer // the record listed
	ops  *[]fieldOp
}

// fieldOp is a field: its offset in the record and its kind.
type fieldOp struct {
	off  uintptr
	kind uint8
}

// The kinds of fields: 8, 4 or 1 byte, or a bool (a byte of 0 or 1).
const (
	kind64 = iota
	kind32
	kind8
	kindBool
)

var kindSize = [...]uintptr{kind64: 8, kind32: 4, kind8: 1, kindBool: 1}

// Fixed is the Codec of records of type T whose fields fields lists (of
// the record v it is given: each a field of v), in the order cmp gives
// them. fields is called once, here.
func Fixed[T any](fields func(f Fields, v *T) Fields, cmp func(a, b T) int) *Codec[T] {
	var v T
	var ops []fieldOp
	fields(Fields{base: unsafe.Pointer(&v), ops: &ops}, &v)
	size := 0
	for _, op := range ops {
		if op.off+kindSize[op.kind] > unsafe.Sizeof(v) {
			panic(fmt.Sprintf("extsort: a field at %d outside a record of %d bytes", op.off, unsafe.Sizeof(v)))
		}
		size += int(kindSize[op.kind])
	}
	return &Codec[T]{
		Size: size,
		Put:  func(b []byte, v *T) { put(b, unsafe.Pointer(v), ops) },
		Get:  func(b []byte, v *T) { get(b, unsafe.Pointer(v), ops) },
		Cmp:  cmp,
	}
}

var le = binary.LittleEndian

func put(b []byte, v unsafe.Pointer, ops []fieldOp) {
	n := 0
	for _, op := range ops {
		p := unsafe.Add(v, op.off)
		switch op.kind {
		case kind64:
			le.PutUint64(b[n:], *(*uint64)(p))
			n += 8
		case kind32:
			le.PutUint32(b[n:], *(*uint32)(p))
			n += 4
		default: // a byte; a bool's is 0 or 1
			b[n] = *(*uint8)(p)
			n++
		}
	}
}

func get(b []byte, v unsafe.Pointer, ops []fieldOp) {
	n := 0
	for _, op := range ops {
		p := unsafe.Add(v, op.off)
		switch op.kind {
		case kind64:
			*(*uint64)(p) = le.Uint64(b[n:])
			n += 8
		case kind32:
			*(*uint32)(p) = le.Uint32(b[n:])
			n += 4
		case kind8:
			*(*uint8)(p) = b[n]
			n++
		default:
			*(*bool)(p) = b[n] != 0
			n++
		}
	}
}

func (f Fields) add(p unsafe.Pointer, kind uint8) Fields {
	*f.ops = append(*f.ops, fieldOp{off: uintptr(p) - uintptr(f.base), kind: kind})
	return f
}

// U64 is a uint64 field.
func (f Fields) U64(p *uint64) Fields { return f.add(unsafe.Pointer(p), kind64) }

// I64 is an int64 field.
func (f Fields) I64(p *int64) Fields { return f.add(unsafe.Pointer(p), kind64) }

// U32 is a uint32 field.
func (f Fields) U32(p *uint32) Fields { return f.add(unsafe.Pointer(p), kind32) }

// F32 is a float32 field (its IEEE 754 bits).
func (f Fields) F32(p *float32) Fields { return f.add(unsafe.Pointer(p), kind32) }

// U8 is a byte field.
func (f Fields) U8(p *uint8) Fields { return f.add(unsafe.Pointer(p), kind8) }

// Bool is a bool field, a byte of 0 or 1.
func (f Fields) Bool(p *bool) Fields { return f.add(unsafe.Pointer(p), kindBool) }
