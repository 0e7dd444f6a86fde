// Package verify decides whether a candidate pair is a near-duplicate.
//
// Blocking (SimHash tables, MinHash bands) only proposes candidates. With the
// MinHash and Both methods every candidate must reach the Jaccard threshold,
// estimated from the documents' b-bit MinHash sketches, so adding SimHash
// candidates can add recall but never cost precision. With the SimHash method
// the test is the Hamming distance of the fingerprints, as in Manku et al.
package verify

import (
	"fmt"
	"math/bits"

	"github.com/neardup/neardup/transforms/wire"
)

// Method selects the candidate generators and the test.
type Method int

const (
	Both    Method = iota // SimHash tables + MinHash bands, Jaccard test
	MinHash               // MinHash bands, Jaccard test
	SimHash               // SimHash tables, Hamming test
)

func (m Method) String() string {
	switch m {
	case Both:
		return "both"
	case MinHash:
		return "minhash"
	case SimHash:
		return "simhash"
	}
	return fmt.Sprintf("Method(%d)", int(m))
}

// ParseMethod parses "both", "minhash" or "simhash".
func ParseMethod(s string) (Method, error) {
	switch s {
	case "both":
		return Both, nil
	case "minhash":
		return MinHash, nil
	case "simhash":
		return SimHash, nil
	}
	return 0, fmt.Errorf("verify: unknown method %q (want both, minhash or simhash)", s)
}

// Config is the test a pair must pass.
type Config struct {
	Method    Method
	Threshold float64 // Jaccard, for Both and MinHash
	Hamming   int     // bits, for SimHash
}

// SketchBits is the width of the stored MinHash values.
const SketchBits = 16

// Low16 keeps the low 16 bits of every MinHash value (b-bit MinHash, Li and
// König 2010), a quarter of the bytes at almost the same accuracy.
func Low16(dst []uint16, sig []uint64) []uint16 {
	dst = dst[:0]
	for _, v := range sig {
		dst = append(dst, uint16(v))
	}
	return dst
}

// Estimate returns the Jaccard estimate from two 16-bit sketches: the
// fraction of equal positions, corrected for the 2^-16 chance that two
// different minima agree in their low bits.
func Estimate(a, b []uint16) float64 {
	if len(a) != len(b) || len(a) == 0 {
		return 0
	}
	eq := 0
	for i, v := range a {
		if v == b[i] {
			eq++
		}
	}
	const c = 1.0 / (1 << SketchBits)
	j := (float64(eq)/float64(len(a)) - c) / (1 - c)
	return max(j, 0)
}

// Check tests candidate pair (a, b) and returns the match to report and
// whether it passed. Documents without shingles never match.
func Check(a, b *wire.Info, cfg Config) (wire.Match, bool) {
	m := wire.Match{
		A: a.Doc, B: b.Doc, IDA: a.ID, IDB: b.ID, LenA: a.Len, LenB: b.Len,
		Hamming: uint8(bits.OnesCount64(a.SimHash ^ b.SimHash)),
	}
	if a.Doc > b.Doc {
		m.A, m.B, m.IDA, m.IDB, m.LenA, m.LenB = b.Doc, a.Doc, b.ID, a.ID, b.Len, a.Len
	}
	if len(a.Sketch) == 0 || len(b.Sketch) == 0 {
		return m, false
	}
	j := Estimate(a.Sketch, b.Sketch)
	m.Jaccard = float32(j)
	if cfg.Method == SimHash {
		m.Method = wire.SimHash
		return m, int(m.Hamming) <= cfg.Hamming
	}
	m.Method = wire.MinHash
	return m, j >= cfg.Threshold
}
