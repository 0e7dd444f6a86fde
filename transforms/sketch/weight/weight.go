// Package weight assigns weights to hashed features for SimHash and cosine
// similarity: term frequency (the default), TF-IDF, or binary.
//
// Features are 64-bit hashes: token hashes from package tokenize or shingle
// hashes from package shingle. IDF values come from a Table keyed by the same
// hashes: gse's bundled Chinese IDF table (GseIDF, for Word-mode tokens) or a
// table built from corpus document frequencies (FromDocFreq).
package weight

import (
	"bufio"
	"fmt"
	"math"
	"slices"
	"strconv"
	"strings"
	"sync"

	"github.com/cespare/xxhash/v2"
	"github.com/go-ego/gse"

	"github.com/neardup/neardup/transforms/sketch/similarity"
)

// Scheme names a weighting.
type Scheme int

const (
	// TF weighs a feature by how often it occurs in the document.
	TF Scheme = iota
	// TFIDF multiplies the term frequency by the feature's IDF.
	TFIDF
	// Binary gives every distinct feature weight 1.
	Binary
)

func (s Scheme) String() string {
	switch s {
	case TF:
		return "tf"
	case TFIDF:
		return "tfidf"
	case Binary:
		return "binary"
	}
	return fmt.Sprintf("Scheme(%d)", int(s))
}

// ParseScheme parses "tf", "tfidf" or "binary".
func ParseScheme(s string) (Scheme, error) {
	switch s {
	case "tf":
		return TF, nil
	case "tfidf":
		return TFIDF, nil
	case "binary":
		return Binary, nil
	}
	return 0, fmt.Errorf("weight: unknown scheme %q (want tf, tfidf or binary)", s)
}

// Table maps feature hashes to IDF values. Features not in the table get
// Default, the median IDF of the table (as jieba and gse do), so unknown
// words weigh like an ordinary word rather than nothing.
type Table struct {
	idf     map[uint64]float32
	Default float64
}

// IDF returns the IDF of feature h.
func (t *Table) IDF(h uint64) float64 {
	if v, ok := t.idf[h]; ok {
		return float64(v)
	}
	return t.Default
}

// Len returns the number of features with an explicit IDF.
func (t *Table) Len() int { return len(t.idf) }

// ParseTable reads "word idf" lines (gse / jieba IDF format) and keys each
// word by its xxhash, the hash package tokenize gives tokens.
func ParseTable(text string) (*Table, error) {
	t := &Table{idf: make(map[uint64]float32, strings.Count(text, "\n")+1)}
	var vals []float64
	sc := bufio.NewScanner(strings.NewReader(text))
	line := 0
	for sc.Scan() {
		line++
		f := strings.Fields(sc.Text())
		if len(f) == 0 {
			continue
		}
		if len(f) < 2 {
			return nil, fmt.Errorf("weight: IDF table line %d: want \"word idf\", got %q", line, sc.Text())
		}
		v, err := strconv.ParseFloat(f[1], 64)
		if err != nil {
			return nil, fmt.Errorf("weight: IDF table line %d: %w", line, err)
		}
		t.idf[xxhash.Sum64String(f[0])] = float32(v)
		vals = append(vals, v)
	}
	if err := sc.Err(); err != nil {
		return nil, fmt.Errorf("weight: reading IDF table: %w", err)
	}
	if len(vals) > 0 {
		slices.Sort(vals)
		t.Default = vals[len(vals)/2]
	}
	return t, nil
}

// gse's IDF table, parsed once per process and read-only after (GseIDF).
var (
	gseOnce  sync.Once
	gseTable *Table
	gseErr   error
)

// GseIDF returns gse's bundled Chinese IDF table, parsed once per process.
func GseIDF() (*Table, error) {
	gseOnce.Do(func() { gseTable, gseErr = ParseTable(gse.ZhIdf) })
	return gseTable, gseErr
}

// FromDocFreq builds a table from document frequencies over n documents:
// idf = ln((n+1)/(df+1)) + 1 (smoothed, always positive). Features never seen
// get the IDF of a feature seen in no document.
func FromDocFreq(df map[uint64]int, n int) *Table {
	t := &Table{idf: make(map[uint64]float32, len(df))}
	for h, d := range df {
		t.idf[h] = float32(math.Log(float64(n+1)/float64(d+1)) + 1)
	}
	t.Default = math.Log(float64(n+1)) + 1
	return t
}

// Vector returns the weighted feature vector of hashes under scheme s; idf is
// used only by TFIDF and must then be non-nil.
func Vector(hashes []uint64, s Scheme, idf *Table) similarity.Vector {
	v := similarity.Counts(hashes)
	for i := range v {
		switch s {
		case Binary:
			v[i].Weight = 1
		case TFIDF:
			v[i].Weight *= idf.IDF(v[i].Hash)
		}
	}
	return v
}
