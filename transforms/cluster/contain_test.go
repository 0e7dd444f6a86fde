package cluster

import (
	"encoding/hex"
	"fmt"
	"slices"
	"strings"
	"testing"

	"github.com/neardup/neardup/transforms/format/summary"
	"github.com/neardup/neardup/transforms/format/wire"
)

// clusterTexts is the text of every cluster line of out, in order.
func clusterTexts(t *testing.T, out decideOut) []string {
	t.Helper()
	var texts []string
	for _, c := range out.clusters {
		_, h, _ := strings.Cut(c, "/")
		b, err := hex.DecodeString(h)
		if err != nil {
			t.Fatal(err)
		}
		lines, err := wire.AppendLines(nil, b)
		if err != nil {
			t.Fatal(err)
		}
		for _, l := range lines {
			texts = append(texts, string(l.Text))
		}
	}
	return texts
}

// TestDecideContainment: ClusterFn removes the contained document of a
// containment match for its container when --keep ranks the container
// first, with a cluster line that says containment and its value, and
// removes nothing when it ranks the contained document first, counting
// the removals for containment (summary.StatRemovedContainment); in memory
// and spilled alike.
func TestDecideContainment(t *testing.T) {
	part, big, other := wire.DocNum(0, 1), wire.DocNum(0, 2), wire.DocNum(0, 3)
	members := []wire.Member{{Root: part, Doc: part, ID: "part", Len: 3}, {Root: part, Doc: big, ID: "big", Len: 9}, {Root: part, Doc: other, ID: "other", Len: 2}}
	links := []wire.Match{
		{A: part, B: big, Jaccard: 0.3, Hamming: 20, Method: wire.Containment, Inside: wire.SideA, Containment: 0.9512},
		{A: big, B: other, Jaccard: 0.8, Hamming: 2, Method: wire.MinHash},
	}
	loc := func(d wire.Doc) string { return fmt.Sprintf(`{"file":0,"line":%d}`, wire.Line(d)+1) }
	tests := []struct {
		longest bool
		lines   []string
		removed int64
		byCont  int64 // removed for a containment match
	}{
		{true, []string{`{"cluster":"part","size":3,"representative":"big","keep":"longest","kept_key":9,"members":["part","big","other"],"removed":[` +
			`{"id":"part","method":"containment","jaccard":0.3,"hamming":20,"containment":0.9512},` +
			`{"id":"other","method":"minhash","jaccard":0.8,"hamming":2}],"component":"part","component_size":3,` +
			`"locations":[` + loc(part) + "," + loc(big) + "," + loc(other) + `]}`}, 2, 1},
		// --keep first: part comes before big, which it cannot remove,
		// and is kept with it; other goes for big.
		{false, []string{`{"cluster":"big","size":2,"representative":"big","keep":"first","members":["big","other"],"removed":[` +
			`{"id":"other","method":"minhash","jaccard":0.8,"hamming":2}],"component":"part","component_size":3,` +
			`"locations":[` + loc(big) + "," + loc(other) + `]}`}, 1, 0},
	}
	for _, tc := range tests {
		for _, budget := range []int64{1, 1 << 30} {
			out := runDecide(t, members, links, tc.longest, budget)
			if got := clusterTexts(t, out); !slices.Equal(got, tc.lines) {
				t.Errorf("longest %v budget %d: cluster lines\n%s\nwant\n%s", tc.longest, budget, strings.Join(got, "\n"), strings.Join(tc.lines, "\n"))
			}
			if out.stats[summary.StatRemoved] != tc.removed || out.stats[summary.StatRemovedContainment] != tc.byCont {
				t.Errorf("longest %v budget %d: stats %v, want removed %d, %d of them for containment", tc.longest, budget, out.stats, tc.removed, tc.byCont)
			}
		}
	}
}
