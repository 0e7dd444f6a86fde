package unionfind

import (
	"math"
	"math/rand/v2"
	"reflect"
	"slices"
	"testing"
)

func TestSparse(t *testing.T) {
	type op struct {
		a, b   uint64
		merged bool
	}
	const big = math.MaxUint64
	tests := []struct {
		name       string
		ops        []op
		find       map[uint64]uint64
		components [][]uint64
		len        int
	}{
		{name: "empty", find: map[uint64]uint64{7: 7}, components: [][]uint64{}},
		{name: "self", ops: []op{{5, 5, false}}, find: map[uint64]uint64{5: 5}, components: [][]uint64{}, len: 1},
		{name: "pair", ops: []op{{big, 3, true}, {3, big, false}},
			find: map[uint64]uint64{big: 3, 3: 3, 4: 4}, components: [][]uint64{{3, big}}, len: 2},
		{name: "min survives merges", ops: []op{{90, 80, true}, {70, 100, true}, {100, 90, true}, {5, 6, true}},
			find:       map[uint64]uint64{90: 70, 80: 70, 100: 70, 70: 70, 6: 5},
			components: [][]uint64{{5, 6}, {70, 80, 90, 100}}, len: 6},
		{name: "smaller set holds the min", ops: []op{{10, 11, true}, {11, 12, true}, {12, 13, true}, {1, 50, true}, {50, 13, true}},
			find:       map[uint64]uint64{13: 1, 10: 1, 50: 1},
			components: [][]uint64{{1, 10, 11, 12, 13, 50}}, len: 6},
		{name: "zero id", ops: []op{{0, 1 << 40, true}, {2, 1 << 40, true}},
			find: map[uint64]uint64{2: 0}, components: [][]uint64{{0, 2, 1 << 40}}, len: 3},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			s := NewSparse()
			for _, o := range tt.ops {
				if got := s.Union(o.a, o.b); got != o.merged {
					t.Errorf("Union(%d, %d) = %v, want %v", o.a, o.b, got, o.merged)
				}
			}
			for id, want := range tt.find {
				if got := s.Find(id); got != want {
					t.Errorf("Find(%d) = %d, want %d", id, got, want)
				}
			}
			if got := s.Components(); !reflect.DeepEqual(got, tt.components) {
				t.Errorf("Components() = %v, want %v", got, tt.components)
			}
			if s.Len() != tt.len {
				t.Errorf("Len() = %d, want %d", s.Len(), tt.len)
			}
		})
	}
}

// sparseGraph returns random edges between n random ids.
func sparseGraph(rng *rand.Rand, n, m int) (ids []uint64, edges [][2]int32) {
	ids = make([]uint64, n)
	for i := range ids {
		ids[i] = rng.Uint64() >> rng.IntN(64)
	}
	return ids, randomGraph(rng, n, m)
}

func TestSparseZeroValue(t *testing.T) {
	var s Sparse
	if s.Find(3) != 3 || len(s.Components()) != 0 || s.Len() != 0 {
		t.Fatal("zero Sparse is not empty")
	}
	if !s.Union(4, 3) || s.Find(4) != 3 {
		t.Errorf("zero Sparse: after Union(4, 3), Find(4) = %d, want 3", s.Find(4))
	}
}

func TestSparseOrderIndependent(t *testing.T) {
	rng := rand.New(rand.NewPCG(1, 2))
	for trial := range 50 {
		n := 2 + rng.IntN(500)
		ids, edges := sparseGraph(rng, n, rng.IntN(n))
		var want [][]uint64
		var wantFind []uint64
		for shuffle := range 5 {
			rng.Shuffle(len(edges), func(i, j int) { edges[i], edges[j] = edges[j], edges[i] })
			s := NewSparse()
			for _, e := range edges {
				if rng.IntN(2) == 0 {
					s.Union(ids[e[0]], ids[e[1]])
				} else {
					s.Union(ids[e[1]], ids[e[0]])
				}
			}
			got := s.Components()
			var gotFind []uint64
			for _, id := range ids {
				gotFind = append(gotFind, s.Find(id))
			}
			if shuffle == 0 {
				want, wantFind = got, gotFind
				continue
			}
			if !reflect.DeepEqual(got, want) {
				t.Fatalf("trial %d: components depend on union order:\n%v\n%v", trial, got, want)
			}
			if !reflect.DeepEqual(gotFind, wantFind) {
				t.Fatalf("trial %d: Find depends on union order", trial)
			}
		}
	}
}

func TestSparseMatchesBFS(t *testing.T) {
	rng := rand.New(rand.NewPCG(3, 4))
	for trial := range 200 {
		n := 1 + rng.IntN(300)
		ids, edges := sparseGraph(rng, n, rng.IntN(2*n))
		// BFS on vertices numbered by rank of id, so the smallest vertex of
		// a component holds its smallest id.
		rank := make(map[uint64]int32)
		sortedIDs := slices.Clone(ids)
		slices.Sort(sortedIDs)
		sortedIDs = slices.Compact(sortedIDs)
		for r, id := range sortedIDs {
			rank[id] = int32(r)
		}
		var ranked [][2]int32
		for _, e := range edges {
			ranked = append(ranked, [2]int32{rank[ids[e[0]]], rank[ids[e[1]]]})
		}
		label := components(len(sortedIDs), ranked)

		s := NewSparse()
		for _, e := range edges {
			s.Union(ids[e[0]], ids[e[1]])
		}
		members := make(map[int32][]uint64)
		for r, id := range sortedIDs {
			if got, want := s.Find(id), sortedIDs[label[r]]; got != want {
				t.Fatalf("trial %d: Find(%d) = %d, want %d", trial, id, got, want)
			}
			members[label[r]] = append(members[label[r]], id)
		}
		var want [][]uint64
		for r := range sortedIDs { // labels in increasing order of smallest id
			if m := members[int32(r)]; len(m) >= 2 {
				want = append(want, m)
			}
		}
		got := s.Components()
		if len(got) == 0 && len(want) == 0 {
			continue
		}
		if !reflect.DeepEqual(got, want) {
			t.Fatalf("trial %d: Components() = %v, want %v", trial, got, want)
		}
	}
}

func BenchmarkSparseUnion(b *testing.B) {
	const n = 1 << 20
	rng := rand.New(rand.NewPCG(5, 6))
	ids, edges := sparseGraph(rng, n, n)
	s := NewSparse()
	b.ReportAllocs()
	i := 0
	for b.Loop() {
		if i == len(edges) {
			b.StopTimer()
			s, i = NewSparse(), 0
			b.StartTimer()
		}
		s.Union(ids[edges[i][0]], ids[edges[i][1]])
		i++
	}
}

func BenchmarkSparseFind(b *testing.B) {
	const n = 1 << 20
	rng := rand.New(rand.NewPCG(7, 8))
	ids, edges := sparseGraph(rng, n, n)
	s := NewSparse()
	for _, e := range edges {
		s.Union(ids[e[0]], ids[e[1]])
	}
	b.ReportAllocs()
	i := 0
	for b.Loop() {
		s.Find(ids[i&(n-1)])
		i++
	}
}

func BenchmarkSparseComponents(b *testing.B) {
	const n = 1 << 16
	rng := rand.New(rand.NewPCG(9, 10))
	ids, edges := sparseGraph(rng, n, n/2)
	s := NewSparse()
	for _, e := range edges {
		s.Union(ids[e[0]], ids[e[1]])
	}
	b.ReportAllocs()
	for b.Loop() {
		s.Components()
	}
}
