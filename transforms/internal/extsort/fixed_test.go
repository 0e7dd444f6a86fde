package extsort

import (
	"math"
	"testing"
)

// rec has a field of each kind Fields handles.
type rec struct {
	u64  uint64
	i64  int64
	u32  uint32
	f32  float32
	u8   uint8
	flag bool
}

var recCodec = Fixed(func(f Fields, v *rec) Fields {
	return f.U64(&v.u64).I64(&v.i64).U32(&v.u32).F32(&v.f32).U8(&v.u8).Bool(&v.flag)
}, nil)

// TestFixed: a record's Size is the sum of its fields' sizes, and Get reads
// back what Put wrote, for extreme values of each field, little-endian at
// the fields' offsets.
func TestFixed(t *testing.T) {
	if recCodec.Size != 8+8+4+4+1+1 {
		t.Fatalf("Size %d, want 26", recCodec.Size)
	}
	for _, want := range []rec{
		{},
		{u64: math.MaxUint64, i64: math.MinInt64, u32: math.MaxUint32, f32: -0.5, u8: 255, flag: true},
		{u64: 1, i64: -1, u32: 7, f32: float32(math.Inf(1)), u8: 1},
	} {
		b := make([]byte, recCodec.Size)
		recCodec.Put(b, &want)
		var got rec
		recCodec.Get(b, &got)
		if got != want {
			t.Errorf("Get(Put(%+v)) = %+v", want, got)
		}
		if le.Uint64(b) != want.u64 || le.Uint32(b[16:]) != want.u32 || b[24] != want.u8 {
			t.Errorf("%+v: bytes %x, not little-endian at the fields' offsets", want, b)
		}
	}
}

// BenchmarkFixed puts and gets a record: no allocation.
func BenchmarkFixed(b *testing.B) {
	buf := make([]byte, recCodec.Size)
	v := rec{u64: 1, i64: 2, u32: 3, f32: 4, u8: 5, flag: true}
	b.ReportAllocs()
	for b.Loop() {
		recCodec.Put(buf, &v)
		recCodec.Get(buf, &v)
	}
}
