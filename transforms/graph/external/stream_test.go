package greedy

import (
	"cmp"
	"errors"
	"fmt"
	"math/rand/v2"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
)

// reference is Decide's decisions as DocDecisions in document order, the
// links taken in the order of ids (ids[k] is link k's).
func reference(nodes []Node, links []Link, ids []uint64, longest bool) []DocDecision {
	order := make([]int, len(links))
	for k := range order {
		order[k] = k
	}
	slices.SortFunc(order, func(x, y int) int { return cmp.Compare(ids[x], ids[y]) })
	sorted := make([]Link, len(links))
	for k, o := range order {
		sorted[k] = links[o]
	}
	dec := Decide(nodes, sorted, longest)
	docOf := func(i int32) uint64 {
		if i < 0 {
			return None
		}
		return nodes[i].Doc
	}
	out := make([]DocDecision, len(dec))
	for i, d := range dec {
		out[i] = DocDecision{Doc: nodes[i].Doc, Kept: d.Kept, For: docOf(d.For), Via: docOf(d.Via), Link: None}
		if d.Link >= 0 {
			out[i].Link = ids[order[d.Link]]
		}
	}
	slices.SortFunc(out, func(x, y DocDecision) int { return cmp.Compare(x.Doc, y.Doc) })
	return out
}

// streamed decides nodes and links with a Stream, adding them in the order
// of perm (nodes first when perm is nil), and checks the directory is left
// empty.
func streamed(t testing.TB, nodes []Node, links []Link, ids []uint64, longest bool, budget int64, r *rand.Rand) ([]DocDecision, bool, error) {
	dir := t.TempDir()
	s := NewStream(longest, budget, dir)
	defer s.Close()
	add := func(i int) error {
		if i < len(nodes) {
			return s.Add(nodes[i])
		}
		l := links[i-len(nodes)]
		return s.AddLink(nodes[l.A].Doc, nodes[l.B].Doc, l.Exact, l.Inside, ids[i-len(nodes)])
	}
	order := make([]int, len(nodes)+len(links))
	for i := range order {
		order[i] = i
	}
	if r != nil {
		r.Shuffle(len(order), func(i, j int) { order[i], order[j] = order[j], order[i] })
	}
	for _, i := range order {
		if err := add(i); err != nil {
			return nil, s.Spilled(), err
		}
	}
	spilled := s.Spilled()
	var out []DocDecision
	err := s.Decide(func(d DocDecision) error { out = append(out, d); return nil })
	if left, _ := os.ReadDir(dir); len(left) > 0 {
		t.Fatalf("%d files left in %s", len(left), dir)
	}
	return out, spilled, err
}

func seqIDs(n int) []uint64 {
	ids := make([]uint64, n)
	for i := range ids {
		ids[i] = uint64(i)
	}
	return ids
}

// checkStream compares a Stream under budget with Decide (and Decide with
// the brute force), and reports whether it spilled.
func checkStream(t testing.TB, name string, nodes []Node, links []Link, ids []uint64, longest bool, budget int64, r *rand.Rand) bool {
	t.Helper()
	if tt, ok := t.(*testing.T); ok && len(nodes) <= 300 {
		check(tt, name, nodes, links, longest)
	}
	got, spilled, err := streamed(t, nodes, links, ids, longest, budget, r)
	if err != nil {
		t.Fatalf("%s: %v", name, err)
	}
	want := reference(nodes, links, ids, longest)
	if len(got) != len(want) {
		t.Fatalf("%s: %d decisions, want %d", name, len(got), len(want))
	}
	for i := range want {
		if got[i] != want[i] {
			t.Fatalf("%s (spilled %v): %+v, Decide says %+v", name, spilled, got[i], want[i])
		}
	}
	return spilled
}

// TestStreamRandom compares Stream with Decide and the brute force on
// 2,000 random graphs with exact links, containment links (directed) and
// nodes removed beforehand, under
// both priorities, spilled (budgets of 1 and 600 bytes) and in memory.
func TestStreamRandom(t *testing.T) {
	r := rand.New(rand.NewPCG(3, 4))
	budgets := []int64{600, 1 << 30}
	for trial := range 2000 {
		n := 1 + r.IntN(14)
		lens := make([]int64, n)
		for i := range lens {
			lens[i] = int64(r.IntN(4))
		}
		nodes := nodesOf(lens...)
		var links []Link
		for range r.IntN(3 * n) {
			links = append(links, Link{A: int32(r.IntN(n)), B: int32(r.IntN(n)), Exact: r.IntN(5) == 0, Inside: randomSide(r)})
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
		bs := budgets
		if trial%20 == 0 {
			bs = append(bs, 1)
		}
		for _, longest := range []bool{true, false} {
			for _, budget := range bs {
				name := fmt.Sprintf("trial %d longest %v budget %d", trial, longest, budget)
				if spilled := checkStream(t, name, nodes, links, ids, longest, budget, r); spilled != (budget < 1<<30) && n+len(links) > 8 {
					t.Fatalf("%s: spilled %v", name, spilled)
				}
			}
		}
	}
}

// TestStreamShapes checks a chain of 100,000 documents (every other one
// kept), a star, a clique and a chain of exact duplicates, spilled and in
// memory.
func TestStreamShapes(t *testing.T) {
	chain := func(n int, exact bool, lens func(i int) int64) ([]Node, []Link) {
		nodes := make([]Node, n)
		var links []Link
		for i := range nodes {
			nodes[i] = Node{Doc: uint64(n-i) * 5, Len: lens(i)}
			if i > 0 {
				links = append(links, Link{A: int32(i - 1), B: int32(i), Exact: exact})
			}
		}
		return nodes, links
	}
	star := func(n int) ([]Node, []Link) {
		nodes, _ := chain(n, false, func(i int) int64 { return int64(i % 3) })
		var links []Link
		for i := 1; i < n; i++ {
			links = append(links, Link{A: 0, B: int32(i)})
		}
		return nodes, links
	}
	clique := func(n int) ([]Node, []Link) {
		nodes, _ := chain(n, false, func(i int) int64 { return int64(i % 4) })
		var links []Link
		for i := range n {
			for j := i + 1; j < n; j++ {
				links = append(links, Link{A: int32(j), B: int32(i)})
			}
		}
		return nodes, links
	}
	tests := []struct {
		name  string
		graph func() ([]Node, []Link)
	}{
		{"chain", func() ([]Node, []Link) { return chain(100_000, false, func(int) int64 { return 7 }) }},
		{"rising chain", func() ([]Node, []Link) { return chain(100_000, false, func(i int) int64 { return int64(i) }) }},
		{"star", func() ([]Node, []Link) { return star(200) }},
		{"clique", func() ([]Node, []Link) { return clique(40) }},
		{"exact chain", func() ([]Node, []Link) { return chain(300, true, func(i int) int64 { return int64(i % 7) }) }},
	}
	for _, tc := range tests {
		nodes, links := tc.graph()
		for _, longest := range []bool{true, false} {
			small := int64(2 << 10)
			if len(nodes) >= 100_000 {
				small = 256 << 10
			}
			for _, budget := range []int64{small, 1 << 30} {
				name := fmt.Sprintf("%s longest %v budget %d", tc.name, longest, budget)
				if spilled := checkStream(t, name, nodes, links, seqIDs(len(links)), longest, budget, nil); spilled != (budget == small) {
					t.Fatalf("%s: spilled %v", name, spilled)
				}
			}
		}
		if !strings.HasSuffix(tc.name, "chain") || len(nodes) < 100_000 {
			continue
		}
		got, _, err := streamed(t, nodes, links, seqIDs(len(links)), true, 64<<10, nil)
		if err != nil {
			t.Fatal(err)
		}
		kept := 0
		for _, d := range got {
			if d.Kept {
				kept++
			}
		}
		if kept != len(nodes)/2 {
			t.Errorf("%s: kept %d of %d", tc.name, kept, len(nodes))
		}
	}
}

// TestStreamErrors checks a link with a document that is not a node, a
// document added twice, an error of fn and a temporary directory that
// cannot be made, spilled and in memory.
func TestStreamErrors(t *testing.T) {
	nodes := nodesOf(5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15, 16)
	links := []Link{{A: 0, B: 1}, {A: 2, B: 3, Exact: true}, {A: 4, B: 5}}
	fnErr := errors.New("fn failed")
	tests := []struct {
		name string
		add  func(s *Stream) error
		fn   func(DocDecision) error
		want string
	}{
		{"missing b", func(s *Stream) error { return s.AddLink(3, 7, false, 0, 9) }, nil, "a link of documents 3 and 7: 7 is not a node"},
		{"missing a", func(s *Stream) error { return s.AddLink(8, 3, true, 0, 9) }, nil, "a link of documents 8 and 3: 8 is not a node"},
		{"twice", func(s *Stream) error { return s.Add(Node{Doc: 6, Len: 1}) }, nil, "document 6 added twice"},
		{"fn", func(*Stream) error { return nil }, func(DocDecision) error { return fnErr }, fnErr.Error()},
	}
	for _, tc := range tests {
		for _, budget := range []int64{1, 1 << 30} {
			dir := t.TempDir()
			s := NewStream(true, budget, dir)
			for _, n := range nodes {
				s.Add(n)
			}
			for k, l := range links {
				s.AddLink(nodes[l.A].Doc, nodes[l.B].Doc, l.Exact, l.Inside, uint64(k))
			}
			if err := tc.add(s); err != nil {
				t.Fatal(err)
			}
			fn := tc.fn
			if fn == nil {
				fn = func(DocDecision) error { return nil }
			}
			err := s.Decide(fn)
			if err == nil || !strings.Contains(err.Error(), tc.want) {
				t.Errorf("%s budget %d: %v, want %q", tc.name, budget, err, tc.want)
			}
			if left, _ := os.ReadDir(dir); len(left) > 0 {
				t.Errorf("%s budget %d: %d files left", tc.name, budget, len(left))
			}
		}
	}
	file := filepath.Join(t.TempDir(), "file")
	if err := os.WriteFile(file, nil, 0o644); err != nil {
		t.Fatal(err)
	}
	bad := filepath.Join(file, "tmp")
	s := NewStream(true, 1, bad)
	err := s.Add(Node{Doc: 1})
	if err == nil || !strings.Contains(err.Error(), bad) || strings.Contains(err.Error(), "\n") {
		t.Errorf("unwritable directory: %v, want one line naming %s", err, bad)
	}
	s.Close()
}

// BenchmarkStreamChain decides a chain of 1,000,000 documents through a
// Stream with a budget of 32 MB (spilled) and of 1 GB (Decide).
func BenchmarkStreamChain(b *testing.B) {
	const n = 1_000_000
	for _, budget := range []int64{32 << 20, 1 << 30} {
		b.Run(fmt.Sprintf("budget=%dMB", budget>>20), func(b *testing.B) {
			dir := b.TempDir()
			b.ReportAllocs()
			for b.Loop() {
				s := NewStream(true, budget, dir)
				for i := range n {
					if err := s.Add(Node{Doc: uint64(i), Len: int64(i % 1000)}); err != nil {
						b.Fatal(err)
					}
					if i > 0 {
						if err := s.AddLink(uint64(i-1), uint64(i), false, 0, uint64(i-1)); err != nil {
							b.Fatal(err)
						}
					}
				}
				kept := 0
				if err := s.Decide(func(d DocDecision) error {
					if d.Kept {
						kept++
					}
					return nil
				}); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
}
