package report

import (
	"strings"
	"testing"

	"github.com/neardup/neardup/transforms/format/output"
	"github.com/neardup/neardup/transforms/format/summary"
)

// plain is a sentence with its ids in [brackets].
func plain(s sentence) string {
	var b strings.Builder
	for _, p := range s {
		if p.Code {
			b.WriteString("[" + p.Text + "]")
		} else {
			b.WriteString(p.Text)
		}
	}
	return b.String()
}

// TestDecision: what the page says about a pair (a, b) is the pair's own
// decision, from the fates of its documents in the clusters: which one was
// removed for which, or why neither was.
func TestDecision(t *testing.T) {
	minhash := func(j float64, h int) *output.RemovedMember {
		return &output.RemovedMember{Method: "minhash", Jaccard: j, Hamming: h}
	}
	via := func(v string, m *output.RemovedMember) *output.RemovedMember { m.Via = v; return m }
	kept := fate{}
	tests := []struct {
		name           string
		fa, fb         fate
		method         string
		want           string
		badgeA, badgeB string
	}{
		{"b removed for a", kept, fate{"a", minhash(0.9, 2)}, "minhash",
			"[b] removed for [a] by this pair; [a] kept", badgeKept, badgeRemoved},
		{"a removed for b", fate{"b", minhash(0.9, 2)}, kept, "minhash",
			"[a] removed for [b] by this pair; [b] kept", badgeRemoved, badgeKept},
		{"a removed for b through an exact duplicate", fate{"b", via("v", minhash(0.83, 4))}, kept, "minhash",
			"[a] removed for [b] through its exact duplicate [v], whose pair with [b] is minhash, Jaccard 0.8300, Hamming 4; [b] kept", badgeRemoved, badgeKept},
		{"both kept", kept, kept, "minhash",
			"both kept: neither was removed for the other", badgeKept, badgeKept},
		{"both kept, containment", kept, kept, "containment",
			"both kept: neither was removed for the other (a containment pair removes only the contained document, and only for a document before it in --keep order)", badgeKept, badgeKept},
		{"a removed for a third document", fate{"r", minhash(0.85, 4)}, kept, "minhash",
			"neither was removed for the other: [a] removed for [r] (minhash, Jaccard 0.8500, Hamming 4); [b] kept", badgeRemovedOther, badgeKept},
		{"b removed for a third document by containment", kept, fate{"r", &output.RemovedMember{Method: "containment", Containment: 0.95, Jaccard: 0.41, Hamming: 20}}, "minhash",
			"neither was removed for the other: [a] kept; [b] removed for [r] (containment 0.9500, Jaccard 0.4100, Hamming 20)", badgeKept, badgeRemovedOther},
		{"both removed for one third document, b through a", fate{"r", minhash(0.9, 1)}, fate{"r", via("a", minhash(0.9, 1))}, "exact",
			"neither was removed for the other: both were removed for [r]: [a] (minhash, Jaccard 0.9000, Hamming 1); [b] through its exact duplicate [a] (minhash, Jaccard 0.9000, Hamming 1)", badgeRemovedOther, badgeRemovedOther},
		{"removed for two third documents", fate{"r", &output.RemovedMember{Method: "exact", Jaccard: 1}}, fate{"s", via("v", minhash(0.81, 9))}, "minhash",
			"neither was removed for the other: [a] removed for [r] (exact duplicate); [b] removed for [s] through its exact duplicate [v], whose pair with [s] is minhash, Jaccard 0.8100, Hamming 9", badgeRemovedOther, badgeRemovedOther},
		{"a removed for a third document on the estimate", fate{"r", &output.RemovedMember{Method: "minhash", Jaccard: 0.9216, Estimated: true, Hamming: 7}}, kept, "minhash",
			"neither was removed for the other: [a] removed for [r] (minhash, Jaccard estimate 0.9216, Hamming 7); [b] kept", badgeRemovedOther, badgeKept},
		{"b removed for a third document by estimated containment", kept, fate{"r", &output.RemovedMember{Method: "containment", Containment: 0.9, Jaccard: 0.3, Estimated: true, Hamming: 20}}, "minhash",
			"neither was removed for the other: [a] kept; [b] removed for [r] (containment estimate 0.9000, Jaccard estimate 0.3000, Hamming 20)", badgeKept, badgeRemovedOther},
		{"components: the other kept", fate{"b", nil}, kept, "minhash",
			"[a] removed: its component keeps [b]; [b] kept", badgeRemoved, badgeKept},
		{"components: a third kept", fate{"r", nil}, fate{"r", nil}, "minhash",
			"neither was removed for the other: both removed, their component keeps [r]", badgeRemovedOther, badgeRemovedOther},
	}
	for _, tt := range tests {
		s, ba, bb := decision("a", "b", tt.fa, tt.fb, tt.method)
		if got := plain(s); got != tt.want || ba != tt.badgeA || bb != tt.badgeB {
			t.Errorf("%s: decision %q, badges %q, %q; want %q, %q, %q", tt.name, got, ba, bb, tt.want, tt.badgeA, tt.badgeB)
		}
	}
}

// TestFateOf: a cluster's representative is kept, and each other member
// is removed for it by its own removed entry (none with --clusters
// components).
func TestFateOf(t *testing.T) {
	c := output.ClusterLine{Representative: "k", Members: []string{"x", "k", "y"},
		Removed: []output.RemovedMember{{ID: "x", Method: "exact", Jaccard: 1}, {ID: "y", Method: "minhash", Jaccard: 0.9, Via: "x"}}}
	if f := fateOf("k", &c); f.removed() {
		t.Errorf("representative k: fate %+v, want kept", f)
	}
	if f := fateOf("y", &c); f.Rep != "k" || f.Match == nil || f.Match.ID != "y" || f.Match.Via != "x" {
		t.Errorf("member y: fate %+v, want removed for k through x", f)
	}
	c.Removed = nil
	if f := fateOf("y", &c); f.Rep != "k" || f.Match != nil {
		t.Errorf("member y of a component: fate %+v, want removed for k with no match", f)
	}
}

// TestCountNames: every count a run's summary.json has is named for the
// page by more than its key, and the key stays shown beside the name.
func TestCountNames(t *testing.T) {
	c := map[string]int64{summary.StatContainSmall: 0}
	summary.AllCounts(c, false)
	for key := range c {
		if _, ok := countNames[key]; !ok {
			t.Errorf("count %s of summary.json has no name on the page", key)
		}
	}
	if s := countStat("some_new_count", 1234); s.Name != "some new count" || s.Value != "1,234" || s.Key != "some_new_count" {
		t.Errorf("an unnamed count is shown as %+v, want its key with spaces", s)
	}
}
