package minhash

import (
	"encoding/binary"
	"math"
	"math/rand/v2"
	"slices"
	"testing"
)

// naiveClassic is the definition of the classic kernel.
func naiveClassic(dst, a, b, elems []uint64) {
	for i := range dst {
		for _, x := range elems {
			dst[i] = min(dst[i], a[i]*x+b[i])
		}
	}
}

// kernelElems returns n random elements, with 0 and the largest uint64
// among them when n allows.
func kernelElems(r *rand.Rand, n int) []uint64 {
	e := make([]uint64, n)
	for i := range e {
		e[i] = r.Uint64()
	}
	if n > 0 {
		e[r.IntN(n)] = 0
	}
	if n > 1 {
		e[r.IntN(n)] = math.MaxUint64
	}
	return e
}

// TestKernelsAgree checks both kernels of sketchClassic against the
// definition, from an all-Empty start and from random minima (which the
// kernels must keep where lower).
func TestKernelsAgree(t *testing.T) {
	if !haveAVX512 {
		t.Log("no AVX-512 kernel on this CPU or build; checking the Go kernel only")
	}
	r := rand.New(rand.NewPCG(5, 6))
	for _, k := range []int{1, 7, 8, 63, 64, 65, 128, 200} {
		h, err := New(k, Classic, DefaultSeed)
		if err != nil {
			t.Fatal(err)
		}
		for _, n := range []int{0, 1, 3, 8, 9, 1000} {
			elems := kernelElems(r, n)
			for _, start := range []string{"empty", "random"} {
				init := slices.Repeat([]uint64{Empty}, k)
				if start == "random" {
					for i := range init {
						init[i] = r.Uint64()
					}
				}
				want := slices.Clone(init)
				naiveClassic(want, h.a, h.b, elems)
				for _, simd := range []bool{false, true} {
					if simd && !haveAVX512 {
						continue
					}
					got := slices.Clone(init)
					sketchClassic(got, h.a, h.b, elems, simd)
					if i := firstDiff(got, want); i >= 0 {
						t.Errorf("k=%d n=%d %s start simd=%v: position %d = %x, want %x", k, n, start, simd, i, got[i], want[i])
					}
				}
			}
		}
	}
}

// TestAVX512KernelMatchesGo compares the assembly kernel itself with the Go
// kernel on random parameters, sketch lengths 8 to 512 and element counts
// 0 to 300.
func TestAVX512KernelMatchesGo(t *testing.T) {
	if !haveAVX512 {
		t.Skip("no AVX-512F and AVX-512DQ (or purego build)")
	}
	r := rand.New(rand.NewPCG(13, 14))
	for trial := 0; trial < 300; trial++ {
		k := 8 * (1 + r.IntN(64))
		a, b, dst := kernelElems(r, k), kernelElems(r, k), kernelElems(r, k)
		elems := kernelElems(r, r.IntN(301))
		want, got := slices.Clone(dst), slices.Clone(dst)
		classicGo(want, a, b, elems)
		sketchAVX512(got, a, b, elems)
		if i := firstDiff(got, want); i >= 0 {
			t.Fatalf("k=%d n=%d: position %d = %x, want %x", k, len(elems), i, got[i], want[i])
		}
	}
}

// FuzzSketchKernels compares the two kernels of sketchClassic on parameters
// and elements read from the fuzz input.
func FuzzSketchKernels(f *testing.F) {
	f.Add(uint8(8), []byte{1, 2, 3, 4, 5, 6, 7, 8})
	f.Add(uint8(65), slices.Repeat([]byte{0xff}, 80))
	f.Add(uint8(130), []byte{})
	f.Fuzz(func(t *testing.T, k uint8, data []byte) {
		if k == 0 {
			return
		}
		h, err := New(int(k), Classic, uint64(len(data)))
		if err != nil {
			t.Fatal(err)
		}
		elems := make([]uint64, len(data)/8)
		for i := range elems {
			elems[i] = binary.LittleEndian.Uint64(data[8*i:])
		}
		want := slices.Repeat([]uint64{Empty}, int(k))
		got := slices.Clone(want)
		sketchClassic(want, h.a, h.b, elems, false)
		sketchClassic(got, h.a, h.b, elems, haveAVX512)
		if i := firstDiff(got, want); i >= 0 {
			t.Fatalf("k=%d n=%d: position %d = %x, want %x", k, len(elems), i, got[i], want[i])
		}
	})
}

// firstDiff returns the first index where x and y differ, or -1.
func firstDiff(x, y []uint64) int {
	for i := range x {
		if x[i] != y[i] {
			return i
		}
	}
	if len(x) != len(y) {
		return min(len(x), len(y))
	}
	return -1
}
