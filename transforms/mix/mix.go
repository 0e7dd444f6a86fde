// Package mix holds the 64-bit finalizer of MurmurHash3, the bijection on
// uint64 that neardup uses to spread values that are not yet uniform (token
// hash combinations, table keys, bin choices, partitions).
package mix

// Fmix64 is MurmurHash3's fmix64: every input bit affects every output bit,
// and distinct inputs give distinct outputs.
func Fmix64(x uint64) uint64 {
	x ^= x >> 33
	x *= 0xff51afd7ed558ccd
	x ^= x >> 33
	x *= 0xc4ceb9fe1a85ec53
	x ^= x >> 33
	return x
}
