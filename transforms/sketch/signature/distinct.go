package signature

import "math/bits"

// Distinct returns the number of distinct shingle hashes of the text last
// given to Sign (or to another method that shingles): the size of the set
// ShingleSet returns, which containment divides by. It counts with an
// open-addressing table that the Signer reuses, without sorting
// (BenchmarkDistinct; docs/BENCHMARKS.md).
func (s *Signer) Distinct() int {
	n := len(s.shingles)
	if n == 0 {
		return 0
	}
	size := 1 << bits.Len(uint(2*n-1)) // a power of two >= 2n: probes stay short
	if cap(s.table) < size {
		s.table = make([]uint64, size)
	}
	t := s.table[:size]
	clear(t)
	mask := uint64(size - 1)
	count, zero := 0, false
	for _, h := range s.shingles {
		if h == 0 { // 0 marks an empty slot
			if !zero {
				zero = true
				count++
			}
			continue
		}
		i := (h ^ h>>29) * 0x9e3779b97f4a7c15 >> 7 & mask
		for t[i] != 0 && t[i] != h {
			i = (i + 1) & mask
		}
		if t[i] == 0 {
			t[i] = h
			count++
		}
	}
	return count
}
