package ensemble

import (
	"fmt"
	"math"
	"math/bits"
	"slices"

	"github.com/neardup/neardup/transforms/match/blocking"
)

// Levels is LSH Ensemble in one key space, without size partitions: every
// document emits the same keys, whether it is the contained document (the
// query) or the container, and the bucket applies the size-ratio rule. A
// pair of q <= u elements that shares a band is a candidate if the band is
// among those of the banding of level min(level(q, u), MaxLevel) (ratio
// u/q rounded up to a half octave, as Plan's levels; the pairs of larger
// ratios use level MaxLevel's banding).
//
// Level k's banding is Choose(Threshold, NumPerm, ratioOf(k), Weights). A
// band is (R, j): the j-th band of R rows of the signature. A document
// emits, for each R any level uses, the most bands any level of that R
// uses; each (R, j) has a band id, in order of R then j. Where Plan
// indexes a set once per partition and queries every partition above, a
// document here has KeysPerDoc keys in all.
type Levels struct {
	cfg    Config
	levels []blocking.Bands // level 0..MaxLevel
	bands  []levelBand      // by band id
	rows   []blocking.Bands // per R any level uses, the most bands, by R
}

// levelBand is one band: band j of R rows, used by levels lo..hi.
type levelBand struct {
	r, j   int
	lo, hi int
}

// Key is one key of a document under Levels: the hash of its band's
// values and the band's id.
type Key struct {
	Hash uint64
	Band uint8
}

// maxBands is the most bands a Levels gives a document: band ids are
// uint8.
const maxBands = 255

// NewLevels returns the Levels of cfg; cfg.Partitions is not used.
// cfg.MaxLevel must be at least 1: it is the last level a banding is
// chosen for (0 means no cap to Plan, and Levels needs one).
func NewLevels(cfg Config) (*Levels, error) {
	if !(cfg.Threshold > 0 && cfg.Threshold <= 1) || cfg.NumPerm < 1 || cfg.MinSize < 1 || cfg.MaxLevel < 1 {
		return nil, fmt.Errorf("ensemble: levels config %+v: need 0 < Threshold <= 1, NumPerm, MinSize and MaxLevel >= 1", cfg)
	}
	l := &Levels{cfg: cfg}
	most := map[int]int{} // R: most bands
	for k := 0; k <= cfg.MaxLevel; k++ {
		b := Choose(cfg.Threshold, cfg.NumPerm, ratioOf(k), cfg.Weights)
		l.levels = append(l.levels, b)
		most[b.R] = max(most[b.R], b.B)
	}
	for r, b := range most {
		l.rows = append(l.rows, blocking.Bands{B: b, R: r})
	}
	slices.SortFunc(l.rows, func(x, y blocking.Bands) int { return x.R - y.R })
	for _, rb := range l.rows {
		for j := range rb.B {
			band, err := l.newBand(rb.R, j)
			if err != nil {
				return nil, err
			}
			l.bands = append(l.bands, band)
		}
	}
	if len(l.bands) > maxBands {
		return nil, &TooManyBandsError{Threshold: cfg.Threshold, MaxLevel: cfg.MaxLevel, Bands: len(l.bands)}
	}
	return l, nil
}

// TooManyBandsError is NewLevels' error for a Config whose bandings give
// more bands than a band id numbers (MaxBands).
type TooManyBandsError struct {
	Threshold float64
	MaxLevel  int
	Bands     int
}

// MaxBands is the most bands a Levels gives a document.
const MaxBands = maxBands

func (e *TooManyBandsError) Error() string {
	return fmt.Sprintf("ensemble: levels of C=%v up to level %d: %d bands, more than the %d a uint8 band id numbers", e.Threshold, e.MaxLevel, e.Bands, maxBands)
}

// newBand returns band j of R rows with the levels that use it, which
// must be contiguous.
func (l *Levels) newBand(r, j int) (levelBand, error) {
	b := levelBand{r: r, j: j, lo: -1, hi: -1}
	for k, lv := range l.levels {
		if lv.R != r || j >= lv.B {
			continue
		}
		if b.lo < 0 {
			b.lo = k
		} else if b.hi != k-1 {
			return b, fmt.Errorf("ensemble: levels of C=%v: band %d of %d rows is used by levels %d..%d and %d, not contiguous (bandings %v)", l.cfg.Threshold, j, r, b.lo, b.hi, k, l.levels)
		}
		b.hi = k
	}
	return b, nil
}

// Bandings returns the banding of each level 0..MaxLevel (not to be
// modified).
func (l *Levels) Bandings() []blocking.Bands { return l.levels }

// KeysPerDoc returns how many keys AppendKeys gives a document of at least
// MinSize elements: the number of band ids.
func (l *Levels) KeysPerDoc() int { return len(l.bands) }

// KeysPerDoc is NewLevels(cfg).KeysPerDoc(): the keys of each document
// under cfg; 0 for the zero Config (no containment) or one NewLevels
// refuses.
func KeysPerDoc(cfg Config) int {
	l, err := NewLevels(cfg)
	if err != nil {
		return 0
	}
	return l.KeysPerDoc()
}

// AppendKeys appends the keys of a document of size elements with MinHash
// signature sig: every band id once, in id order, with the hash appendKeys
// gives the band in partition 0. A document below MinSize has none.
func (l *Levels) AppendKeys(dst []Key, sig []uint64, size int) []Key {
	if size < l.cfg.MinSize {
		return dst
	}
	var stack [maxBands]uint64
	id := 0
	for _, rb := range l.rows {
		for _, h := range appendKeys(stack[:0], sig, 0, rb) {
			dst = append(dst, Key{Hash: h, Band: uint8(id)})
			id++
		}
	}
	return dst
}

// Pairs reports whether documents of q <= u elements (q >= MinSize) that
// share band id band are a candidate pair: the banding of level
// min(level(q, u), MaxLevel) has the band's R and more than its j bands.
// It is false for u < q, q < MinSize or a band id out of range.
func (l *Levels) Pairs(band uint8, q, u int) bool {
	if int(band) >= len(l.bands) || q < l.cfg.MinSize || u < q {
		return false
	}
	b := l.bands[band]
	k := min(level(q, u), l.cfg.MaxLevel)
	return b.lo <= k && k <= b.hi
}

// SizeRange returns the sizes u a query of q elements pairs with under
// band id band: Pairs(band, q, u) holds exactly for lo <= u <= hi; hi is
// math.MaxInt when the band is in level MaxLevel's banding (no limit), and
// lo > hi when nothing pairs. It is computed on integers, like level, for
// q below 2^31.
func (l *Levels) SizeRange(band uint8, q int) (lo, hi int) {
	if int(band) >= len(l.bands) || q < l.cfg.MinSize {
		return 1, 0
	}
	b := l.bands[band]
	lo, hi = q, math.MaxInt
	if b.lo > 0 {
		lo = max(q, maxSize(q, b.lo-1)+1) // level(q, u) > b.lo-1
	}
	if b.hi < l.cfg.MaxLevel {
		hi = maxSize(q, b.hi) // level(q, u) <= b.hi
	}
	return lo, hi
}

// maxSize returns the largest u with level(q, u) <= k: the largest u with
// u*u <= q*q*2^k, that is floor(q*2^(k/2)). It saturates at math.MaxInt/4.
func maxSize(q, k int) int {
	const limit = math.MaxInt / 4
	m := uint64(q)
	for range k / 2 {
		if m > limit {
			return limit
		}
		m <<= 1
	}
	if k%2 == 0 {
		return int(min(m, limit))
	}
	if m > limit/2 {
		return limit
	}
	// floor(m*sqrt2): the float estimate, corrected on 128-bit squares.
	th, tl := bits.Mul64(m, m)
	th, tl = th<<1|tl>>63, tl<<1 // 2*m*m
	x := uint64(float64(m) * math.Sqrt2)
	above := func(x uint64) bool { // x*x > 2*m*m
		h, l := bits.Mul64(x, x)
		return h > th || h == th && l > tl
	}
	for above(x) {
		x--
	}
	for !above(x + 1) {
		x++
	}
	return int(x)
}
