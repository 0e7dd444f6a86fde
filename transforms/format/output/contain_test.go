package output

import (
	"encoding/json"
	"path/filepath"
	"testing"

	"github.com/neardup/neardup/transforms/format/record"
	"github.com/neardup/neardup/transforms/format/wire"
)

// TestNewPairLine: a containment match's pairs line gives its method, its
// containment rounded as Jaccard and the contained side; the lines of the
// other methods are as they were, without those fields.
func TestNewPairLine(t *testing.T) {
	m := func(method wire.Method, inside wire.Side, containment float32) wire.Match {
		return wire.Match{A: 1, B: 2, IDA: "x", IDB: "y", Jaccard: 0.412345, Hamming: 9, Method: method, Inside: inside, Containment: containment}
	}
	tests := []struct {
		name string
		m    wire.Match
		want string
	}{
		{"containment, a inside b", m(wire.Containment, wire.SideA, 0.912345),
			`{"a":"x","b":"y","jaccard":0.4123,"hamming":9,"method":"containment","containment":0.9123,"contained":"a"}`},
		{"containment, b inside a", m(wire.Containment, wire.SideB, 1),
			`{"a":"x","b":"y","jaccard":0.4123,"hamming":9,"method":"containment","containment":1,"contained":"b"}`},
		{"minhash", m(wire.MinHash, wire.NoSide, 0), `{"a":"x","b":"y","jaccard":0.4123,"hamming":9,"method":"minhash"}`},
		{"simhash", m(wire.SimHash, wire.NoSide, 0), `{"a":"x","b":"y","jaccard":0.4123,"hamming":9,"method":"simhash"}`},
		{"exact", wire.Match{IDA: "x", IDB: "y", Jaccard: 1, Method: wire.Exact}, `{"a":"x","b":"y","jaccard":1,"hamming":0,"method":"exact"}`},
		// A stray side or value on another method is not printed.
		{"minhash with a side", m(wire.MinHash, wire.SideA, 0.9), `{"a":"x","b":"y","jaccard":0.4123,"hamming":9,"method":"minhash"}`},
	}
	for _, tc := range tests {
		b, err := json.Marshal(NewPairLine(&tc.m))
		if err != nil || string(b) != tc.want {
			t.Errorf("%s: %s (%v), want %s", tc.name, b, err, tc.want)
		}
	}
}

// TestEachContainment: the readers (Each, EachIn) read a containment
// pair's and removed member's fields back.
func TestEachContainment(t *testing.T) {
	dir := t.TempDir()
	pl := PairLine{A: "x", B: "y", Jaccard: 0.4, Hamming: 9, Method: "containment", Containment: 0.9, Contained: ContainedB}
	writeShard(t, dir, ShardName(KindPairs, 0), record.None, pl, PairLine{A: "u", B: "v", Jaccard: 0.9, Method: "minhash"})
	cl := ClusterLine{Cluster: "x", Size: 2, Representative: "x", Members: []string{"x", "y"},
		Removed: []RemovedMember{{ID: "y", Method: "containment", Jaccard: 0.4, Hamming: 9, Containment: 0.9}}}
	writeShard(t, dir, ShardName(KindClusters, 0), record.None, cl)
	var pairs []PairLine
	if err := Each(dir, KindPairs, func(p *PairLine) bool { pairs = append(pairs, *p); return true }); err != nil {
		t.Fatal(err)
	}
	if len(pairs) != 2 || pairs[0] != pl || pairs[1].Containment != 0 || pairs[1].Contained != "" {
		t.Errorf("pairs read back %+v, want %+v first and a minhash pair", pairs, pl)
	}
	var got []RemovedMember
	_, err := EachIn(filepath.Join(dir, ShardName(KindClusters, 0)), func(c *ClusterLine) bool { got = append(got, c.Removed...); return true })
	if err != nil || len(got) != 1 || got[0] != cl.Removed[0] {
		t.Errorf("removed read back %+v (%v), want %+v", got, err, cl.Removed)
	}
}
