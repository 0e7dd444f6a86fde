package components

import (
	"fmt"
	"math/rand/v2"
	"slices"
	"testing"

	"github.com/neardup/neardup/transforms/format/wire"
)

// reference assigns every node of edges to its component's smallest node by
// breadth-first search.
func reference(edges []Edge) []Assignment {
	adj := map[uint64][]uint64{}
	for _, e := range edges {
		adj[e.A] = append(adj[e.A], e.B)
		adj[e.B] = append(adj[e.B], e.A)
	}
	nodes := make([]uint64, 0, len(adj))
	for n := range adj {
		nodes = append(nodes, n)
	}
	slices.Sort(nodes)
	root := map[uint64]uint64{}
	for _, n := range nodes {
		if _, ok := root[n]; ok {
			continue
		}
		root[n] = n
		queue := []uint64{n}
		for len(queue) > 0 {
			x := queue[0]
			queue = queue[1:]
			for _, y := range adj[x] {
				if _, ok := root[y]; !ok {
					root[y] = n
					queue = append(queue, y)
				}
			}
		}
	}
	out := make([]Assignment, len(nodes))
	for i, n := range nodes {
		out[i] = Assignment{Node: n, Root: root[n]}
	}
	return out
}

func path(nodes []uint64) []Edge {
	var e []Edge
	for i := 1; i < len(nodes); i++ {
		e = append(e, NewEdge(nodes[i-1], nodes[i]))
	}
	return e
}

func clique(nodes []uint64) []Edge {
	var e []Edge
	for i := range nodes {
		for j := i + 1; j < len(nodes); j++ {
			e = append(e, NewEdge(nodes[j], nodes[i]))
		}
	}
	return e
}

func randomNodes(rng *rand.Rand, n int) []uint64 {
	out := make([]uint64, n)
	for i := range out {
		out[i] = rng.Uint64() >> rng.IntN(64)
	}
	return out
}

func randomGraph(rng *rand.Rand, n, m int) []Edge {
	nodes := randomNodes(rng, n)
	e := make([]Edge, m)
	for i := range e {
		e[i] = NewEdge(nodes[rng.IntN(n)], nodes[rng.IntN(n)])
	}
	return e
}

func TestRunMatchesReference(t *testing.T) {
	rng := rand.New(rand.NewPCG(1, 2))
	graphs := map[string][]Edge{
		"empty":       nil,
		"one edge":    {NewEdge(7, 3)},
		"self loop":   {{A: 5, B: 5}, NewEdge(5, 6)},
		"repeats":     {NewEdge(1, 2), NewEdge(2, 1), NewEdge(1, 2)},
		"star":        {NewEdge(10, 1), NewEdge(10, 2), NewEdge(10, 3), NewEdge(10, 4)},
		"path 2000":   path(randomNodes(rng, 2000)),
		"sorted path": path([]uint64{1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12}),
		"clique 60":   clique(randomNodes(rng, 60)),
		"sparse":      randomGraph(rng, 3000, 1500),
		"dense":       randomGraph(rng, 500, 3000),
	}
	var mixed []Edge
	for _, g := range graphs {
		mixed = append(mixed, g...)
	}
	graphs["all of them"] = mixed
	for name, g := range graphs {
		want := reference(g)
		for _, p := range []int{1, 3, 64} {
			for rounds := range 5 {
				t.Run(fmt.Sprintf("%s/p%d/r%d", name, p, rounds), func(t *testing.T) {
					got, st := Run(g, p, rounds)
					if !slices.Equal(got, want) {
						t.Fatalf("%d assignments, want %d; first difference %v", len(got), len(want), firstDiff(got, want))
					}
					if st.Rounds != rounds {
						t.Errorf("rounds %d, want %d", st.Rounds, rounds)
					}
				})
			}
		}
	}
}

func firstDiff(a, b []Assignment) string {
	for i := range min(len(a), len(b)) {
		if a[i] != b[i] {
			return fmt.Sprintf("at %d: %v vs %v", i, a[i], b[i])
		}
	}
	return "length"
}

// Stars and cliques become settled stars after one round; a long path does
// not, and what the rounds leave shrinks as rounds are added.
func TestRoundsContract(t *testing.T) {
	rng := rand.New(rand.NewPCG(3, 4))
	var cliques []Edge
	for range 200 { // disjoint: full-width random nodes do not repeat
		nodes := make([]uint64, 2+rng.IntN(8))
		for i := range nodes {
			nodes[i] = rng.Uint64()
		}
		cliques = append(cliques, clique(nodes)...)
	}
	_, st := Run(cliques, 16, 1)
	if st.Remainder != 0 {
		t.Errorf("cliques after 1 round: %d edges left, want 0", st.Remainder)
	}
	if _, st := Run(cliques, 16, 0); st.Remainder == 0 {
		t.Errorf("cliques after 0 rounds: no edges left, want some (cliques are not stars)")
	}

	p := path(randomNodes(rng, 5000))
	prev := len(p) + 1
	for rounds := range 6 {
		_, st := Run(p, 16, rounds)
		t.Logf("path of %d edges, %d rounds: %d left", len(p), rounds, st.Remainder)
		if st.Remainder >= prev && prev > 0 {
			t.Errorf("%d rounds leave %d edges, %d rounds left %d", rounds, st.Remainder, rounds-1, prev)
		}
		prev = st.Remainder
	}
}

func TestResolveNeedsEveryLeaf(t *testing.T) {
	stars := []Edge{{A: 1, B: 2}, {A: 1, B: 3}, {A: 4, B: 5}}
	leaves := []Edge{{A: 1, B: 2}, {A: 4, B: 5}, {A: 9, B: 10}}
	var got []Assignment
	var rest []Edge
	Resolve(stars, leaves, func(a Assignment) { got = append(got, a) }, func(e Edge) { rest = append(rest, e) })
	wantGot := []Assignment{{4, 4}, {5, 4}}
	wantRest := []Edge{{A: 1, B: 2}, {A: 1, B: 3}}
	if !slices.Equal(got, wantGot) || !slices.Equal(rest, wantRest) {
		t.Errorf("assigned %v rest %v, want %v and %v", got, rest, wantGot, wantRest)
	}
}

func BenchmarkRun(b *testing.B) {
	rng := rand.New(rand.NewPCG(5, 6))
	var g []Edge
	for range 20000 {
		g = append(g, clique(randomNodes(rng, 2+rng.IntN(4)))...)
	}
	b.ResetTimer()
	for b.Loop() {
		Run(g, 256, 2)
	}
}

func TestClusters(t *testing.T) {
	ms := []wire.Member{
		{Doc: 9, Root: 2, ID: "i", Len: 50}, {Doc: 2, Root: 2, ID: "b", Len: 10},
		{Doc: 5, Root: 1, ID: "e", Len: 7}, {Doc: 1, Root: 1, ID: "a", Len: 7}, {Doc: 4, Root: 2, ID: "d", Len: 50},
	}
	for _, tc := range []struct {
		longest bool
		want    string
	}{
		{false, "[a e] keep a; [b d i] keep b; "},
		{true, "[a e] keep a; [b d i] keep d; "}, // d and i tie at 50: the first
	} {
		var got string
		err := Clusters(slices.Clone(ms), tc.longest, func(comp []wire.Member, rep int) error {
			var ids []string
			for _, m := range comp {
				ids = append(ids, m.ID)
			}
			got += fmt.Sprintf("%v keep %s; ", ids, comp[rep].ID)
			return nil
		})
		if err != nil || got != tc.want {
			t.Errorf("longest=%v: %q, %v; want %q", tc.longest, got, err, tc.want)
		}
	}
}
