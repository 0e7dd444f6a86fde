package external

import (
	"cmp"
	"errors"
	"fmt"
	"math/rand/v2"
	"os"
	"slices"
	"strings"
	"testing"

	"github.com/neardup/neardup/transforms/graph/greedy"
	"github.com/neardup/neardup/transforms/internal/extsort"
)

// reference is greedy.Decide's decisions as docDecisions in document
// order, the links taken in the order of ids (ids[k] is link k's).
func reference(nodes []greedy.Node, links []greedy.Link, ids []uint64, longest bool) []docDecision {
	order := make([]int, len(links))
	for k := range order {
		order[k] = k
	}
	slices.SortFunc(order, func(x, y int) int { return cmp.Compare(ids[x], ids[y]) })
	sorted := make([]greedy.Link, len(links))
	for k, o := range order {
		sorted[k] = links[o]
	}
	dec := greedy.Decide(nodes, sorted, longest)
	docOf := func(i int32) uint64 {
		if i < 0 {
			return none
		}
		return nodes[i].Doc
	}
	out := make([]docDecision, len(dec))
	for i, d := range dec {
		out[i] = docDecision{doc: nodes[i].Doc, kept: d.Kept, forDoc: docOf(d.For), via: docOf(d.Via), link: none}
		if d.Link >= 0 {
			out[i].link = ids[order[d.Link]]
		}
	}
	slices.SortFunc(out, func(x, y docDecision) int { return cmp.Compare(x.doc, y.doc) })
	return out
}

// streamed decides nodes and links with a stream in a directory made in
// dir whose sorts buffer budget/4 bytes each, adding them in an order
// shuffled by r (nodes first when r is nil), and checks that the stream
// leaves its directory empty.
func streamed(t testing.TB, dir string, nodes []greedy.Node, links []greedy.Link, ids []uint64, longest bool, budget int64, r *rand.Rand) ([]docDecision, error) {
	sp, err := extsort.NewDir(dir, "stream-", budget, nil)
	if err != nil {
		t.Fatal(err)
	}
	defer sp.Remove()
	s := newStream(sp, longest)
	order := make([]int, len(nodes)+len(links))
	for i := range order {
		order[i] = i
	}
	if r != nil {
		r.Shuffle(len(order), func(i, j int) { order[i], order[j] = order[j], order[i] })
	}
	for _, i := range order {
		if i < len(nodes) {
			err = s.add(nodes[i])
		} else {
			l := links[i-len(nodes)]
			err = s.addLink(nodes[l.A].Doc, nodes[l.B].Doc, l.Exact, l.Removes, ids[i-len(nodes)])
		}
		if err != nil {
			return nil, err
		}
	}
	var out []docDecision
	err = s.decide(func(d docDecision) error { out = append(out, d); return nil })
	if left, _ := os.ReadDir(sp.Path()); err == nil && len(left) > 0 {
		t.Fatalf("%d files left in %s", len(left), sp.Path())
	}
	return out, err
}

func seqIDs(n int) []uint64 {
	ids := make([]uint64, n)
	for i := range ids {
		ids[i] = uint64(i)
	}
	return ids
}

func nodesOf(lens ...int64) []greedy.Node {
	nodes := make([]greedy.Node, len(lens))
	for i, l := range lens {
		nodes[i] = greedy.Node{Doc: uint64(i) * 3, Len: l}
	}
	return nodes
}

// checkStream compares a stream under budget with greedy.Decide.
func checkStream(t testing.TB, dir, name string, nodes []greedy.Node, links []greedy.Link, ids []uint64, longest bool, budget int64, r *rand.Rand) {
	t.Helper()
	got, err := streamed(t, dir, nodes, links, ids, longest, budget, r)
	if err != nil {
		t.Fatalf("%s: %v", name, err)
	}
	want := reference(nodes, links, ids, longest)
	if len(got) != len(want) {
		t.Fatalf("%s: %d decisions, want %d", name, len(got), len(want))
	}
	for i := range want {
		if got[i] != want[i] {
			t.Fatalf("%s: %+v, Decide says %+v", name, got[i], want[i])
		}
	}
}

// TestStreamRandom compares the spilled decision with greedy.Decide on
// 2,000 random graphs with exact links, containment links (directed, at
// either end) and nodes removed beforehand, under both priorities, with
// sorts of many runs (budgets of 600 bytes, and of 1 byte: merges of two
// runs at a time) and of one (1 GiB, for a quarter of them).
func TestStreamRandom(t *testing.T) {
	r := rand.New(rand.NewPCG(3, 4))
	dir := t.TempDir()
	for trial := range 2000 {
		n := 1 + r.IntN(14)
		lens := make([]int64, n)
		for i := range lens {
			lens[i] = int64(r.IntN(4))
		}
		nodes := nodesOf(lens...)
		var links []greedy.Link
		for range r.IntN(3 * n) {
			links = append(links, greedy.Link{A: int32(r.IntN(n)), B: int32(r.IntN(n)), Exact: r.IntN(5) == 0, Removes: greedy.End(r.IntN(3))})
		}
		for i := range nodes {
			nodes[i].Removed = r.IntN(6) == 0
		}
		ids := seqIDs(len(links))
		if trial%2 == 1 { // ids in another order than the links'
			for k, p := range r.Perm(len(links)) {
				ids[k] = uint64(p)*7 + 3
			}
		}
		budgets := []int64{600}
		if trial%4 == 0 {
			budgets = append(budgets, 1<<30)
		}
		if trial%20 == 0 {
			budgets = append(budgets, 1)
		}
		for _, longest := range []bool{true, false} {
			for _, budget := range budgets {
				checkStream(t, dir, fmt.Sprintf("trial %d longest %v budget %d", trial, longest, budget), nodes, links, ids, longest, budget, r)
			}
		}
	}
}

// TestStreamShapes checks a chain of 100,000 documents (every other one
// kept), a star, a clique and a chain of exact duplicates, with sorts of
// many runs and of one.
func TestStreamShapes(t *testing.T) {
	chain := func(n int, exact bool, lens func(i int) int64) ([]greedy.Node, []greedy.Link) {
		nodes := make([]greedy.Node, n)
		var links []greedy.Link
		for i := range nodes {
			nodes[i] = greedy.Node{Doc: uint64(n-i) * 5, Len: lens(i)}
			if i > 0 {
				links = append(links, greedy.Link{A: int32(i - 1), B: int32(i), Exact: exact})
			}
		}
		return nodes, links
	}
	star := func(n int) ([]greedy.Node, []greedy.Link) {
		nodes, _ := chain(n, false, func(i int) int64 { return int64(i % 3) })
		var links []greedy.Link
		for i := 1; i < n; i++ {
			links = append(links, greedy.Link{A: 0, B: int32(i)})
		}
		return nodes, links
	}
	clique := func(n int) ([]greedy.Node, []greedy.Link) {
		nodes, _ := chain(n, false, func(i int) int64 { return int64(i % 4) })
		var links []greedy.Link
		for i := range n {
			for j := i + 1; j < n; j++ {
				links = append(links, greedy.Link{A: int32(j), B: int32(i)})
			}
		}
		return nodes, links
	}
	tests := []struct {
		name  string
		graph func() ([]greedy.Node, []greedy.Link)
	}{
		{"chain", func() ([]greedy.Node, []greedy.Link) { return chain(100_000, false, func(int) int64 { return 7 }) }},
		{"rising chain", func() ([]greedy.Node, []greedy.Link) {
			return chain(100_000, false, func(i int) int64 { return int64(i) })
		}},
		{"star", func() ([]greedy.Node, []greedy.Link) { return star(200) }},
		{"clique", func() ([]greedy.Node, []greedy.Link) { return clique(40) }},
		{"exact chain", func() ([]greedy.Node, []greedy.Link) {
			return chain(300, true, func(i int) int64 { return int64(i % 7) })
		}},
	}
	dir := t.TempDir()
	for _, tc := range tests {
		nodes, links := tc.graph()
		for _, longest := range []bool{true, false} {
			small := int64(2 << 10)
			if len(nodes) >= 100_000 {
				small = 256 << 10
			}
			for _, budget := range []int64{small, 1 << 30} {
				checkStream(t, dir, fmt.Sprintf("%s longest %v budget %d", tc.name, longest, budget), nodes, links, seqIDs(len(links)), longest, budget, nil)
			}
		}
		if !strings.HasSuffix(tc.name, "chain") || len(nodes) < 100_000 {
			continue
		}
		got, err := streamed(t, dir, nodes, links, seqIDs(len(links)), true, 64<<10, nil)
		if err != nil {
			t.Fatal(err)
		}
		kept := 0
		for _, d := range got {
			if d.kept {
				kept++
			}
		}
		if kept != len(nodes)/2 {
			t.Errorf("%s: kept %d of %d", tc.name, kept, len(nodes))
		}
	}
}

// TestStreamErrors checks a link with a document that is not a node, a
// document added twice and an error of fn, with sorts of many runs and of
// one.
func TestStreamErrors(t *testing.T) {
	nodes := nodesOf(5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15, 16)
	links := []greedy.Link{{A: 0, B: 1}, {A: 2, B: 3, Exact: true}, {A: 4, B: 5}}
	fnErr := errors.New("fn failed")
	tests := []struct {
		name string
		add  func(s *stream) error
		fn   func(docDecision) error
		want string
	}{
		{"missing b", func(s *stream) error { return s.addLink(3, 7, false, 0, 9) }, nil, "a link of documents 3 and 7: 7 is not a node"},
		{"missing a", func(s *stream) error { return s.addLink(8, 3, true, 0, 9) }, nil, "a link of documents 8 and 3: 8 is not a node"},
		{"twice", func(s *stream) error { return s.add(greedy.Node{Doc: 6, Len: 1}) }, nil, "document 6 added twice"},
		{"fn", func(*stream) error { return nil }, func(docDecision) error { return fnErr }, fnErr.Error()},
	}
	for _, tc := range tests {
		for _, budget := range []int64{1, 1 << 30} {
			sp, err := extsort.NewDir(t.TempDir(), "stream-", budget/2, nil)
			if err != nil {
				t.Fatal(err)
			}
			s := newStream(sp, true)
			for _, n := range nodes {
				s.add(n)
			}
			for k, l := range links {
				s.addLink(nodes[l.A].Doc, nodes[l.B].Doc, l.Exact, l.Removes, uint64(k))
			}
			if err := tc.add(s); err != nil {
				t.Fatal(err)
			}
			fn := tc.fn
			if fn == nil {
				fn = func(docDecision) error { return nil }
			}
			err = s.decide(fn)
			if err == nil || !strings.Contains(err.Error(), tc.want) {
				t.Errorf("%s budget %d: %v, want %q", tc.name, budget, err, tc.want)
			}
			sp.Remove()
		}
	}
}

// BenchmarkStreamChain decides a chain of 1,000,000 documents on disk,
// with sorts of 4 MB (runs merged) and of 128 MB (one run each), and
// greedy.Decide for comparison.
func BenchmarkStreamChain(b *testing.B) {
	const n = 1_000_000
	for _, budget := range []int64{32 << 20, 1 << 30} {
		b.Run(fmt.Sprintf("budget=%dMB", budget>>20), func(b *testing.B) {
			b.ReportAllocs()
			for b.Loop() {
				sp, err := extsort.NewDir(b.TempDir(), "stream-", budget/2, nil)
				if err != nil {
					b.Fatal(err)
				}
				s := newStream(sp, true)
				for i := range n {
					if err := s.add(greedy.Node{Doc: uint64(i), Len: int64(i % 1000)}); err != nil {
						b.Fatal(err)
					}
					if i > 0 {
						if err := s.addLink(uint64(i-1), uint64(i), false, 0, uint64(i-1)); err != nil {
							b.Fatal(err)
						}
					}
				}
				if err := s.decide(func(docDecision) error { return nil }); err != nil {
					b.Fatal(err)
				}
				sp.Remove()
			}
		})
	}
}
