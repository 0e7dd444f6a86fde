package near

import (
	"errors"
	"slices"
	"testing"

	"github.com/neardup/neardup/transforms/format/wire"
	"github.com/neardup/neardup/transforms/jobfiles/filelist"
)

// TestDestBranchFn: the branches of a chunk of matches split it by the
// round of the second documents' exact checks (checkRound: their segment's
// round, an indexed document's source's), keep each match whole and lose
// none.
func TestDestBranchFn(t *testing.T) {
	var chunk []byte
	var all []wire.Match
	bs := []wire.Doc{wire.DocNum(0, 7), wire.DocNum(0, 1<<16+7), wire.DocNum(1, 7), wire.DocNum(2, 3<<16),
		wire.DocNum(filelist.IndexFileBase+1, 7), wire.DocNum(filelist.IndexFileBase+1, 1<<16)}
	rounds := map[int]int{}
	for f, b := range bs {
		rounds[CheckRound(b, 16, 2)]++
		m := wire.Match{A: wire.DocNum(0, int64(f)), B: b, IDA: "a", IDB: "b", LenA: 10, LenB: int64(f), Jaccard: 0.8, Method: wire.MinHash}
		all = append(all, m)
		chunk = wire.AppendMatch(chunk, &m)
	}
	var got []wire.Match
	for i := range 2 {
		fn := &DestBranchFn{N: 2, I: i, Bits: 16}
		var n int
		err := fn.ProcessElement(3, chunk, func(key int64, out []byte) {
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
				if r := CheckRound(m.B, 16, 2); r != i {
					t.Errorf("branch %d got a match of round %d", i, r)
				}
				got = append(got, m)
			}
		})
		if err != nil || n != 1 {
			t.Errorf("branch %d: %d chunks, err %v; want 1, nil", i, n, err)
		}
	}
	if rounds[0] == 0 || rounds[1] == 0 || CheckRound(bs[4], 16, 2) != CheckRound(bs[5], 16, 2) {
		t.Errorf("rounds %v: want both used, and one round for an indexed source", rounds)
	}
	byA := func(x, y wire.Match) int { return int(x.A) - int(y.A) }
	slices.SortFunc(got, byA)
	if !slices.Equal(got, all) {
		t.Errorf("branches together = %v, want %v", got, all)
	}
	if err := (&DestBranchFn{N: 2}).ProcessElement(0, chunk[:len(chunk)-1], func(int64, []byte) {}); !errors.Is(err, wire.ErrCorrupt) {
		t.Errorf("truncated chunk: err %v, want ErrCorrupt", err)
	}
}
