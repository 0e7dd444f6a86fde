package output

import (
	"encoding/json"
	"path/filepath"
	"reflect"
	"testing"

	"github.com/neardup/neardup/transforms/format/record"
	"github.com/neardup/neardup/transforms/format/wire"
)

// TestNewPairLine: a containment match's pairs line gives its method, its
// containment rounded as Jaccard and the contained side; the lines of the
// other methods are as they were, without those fields. An estimated
// match's similarities are named jaccard_estimate and
// containment_estimate.
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
		{"minhash, estimated", estimated(m(wire.MinHash, wire.NoSide, 0)), `{"a":"x","b":"y","jaccard_estimate":0.4123,"hamming":9,"method":"minhash"}`},
		{"simhash, estimate 0", estimated(wire.Match{IDA: "x", IDB: "y", Hamming: 2, Method: wire.SimHash}), `{"a":"x","b":"y","jaccard_estimate":0,"hamming":2,"method":"simhash"}`},
		{"containment, estimated", estimated(m(wire.Containment, wire.SideB, 0.85)),
			`{"a":"x","b":"y","jaccard_estimate":0.4123,"hamming":9,"method":"containment","containment_estimate":0.85,"contained":"b"}`},
	}
	for _, tc := range tests {
		b, err := json.Marshal(NewPairLine(&tc.m))
		if err != nil || string(b) != tc.want {
			t.Errorf("%s: %s (%v), want %s", tc.name, b, err, tc.want)
		}
	}
}

func estimated(m wire.Match) wire.Match {
	m.Estimated = true
	return m
}

// TestSimilarityNames: each line type reads back what it wrote, exact or
// estimated, and reads a line of either name.
func TestSimilarityNames(t *testing.T) {
	pairs := []PairLine{
		{A: "x", B: "y", Jaccard: 0.8611, Hamming: 3, Method: "minhash"},
		{A: "x", B: "y", Jaccard: 0.9216, Estimated: true, Hamming: 3, Method: "minhash"},
		{A: "x", B: "y", Jaccard: 0, Estimated: true, Hamming: 1, Method: "simhash"},
		{A: "x", B: "y", Jaccard: 0.3, Estimated: true, Method: "containment", Containment: 0.85, Contained: ContainedA},
		{A: "x", B: "y", Jaccard: 0.3, Method: "containment", Containment: 0.8, Contained: ContainedB, ALocation: &Location{1, 2}},
	}
	for _, p := range pairs {
		b, err := json.Marshal(p)
		var got PairLine
		if err == nil {
			err = json.Unmarshal(b, &got)
		}
		if err != nil || !reflect.DeepEqual(got, p) {
			t.Errorf("pair %+v: wrote %s, read back %+v (%v)", p, b, got, err)
		}
	}
	removed := []RemovedMember{
		{ID: "y", Method: "minhash", Jaccard: 0.8611, Hamming: 3},
		{ID: "y", Method: "containment", Jaccard: 0.3, Estimated: true, Containment: 0.85, Via: "z"},
	}
	for _, r := range removed {
		b, err := json.Marshal(r)
		var got RemovedMember
		if err == nil {
			err = json.Unmarshal(b, &got)
		}
		if err != nil || got != r {
			t.Errorf("removed member %+v: wrote %s, read back %+v (%v)", r, b, got, err)
		}
	}
	audit := []AuditMatch{
		{ID: "y", Jaccard: 1, Method: "exact", Source: "s"},
		{ID: "y", Jaccard: 0.9216, Estimated: true, Hamming: 3, Method: "minhash", Source: "s"},
		{ID: "y", Jaccard: 0.3, Estimated: true, Method: "containment", Source: "s", Containment: 0.85, Inside: "new"},
	}
	for _, a := range audit {
		b, err := json.Marshal(a)
		var got AuditMatch
		if err == nil {
			err = json.Unmarshal(b, &got)
		}
		if err != nil || got != a {
			t.Errorf("audit match %+v: wrote %s, read back %+v (%v)", a, b, got, err)
		}
	}
	reads := []struct {
		line    string
		j       float64
		est     bool
		contain float64
	}{
		{`{"a":"x","b":"y","jaccard":0.9,"hamming":1,"method":"minhash"}`, 0.9, false, 0},
		{`{"a":"x","b":"y","jaccard_estimate":0.9,"hamming":1,"method":"minhash"}`, 0.9, true, 0},
		{`{"a":"x","b":"y","jaccard_estimate":0.3,"hamming":1,"method":"containment","containment_estimate":0.8,"contained":"a"}`, 0.3, true, 0.8},
		{`{"a":"x","b":"y","jaccard":0.3,"hamming":1,"method":"containment","containment":0.8,"contained":"a"}`, 0.3, false, 0.8},
	}
	for _, r := range reads {
		var p PairLine
		if err := json.Unmarshal([]byte(r.line), &p); err != nil || p.Jaccard != r.j || p.Estimated != r.est || p.Containment != r.contain {
			t.Errorf("%s read as Jaccard %v, estimated %v, containment %v (%v); want %v, %v, %v", r.line, p.Jaccard, p.Estimated, p.Containment, err, r.j, r.est, r.contain)
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
