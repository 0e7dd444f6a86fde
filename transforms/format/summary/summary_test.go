package summary

import (
	"encoding/json"
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
			ShuffleBytesPrefix + "band_entries": 600, ShuffleElementsPrefix + "band_entries": 2,
			ShuffleBytesPrefix + "matches": 90, ShuffleElementsPrefix + "matches": 1,
		}
	}
	s := NewSummary(counts())
	wantCounts := map[string]int64{StatInput: 10, StatKept: 7, StatRemoved: 3, StatByEstimate: 2, StatByExact: 1, StatVerified: 3, StatRemainder: 0}
	if !maps.Equal(s.Counts, wantCounts) || !s.Balanced {
		t.Errorf("counts %v (balanced %v), want %v (balanced)", s.Counts, s.Balanced, wantCounts)
	}
	if want := map[string]int64{"band_entries": 600, "matches": 90}; !maps.Equal(s.ShuffleBytes, want) {
		t.Errorf("shuffle bytes %v, want %v", s.ShuffleBytes, want)
	}
	if want := map[string]int64{"band_entries": 2, "matches": 1}; !maps.Equal(s.ShuffleElements, want) {
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

// TestSummaryHasEveryCount: with AllCounts, summary.json and
// audit-summary.json have every count of their kind, 0 when nothing added
// to it, and the counts added as they are.
func TestSummaryHasEveryCount(t *testing.T) {
	for _, tt := range []struct {
		name   string
		counts map[string]int64
		audit  bool
	}{
		{"run, nothing counted", map[string]int64{}, false},
		{"run, no duplicates", map[string]int64{StatInput: 4, StatKept: 4, StatDocuments: 4}, false},
		{"run, an unknown count kept", map[string]int64{StatInput: 1, StatKept: 1, "other": 2}, false},
		{"run, containment", map[string]int64{StatInput: 5, StatKept: 3, StatRemoved: 2, StatContainmentPairs: 3, StatRemovedContainment: 1}, false},
		{"audit, nothing counted", map[string]int64{}, true},
		{"audit, no duplicates", map[string]int64{StatInput: 4, StatKept: 4, StatIndexDocs: 9}, true},
	} {
		t.Run(tt.name, func(t *testing.T) {
			in := maps.Clone(tt.counts)
			want := []string{StatRemoved, StatClusters, StatRejected, StatExactDups, StatRemainder, StatContainmentPairs, StatRemovedContainment, StatSegments, "rejects_lines", "pairs_lines"}
			var v any
			AllCounts(tt.counts, tt.audit)
			if tt.audit {
				v = NewAuditSummary("idx", tt.counts)
				want = append(want[:len(want)-3], StatDupOfIndex, StatBatchOnly, StatRemovedInBatch, StatIndexMatches, "clusters_lines")
			} else {
				v = NewSummary(tt.counts)
			}
			b, err := json.Marshal(v)
			if err != nil {
				t.Fatal(err)
			}
			var got struct{ Counts map[string]int64 }
			if err := json.Unmarshal(b, &got); err != nil {
				t.Fatal(err)
			}
			for _, name := range want {
				if n, ok := got.Counts[name]; !ok || n != in[name] {
					t.Errorf("%s: %s = %d (present: %v), want %d", b, name, n, ok, in[name])
				}
			}
			for name, n := range in {
				if got.Counts[name] != n {
					t.Errorf("%s = %d, want %d as counted", name, got.Counts[name], n)
				}
			}
			if _, ok := got.Counts[StatSegments]; ok && tt.audit {
				t.Errorf("audit summary has %s, which an audit does not count", StatSegments)
			}
		})
	}
}
