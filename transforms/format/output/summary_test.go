package output

import (
	"maps"
	"testing"
)

// TestNewSummaryShuffles: the shuffle tallies leave the counts for
// ShuffleBytes and ShuffleElements, and the totals are derived from the
// counts that stay; an audit drops them.
func TestNewSummaryShuffles(t *testing.T) {
	counts := func() map[string]int64 {
		return map[string]int64{
			StatInput: 10, StatKept: 7, StatRemoved: 3, StatByEstimate: 2, StatByExact: 1,
			ShuffleBytesPrefix + ShuffleBands: 600, ShuffleElementsPrefix + ShuffleBands: 2,
			ShuffleBytesPrefix + ShuffleMatches: 90, ShuffleElementsPrefix + ShuffleMatches: 1,
		}
	}
	s := NewSummary(counts())
	wantCounts := map[string]int64{StatInput: 10, StatKept: 7, StatRemoved: 3, StatByEstimate: 2, StatByExact: 1, StatVerified: 3, StatRemainder: 0}
	if !maps.Equal(s.Counts, wantCounts) || !s.Balanced {
		t.Errorf("counts %v (balanced %v), want %v (balanced)", s.Counts, s.Balanced, wantCounts)
	}
	if want := map[string]int64{ShuffleBands: 600, ShuffleMatches: 90}; !maps.Equal(s.ShuffleBytes, want) {
		t.Errorf("shuffle bytes %v, want %v", s.ShuffleBytes, want)
	}
	if want := map[string]int64{ShuffleBands: 2, ShuffleMatches: 1}; !maps.Equal(s.ShuffleElements, want) {
		t.Errorf("shuffle elements %v, want %v", s.ShuffleElements, want)
	}
	if s := NewSummary(map[string]int64{StatInput: 1, StatKept: 1}); s.ShuffleBytes != nil || s.ShuffleElements != nil {
		t.Errorf("no tallies gave shuffle bytes %v, elements %v; want none", s.ShuffleBytes, s.ShuffleElements)
	}
	a := NewAuditSummary("idx", counts())
	for name := range a.Counts {
		if name != StatInput && name != StatKept && name != StatRemoved && name != StatByEstimate && name != StatByExact && name != StatVerified {
			t.Errorf("audit counts hold %s", name)
		}
	}
}
