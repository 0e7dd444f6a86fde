// Package shingle turns a sequence of token hashes into the hashes of its
// n-grams (shingles).
//
// Token hashes come from package tokenize (xxhash of each token). The hash of
// a shingle is an order-sensitive 64-bit mix of its n token hashes, finished
// with a full avalanche, so shingle hashes are as well spread as the xxhash
// values they are built from. Separators between tokens do not take part: "a,
// b" and "a b" give the same shingles.
package shingle

import (
	"math/bits"

	"github.com/neardup/neardup/transforms/mix"
)

const (
	prime1 = 0x9E3779B185EBCA87
	prime2 = 0xC2B2AE3D27D4EB4F
)

// Append appends the hash of every run of n consecutive token hashes of
// tokens to dst and returns the extended slice. A sequence of 1 to n-1 tokens
// gives one shingle made of all of them; an empty sequence gives none. n < 1
// is treated as 1. Append allocates nothing beyond growing dst.
func Append(dst []uint64, tokens []uint64, n int) []uint64 {
	if n < 1 {
		n = 1
	}
	if len(tokens) == 0 {
		return dst
	}
	if len(tokens) < n {
		return append(dst, Hash(tokens))
	}
	if n == 1 {
		for _, t := range tokens {
			dst = append(dst, Hash1(t))
		}
		return dst
	}
	for i := 0; i+n <= len(tokens); i++ {
		dst = append(dst, Hash(tokens[i:i+n]))
	}
	return dst
}

// Hash returns the shingle hash of the token hashes in g.
func Hash(g []uint64) uint64 {
	h := uint64(len(g)) * prime1
	for _, t := range g {
		h ^= t
		h = bits.RotateLeft64(h*prime2, 31) * prime1
	}
	return mix.Fmix64(h)
}

// Hash1 is Hash of a single token hash.
func Hash1(t uint64) uint64 {
	h := prime1 ^ t
	h = bits.RotateLeft64(h*prime2, 31) * prime1
	return mix.Fmix64(h)
}
