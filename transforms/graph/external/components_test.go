package greedy

import (
	"testing"

	"github.com/neardup/neardup/transforms/format/wire"
)

// TestDecideComponentsSelfLink checks that Decision.Link indexes the
// component's matches when a mark of a document removed beforehand (a
// match with itself) comes before the match that removes another.
func TestDecideComponentsSelfLink(t *testing.T) {
	members := []wire.Member{{Root: 1, Doc: 1, Len: 5}, {Root: 1, Doc: 2, Len: 9}, {Root: 1, Doc: 3, Len: 1}}
	links := []wire.Match{
		{A: 1, B: 1, Jaccard: 1, Method: wire.Exact}, // 1 removed beforehand
		{A: 1, B: 2, Jaccard: 0.5, Method: wire.MinHash},
		{A: 3, B: 2, Jaccard: 0.7, Method: wire.MinHash},
	}
	err := DecideComponents(members, links, true, func(comp []wire.Member, _ []Node, ls []wire.Match, dec []Decision) error {
		d := dec[2]
		if d.Kept || comp[d.For].Doc != 2 {
			t.Fatalf("document 3: %+v, want removed for 2", d)
		}
		if l := ls[d.Link]; l.A != 3 || l.B != 2 {
			t.Errorf("document 3 removed through match %d-%d, want 3-2", l.A, l.B)
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
}
