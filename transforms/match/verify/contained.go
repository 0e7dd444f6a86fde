package verify

import (
	"github.com/neardup/neardup/transforms/format/wire"
	"github.com/neardup/neardup/transforms/sketch/similarity"
)

// inside returns which of m's documents is the contained one: the one with
// fewer distinct shingles, or with as many the later one (m.B), and the
// sizes of the contained and the containing one.
func inside(sizeA, sizeB int64) (side wire.Side, q, u int64) {
	if sizeA < sizeB {
		return wire.SideA, sizeA, sizeB
	}
	return wire.SideB, sizeB, sizeA
}

// ContainJaccard returns the Jaccard similarity of a set of q elements
// with containment t in a set of u >= q elements: t*q / (q + u - t*q).
func ContainJaccard(t float64, q, u int64) float64 {
	tq := t * float64(q)
	return tq / (float64(q) + float64(u) - tq)
}

// containOf returns the containment of a set of q elements in a set of u
// elements whose Jaccard similarity is j: j*(q+u) / ((1+j)*q), at most 1.
func containOf(j float64, q, u int64) float64 {
	return min(j*float64(q+u)/((1+j)*float64(q)), 1)
}

// ContainEstimateFloor is the lowest Jaccard (ContainJaccard at the
// pair's sizes) at which CheckContained accepts a pair on its estimate;
// below, a pair the estimate does not reject is checked exactly, whatever
// the Mode. Two unrelated b-bit sketches agree in 1/2^SketchBits of their
// positions, 0.5 of 128 on average and 6 or more about once in 10^5
// pairs, an estimate of 0.04: at the Jaccard of a containment of sizes 1
// to 40 (0.02 at C = 0.8) that alone would accept; and the containment
// candidates are many (on the dev corpus about 12 per document).
const ContainEstimateFloor = 0.1

// ContainEstimateMin is the fewest distinct shingles of a contained
// document that CheckContained accepts on the estimate: the MinHash
// values of a few dozen shingles stray further from their Jaccard than
// the binomial error Bounds assumes (on the dev corpus, 12 shingles
// inside 27, Jaccard 0.345, estimated 0.516 from all 64 bits, 4 standard
// errors), so a smaller one is checked exactly.
const ContainEstimateMin = 64

// CheckContained tests candidate pair m (of infos a and b, whose Jaccard
// estimate is j) for containment at cfg.Containment: the Jaccard a pair of
// these sizes has at exactly that containment (ContainJaccard) is the
// threshold of the same estimate test as the Jaccard's (Bounds), so an
// estimate clearly above it accepts, clearly below rejects, and between
// is checked exactly (Auto) or accepted (Estimate). A pair whose threshold
// is below ContainEstimateFloor, or whose contained document has fewer
// than ContainEstimateMin shingles, is never accepted on its estimate: it
// is checked exactly. An accepted pair becomes a containment match, with
// the estimated containment. Pairs whose contained document is below
// cfg.ContainMinSize, or whose sizes are unknown (0), are rejected.
func (cfg Config) CheckContained(m *wire.Match, a, b *wire.Info, j float64) Decision {
	sa, sb := a.Shingles, b.Shingles
	if a.Doc > b.Doc {
		sa, sb = sb, sa // m.A is the lower document
	}
	side, q, u := inside(sa, sb)
	if q < int64(max(cfg.ContainMinSize, 1)) {
		return Reject
	}
	c := cfg
	c.Threshold = ContainJaccard(cfg.Containment, q, u)
	d := c.decide(j, len(a.Sketch))
	estimable := c.Threshold >= ContainEstimateFloor && q >= ContainEstimateMin
	if d == Accept && !estimable {
		d = CheckExactly
	}
	switch {
	case d == Accept:
		m.Method, m.Inside, m.Containment = wire.Containment, side, float32(containOf(j, q, u))
	case d == CheckExactly && estimable:
		m.Inside, m.Containment = side, float32(containOf(j, q, u))
	}
	return d
}

// estimateContained gives pair m, which the exact checks decide (for the
// Jaccard too), the containment its estimate j gives, for a decision
// without the texts (PassesContained), when its contained document allows
// an estimate (CheckContained's rules); the exact check sets m's fields
// anew.
func (cfg Config) estimateContained(m *wire.Match, a, b *wire.Info, j float64) {
	sa, sb := a.Shingles, b.Shingles
	if a.Doc > b.Doc {
		sa, sb = sb, sa
	}
	side, q, u := inside(sa, sb)
	if q >= int64(max(cfg.ContainMinSize, ContainEstimateMin)) && ContainJaccard(cfg.Containment, q, u) >= ContainEstimateFloor {
		m.Inside, m.Containment = side, float32(containOf(j, q, u))
	}
}

// PassesContained decides an unsure pair m (CheckContained's CheckExactly)
// on its estimated containment, where the texts cannot be read: true when
// its contained document's size allows an estimate and the estimate is at
// least cfg.Containment; m then becomes a containment match.
func (cfg Config) PassesContained(m *wire.Match) bool {
	if cfg.Containment <= 0 || m.Inside == wire.NoSide || float64(m.Containment) < cfg.Containment {
		return false
	}
	m.Method = wire.Containment
	return true
}

// Exact decides pair m from the exact shingle sets a of m.A and b of m.B:
// a Jaccard match (wire.MinHash) when their Jaccard passes the threshold;
// else, with cfg.Containment, a containment match when the smaller set
// (ties: b) has at least ContainMinSize elements and at least that share
// of them in the other. It sets m's Jaccard (clearing Estimated), and for
// a containment match its Method, Inside and Containment, and reports
// whether m is a match.
func (cfg Config) Exact(m *wire.Match, a, b []uint32) bool {
	inter := similarity.Intersection(a, b, cfg.need(len(a), len(b)))
	union := len(a) + len(b) - inter
	j := 0.0
	if union > 0 {
		j = float64(inter) / float64(union)
	}
	if cfg.Passes(j) {
		m.Jaccard, m.Method, m.Inside, m.Containment, m.Estimated = float32(j), wire.MinHash, wire.NoSide, 0, false
		return true
	}
	if cfg.Containment <= 0 {
		return false
	}
	side, q, _ := inside(int64(len(a)), int64(len(b)))
	if q < int64(max(cfg.ContainMinSize, 1)) {
		return false
	}
	if t := float64(inter) / float64(q); t >= cfg.Containment {
		m.Jaccard, m.Method, m.Inside, m.Containment, m.Estimated = float32(j), wire.Containment, side, float32(t), false
		return true
	}
	return false
}

// need returns a count of shared elements that sets of na and nb elements
// must reach to pass Exact: the Jaccard test needs inter >= t(na+nb)/(1+t),
// the containment test inter >= C*min(na, nb); one less than the lower of
// the two, so that rounding never stops a count that would pass. Where
// Intersection stops below it, the pair fails both tests.
func (cfg Config) need(na, nb int) int {
	t := cfg.Threshold
	n := t * float64(na+nb) / (1 + t)
	if q := min(na, nb); cfg.Containment > 0 && q >= max(cfg.ContainMinSize, 1) {
		n = min(n, cfg.Containment*float64(q))
	}
	return max(int(n)-1, 0)
}
