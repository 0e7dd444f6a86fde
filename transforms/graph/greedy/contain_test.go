package greedy

import (
	"slices"
	"testing"
)

// TestDecideContainment: a containment link removes its contained end for
// its container when the container comes first in priority order, and
// nothing otherwise; with undirected links and exact groups, whose
// leaders it joins with the same rule. Each case is decided by Decide,
// checked against the brute force (the spilled decision of package
// graph/external is checked against Decide on random containment links).
func TestDecideContainment(t *testing.T) {
	const A, B = OnlyA, OnlyB
	tests := []struct {
		name    string
		lens    []int64
		links   []Link
		longest bool
		wantFor []int32 // -1: kept
	}{
		{"0 inside 1, 1 longer: 0 removed for 1", []int64{3, 9}, []Link{{A: 0, B: 1, Removes: A}}, true, []int32{1, -1}},
		{"the same seen from B", []int64{9, 3}, []Link{{A: 0, B: 1, Removes: B}}, true, []int32{-1, 0}},
		{"0 inside 1, keep first: both kept", []int64{3, 9}, []Link{{A: 0, B: 1, Removes: A}}, false, []int32{-1, -1}},
		{"0 inside 1 with more bytes: both kept", []int64{9, 3}, []Link{{A: 0, B: 1, Removes: A}}, true, []int32{-1, -1}},
		{"1 inside 0, keep first: 1 removed for 0", []int64{3, 9}, []Link{{A: 0, B: 1, Removes: B}}, false, []int32{-1, 0}},
		// C ⊂ B ⊂ A as 2 ⊂ 1 ⊂ 0: B goes for A, and C, whose container
		// is gone, stays.
		{"chain C in B in A, longest", []int64{9, 6, 3}, []Link{{A: 1, B: 0, Removes: A}, {A: 2, B: 1, Removes: A}}, true, []int32{-1, 0, -1}},
		{"chain C in B in A, C also in A", []int64{9, 6, 3}, []Link{{A: 1, B: 0, Removes: A}, {A: 2, B: 1, Removes: A}, {A: 0, B: 2, Removes: B}}, true, []int32{-1, 0, 0}},
		// The same documents in input order C, B, A under --keep first:
		// each contained document comes before its container.
		{"chain C in B in A, keep first", []int64{3, 6, 9}, []Link{{A: 1, B: 2, Removes: A}, {A: 0, B: 1, Removes: A}}, false, []int32{-1, -1, -1}},
		{"chain C in B in A, longest from C", []int64{3, 6, 9}, []Link{{A: 1, B: 2, Removes: A}, {A: 0, B: 1, Removes: A}}, true, []int32{-1, 2, -1}},
		// 1 ⊂ 0 and 1 ~ 2: 1 is removed for 0, the first that may remove it.
		{"containment and a Jaccard link", []int64{9, 5, 7}, []Link{{A: 1, B: 0, Removes: A}, {A: 1, B: 2}}, true, []int32{-1, 0, -1}},
		// 0 ⊂ 1 counts for nothing (0 first), 1 ~ 2 removes 2.
		{"a containment link that does not count beside a Jaccard one", []int64{3, 9, 5}, []Link{{A: 0, B: 1, Removes: A}, {A: 1, B: 2}}, false, []int32{-1, -1, 1}},
		// 0 ⊂ 1 counts for nothing, but 0 ~ 1 removes 1 for 0.
		{"an undirected link beside the containment link", []int64{3, 9}, []Link{{A: 0, B: 1, Removes: A}, {A: 0, B: 1}}, false, []int32{-1, 0}},
		// {0, 1} exact duplicates, 1 ⊂ 2: the group goes for 2.
		{"contained exact group", []int64{5, 5, 9}, []Link{{A: 0, B: 1, Exact: true}, {A: 1, B: 2, Removes: A}}, true, []int32{2, 2, -1}},
		// 0 ⊂ 2, 2 an exact duplicate of 1, its leader: 0 goes for 1.
		{"container in an exact group", []int64{3, 9, 9}, []Link{{A: 1, B: 2, Exact: true}, {A: 0, B: 2, Removes: A}}, true, []int32{1, -1, 1}},
		// {0, 2} exact, 2 ⊂ 1, keep first: the group's leader 0 comes
		// before 1, so nothing is removed for 1; 2 follows 0.
		{"contained exact group led before its container", []int64{5, 9, 5}, []Link{{A: 0, B: 2, Exact: true}, {A: 2, B: 1, Removes: A}}, false, []int32{-1, -1, 0}},
		// An exact link ignores Removes: 1 goes for its duplicate 0.
		{"exact flag wins over inside", []int64{5, 5}, []Link{{A: 0, B: 1, Exact: true, Removes: A}}, true, []int32{-1, 0}},
	}
	for _, tc := range tests {
		nodes := nodesOf(tc.lens...)
		dec := check(t, tc.name, nodes, tc.links, tc.longest)
		got := make([]int32, len(dec))
		for i, d := range dec {
			got[i] = d.For
			if d.Kept != (d.For < 0) {
				t.Errorf("%s: node %d: %+v", tc.name, i, d)
			}
		}
		if !slices.Equal(got, tc.wantFor) {
			t.Errorf("%s: removed for %v, want %v (-1: kept)", tc.name, got, tc.wantFor)
		}
	}
}
