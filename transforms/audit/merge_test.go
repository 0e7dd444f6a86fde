package audit

import (
	"slices"
	"testing"

	"github.com/neardup/neardup/transforms/format/wire"
)

// TestMergeRemovals: a new document leaves the copy when an indexed match
// removes it, or when its batch cluster removes it, even if its indexed
// matches all lie inside it (they keep it only for the index): a batch
// removal is never lost to an indexed match that does not remove.
func TestMergeRemovals(t *testing.T) {
	const file = 0
	doc := func(line int64) wire.Doc { return wire.DocNum(file, line) }
	indexed := wire.DocNum(1<<23, 0)
	near := wire.Match{A: doc(1), B: indexed, Method: wire.MinHash, Jaccard: 0.9}                                  // removes line 1
	holds := wire.Match{A: doc(2), B: indexed, Method: wire.Containment, Inside: wire.SideB, Containment: 0.9}     // line 2 holds the indexed one
	holdsToo := wire.Match{A: doc(3), B: indexed, Method: wire.Containment, Inside: wire.SideB, Containment: 0.95} // so does line 3
	best := map[wire.Doc]map[wire.Doc]wire.Match{
		doc(1): {indexed: near},
		doc(2): {indexed: holds},
		doc(3): {indexed: holdsToo},
	}
	var inBatch wire.LineSet
	inBatch.Add(2)             // removed for another new document that holds it
	inBatch.Add(4)             // removed in the batch, no indexed match
	docs := []wire.Doc{doc(1)} // those whose indexed matches remove them
	all, batchOnly := mergeRemovals(file, docs, best, inBatch)
	if want := []int64{1, 2, 4}; !slices.Equal(all, want) || batchOnly != 2 {
		t.Errorf("mergeRemovals = %v, %d batch only; want %v, 2 (line 3 kept: it holds the indexed document and nothing removes it)", all, batchOnly, want)
	}
}
