package report

import (
	"slices"
	"testing"
)

// TestSimChartContainment: the similarity chart's legend lists containment
// pairs as a method of their own, after the others, with its own colour.
func TestSimChartContainment(t *testing.T) {
	hist := map[string]*[simBins]int64{"containment": {0: 2}, "minhash": {simBins - 1: 1}, "exact": {simBins - 1: 1}}
	_, legend := simChart(hist)
	want := []legendItem{{"m-exact", "exact"}, {"m-minhash", "minhash"}, {"m-containment", "containment"}}
	if !slices.Equal(legend, want) {
		t.Errorf("legend %v, want %v", legend, want)
	}
}
