package shingle

import (
	"testing"
)

func TestAppend(t *testing.T) {
	toks := []uint64{1, 2, 3, 4, 5, 6, 7}
	tests := []struct {
		name   string
		tokens []uint64
		n      int
		want   []uint64
	}{
		{"empty", nil, 5, nil},
		{"fewer tokens than n: one shingle of all", toks[:3], 5, []uint64{Hash(toks[:3])}},
		{"exactly n", toks[:5], 5, []uint64{Hash(toks[:5])}},
		{"sliding", toks, 5, []uint64{Hash(toks[0:5]), Hash(toks[1:6]), Hash(toks[2:7])}},
		{"unigrams", toks[:3], 1, []uint64{Hash(toks[0:1]), Hash(toks[1:2]), Hash(toks[2:3])}},
		{"n < 1 is 1", toks[:2], 0, []uint64{Hash(toks[0:1]), Hash(toks[1:2])}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got := Append(nil, tt.tokens, tt.n)
			if len(got) != len(tt.want) {
				t.Fatalf("got %d shingles, want %d", len(got), len(tt.want))
			}
			for i := range got {
				if got[i] != tt.want[i] {
					t.Errorf("shingle %d = %x, want %x", i, got[i], tt.want[i])
				}
			}
		})
	}
}

func TestHashOrderAndLength(t *testing.T) {
	if Hash([]uint64{1, 2, 3}) == Hash([]uint64{3, 2, 1}) {
		t.Error("hash ignores order")
	}
	if Hash([]uint64{1, 1}) == Hash([]uint64{1, 1, 1}) {
		t.Error("hash ignores length")
	}
	if Hash([]uint64{7}) != Hash1(7) {
		t.Error("Hash1 differs from Hash of one token")
	}
	if Hash([]uint64{0, 0, 0, 0, 0}) == Hash([]uint64{0, 0, 0, 0}) {
		t.Error("zero tokens collide across lengths")
	}
}

func TestNoAllocs(t *testing.T) {
	toks := make([]uint64, 1000)
	for i := range toks {
		toks[i] = uint64(i) * 0x9E3779B97F4A7C15
	}
	dst := make([]uint64, 0, 1000)
	if n := testing.AllocsPerRun(100, func() { dst = Append(dst[:0], toks, 5) }); n != 0 {
		t.Errorf("Append allocates %v times", n)
	}
}

func BenchmarkAppend5(b *testing.B) {
	toks := make([]uint64, 4096)
	for i := range toks {
		toks[i] = uint64(i) * 0x9E3779B97F4A7C15
	}
	dst := make([]uint64, 0, len(toks))
	b.ReportAllocs()
	for b.Loop() {
		dst = Append(dst[:0], toks, 5)
	}
	b.ReportMetric(float64(b.Elapsed().Nanoseconds())/float64(b.N*len(toks)), "ns/shingle")
}
