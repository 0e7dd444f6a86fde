// Package simhash computes 64-bit SimHash fingerprints (Charikar 2002; Manku,
// Jain and Das Sarma, WWW'07) from hashed, weighted features.
//
// Every feature adds its weight to 64 counters where its hash has a 1 bit and
// subtracts it where the hash has a 0 bit; bit i of the fingerprint is set when
// counter i ends positive. Similar feature sets give fingerprints at a small
// Hamming distance.
//
// Features come in as uint64 hashes (shingle or token hashes). With unit
// weights, Sum counts each occurrence once, so repeated features weigh by
// their term frequency; it uses byte-packed counters (eight bit lanes per
// uint64 add) and runs several times faster than the per-bit loop.
// Weighted takes explicit weights (TF-IDF or any other).
package simhash

import "math/bits"

const lanes = 0x0101010101010101

// Sum returns the SimHash of the features in hashes, each occurrence with
// weight 1 (term-frequency weighting). An empty input gives 0.
func Sum(hashes []uint64) uint64 {
	var total [64]int64
	var packed [8]uint64 // packed[j] byte b counts bit 8*b+j
	n := len(hashes)
	for len(hashes) > 0 {
		chunk := hashes
		if len(chunk) > 255 { // a byte counter holds 255 adds
			chunk = chunk[:255]
		}
		hashes = hashes[len(chunk):]
		for _, h := range chunk {
			packed[0] += h & lanes
			packed[1] += (h >> 1) & lanes
			packed[2] += (h >> 2) & lanes
			packed[3] += (h >> 3) & lanes
			packed[4] += (h >> 4) & lanes
			packed[5] += (h >> 5) & lanes
			packed[6] += (h >> 6) & lanes
			packed[7] += (h >> 7) & lanes
		}
		for j := range packed {
			p := packed[j]
			for b := 0; b < 8; b++ {
				total[8*b+j] += int64(p >> (8 * b) & 0xff)
			}
			packed[j] = 0
		}
	}
	// Counter i is ones - zeros = 2*ones - n; the bit is set when it is > 0.
	var fp uint64
	for i, ones := range total {
		if 2*ones > int64(n) {
			fp |= 1 << i
		}
	}
	return fp
}

// Weighted returns the SimHash of features hashes[i] with weights[i].
// Features with weight <= 0 do not count. It panics if the lengths differ.
func Weighted(hashes []uint64, weights []float64) uint64 {
	if len(hashes) != len(weights) {
		panic("simhash: len(hashes) != len(weights)")
	}
	var acc [64]float64
	for i, h := range hashes {
		w := weights[i]
		if w <= 0 {
			continue
		}
		for b := 0; b < 64; b++ {
			// (h>>b&1)*2-1 is +1 or -1 without a branch.
			acc[b] += w * float64(int64(h>>b&1)*2-1)
		}
	}
	var fp uint64
	for b, v := range acc {
		if v > 0 {
			fp |= 1 << b
		}
	}
	return fp
}

// Distance returns the Hamming distance between two fingerprints.
func Distance(a, b uint64) int { return bits.OnesCount64(a ^ b) }
