package exactdup

import (
	"fmt"
	"testing"

	"github.com/neardup/neardup/transforms/format/wire"
)

func info(file int, line int64, key uint64, n int64) wire.Info {
	return wire.Info{Doc: wire.DocNum(file, line), ID: fmt.Sprintf("%d:%d", file, line), Exact: key, Len: n}
}

func TestGroups(t *testing.T) {
	infos := []wire.Info{info(1, 0, 7, 10), info(0, 5, 3, 1), info(0, 2, 7, 10), info(0, 9, 9, 1), info(0, 1, 3, 1)}
	Sort(infos)
	var got []string
	Groups(infos, func(g []wire.Info) {
		var ids []string
		for _, in := range g {
			ids = append(ids, in.ID)
		}
		got = append(got, fmt.Sprint(ids))
	})
	want := []string{"[0:1 0:5]", "[0:2 1:0]"} // key 3, key 7; the lone key 9 is no group
	if fmt.Sprint(got) != fmt.Sprint(want) {
		t.Fatalf("groups %v, want %v", got, want)
	}
}

func TestRepresentative(t *testing.T) {
	tests := []struct {
		name    string
		group   []wire.Info
		longest bool
		want    int
	}{
		{"first by default", []wire.Info{info(0, 3, 1, 5), info(0, 1, 1, 9)}, false, 1},
		{"longest", []wire.Info{info(0, 1, 1, 5), info(0, 3, 1, 9)}, true, 1},
		{"longest tie: first", []wire.Info{info(0, 3, 1, 9), info(0, 1, 1, 9), info(0, 2, 1, 4)}, true, 1},
		{"across files", []wire.Info{info(2, 0, 1, 5), info(1, 7, 1, 5)}, true, 1},
	}
	for _, tc := range tests {
		if got := Representative(tc.group, tc.longest); got != tc.want {
			t.Errorf("%s: representative %d, want %d", tc.name, got, tc.want)
		}
	}
}

func TestMatch(t *testing.T) {
	a, b := info(1, 4, 1, 5), info(0, 9, 1, 8)
	m := Match(&a, &b)
	if m.A != b.Doc || m.B != a.Doc || m.IDA != "0:9" || m.LenA != 8 || m.Jaccard != 1 || m.Method != wire.Exact {
		t.Fatalf("match %+v", m)
	}
	if m2 := Match(&b, &a); m2 != m {
		t.Fatalf("Match depends on the argument order: %+v, %+v", m, m2)
	}
}
