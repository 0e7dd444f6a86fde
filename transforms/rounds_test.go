package transforms

import (
	"errors"
	"slices"
	"testing"

	"github.com/neardup/neardup/transforms/format/wire"
)

// TestDestBranchFn: the branches of a chunk of matches split it by the file
// of the second documents, keep each match whole and lose none.
func TestDestBranchFn(t *testing.T) {
	var chunk []byte
	var all []wire.Match
	for f := range 5 {
		m := wire.Match{A: wire.DocNum(0, int64(f)), B: wire.DocNum(f, 7), IDA: "a", IDB: "b", LenA: 10, LenB: int64(f), Jaccard: 0.8, Method: wire.MinHash}
		all = append(all, m)
		chunk = wire.AppendMatch(chunk, &m)
	}
	var got []wire.Match
	for i := range 2 {
		fn := &destBranchFn{N: 2, I: i}
		var n int
		err := fn.ProcessElement(3, chunk, func(key int, out []byte) {
			n++
			if key != 3 {
				t.Errorf("branch %d: key %d, want 3", i, key)
			}
			for c := out; len(c) > 0; {
				var m wire.Match
				var err error
				if c, err = wire.DecodeMatch(c, &m); err != nil {
					t.Fatalf("branch %d: %v", i, err)
				}
				if wire.File(m.B)%2 != i {
					t.Errorf("branch %d got a match to file %d", i, wire.File(m.B))
				}
				got = append(got, m)
			}
		})
		if err != nil || n != 1 {
			t.Errorf("branch %d: %d chunks, err %v; want 1, nil", i, n, err)
		}
	}
	byA := func(x, y wire.Match) int { return int(x.A) - int(y.A) }
	slices.SortFunc(got, byA)
	if !slices.Equal(got, all) {
		t.Errorf("branches together = %v, want %v", got, all)
	}
	if err := (&destBranchFn{N: 2}).ProcessElement(0, chunk[:len(chunk)-1], func(int, []byte) {}); !errors.Is(err, wire.ErrCorrupt) {
		t.Errorf("truncated chunk: err %v, want ErrCorrupt", err)
	}
}
