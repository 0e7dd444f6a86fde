// Package ensemble finds candidate containment pairs with LSH Ensemble
// (Zhu, Nargesian, Pu and Miller, "LSH Ensemble: Internet-Scale Domain
// Search", VLDB 2016): MinHash LSH over sets partitioned by size, with the
// banding of each partition chosen for the containment threshold.
//
// The containment of a query Q in a set X, t = |Q ∩ X| / |Q|, and their
// Jaccard s are tied by their sizes: s = t / (x/q + 1 - t). A partition
// holds sets of at most Upper elements; taking x = Upper gives the lowest
// Jaccard a pair of containment t can have there, so a banding chosen for
// that Jaccard misses no more than the model says (Prob). For a query of q
// elements and a partition of ratio Upper/q, Choose picks the B bands of R
// rows (B*R <= the signature length) that minimise the weighted false
// positive and false negative areas of Prob over containment, as the paper
// does. A query probes every partition whose sets can be at least as large
// as it; a set is indexed in its own partition.
//
// Plan fixes the partitions (equal-depth size boundaries, Bounds) and the
// bandings per partition and query-size level; its keys (AppendIndexKeys,
// AppendQueryKeys) are shuffle keys: a query and a set that share one are a
// candidate pair. Index pairs them in memory with hot buckets bounded (see
// Limits). The package does not depend on Beam.
package ensemble

import (
	"fmt"
	"math"

	"github.com/neardup/neardup/transforms/match/blocking"
)

// Jaccard returns the Jaccard similarity of a query of containment t in a
// set ratio times its size: t / (ratio + 1 - t). ratio must be >= t.
func Jaccard(t, ratio float64) float64 {
	if t <= 0 {
		return 0
	}
	return t / (ratio + 1 - t)
}

// Prob returns the probability that a query of containment t in a set
// ratio times its size shares a key of banding b with it.
func Prob(b blocking.Bands, t, ratio float64) float64 {
	return b.Prob(Jaccard(t, ratio))
}

// FalsePositive returns the integral of Prob over containment [0, t]: the
// weight of the candidates below the threshold, with containment uniformly
// distributed.
func FalsePositive(b blocking.Bands, t, ratio float64) float64 {
	return integrate(func(c float64) float64 { return Prob(b, c, ratio) }, 0, t)
}

// FalseNegative returns the integral of 1 - Prob over containment [t, 1]:
// the pairs at or above the threshold that share no key.
func FalseNegative(b blocking.Bands, t, ratio float64) float64 {
	return integrate(func(c float64) float64 { return 1 - Prob(b, c, ratio) }, t, 1)
}

// Choose returns the banding with B*R <= numPerm that minimises
// w.FalsePositive*FalsePositive + w.FalseNegative*FalseNegative for
// containment threshold t and size ratio ratio (the partition's upper
// bound over the query size, >= 1), the first in order of increasing B,
// then R, on ties. It panics if numPerm < 1, t is outside (0, 1] or ratio
// < 1.
func Choose(t float64, numPerm int, ratio float64, w blocking.Weights) blocking.Bands {
	if numPerm < 1 || !(t > 0 && t <= 1) || !(ratio >= 1) {
		panic(fmt.Sprintf("ensemble: Choose(%v, %d, %v): need 0 < t <= 1, numPerm >= 1, ratio >= 1", t, numPerm, ratio))
	}
	best, bestCost := blocking.Bands{B: 1, R: 1}, math.Inf(1)
	for b := 1; b <= numPerm; b++ {
		for r := 1; b*r <= numPerm; r++ {
			bands := blocking.Bands{B: b, R: r}
			cost := w.FalsePositive*FalsePositive(bands, t, ratio) + w.FalseNegative*FalseNegative(bands, t, ratio)
			if cost < bestCost {
				best, bestCost = bands, cost
			}
		}
	}
	return best
}

// quadParts is the number of equal intervals integrate splits [a, b] into.
const quadParts = 32

// integrate returns the integral of f over [a, b] by Simpson's rule on
// 2*quadParts intervals.
func integrate(f func(float64) float64, a, b float64) float64 {
	if b <= a {
		return 0
	}
	n := 2 * quadParts
	h := (b - a) / float64(n)
	sum := f(a) + f(b)
	for i := 1; i < n; i++ {
		w := 2.0
		if i%2 == 1 {
			w = 4
		}
		sum += w * f(a+float64(i)*h)
	}
	return sum * h / 3
}
