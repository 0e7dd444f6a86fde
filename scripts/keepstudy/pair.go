package main

import (
	"bufio"
	"fmt"
	"math/bits"
	"os"
	"slices"
	"strconv"
	"strings"

	"github.com/cespare/xxhash/v2"
)

// Per-shingle flags: what a shingle's tokens say about it.
const (
	novelToken  = 1 << iota // a token found in no other document
	badHan                  // two adjacent Han characters found together in no dictionary word
	novelBigram             // a token bigram found in no other document
)

// slots is the number of simulated MinHash positions, as the pipeline's.
const slots = 128

// dfCuts are the corpus-frequency thresholds reported: documents other than
// the pair's own two that hold the shingle.
var dfCuts = []int32{1, 2, 4, 9}

// loadDict reads gse dictionary files (one "word freq pos" a line) and
// returns every pair of adjacent Han characters inside a word.
func loadDict(paths string) (map[[2]rune]bool, error) {
	out := map[[2]rune]bool{}
	if paths == "" {
		return out, nil
	}
	for _, p := range strings.Split(paths, ",") {
		f, err := os.Open(p)
		if err != nil {
			return nil, err
		}
		sc := bufio.NewScanner(f)
		for sc.Scan() {
			w, _, _ := strings.Cut(sc.Text(), " ")
			r := []rune(w)
			for i := 1; i < len(r); i++ {
				out[[2]rune{r[i-1], r[i]}] = true
			}
		}
		f.Close()
		if err := sc.Err(); err != nil {
			return nil, err
		}
	}
	return out, nil
}

// sketch computes per document the simulated MinHash sketch (128 classic
// positions, affine permutations as the pipeline's) and which shingle gives
// each minimum.
func (c *corpus) sketch() {
	a, b := make([]uint64, slots), make([]uint64, slots)
	s := uint64(0x6E6561726475700A)
	for i := range a {
		a[i], b[i] = splitmix(&s)|1, splitmix(&s)
	}
	mins := make([]uint64, slots)
	for _, d := range c.docs {
		d.argmin = make([]int32, slots)
		for k := range mins {
			mins[k] = ^uint64(0)
		}
		for i, h := range d.sh {
			for k := range mins {
				if v := a[k]*h + b[k]; v < mins[k] {
					mins[k], d.argmin[k] = v, int32(i)
				}
			}
		}
		d.mins = append([]uint64(nil), mins...)
	}
}

// prepare computes per document the flags of each shingle and the first
// index of each shingle.
func (c *corpus) prepare() {
	for _, d := range c.docs {
		n := 5
		if len(d.toks) < n {
			n = len(d.toks)
		}
		d.flags = make([]uint8, len(d.sh))
		d.first = make(map[uint64]int32, len(d.sh))
		for i, h := range d.sh {
			if _, ok := d.first[h]; !ok {
				d.first[h] = int32(i)
			}
			var f uint8
			for j := i; j < i+n && j < len(d.toks); j++ {
				if c.freq(tokKind, d.toks[j], d) == 0 {
					f |= novelToken
				}
				if j > i {
					if c.freq(bgKind, d.toks[j-1]*0x9E3779B97F4A7C15^d.toks[j], d) == 0 {
						f |= novelBigram
					}
					if p, q := d.runes[j-1], d.runes[j]; p != 0 && q != 0 && !c.dictBigram[[2]rune{p, q}] {
						f |= badHan
					}
				}
			}
			d.flags[i] = f
		}
	}
}

func splitmix(s *uint64) uint64 {
	*s += 0x9E3779B97F4A7C15
	z := *s
	z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9
	z = (z ^ (z >> 27)) * 0x94D049BB133111EB
	return z ^ (z >> 31)
}

// pairHeader names pairFeatures' columns: for each side X of (a, b), what X
// has that the other lacks, exactly (x...) and as the simulated MinHash
// sees it (k...: the positions where X's minimum is smaller, so its
// argmin shingle is X's only), and what they share.
var pairHeader = func() string {
	h := []string{"a", "b", "edit", "lang", "J", "shared"}
	for _, t := range dfCuts {
		h = append(h, fmt.Sprintf("sf%d", t))
	}
	h = append(h, "smed", "skmed", "keq")
	for _, t := range dfCuts {
		h = append(h, fmt.Sprintf("keqf%d", t))
	}
	for _, x := range []string{"a", "b"} {
		h = append(h, x+"only", x+"runs", x+"edge")
		for _, t := range dfCuts {
			h = append(h, fmt.Sprintf("%sf%d", x, t))
		}
		h = append(h, x+"nov", x+"bad", x+"ubg", x+"et", x+"etn", x+"eb", x+"ebn", x+"ebh", x+"ebd", x+"k")
		for _, t := range dfCuts {
			h = append(h, fmt.Sprintf("%skf%d", x, t))
		}
		h = append(h, x+"knov", x+"kbad", x+"kubg", x+"kpmin", x+"kpmax", x+"med", x+"kmed", x+"kd", x+"kdnov", x+"kdubg", x+"kdf1")
	}
	h = append(h, "sdfs", "skdfs", "adfs", "akdfs", "bdfs", "bkdfs")
	return strings.Join(h, "\t")
}()

// pairFeatures is the columns of pairHeader after lang.
func (c *corpus) pairFeatures(a, b *doc) string {
	inter := countIf(a.set, func(h uint64) bool { return b.set[h] })
	j := 0.0
	if u := len(a.set) + len(b.set) - inter; u > 0 {
		j = float64(inter) / float64(u)
	}
	f := []int{inter}
	for _, t := range dfCuts {
		f = append(f, countIf(a.set, func(h uint64) bool { return b.set[h] && c.freq(shKind, h, a, b) >= t }))
	}
	var sdf, skdf []int32
	for h := range a.set {
		if b.set[h] {
			sdf = append(sdf, c.freq(shKind, h, a, b))
		}
	}
	eq := 0
	eqf := make([]int, len(dfCuts))
	for k := 0; k < slots && len(a.sh) > 0 && len(b.sh) > 0; k++ {
		if h := a.sh[a.argmin[k]]; h == b.sh[b.argmin[k]] {
			eq++
			skdf = append(skdf, c.freq(shKind, h, a, b))
			for i, t := range dfCuts {
				if c.freq(shKind, h, a, b) >= t {
					eqf[i]++
				}
			}
		}
	}
	f = append(f, median(sdf), median(skdf), eq)
	f = append(f, eqf...)
	lists := []string{list(sdf), list(skdf)}
	for _, s := range [][2]*doc{{a, b}, {b, a}} {
		sf, xdf, kdf := c.side(s[0], s[1])
		f = append(f, sf...)
		lists = append(lists, list(xdf), list(kdf))
	}
	return fmt.Sprintf("%.4f\t", j) + join(f) + "\t" + strings.Join(lists, "\t")
}

// side is what d has that o lacks: exactly, then by the simulated sketch.
// Besides the counts it returns the corpus frequencies (documents other
// than the pair's) of d's extra shingles, exactly and at the sketch's
// positions.
func (c *corpus) side(d, o *doc) ([]int, []int32, []int32) {
	n := 0
	var xdf, kdf []int32
	fq := make([]int, len(dfCuts))
	var nov, bad, ubg int
	for h := range d.set {
		if o.set[h] {
			continue
		}
		n++
		xdf = append(xdf, c.freq(shKind, h, d))
		for i, t := range dfCuts {
			if c.freq(shKind, h, d) >= t {
				fq[i]++
			}
		}
		fl := d.flags[d.first[h]]
		nov += int(fl & novelToken / novelToken)
		bad += int(fl & badHan / badHan)
		ubg += int(fl & novelBigram / novelBigram)
	}
	runs, edge := onlyRuns(d, o)
	out := append([]int{n, runs, edge}, fq...)
	out = append(out, nov, bad, ubg)
	out = append(out, c.extraTokens(d, o)...)
	k := 0
	kf := make([]int, len(dfCuts))
	var knov, kbad, kubg int
	pmin, pmax := 1000, -1
	var kd, kdnov, kdubg, kdf1 int
	seen := map[int32]bool{}
	if len(d.sh) > 0 {
		for s := 0; s < slots; s++ {
			i := d.argmin[s]
			h := d.sh[i]
			if len(o.sh) > 0 && !lessAt(d, o, s) {
				continue
			}
			k++
			kdf = append(kdf, c.freq(shKind, h, d))
			for x, t := range dfCuts {
				if c.freq(shKind, h, d) >= t {
					kf[x]++
				}
			}
			fl := d.flags[i]
			knov += int(fl & novelToken / novelToken)
			kbad += int(fl & badHan / badHan)
			kubg += int(fl & novelBigram / novelBigram)
			if !seen[i] {
				seen[i] = true
				kd++
				kdnov += int(fl & novelToken / novelToken)
				kdubg += int(fl & novelBigram / novelBigram)
				if c.freq(shKind, h, d) >= 1 {
					kdf1++
				}
			}
			p := int(int64(i) * 1000 / int64(len(d.sh)))
			pmin, pmax = min(pmin, p), max(pmax, p)
		}
	}
	out = append(out, k)
	out = append(out, kf...)
	return append(out, knov, kbad, kubg, pmin, pmax, median(xdf), median(kdf), kd, kdnov, kdubg, kdf1), xdf, kdf
}

// list is v sorted, comma-separated ("" when empty).
func list(v []int32) string {
	slices.Sort(v)
	s := make([]string, len(v))
	for i, x := range v {
		s[i] = strconv.Itoa(int(x))
	}
	return strings.Join(s, ",")
}

// median is the median of v (the upper one of an even count), -1 for none.
func median(v []int32) int {
	if len(v) == 0 {
		return -1
	}
	slices.Sort(v)
	return int(v[len(v)/2])
}

// lessAt reports whether d's minimum at slot s is smaller than o's: the
// shingle giving it is then in d only (were it in o, o's minimum would be
// at most it).
func lessAt(d, o *doc, s int) bool {
	if dirBits > 0 {
		return float(d.mins[s], dirBits) < float(o.mins[s], dirBits)
	}
	return d.mins[s] < o.mins[s]
}

// dirBits, when > 6, is how many bits of each minimum a document keeps to
// tell which of two minima is smaller: 6 bits of exponent and dirBits-6 of
// mantissa. Equal kept bits leave the position undecided (in neither
// side's extra).
var dirBits int

// float is the order-preserving dirBits-bit float of x.
func float(x uint64, n int) uint64 {
	if x == 0 {
		return 0
	}
	e := uint64(63 - bits.LeadingZeros64(x))
	m := n - 6
	mant := (x << (64 - e)) >> (64 - uint(m)) // the m bits after the leading 1
	if e == 0 {
		mant = 0
	}
	return e<<m | mant
}

// truthLines is pairFeatures for every true pair with Jaccard >= minJ.
func (c *corpus) truthLines(path string, minJ float64) ([]string, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	lines := []string{pairHeader}
	sc := bufio.NewScanner(f)
	sc.Scan() // the header
	for sc.Scan() {
		x := strings.Split(sc.Text(), "\t")
		if len(x) < 3 {
			return nil, fmt.Errorf("%s: %q: want id_a, id_b, jaccard, ...", path, sc.Text())
		}
		jv, err := strconv.ParseFloat(x[2], 64)
		if err != nil {
			return nil, fmt.Errorf("%s: %q: %w", path, sc.Text(), err)
		}
		a, b := c.byID[x[0]], c.byID[x[1]]
		if a == nil || b == nil || jv < minJ {
			continue
		}
		lines = append(lines, x[0]+"\t"+x[1]+"\t-\t-\t"+c.pairFeatures(a, b))
	}
	return lines, sc.Err()
}

// extraTokens is what d's tokens and token bigrams that o lacks say: how
// many tokens, how many of them in no other document, how many bigrams, how
// many of them in no other document, how many of them two Han characters,
// and how many of those found together in no dictionary word.
func (c *corpus) extraTokens(d, o *doc) []int {
	var et, etn, eb, ebn, ebh, ebd int
	for t := range d.tokens {
		if !o.tokens[t] {
			et++
			if c.freq(tokKind, t, d) == 0 {
				etn++
			}
		}
	}
	seen := map[uint64]bool{}
	for i := 1; i < len(d.toks); i++ {
		h := d.toks[i-1]*0x9E3779B97F4A7C15 ^ d.toks[i]
		if o.bigrams[h] || seen[h] {
			continue
		}
		seen[h] = true
		eb++
		if c.freq(bgKind, h, d) == 0 {
			ebn++
		}
		if p, q := d.runes[i-1], d.runes[i]; p != 0 && q != 0 {
			ebh++
			if !c.dictBigram[[2]rune{p, q}] {
				ebd++
			}
		}
	}
	return []int{et, etn, eb, ebn, ebh, ebd}
}

// Kinds of corpus counts.
const (
	shKind = iota
	tokKind
	bgKind
)

// sampleCounts is what a pipeline could hold of the corpus: counts of
// shingles, tokens and token bigrams over a sample of the documents, exact
// or in a count-min sketch.
type sampleCounts struct {
	mod   uint64 // a document is in the sample when its id's hash is 0 mod mod
	exact [3]map[uint64]int32
	// argmins: shingles are counted only where they give a sketch minimum
	// (what the pipeline could count from the sketches alone)
	argmins bool
	cm      [3][][]uint32 // rows x width when width > 0
}

func (s *sampleCounts) in(d *doc) bool {
	return s.mod <= 1 || xxhash.Sum64String(d.id)%s.mod == 0
}

// add counts d's sets when d is in the sample.
func (s *sampleCounts) add(d *doc) {
	if !s.in(d) {
		return
	}
	sets := []map[uint64]bool{d.set, d.tokens, d.bigrams}
	if s.argmins {
		sets[0] = map[uint64]bool{}
		for _, i := range d.argmin {
			if len(d.sh) > 0 {
				sets[0][d.sh[i]] = true
			}
		}
	}
	for k, set := range sets {
		for h := range set {
			if s.cm[k] != nil {
				for r, row := range s.cm[k] {
					row[cmSlot(h, r, len(row))]++
				}
				continue
			}
			s.exact[k][h]++
		}
	}
}

func cmSlot(h uint64, r, width int) int {
	x := (h ^ uint64(r+1)*0x9E3779B97F4A7C15) * 0xBF58476D1CE4E5B9
	return int((x >> 17) % uint64(width))
}

func (s *sampleCounts) count(kind int, h uint64) int32 {
	if s.cm[kind] == nil {
		return s.exact[kind][h]
	}
	m := uint32(1<<32 - 1)
	for r, row := range s.cm[kind] {
		m = min(m, row[cmSlot(h, r, len(row))])
	}
	return int32(m)
}

// freq is how many sampled documents other than own hold h (each of own
// holds it).
func (c *corpus) freq(kind int, h uint64, own ...*doc) int32 {
	n := c.sample.count(kind, h)
	for _, d := range own {
		if c.sample.in(d) && (kind != shKind || !c.sample.argmins || d.isArgmin(h)) {
			n--
		}
	}
	return max(n, 0)
}

func newSampleCounts(mod uint64, width, rows int) *sampleCounts {
	s := &sampleCounts{mod: mod}
	for k := range s.exact {
		s.exact[k] = map[uint64]int32{}
		if width > 0 {
			s.cm[k] = make([][]uint32, rows)
			for r := range s.cm[k] {
				s.cm[k][r] = make([]uint32, width)
			}
		}
	}
	return s
}

// isArgmin reports whether h gives one of d's sketch minima.
func (d *doc) isArgmin(h uint64) bool {
	for _, i := range d.argmin {
		if d.sh[i] == h {
			return true
		}
	}
	return false
}
