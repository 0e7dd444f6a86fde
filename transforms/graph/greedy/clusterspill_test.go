package greedy

import (
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
