package greedy

import (
	"fmt"
	"math/rand/v2"
	"slices"
	"testing"

	"github.com/neardup/neardup/transforms/format/rank"
)

// bruteForce decides nodes one by one in priority order on the graph in
// which every exact group is a clique whose members share their partners,
// with a matrix of who may remove whom (rem[u][v]: u may remove v; a
// containment link only its contained end's group, for its container's):
// the definition, without contraction or ranks.
func bruteForce(nodes []Node, links []Link, longest bool) (kept []bool, keptFor []int32) {
	n := len(nodes)
	group := make([]int, n)
	for i := range group {
		group[i] = i
	}
	var find func(int) int
	find = func(x int) int {
		for group[x] != x {
			x = group[x]
		}
		return x
	}
	for _, l := range links {
		if l.Exact {
			a, b := find(int(l.A)), find(int(l.B))
			if a != b {
				group[b] = a
			}
		}
	}
	rem := make([][]bool, n)
	for i := range rem {
		rem[i] = make([]bool, n)
	}
	for i := range n {
		for j := range n {
			if i != j && find(i) == find(j) {
				rem[i][j] = true
			}
		}
	}
	for _, l := range links {
		if l.Exact || find(int(l.A)) == find(int(l.B)) {
			continue
		}
		for i := range n {
			for j := range n {
				if find(i) == find(int(l.A)) && find(j) == find(int(l.B)) {
					rem[i][j] = rem[i][j] || l.Removes != OnlyA // unless A is contained
					rem[j][i] = rem[j][i] || l.Removes != OnlyB
				}
			}
		}
	}
	order := make([]int, n)
	for i := range order {
		order[i] = i
	}
	slices.SortFunc(order, func(x, y int) int { return Compare(nodes[x], nodes[y], longest) })
	outside := make([]bool, n) // a member of the group is removed beforehand
	for i := range n {
		for j := range n {
			if find(i) == find(j) && nodes[j].Removed {
				outside[i] = true
			}
		}
	}
	kept = make([]bool, n)
	keptFor = make([]int32, n)
	for _, v := range order {
		keptFor[v] = -1
		kept[v] = !outside[v]
		if outside[v] {
			continue
		}
		for _, u := range order { // the first kept neighbour in priority order
			if u == v {
				break
			}
			if kept[u] && rem[u][v] {
				kept[v], keptFor[v] = false, int32(u)
				break
			}
		}
	}
	return kept, keptFor
}

// check compares Decide with bruteForce and checks that each removed node's
// Link joins it (or its Via) with its For.
func check(t *testing.T, name string, nodes []Node, links []Link, longest bool) []Decision {
	t.Helper()
	dec := Decide(nodes, links, longest)
	kept, keptFor := bruteForce(nodes, links, longest)
	for i, d := range dec {
		if d.Kept != kept[i] || d.For != keptFor[i] {
			t.Fatalf("%s: node %d: Decide says kept %v for %d, brute force kept %v for %d", name, i, d.Kept, d.For, kept[i], keptFor[i])
		}
		if d.Kept || d.For < 0 {
			continue
		}
		from := int32(i)
		if d.Via >= 0 {
			from = d.Via
		}
		lead := leaders(nodes, links, longest)
		l := links[d.Link]
		a, b := lead[l.A], lead[l.B]
		if d.Via < 0 && l.Exact && a == lead[from] && a == d.For {
			continue // removed for its exact group's leader
		}
		if !(a == lead[from] && b == d.For) && !(b == lead[from] && a == d.For) {
			t.Fatalf("%s: node %d removed for %d through link %d (%d-%d), via %d", name, i, d.For, d.Link, l.A, l.B, d.Via)
		}
		if l.Removes == OnlyA && a != lead[from] || l.Removes == OnlyB && b != lead[from] {
			t.Fatalf("%s: node %d removed for %d through link %d (%d-%d), whose contained end is side %d", name, i, d.For, d.Link, l.A, l.B, l.Removes)
		}
	}
	return dec
}

func nodesOf(lens ...int64) []Node {
	nodes := make([]Node, len(lens))
	for i, l := range lens {
		nodes[i] = Node{Doc: uint64(i) * 3, Len: l}
	}
	return nodes
}

func TestDecide(t *testing.T) {
	tests := []struct {
		name     string
		lens     []int64
		links    []Link
		longest  bool
		wantKept []bool
	}{
		{"chain A~B~C keeps A and C", []int64{5, 5, 5}, []Link{{A: 0, B: 1}, {A: 1, B: 2}}, true, []bool{true, false, true}},
		{"chain whose middle is longest", []int64{5, 9, 5}, []Link{{A: 0, B: 1}, {A: 1, B: 2}}, true, []bool{false, true, false}},
		{"chain by first", []int64{5, 9, 5}, []Link{{A: 0, B: 1}, {A: 1, B: 2}}, false, []bool{true, false, true}},
		{"star", []int64{9, 1, 1, 1}, []Link{{A: 0, B: 1}, {A: 0, B: 2}, {A: 0, B: 3}}, true, []bool{true, false, false, false}},
		{"star whose centre is short", []int64{1, 9, 9, 9}, []Link{{A: 0, B: 1}, {A: 0, B: 2}, {A: 0, B: 3}}, true, []bool{false, true, true, true}},
		{"clique", []int64{1, 2, 3}, []Link{{A: 0, B: 1}, {A: 0, B: 2}, {A: 1, B: 2}}, true, []bool{false, false, true}},
		// 0 and 1 are exact duplicates; 2 is a near-duplicate of 1 only as
		// linked, so of 0 too; 0 is the longest and is kept.
		{"exact group shares its partners", []int64{9, 5, 7}, []Link{{A: 0, B: 1, Exact: true}, {A: 1, B: 2}}, true, []bool{true, false, false}},
		// 3 (longest) removes 1, so 1's exact duplicate 0 goes too, and 2
		// (near 0 only) is kept: nothing kept resembles it.
		{"exact group removed by a partner", []int64{5, 4, 1, 9}, []Link{{A: 0, B: 1, Exact: true}, {A: 1, B: 3}, {A: 0, B: 2}}, true, []bool{false, false, true, true}},
	}
	// Removed beforehand (an audit: 1 has an indexed duplicate): 0 and 2,
	// its partners, are both kept.
	nodes := nodesOf(5, 9, 5)
	nodes[1].Removed = true
	dec := check(t, "removed beforehand", nodes, []Link{{A: 0, B: 1}, {A: 1, B: 2}}, true)
	if !dec[0].Kept || dec[1].Kept || dec[1].For != -1 || !dec[2].Kept {
		t.Errorf("removed beforehand: %+v, want 0 and 2 kept, 1 removed for none", dec)
	}
	for _, tc := range tests {
		dec := check(t, tc.name, nodesOf(tc.lens...), tc.links, tc.longest)
		for i, d := range dec {
			if d.Kept != tc.wantKept[i] {
				t.Errorf("%s: node %d kept %v, want %v", tc.name, i, d.Kept, tc.wantKept[i])
			}
		}
	}
}

// randomSide is a random Link.Removes: a containment link one time in two,
// contained at either end.
func randomSide(r *rand.Rand) End {
	if r.IntN(2) == 0 {
		return Either
	}
	return End(1 + r.IntN(2))
}

// TestDecideRandom compares Decide with bruteForce on random graphs, with
// and without exact groups, containment links among undirected ones, under
// both priorities.
func TestDecideRandom(t *testing.T) {
	r := rand.New(rand.NewPCG(1, 2))
	for trial := range 2000 {
		n := 1 + r.IntN(14)
		lens := make([]int64, n)
		for i := range lens {
			lens[i] = int64(r.IntN(4)) // many ties
		}
		var links []Link
		for range r.IntN(3 * n) {
			a, b := int32(r.IntN(n)), int32(r.IntN(n))
			links = append(links, Link{A: a, B: b, Exact: r.IntN(5) == 0, Removes: randomSide(r)})
		}
		nodes := nodesOf(lens...)
		if trial%3 == 0 { // ranked by a field: a few values, some missing
			for i := range nodes {
				nodes[i].Rank = rank.Key{Hi: uint64(r.IntN(3))}
			}
		}
		for _, longest := range []bool{true, false} {
			check(t, fmt.Sprintf("trial %d longest %v", trial, longest), nodes, links, longest)
		}
		for i := range nodes { // an audit: some removed beforehand
			nodes[i].Removed = r.IntN(6) == 0
		}
		check(t, fmt.Sprintf("trial %d with removed", trial), nodes, links, true)
	}
}

// TestDecideChain is a chain of 100,000 documents, each a near-duplicate
// of the next only: every other one is kept, whichever end has the
// priority.
func TestDecideChain(t *testing.T) {
	const n = 100_000
	for _, rising := range []bool{false, true} {
		nodes := make([]Node, n)
		links := make([]Link, n-1)
		for i := range nodes {
			nodes[i] = Node{Doc: uint64(i), Len: 100}
			if rising {
				nodes[i].Len = int64(i) // the last is the longest
			}
			if i > 0 {
				links[i-1] = Link{A: int32(i - 1), B: int32(i)}
			}
		}
		dec := Decide(nodes, links, true)
		kept := 0
		for i, d := range dec {
			first := i // the distance from the highest-priority end
			if rising {
				first = n - 1 - i
			}
			if d.Kept != (first%2 == 0) {
				t.Fatalf("rising %v: node %d kept %v", rising, i, d.Kept)
			}
			if d.Kept {
				kept++
			} else if d.For != int32(i-1) && d.For != int32(i+1) {
				t.Fatalf("rising %v: node %d removed for %d", rising, i, d.For)
			}
		}
		if kept != n/2 {
			t.Fatalf("rising %v: kept %d of %d, want %d", rising, kept, n, n/2)
		}
	}
}

// TestDecideExactChain is a group of 1,000 exact duplicates, each linked to
// the next only: one clique, so one is kept and the rest removed for it.
func TestDecideExactChain(t *testing.T) {
	const n = 1000
	nodes := make([]Node, n)
	var links []Link
	for i := range nodes {
		nodes[i] = Node{Doc: uint64(i), Len: int64(i % 7)}
		if i > 0 {
			links = append(links, Link{A: int32(i - 1), B: int32(i), Exact: true})
		}
	}
	dec := Decide(nodes, links, true)
	want := int32(6) // the first of the longest
	for i, d := range dec {
		if (int32(i) == want) != d.Kept || (!d.Kept && d.For != want) {
			t.Fatalf("node %d: kept %v for %d, want only %d kept", i, d.Kept, d.For, want)
		}
	}
}

func ExampleDecide() {
	// A ~ B ~ C, all of one length: A is kept, B removed for A, and C, which
	// nothing kept resembles, is kept.
	nodes := []Node{{Doc: 1, Len: 10}, {Doc: 2, Len: 10}, {Doc: 3, Len: 10}}
	links := []Link{{A: 0, B: 1}, {A: 1, B: 2}}
	for i, d := range Decide(nodes, links, true) {
		fmt.Println(i, d.Kept, d.For)
	}
	// Output:
	// 0 true -1
	// 1 false 0
	// 2 true -1
}

func BenchmarkDecideChain(b *testing.B) {
	const n = 100_000
	nodes := make([]Node, n)
	links := make([]Link, n-1)
	for i := range nodes {
		nodes[i] = Node{Doc: uint64(i), Len: int64(i % 1000)}
		if i > 0 {
			links[i-1] = Link{A: int32(i - 1), B: int32(i)}
		}
	}
	b.ReportAllocs()
	for b.Loop() {
		Decide(nodes, links, true)
	}
}

// TestCompareRank: the larger rank comes first whatever the lengths, a
// document without one (the zero Key) after every ranked one; equal ranks
// fall back to the length (with longest), then the document order.
func TestCompareRank(t *testing.T) {
	early, late := rank.Key{Hi: 9}, rank.Key{Hi: 3}
	for _, c := range []struct {
		a, b    Node
		longest bool
		want    int
	}{
		{Node{Doc: 2, Rank: early, Len: 1}, Node{Doc: 1, Rank: late, Len: 100}, true, -1},
		{Node{Doc: 1, Rank: late, Len: 100}, Node{Doc: 2, Rank: early, Len: 1}, false, 1},
		{Node{Doc: 1, Len: 100}, Node{Doc: 2, Rank: late, Len: 1}, true, 1},
		{Node{Doc: 2, Rank: late, Len: 5}, Node{Doc: 1, Rank: late, Len: 4}, true, -1},
		{Node{Doc: 2, Rank: late, Len: 5}, Node{Doc: 1, Rank: late, Len: 4}, false, 1},
		{Node{Doc: 1, Rank: late, Len: 5}, Node{Doc: 2, Rank: late, Len: 5}, true, -1},
	} {
		if got := Compare(c.a, c.b, c.longest); got != c.want {
			t.Errorf("Compare(%+v, %+v, %v) = %d, want %d", c.a, c.b, c.longest, got, c.want)
		}
	}
	// In a chain a ~ b ~ c the ranks, not the lengths, say who is kept.
	nodes := []Node{{Doc: 1, Rank: late, Len: 50}, {Doc: 2, Rank: early, Len: 10}, {Doc: 3, Len: 90}}
	dec := Decide(nodes, []Link{{A: 0, B: 1}, {A: 1, B: 2}}, true)
	if !dec[1].Kept || dec[0].Kept || dec[2].Kept || dec[0].For != 1 || dec[2].For != 1 {
		t.Errorf("Decide = %+v; want the second kept, the others removed for it", dec)
	}
}
