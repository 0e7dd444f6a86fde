package greedy

import (
	"fmt"
	"os"
	"strings"
	"testing"

	"github.com/neardup/neardup/transforms/format/wire"
)

// TestClusterSpillErrors: a spilled partition fails where DecideComponents
// does (a mark of a document that is not a member, a document removed for
// one of another component) and leaves no file behind, nor when it is
// closed before Decide.
func TestClusterSpillErrors(t *testing.T) {
	out := ClusterOut{
		Component: func(string, int) error { return nil },
		Cluster:   func([]ClusterMember, int) error { return nil },
		Outside:   func(uint64) error { return nil },
	}
	for _, c := range []struct {
		name   string
		links  []wire.Match
		decide bool
		want   string
	}{
		{"mark", []wire.Match{{A: 9, B: 9}}, true, "with itself, not a member"},
		{"across", []wire.Match{{A: 1, B: 2, Method: wire.MinHash}}, true, "of another component"},
		{"not a member", []wire.Match{{A: 1, B: 9, Method: wire.MinHash}}, true, "is not a node"},
		{"closed", []wire.Match{{A: 1, B: 2, Method: wire.MinHash}}, false, ""},
	} {
		t.Run(c.name, func(t *testing.T) {
			dir := t.TempDir()
			p := NewPartition(true, 1, dir)
			for _, m := range []wire.Member{{Root: 1, Doc: 1, ID: "a", Len: 5}, {Root: 2, Doc: 2, ID: "b", Len: 3}} {
				if err := p.AddMember(m); err != nil {
					t.Fatal(err)
				}
			}
			for i := range c.links {
				if err := p.AddLink(&c.links[i]); err != nil {
					t.Fatal(err)
				}
			}
			if !p.Spilled() {
				t.Fatal("not spilled with a budget of 1 byte")
			}
			if c.decide {
				err := p.Decide(nil, out)
				if err == nil || !strings.Contains(err.Error(), c.want) {
					t.Fatalf("Decide: %v, want an error with %q", err, c.want)
				}
			}
			if err := p.Close(); err != nil {
				t.Fatal(err)
			}
			if left, _ := os.ReadDir(dir); len(left) > 0 {
				t.Fatalf("left %v behind", left)
			}
		})
	}
}

// TestSpillBytes: the space SpillBytes gives for a spilled decision is at
// least what the decision writes (every file, so more than it holds at
// once), and within 4 times it, for partitions of long chains, of dense
// components and of pairs, under budgets whose sorts merge their runs in
// one step, as a run's (64 MiB and more, plan.DecideBytes) do. (Under a
// budget of 16 KiB the merges take several steps and write 2.2-2.5 times
// SpillBytes, removing each step's runs as they go.)
func TestSpillBytes(t *testing.T) {
	out := ClusterOut{
		Component: func(string, int) error { return nil },
		Cluster:   func([]ClusterMember, int) error { return nil },
		Outside:   func(uint64) error { return nil },
	}
	shapes := []struct {
		name       string
		comps, per int
		dense      bool // every pair of a component linked, else a chain
	}{
		{"chains", 4, 2000, false},
		{"dense", 100, 30, true},
		{"pairs", 3000, 2, false},
	}
	for _, sh := range shapes {
		for _, budget := range []int64{256 << 10, 1 << 20} {
			p := NewPartition(true, budget, t.TempDir())
			var members, links int
			for c := range sh.comps {
				root := uint64(c * sh.per)
				for i := range sh.per {
					doc := root + uint64(i)
					if err := p.AddMember(wire.Member{Root: root, Doc: doc, ID: fmt.Sprintf("doc-%d", doc), Len: int64(100 + (doc*7919)%300)}); err != nil {
						t.Fatal(err)
					}
					members++
					for j := range i {
						if !sh.dense && j != i-1 {
							continue
						}
						l := wire.Match{A: root + uint64(j), B: doc, Method: wire.MinHash, Jaccard: 0.9}
						if (i+j)%5 == 0 {
							l.Method = wire.Exact
						}
						if err := p.AddLink(&l); err != nil {
							t.Fatal(err)
						}
						links++
					}
				}
			}
			if !p.Spilled() {
				t.Fatalf("%s, budget %d: not spilled", sh.name, budget)
			}
			TakeSpilledBytes()
			if err := p.Decide(nil, out); err != nil {
				t.Fatalf("%s, budget %d: %v", sh.name, budget, err)
			}
			written, need := TakeSpilledBytes(), p.SpillBytes()
			t.Logf("%s (%d members, %d links), budget %d: written %d bytes, SpillBytes %d (%.2fx)", sh.name, members, links, budget, written, need, float64(need)/float64(written))
			if written == 0 || written > need || need > 4*written {
				t.Errorf("%s, budget %d: the decision wrote %d bytes, SpillBytes says %d; want at least that, at most 4 times", sh.name, budget, written, need)
			}
		}
	}
}
