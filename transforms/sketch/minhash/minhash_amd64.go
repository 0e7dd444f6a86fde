//go:build amd64 && gc && !purego

package minhash

import "golang.org/x/sys/cpu"

// haveAVX512 reports whether sketchAVX512 may run: AVX512F for the 512-bit
// minima and sums, AVX512DQ for the 64-bit multiply (VPMULLQ). x/sys/cpu
// also checks that the operating system saves the ZMM registers.
var haveAVX512 = cpu.X86.HasAVX512F && cpu.X86.HasAVX512DQ

// sketchAVX512 lowers each dst[i] to the least a[i]*x+b[i] (mod 2^64) over
// the elements x, eight positions to a ZMM register. len(a) and len(b) must
// be at least len(dst), and len(dst) a multiple of 8. It is in minhash_amd64.s.
//
//go:noescape
func sketchAVX512(dst, a, b, elems []uint64)
