package ensemble

import (
	"slices"
	"testing"

	"github.com/neardup/neardup/transforms/match/blocking"
)

func TestBounds(t *testing.T) {
	for _, c := range []struct {
		name       string
		sizes      []int
		n, minSize int
		want       []int
	}{
		{"equal depth", []int{8, 7, 6, 5, 4, 3, 2, 1}, 4, 1, []int{2, 4, 6, 8}},
		{"below min size left out", []int{1, 2, 10, 20, 30, 40}, 2, 10, []int{20, 40}},
		{"repeats merge", []int{5, 5, 5, 5, 5, 9}, 3, 1, []int{5, 9}},
		{"more partitions than sizes", []int{3, 1}, 4, 1, []int{1, 3}},
		{"none", []int{1, 2}, 2, 5, nil},
	} {
		if got := Bounds(c.sizes, c.n, c.minSize); !slices.Equal(got, c.want) {
			t.Errorf("%s: Bounds = %v, want %v", c.name, got, c.want)
		}
	}
}

func TestLevel(t *testing.T) {
	for _, c := range []struct{ q, u, want int }{
		{10, 10, 0}, {10, 14, 1}, {10, 15, 2}, {10, 20, 2}, {10, 21, 3}, {10, 1000, 14}, {1000, 10, 0},
	} {
		if got := level(c.q, c.u); got != c.want {
			t.Errorf("level(%d, %d) = %d, want %d", c.q, c.u, got, c.want)
		}
		if c.q <= c.u && ratioOf(c.want) < float64(c.u)/float64(c.q) {
			t.Errorf("level(%d, %d) = %d: ratio %v below %d/%d", c.q, c.u, c.want, ratioOf(c.want), c.u, c.q)
		}
	}
}

func testPlan(t *testing.T, c float64) *Plan {
	t.Helper()
	p, err := NewPlan(DefaultConfig(c), []int{5, 12, 20, 40, 80, 160, 320, 640, 1280, 2560})
	if err != nil {
		t.Fatal(err)
	}
	return p
}

func TestPartition(t *testing.T) {
	p := testPlan(t, 0.8)
	if got, want := p.Uppers(), []int{12, 20, 40, 80, 160, 320, 640, 2560}; !slices.Equal(got, want) {
		t.Fatalf("Uppers = %v, want %v", got, want)
	}
	for _, c := range []struct{ size, want int }{{9, -1}, {10, 0}, {12, 0}, {13, 1}, {2560, 7}, {2561, -1}} {
		if got := p.Partition(c.size); got != c.want {
			t.Errorf("Partition(%d) = %d, want %d", c.size, got, c.want)
		}
	}
}

func TestNewPlanErrors(t *testing.T) {
	for _, cfg := range []Config{
		{Threshold: 0, NumPerm: 128, Partitions: 8, MinSize: 10},
		{Threshold: 0.8, NumPerm: 0, Partitions: 8, MinSize: 10},
		{Threshold: 0.8, NumPerm: 128, Partitions: 0, MinSize: 10},
		{Threshold: 0.8, NumPerm: 128, Partitions: 8, MinSize: 0},
		{Threshold: 0.8, NumPerm: 128, Partitions: 8, MinSize: 10, MaxLevel: -1},
	} {
		if _, err := NewPlan(cfg, []int{10, 20}); err == nil {
			t.Errorf("NewPlan(%+v): no error", cfg)
		}
	}
}

// TestQueryKeysAmongIndexKeys checks that a query shares a key with an
// identical set in every partition it probes: its bands there are among
// the partition's indexed bands.
func TestQueryKeysAmongIndexKeys(t *testing.T) {
	for _, c := range []float64{0.5, 0.8, 0.9, 1} {
		p := testPlan(t, c)
		sig := make([]uint64, 128)
		for i := range sig {
			sig[i] = uint64(i) * 0x9E3779B97F4A7C15
		}
		for q := 10; q <= 2560; q = q*3/2 + 1 {
			for i, u := range p.Uppers() {
				if u < q {
					continue
				}
				index := p.AppendIndexKeys(nil, sig, u)
				if len(index) != p.IndexKeys(i) {
					t.Fatalf("C=%v partition %d: %d index keys, IndexKeys says %d", c, i, len(index), p.IndexKeys(i))
				}
				b := p.QueryBands(i, q)
				query := appendKeys(nil, sig, i, b)
				for _, k := range query {
					if !slices.Contains(index, k) {
						t.Fatalf("C=%v q=%d partition %d: query key of %v not indexed", c, q, i, b)
					}
				}
			}
		}
	}
}

// TestKeysDifferAcrossPartitions checks that equal bands in two
// partitions give different keys.
func TestKeysDifferAcrossPartitions(t *testing.T) {
	p := testPlan(t, 0.8)
	sig := make([]uint64, 128)
	a := p.AppendIndexKeys(nil, sig, 12)
	b := p.AppendIndexKeys(nil, sig, 20)
	for _, k := range a {
		if slices.Contains(b, k) {
			t.Fatal("partitions 0 and 1 share a key")
		}
	}
	if got := p.AppendQueryKeys(nil, sig, 9); len(got) != 0 {
		t.Errorf("a query below MinSize has %d keys", len(got))
	}
}

// TestAppendKeysLongBands checks that bands longer than maxRows hash like
// the others: the key depends on every value.
func TestAppendKeysLongBands(t *testing.T) {
	sig := make([]uint64, 2*maxRows+2)
	b := blocking.Bands{B: 2, R: maxRows + 1}
	a := appendKeys(nil, sig, 0, b)
	sig[2*maxRows+1] = 1
	c := appendKeys(nil, sig, 0, b)
	if len(a) != 2 || a[0] != c[0] || a[1] == c[1] {
		t.Errorf("keys %x then %x: want the first equal and the second changed", a, c)
	}
}

// TestMaxLevel checks that capping the levels caps the bandings: a query
// far below its partition's bound uses the banding of MaxLevel, and the
// partition indexes fewer keys.
func TestMaxLevel(t *testing.T) {
	sizes := []int{10, 2560}
	full, err := NewPlan(DefaultConfig(0.8), sizes)
	if err != nil {
		t.Fatal(err)
	}
	cfg := DefaultConfig(0.8)
	cfg.MaxLevel = 4
	capped, err := NewPlan(cfg, sizes)
	if err != nil {
		t.Fatal(err)
	}
	last := len(full.Uppers()) - 1
	if got, want := capped.QueryBands(last, 10), full.QueryBands(last, 640); got != want {
		t.Errorf("capped QueryBands(%d, 10) = %v, want the ratio-4 banding %v", last, got, want)
	}
	if capped.IndexKeys(last) >= full.IndexKeys(last) {
		t.Errorf("capped: %d index keys, uncapped %d", capped.IndexKeys(last), full.IndexKeys(last))
	}
}
