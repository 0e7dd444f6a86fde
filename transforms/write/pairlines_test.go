package write

import (
	"fmt"
	"testing"

	"github.com/apache/beam/sdks/v2/go/pkg/beam"
	"github.com/apache/beam/sdks/v2/go/pkg/beam/testing/passert"

	"github.com/neardup/neardup/transforms/format/output"
	"github.com/neardup/neardup/transforms/format/summary"
	"github.com/neardup/neardup/transforms/format/wire"
	"github.com/neardup/neardup/transforms/stagetest"
)

// TestAppendPairLines: a containment match's pairs line has its method,
// containment and contained side before the locations; a minhash match's
// line is as before.
func TestAppendPairLines(t *testing.T) {
	a, b := wire.DocNum(0, 4), wire.DocNum(1, 0)
	ms := []wire.Match{
		{A: a, B: b, IDA: "p", IDB: "q", Jaccard: 0.25, Hamming: 17, Method: wire.Containment, Inside: wire.SideB, Containment: 0.88},
		{A: a, B: b, IDA: "p", IDB: "q", Jaccard: 0.9, Hamming: 1, Method: wire.MinHash},
	}
	var chunk []byte
	for i := range ms {
		chunk = wire.AppendMatch(chunk, &ms[i])
	}
	var containment int64
	lines, err := appendPairLines(nil, chunk, true, &containment)
	if err != nil || containment != 1 {
		t.Fatalf("%v, %d containment pairs, want 1", err, containment)
	}
	want := []string{
		`{"a":"p","b":"q","jaccard":0.25,"hamming":17,"method":"containment","containment":0.88,"contained":"b","a_location":{"file":0,"line":5},"b_location":{"file":1,"line":1}}`,
		`{"a":"p","b":"q","jaccard":0.9,"hamming":1,"method":"minhash","a_location":{"file":0,"line":5},"b_location":{"file":1,"line":1}}`,
	}
	if len(lines) != len(want) {
		t.Fatalf("%d lines, want %d", len(lines), len(want))
	}
	for i, l := range lines {
		if string(l.Text) != want[i] || l.K1 != a || l.K2 != b {
			t.Errorf("line %d: %s (keys %d, %d), want %s (keys %d, %d)", i, l.Text, l.K1, l.K2, want[i], a, b)
		}
	}
}

// TestWritePairsCountsContainment: the pairs shards' writing counts the
// containment pairs (summary.StatContainmentPairs) among the lines it
// writes.
func TestWritePairsCountsContainment(t *testing.T) {
	cfg := stagetest.Config(t)
	m := func(a, b int64, method wire.Method, inside wire.Side) wire.Match {
		return wire.Match{A: wire.DocNum(0, a), B: wire.DocNum(0, b), IDA: fmt.Sprint(a), IDB: fmt.Sprint(b), Jaccard: 0.5, Method: method, Inside: inside, Containment: 0.9}
	}
	p, s := beam.NewPipelineWithRoot()
	st := writeLines(s, OptionsFor(cfg), output.KindPairs, stagetest.Chunks(s,
		stagetest.MatchChunk(m(1, 2, wire.Containment, wire.SideA), m(3, 4, wire.MinHash, wire.NoSide)),
		stagetest.MatchChunk(m(5, 9, wire.Containment, wire.SideB))))
	passert.Equals(s, stagetest.Stats(s, st, summary.StatContainmentPairs, "pairs_lines"), "containment_pairs=2", "pairs_lines=3")
	stagetest.Run(t, p)
}
