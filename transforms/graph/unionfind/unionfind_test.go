package unionfind

import (
	"math/rand/v2"
	"testing"
)

func TestUF(t *testing.T) {
	type op struct {
		a, b   int32
		merged bool
	}
	tests := []struct {
		name  string
		n     int
		ops   []op
		sets  [][]int32 // every element appears once
		after int       // Add calls before the unions
	}{
		{name: "empty", n: 0},
		{name: "singletons", n: 3, sets: [][]int32{{0}, {1}, {2}}},
		{name: "self", n: 2, ops: []op{{0, 0, false}}, sets: [][]int32{{0}, {1}}},
		{name: "pair", n: 3, ops: []op{{0, 2, true}, {2, 0, false}}, sets: [][]int32{{0, 2}, {1}}},
		{name: "chain", n: 5, ops: []op{{0, 1, true}, {1, 2, true}, {3, 4, true}, {4, 0, true}, {2, 3, false}},
			sets: [][]int32{{0, 1, 2, 3, 4}}},
		{name: "two groups", n: 6, ops: []op{{5, 3, true}, {1, 0, true}, {3, 1, true}, {2, 4, true}, {0, 5, false}, {4, 4, false}},
			sets: [][]int32{{0, 1, 3, 5}, {2, 4}}},
		{name: "added", after: 3, ops: []op{{0, 2, true}, {1, 1, false}}, sets: [][]int32{{0, 2}, {1}}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			u := New(tt.n)
			for i := range tt.after {
				if x := u.Add(); x != int32(tt.n+i) {
					t.Fatalf("Add() = %d, want %d", x, tt.n+i)
				}
			}
			for _, o := range tt.ops {
				if got := u.Union(o.a, o.b); got != o.merged {
					t.Errorf("Union(%d, %d) = %v, want %v", o.a, o.b, got, o.merged)
				}
			}
			total := 0
			for _, set := range tt.sets {
				total += len(set)
				for _, x := range set {
					if u.Find(x) != u.Find(set[0]) {
						t.Errorf("Find(%d) = %d, Find(%d) = %d; want equal", x, u.Find(x), set[0], u.Find(set[0]))
					}
					if got := u.Size(x); got != int32(len(set)) {
						t.Errorf("Size(%d) = %d, want %d", x, got, len(set))
					}
				}
			}
			if u.Len() != total {
				t.Errorf("Len() = %d, want %d", u.Len(), total)
			}
			roots := make(map[int32]bool)
			for _, set := range tt.sets {
				if r := u.Find(set[0]); roots[r] {
					t.Errorf("set %v shares representative %d with another set", set, r)
				} else {
					roots[r] = true
				}
			}
		})
	}
}

func TestZeroValue(t *testing.T) {
	var u UF
	a, b := u.Add(), u.Add()
	if !u.Union(a, b) || u.Size(a) != 2 || u.Len() != 2 {
		t.Errorf("zero UF after two Adds and a Union: Size = %d, Len = %d", u.Size(a), u.Len())
	}
}

// depth returns the largest number of parent links from an element to its
// root, without compressing paths.
func depth(u *UF) int {
	deepest := 0
	for x := range int32(u.Len()) {
		d := 0
		for u.parent[x] != x {
			x = u.parent[x]
			d++
		}
		deepest = max(deepest, d)
	}
	return deepest
}

// TestUnionBySizeDepth checks that trees stay at most log2(n) deep whatever
// the order of the unions: long chains, both directions, and a balanced
// merge tree, which makes the deepest trees union by size allows.
func TestUnionBySizeDepth(t *testing.T) {
	const n = 1 << 20
	for _, tc := range []struct {
		name  string
		union func(u *UF)
	}{
		{"forward chain", func(u *UF) {
			for i := int32(0); i+1 < n; i++ {
				u.Union(i, i+1)
			}
		}},
		{"backward chain", func(u *UF) {
			for i := int32(n - 1); i > 0; i-- {
				u.Union(i, i-1)
			}
		}},
		{"star onto last", func(u *UF) {
			for i := int32(0); i+1 < n; i++ {
				u.Union(n-1, i)
			}
		}},
		{"balanced", func(u *UF) {
			for step := int32(1); step < n; step *= 2 {
				for i := int32(0); i+step < n; i += 2 * step {
					u.Union(i+step, i)
				}
			}
		}},
	} {
		u := New(n)
		tc.union(u)
		if got := u.Size(0); got != n {
			t.Errorf("%s: Size(0) = %d, want %d", tc.name, got, n)
		}
		if d := depth(u); d > 20 {
			t.Errorf("%s: depth %d, want <= log2(%d) = 20", tc.name, d, n)
		}
	}
}

// components labels each vertex with the smallest vertex reachable from it,
// by breadth-first search.
func components(n int, edges [][2]int32) []int32 {
	adj := make([][]int32, n)
	for _, e := range edges {
		adj[e[0]] = append(adj[e[0]], e[1])
		adj[e[1]] = append(adj[e[1]], e[0])
	}
	label := make([]int32, n)
	for i := range label {
		label[i] = -1
	}
	for s := range int32(n) {
		if label[s] >= 0 {
			continue
		}
		label[s] = s
		queue := []int32{s}
		for len(queue) > 0 {
			v := queue[0]
			queue = queue[1:]
			for _, w := range adj[v] {
				if label[w] < 0 {
					label[w] = s
					queue = append(queue, w)
				}
			}
		}
	}
	return label
}

func randomGraph(rng *rand.Rand, n, m int) [][2]int32 {
	edges := make([][2]int32, m)
	for i := range edges {
		edges[i] = [2]int32{rng.Int32N(int32(n)), rng.Int32N(int32(n))}
	}
	return edges
}

func TestUFMatchesBFS(t *testing.T) {
	rng := rand.New(rand.NewPCG(1, 2))
	for trial := range 200 {
		n := 1 + rng.IntN(300)
		edges := randomGraph(rng, n, rng.IntN(2*n))
		want := components(n, edges)
		u := New(n)
		merges := 0
		for _, e := range edges {
			if u.Union(e[0], e[1]) {
				merges++
			}
		}
		sizes := make(map[int32]int32)
		for _, l := range want {
			sizes[l]++
		}
		if n-merges != len(sizes) {
			t.Fatalf("trial %d: %d merges leave %d sets, BFS finds %d", trial, merges, n-merges, len(sizes))
		}
		rootOf := make(map[int32]int32) // BFS label -> root
		for x := range int32(n) {
			r := u.Find(x)
			if prev, ok := rootOf[want[x]]; ok && prev != r {
				t.Fatalf("trial %d: %d is in another set than %d", trial, x, want[x])
			}
			rootOf[want[x]] = r
			if u.Size(x) != sizes[want[x]] {
				t.Fatalf("trial %d: Size(%d) = %d, want %d", trial, x, u.Size(x), sizes[want[x]])
			}
		}
		if len(rootOf) != len(sizes) {
			t.Fatalf("trial %d: %d distinct roots, want %d", trial, len(rootOf), len(sizes))
		}
	}
}

func TestNewPanics(t *testing.T) {
	defer func() {
		if recover() == nil {
			t.Error("New(-1) did not panic")
		}
	}()
	New(-1)
}

func BenchmarkUnion(b *testing.B) {
	const n = 1 << 20
	rng := rand.New(rand.NewPCG(3, 4))
	edges := randomGraph(rng, n, n)
	u := New(n)
	b.ReportAllocs()
	i := 0
	for b.Loop() {
		if i == len(edges) {
			b.StopTimer()
			u, i = New(n), 0
			b.StartTimer()
		}
		u.Union(edges[i][0], edges[i][1])
		i++
	}
}

func BenchmarkFind(b *testing.B) {
	const n = 1 << 20
	rng := rand.New(rand.NewPCG(5, 6))
	u := New(n)
	for _, e := range randomGraph(rng, n, n) {
		u.Union(e[0], e[1])
	}
	queries := make([]int32, 1<<16)
	for i := range queries {
		queries[i] = rng.Int32N(n)
	}
	b.ReportAllocs()
	i := 0
	for b.Loop() {
		u.Find(queries[i&(len(queries)-1)])
		i++
	}
}
