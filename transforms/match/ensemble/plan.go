package ensemble

import (
	"encoding/binary"
	"fmt"
	"slices"

	"github.com/cespare/xxhash/v2"

	"github.com/neardup/neardup/transforms/match/blocking"
)

// Config is what a Plan is made for.
type Config struct {
	Threshold  float64          // containment threshold, in (0, 1]
	NumPerm    int              // MinHash values per signature
	Partitions int              // size partitions, at most
	MinSize    int              // smallest set indexed or queried
	Weights    blocking.Weights // false positives against false negatives
	MaxLevel   int              // if > 0, the last size-ratio level (ratio 2^(MaxLevel/2)) a banding is chosen for
}

// DefaultConfig is 8 partitions over 128 MinHash values, sets of at least
// 10 elements, and blocking.DefaultWeights (candidates are verified, a
// missed pair is lost), with no cap on the size-ratio levels.
func DefaultConfig(t float64) Config {
	return Config{Threshold: t, NumPerm: 128, Partitions: 8, MinSize: 10, Weights: blocking.DefaultWeights}
}

// Plan holds the partitions and their bandings. Level k of a partition
// serves the queries of q elements with q*q*2^k >= Upper*Upper > q*q*2^(k-1)
// (Upper/q rounded up to a half octave), with the banding Choose picks for
// ratio 2^(k/2): the rounding only lowers the Jaccard the banding is chosen
// for, so it can only add candidates. With Config.MaxLevel, the queries of
// the levels above it use its banding: fewer keys (the bandings of large
// ratios have the most bands), less recall for the pairs of larger ratios.
type Plan struct {
	cfg    Config
	uppers []int              // largest set of each partition, increasing
	levels [][]blocking.Bands // partition, level
	rows   [][]blocking.Bands // partition: per R indexed, the most bands any level uses
}

// NewPlan returns the plan of cfg for sets of the given sizes (Bounds).
func NewPlan(cfg Config, sizes []int) (*Plan, error) {
	if !(cfg.Threshold > 0 && cfg.Threshold <= 1) || cfg.NumPerm < 1 || cfg.Partitions < 1 || cfg.MinSize < 1 || cfg.MaxLevel < 0 {
		return nil, fmt.Errorf("ensemble: config %+v: need 0 < Threshold <= 1, NumPerm, Partitions, MinSize >= 1 and MaxLevel >= 0", cfg)
	}
	p := &Plan{cfg: cfg, uppers: Bounds(sizes, cfg.Partitions, cfg.MinSize)}
	chosen := map[int]blocking.Bands{} // by level: the same for every partition
	for _, u := range p.uppers {
		n := p.level(cfg.MinSize, u) + 1
		lv := make([]blocking.Bands, n)
		most := map[int]int{}
		for k := range lv {
			b, ok := chosen[k]
			if !ok {
				b = Choose(cfg.Threshold, cfg.NumPerm, ratioOf(k), cfg.Weights)
				chosen[k] = b
			}
			lv[k] = b
			most[b.R] = max(most[b.R], b.B)
		}
		var rows []blocking.Bands
		for r, b := range most {
			rows = append(rows, blocking.Bands{B: b, R: r})
		}
		slices.SortFunc(rows, func(x, y blocking.Bands) int { return x.R - y.R })
		p.levels = append(p.levels, lv)
		p.rows = append(p.rows, rows)
	}
	return p, nil
}

// ratioOf returns 2^(k/2), the size ratio of level k.
func ratioOf(k int) float64 {
	r := float64(uint64(1) << (k / 2))
	if k%2 == 1 {
		r *= 1.4142135623730951
	}
	return r
}

// level returns the smallest k >= 0 with q*q*2^k >= u*u, computed on
// integers so that every machine agrees.
func level(q, u int) int {
	qq, uu := uint64(q)*uint64(q), uint64(u)*uint64(u)
	k := 0
	for qq < uu {
		qq <<= 1
		k++
	}
	return k
}

// Bounds returns the upper bounds of up to n equal-depth partitions of the
// sizes of at least minSize: bound i is the ((i+1)*m/n)-th smallest of the
// m such sizes, repeats dropped (so a size is never split between two
// partitions). It is empty when no size is at least minSize.
func Bounds(sizes []int, n, minSize int) []int {
	var s []int
	for _, x := range sizes {
		if x >= minSize {
			s = append(s, x)
		}
	}
	slices.Sort(s)
	var uppers []int
	for i := range n {
		j := (i+1)*len(s)/n - 1
		if j >= 0 && (len(uppers) == 0 || s[j] > uppers[len(uppers)-1]) {
			uppers = append(uppers, s[j])
		}
	}
	return uppers
}

// Uppers returns the partitions' upper bounds (not to be modified).
func (p *Plan) Uppers() []int { return p.uppers }

// Partition returns the partition of a set of size elements, or -1 when
// it is below MinSize or above the largest bound (a set Bounds did not see).
func (p *Plan) Partition(size int) int {
	if size < p.cfg.MinSize {
		return -1
	}
	i, _ := slices.BinarySearch(p.uppers, size)
	if i == len(p.uppers) {
		return -1
	}
	return i
}

// QueryBands returns the banding a query of q elements uses in partition
// i, whose upper bound must be at least q.
func (p *Plan) QueryBands(i, q int) blocking.Bands {
	return p.levels[i][p.level(max(q, p.cfg.MinSize), p.uppers[i])]
}

// level returns level(q, u), capped at Config.MaxLevel when it is set.
func (p *Plan) level(q, u int) int {
	k := level(q, u)
	if p.cfg.MaxLevel > 0 {
		k = min(k, p.cfg.MaxLevel)
	}
	return k
}

// IndexKeys returns how many keys AppendIndexKeys gives a set of partition
// i.
func (p *Plan) IndexKeys(i int) int {
	n := 0
	for _, b := range p.rows[i] {
		n += b.B
	}
	return n
}

// AppendIndexKeys appends the keys of a set of size elements with MinHash
// signature sig: in its partition, for each R any query there uses, the
// most bands any query uses. A set outside every partition has none.
func (p *Plan) AppendIndexKeys(dst, sig []uint64, size int) []uint64 {
	i := p.Partition(size)
	if i < 0 {
		return dst
	}
	for _, b := range p.rows[i] {
		dst = appendKeys(dst, sig, i, b)
	}
	return dst
}

// AppendQueryKeys appends the keys of a query of size elements with
// signature sig: in every partition whose bound is at least size, the bands
// of QueryBands. A query below MinSize has none.
func (p *Plan) AppendQueryKeys(dst, sig []uint64, size int) []uint64 {
	if size < p.cfg.MinSize {
		return dst
	}
	for i, u := range p.uppers {
		if u >= size {
			dst = appendKeys(dst, sig, i, p.QueryBands(i, size))
		}
	}
	return dst
}

// maxRows is the most rows of a band appendKeys hashes from a stack
// buffer; longer bands take one from the heap.
const maxRows = 128

// appendKeys appends the keys of the first b.B bands of b.R rows of sig in
// partition part: the xxhash of part, R and the band's number (8 bytes
// each, little-endian) and the band's values. Band j of R rows holds values
// [j*R, (j+1)*R), so a query's first bands are the set's first bands.
func appendKeys(dst, sig []uint64, part int, b blocking.Bands) []uint64 {
	if b.B*b.R > len(sig) {
		panic(fmt.Sprintf("ensemble: %v bands of a signature of %d values", b, len(sig)))
	}
	var stack [8 * (3 + maxRows)]byte
	buf := stack[:]
	if b.R > maxRows {
		buf = make([]byte, 8*(3+b.R))
	}
	binary.LittleEndian.PutUint64(buf[0:], uint64(part))
	binary.LittleEndian.PutUint64(buf[8:], uint64(b.R))
	n := 8 * (3 + b.R)
	for j := range b.B {
		binary.LittleEndian.PutUint64(buf[16:], uint64(j))
		for k, v := range sig[j*b.R : (j+1)*b.R] {
			binary.LittleEndian.PutUint64(buf[24+8*k:], v)
		}
		dst = append(dst, xxhash.Sum64(buf[:n]))
	}
	return dst
}
