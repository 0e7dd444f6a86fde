package main

import (
	"math"

	"github.com/neardup/neardup/transforms/match/blocking"
)

// asymKeys are the keys of asymmetric minwise hashing (Shrivastava and Li,
// WWW 2015): an indexed set is padded with fresh elements up to maxSize,
// the largest set, and a query is not, so a query and a set collide at a
// position with probability |Q ∩ X| / (maxSize + |Q| - |Q ∩ X|), monotone
// in the overlap. Every position is its own band (128 bands of 1 row): no
// banding of 128 values finds more, so its recall bounds the method's.
//
// The padding's minimum at a position is drawn rather than hashed: the
// least of k uniform 64-bit values is 2^64 * (1 - U^(1/k)), with U from
// the set's signature and the position (so the same set gets the same
// padding). A padding value that wins a position matches a query's value
// with probability 2^-64.
type asymKeys struct {
	maxSize, minSize int
}

var asymBands = blocking.Bands{B: 128, R: 1}

func (a asymKeys) AppendIndexKeys(dst, sig []uint64, size int) []uint64 {
	if size < a.minSize {
		return dst
	}
	padded := make([]uint64, len(sig))
	k := float64(a.maxSize - size)
	for i, v := range sig {
		padded[i] = v
		if k <= 0 {
			continue
		}
		s := sig[0] ^ uint64(i)*0x9E3779B97F4A7C15
		u := (float64(mix(&s)>>11) + 0.5) / (1 << 53)
		pad := -math.Expm1(math.Log(u) / k) // least of k uniforms in [0, 1)
		padded[i] = min(v, uint64(pad*(1<<64)))
	}
	return asymBands.AppendKeys(dst, padded)
}

func (a asymKeys) AppendQueryKeys(dst, sig []uint64, size int) []uint64 {
	if size < a.minSize {
		return dst
	}
	return asymBands.AppendKeys(dst, sig)
}

// mix is SplitMix64.
func mix(s *uint64) uint64 {
	*s += 0x9E3779B97F4A7C15
	z := *s
	z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9
	z = (z ^ (z >> 27)) * 0x94D049BB133111EB
	return z ^ (z >> 31)
}
