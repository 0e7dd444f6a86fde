//go:build !amd64 || !gc || purego

package minhash

// haveAVX512 is false: this build has no assembly kernel.
const haveAVX512 = false

// sketchAVX512 stands in for the amd64 kernel, which this build lacks; it is
// never called, as haveAVX512 is false, except by tests that skip.
func sketchAVX512(dst, a, b, elems []uint64) {
	classicGo(dst, a, b, elems)
}
