package tune

import (
	"fmt"
	"io"
	"slices"

	"github.com/neardup/neardup/transforms/match/blocking"
)

// LengthRow is the recall of the banding ChooseBands picks for the first
// permutation count of the options (128 by default, as in a run), for the
// pairs with J >= threshold whose shorter document falls in one length
// class (shingles of the first shingle size).
type LengthRow struct {
	Class          string
	Bands, Rows    int     // the banding
	Pairs          int     // pairs with J >= threshold in the class
	ExpectedRecall float64 // the banding's collision probability, averaged over the pairs' J
	MeasuredRecall float64 // share of the pairs whose sketches share a band
}

// lengthClasses are the upper bounds (exclusive) of the length classes, in
// shingles; the last class is unbounded.
var lengthClasses = []int{50, 200, 1000}

// lengthClass returns the index of the class of a document of n shingles.
func lengthClass(n int) int {
	for i, hi := range lengthClasses {
		if n < hi {
			return i
		}
	}
	return len(lengthClasses)
}

func lengthClassName(i int) string {
	switch {
	case i == 0:
		return fmt.Sprintf("< %d", lengthClasses[0])
	case i == len(lengthClasses):
		return fmt.Sprintf(">= %d", lengthClasses[i-1])
	}
	return fmt.Sprintf("%d-%d", lengthClasses[i-1], lengthClasses[i]-1)
}

// lengthRows measures the chosen banding per length class; sizes holds
// each document's shingle count.
func lengthRows(pairs []pair, sigs [][]uint64, sizes []int, o Options) []LengthRow {
	bd := blocking.ChooseBands(o.Threshold, o.Perms[0], blocking.DefaultWeights)
	rows := make([]LengthRow, len(lengthClasses)+1)
	found := make([]int, len(rows))
	for i := range rows {
		rows[i].Class, rows[i].Bands, rows[i].Rows = lengthClassName(i), bd.B, bd.R
	}
	for _, p := range pairs {
		if p.j < o.Threshold {
			continue
		}
		c := lengthClass(min(sizes[p.a], sizes[p.b]))
		rows[c].Pairs++
		rows[c].ExpectedRecall += bd.Prob(p.j)
		if sharesBand(bd, sigs[p.a], sigs[p.b]) {
			found[c]++
		}
	}
	for i := range rows {
		if n := float64(rows[i].Pairs); n > 0 {
			rows[i].ExpectedRecall /= n
			rows[i].MeasuredRecall = float64(found[i]) / n
		}
	}
	return rows
}

// sharesBand reports whether sketches a and b agree on every row of one of
// bd's bands.
func sharesBand(bd blocking.Bands, a, b []uint64) bool {
	for i := 0; i < bd.B; i++ {
		if slices.Equal(a[i*bd.R:(i+1)*bd.R], b[i*bd.R:(i+1)*bd.R]) {
			return true
		}
	}
	return false
}

// printLengths writes the length classes' table.
func printLengths(w io.Writer, rows []LengthRow, t float64) {
	if len(rows) == 0 {
		return
	}
	fmt.Fprintf(w, "\nthe chosen %dx%d banding by length of the shorter document (shingles): recall at J >= %.2f\n", rows[0].Bands, rows[0].Rows, t)
	fmt.Fprintf(w, "%10s %8s %9s %9s\n", "shingles", "pairs", "expected", "measured")
	for _, l := range rows {
		fmt.Fprintf(w, "%10s %8d %9.4f %9.4f\n", l.Class, l.Pairs, l.ExpectedRecall, l.MeasuredRecall)
	}
}
