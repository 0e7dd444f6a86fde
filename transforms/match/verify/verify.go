// Package verify decides whether a candidate pair is a near-duplicate.
//
// Blocking (SimHash tables, MinHash bands) only proposes candidates. With the
// MinHash and Both methods every candidate must reach the Jaccard threshold,
// estimated from the documents' b-bit MinHash sketches, so adding SimHash
// candidates can add recall but never cost precision. With the SimHash method
// the test is the Hamming distance of the fingerprints, as in Manku et al.
package verify

import (
	"encoding/binary"
	"fmt"
	"math"
	"math/bits"

	"github.com/neardup/neardup/transforms/format/wire"

	"github.com/neardup/neardup/transforms/choice"
)

// Blocking selects the candidate generators (the job's --method) and the
// test. It is not wire.Method, which says how one match was established.
type Blocking int

const (
	Both    Blocking = iota // SimHash tables + MinHash bands, Jaccard test
	MinHash                 // MinHash bands, Jaccard test
	SimHash                 // SimHash tables, Hamming test
)

// blockingNames are the names of the methods.
var blockingNames = choice.Names[Blocking]{
	{Value: Both, Name: "both"},
	{Value: MinHash, Name: "minhash"},
	{Value: SimHash, Name: "simhash"},
}

// String returns the name of b.
func (b Blocking) String() string {
	if name, ok := blockingNames.Name(b); ok {
		return name
	}
	return fmt.Sprintf("Blocking(%d)", int(b))
}

// MarshalText returns the name of b.
func (b Blocking) MarshalText() ([]byte, error) { return blockingNames.Marshal("method", b) }

// UnmarshalText sets b to the method text names: both, minhash or simhash.
func (b *Blocking) UnmarshalText(text []byte) (err error) {
	*b, err = blockingNames.Parse(string(text))
	return err
}

// ParseBlocking returns the method s names (Blocking.UnmarshalText); its error quotes s.
func ParseBlocking(s string) (Blocking, error) {
	v, err := blockingNames.Parse(s)
	if err != nil {
		return v, fmt.Errorf("method %q: %w", s, err)
	}
	return v, nil
}

// Mode says how the Jaccard test uses the MinHash estimate.
type Mode int

const (
	// Auto decides from the estimate where it is clear at the configured
	// confidence and computes the exact Jaccard of the shingle sets for the
	// pairs in between.
	Auto Mode = iota
	// Estimate decides from the estimate alone, accepting estimates down to
	// the lower confidence bound (recall first).
	Estimate
	// Exact computes the exact Jaccard of every candidate pair.
	Exact
)

// modeNames are the names of the verify modes.
var modeNames = choice.Names[Mode]{
	{Value: Auto, Name: "auto"},
	{Value: Estimate, Name: "estimate"},
	{Value: Exact, Name: "exact"},
}

// String returns the name of m.
func (m Mode) String() string {
	if name, ok := modeNames.Name(m); ok {
		return name
	}
	return fmt.Sprintf("Mode(%d)", int(m))
}

// MarshalText returns the name of m.
func (m Mode) MarshalText() ([]byte, error) { return modeNames.Marshal("verify mode", m) }

// UnmarshalText sets m to the verify mode text names: auto, estimate or exact.
func (m *Mode) UnmarshalText(text []byte) (err error) {
	*m, err = modeNames.Parse(string(text))
	return err
}

// ParseMode returns the verify mode s names (Mode.UnmarshalText); its error quotes s.
func ParseMode(s string) (Mode, error) {
	v, err := modeNames.Parse(s)
	if err != nil {
		return v, fmt.Errorf("verify mode %q: %w", s, err)
	}
	return v, nil
}

// Config is the test a pair must pass.
type Config struct {
	Blocking  Blocking
	Mode      Mode
	Threshold float64 // Jaccard, for Both and MinHash
	Hamming   int     // bits, for SimHash
	// Confidence bounds the estimate's error. The estimate from K positions
	// has standard error se = sqrt(t(1-t)/K) at the threshold t; with
	// confidence c, z = z(c) (1.645 for 0.95) and the interval
	// [t - z*se, t + z*se] is where the estimate cannot decide: Estimate
	// accepts it, Auto checks it exactly. For t = 0.8, K = 128: [0.742, 0.858).
	Confidence float64
	// Containment, if > 0, also accepts a pair whose smaller document (in
	// distinct shingles, wire.Info.Shingles; ties: the later document) has
	// at least ContainMinSize shingles and this share of them in the other
	// (see CheckContained and Exact).
	Containment    float64
	ContainMinSize int

	z, zConf float64 // the z of confidence zConf (Prepared)
}

// Bounds returns the interval of estimates from k positions that cannot be
// decided at the configured confidence. The standard error is that of the
// b-bit estimator at the threshold: positions agree with probability
// p = t + (1-t)*2^-b, and the estimate is (p^ - 2^-b)/(1 - 2^-b).
func (c Config) Bounds(k int) (lo, hi float64) {
	if c.Confidence <= 0.5 || k <= 0 {
		return c.Threshold, c.Threshold
	}
	t := c.Threshold
	z := c.z
	if c.zConf != c.Confidence {
		z = zOf(c.Confidence)
	}
	p := t + (1-t)*chance
	se := math.Sqrt(p*(1-p)/float64(k)) / (1 - chance)
	return t - z*se, t + z*se
}

// Prepared returns c with the z of its Confidence computed, which Bounds
// uses while Confidence stays the same: math.Erfinv costs more than the
// rest of a Check, so a caller that checks many pairs prepares the Config
// once.
func (c Config) Prepared() Config {
	c.z, c.zConf = zOf(c.Confidence), c.Confidence
	return c
}

// zOf returns the z of the two-sided confidence c: sqrt2*erfinv(2c-1).
func zOf(c float64) float64 { return math.Sqrt2 * math.Erfinv(2*c-1) }

// Decision is the outcome of Check.
type Decision int

const (
	Reject Decision = iota
	Accept
	CheckExactly // compute the exact Jaccard of the shingle sets
)

// SketchBits is the width of the stored MinHash values.
const SketchBits = 8

// chance is the probability that two different minima agree in their low
// SketchBits bits.
const chance = 1.0 / (1 << SketchBits)

// LowBits keeps the low 8 bits of every MinHash value (b-bit MinHash, Li and
// König 2010): an eighth of the bytes, and for Jaccard >= 0.5 the standard
// error grows by less than 1%.
func LowBits(dst []uint8, sig []uint64) []uint8 {
	dst = dst[:0]
	for _, v := range sig {
		dst = append(dst, uint8(v))
	}
	return dst
}

// EstimateJaccard returns the Jaccard estimate from two b-bit sketches: the
// fraction of equal positions, corrected for the 2^-b chance that two
// different minima agree in their low bits.
func EstimateJaccard(a, b []uint8) float64 {
	if len(a) != len(b) || len(a) == 0 {
		return 0
	}
	j := (float64(agree(a, b))/float64(len(a)) - chance) / (1 - chance)
	return max(j, 0)
}

// agree returns how many positions of a and b (of the same length) are
// equal, eight at a time: a byte of x = a^b is zero where they agree, and
// t has the high bit of exactly those bytes set (the low seven bits of
// each byte, plus 0x7f, carry into its high bit unless all zero; no carry
// leaves a byte).
func agree(a, b []uint8) int {
	const low7 = 0x7f7f7f7f7f7f7f7f
	n, i := 0, 0
	for ; i+8 <= len(a); i += 8 {
		x := binary.LittleEndian.Uint64(a[i:]) ^ binary.LittleEndian.Uint64(b[i:])
		t := ^((x&low7 + low7) | x | low7)
		n += bits.OnesCount64(t)
	}
	for ; i < len(a); i++ {
		if a[i] == b[i] {
			n++
		}
	}
	return n
}

// Check tests candidate pair (a, b) and returns the match to report (A <
// B, Jaccard estimated: Estimated set) and the decision. Documents without shingles never
// match.
func Check(a, b *wire.Info, cfg Config) (wire.Match, Decision) {
	m := wire.Match{
		A: a.Doc, B: b.Doc, IDA: a.ID, IDB: b.ID, LenA: a.Len, LenB: b.Len, RankA: a.Rank, RankB: b.Rank,
		Hamming: uint8(bits.OnesCount64(a.SimHash ^ b.SimHash)),
	}
	if a.Doc > b.Doc {
		m.A, m.B, m.IDA, m.IDB, m.LenA, m.LenB, m.RankA, m.RankB = b.Doc, a.Doc, b.ID, a.ID, b.Len, a.Len, b.Rank, a.Rank
	}
	if len(a.Sketch) == 0 || len(b.Sketch) == 0 {
		return m, Reject
	}
	j := EstimateJaccard(a.Sketch, b.Sketch)
	m.Jaccard, m.Estimated = float32(j), true
	if cfg.Blocking == SimHash {
		m.Method = wire.SimHash
		if int(m.Hamming) <= cfg.Hamming {
			return m, Accept
		}
		return m, Reject
	}
	m.Method = wire.MinHash
	// A pair the Jaccard test accepts, or checks exactly (which tests
	// containment too), is not tested for containment here: a Jaccard
	// match is never reported as a containment one.
	d := cfg.decide(j, len(a.Sketch))
	switch {
	case cfg.Containment <= 0 || d == Accept:
		return m, d
	case d == CheckExactly:
		cfg.estimateContained(&m, a, b, j)
		return m, d
	}
	return m, cfg.CheckContained(&m, a, b, j)
}

// decide is the decision on Jaccard estimate j from k positions against
// cfg.Threshold.
func (cfg Config) decide(j float64, k int) Decision {
	if cfg.Mode == Exact {
		return CheckExactly
	}
	lo, hi := cfg.Bounds(k)
	switch {
	case j >= hi:
		return Accept
	case j < lo:
		return Reject
	case cfg.Mode == Estimate:
		return Accept
	}
	return CheckExactly
}
