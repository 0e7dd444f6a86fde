package tally

import (
	"maps"
	"testing"

	"github.com/neardup/neardup/transforms/format/summary"
)

func TestShuffle(t *testing.T) {
	for _, tc := range []struct {
		name   string
		chunks [][]byte
		want   map[string]int64
	}{
		{"none", nil, map[string]int64{}},
		{"two", [][]byte{[]byte("abc"), []byte("de")}, map[string]int64{
			summary.ShuffleBytesPrefix + "x": 5, summary.ShuffleElementsPrefix + "x": 2}},
		{"empty chunk", [][]byte{{}}, map[string]int64{
			summary.ShuffleBytesPrefix + "x": 0, summary.ShuffleElementsPrefix + "x": 1}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			got := map[string]int64{}
			passed := 0
			emit, report := CountShuffle("x", func(int64, []byte) { passed++ }, func(name string, n int64) { got[name] += n })
			for _, c := range tc.chunks {
				emit(0, c)
			}
			report()
			report() // reset: nothing more
			if passed != len(tc.chunks) || !maps.Equal(got, tc.want) {
				t.Errorf("passed %d of %d chunks, stats %v, want %v", passed, len(tc.chunks), got, tc.want)
			}
		})
	}
}

func TestCountsEmit(t *testing.T) {
	got := map[string]int64{}
	Counts{{Name: "a", N: 1}, {Name: "b", N: 0}, {Name: "a", N: 2}}.Emit(func(name string, n int64) { got[name] += n })
	if want := map[string]int64{"a": 3, "b": 0}; !maps.Equal(got, want) {
		t.Errorf("emitted %v, want %v", got, want)
	}
}
