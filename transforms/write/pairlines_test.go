package write

import (
	"testing"

	"github.com/neardup/neardup/transforms/format/wire"
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
	lines, err := appendPairLines(nil, chunk, true)
	if err != nil {
		t.Fatal(err)
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
