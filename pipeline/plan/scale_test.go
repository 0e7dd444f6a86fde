package plan

import "testing"

func TestAutoRounds(t *testing.T) {
	const mib = 1 << 20
	tests := []struct {
		bytes    int64
		branches int
		held     bool
		want     int
	}{
		{0, 2, true, 2},
		{1, 1, true, 1},
		{0, 0, true, 1},
		{100 * mib, 2, true, 2},
		{128 * mib, 1, true, 1},
		{128*mib + 1, 1, true, 2},
		{465 * mib, 2, true, 4}, // the full SCALE corpus, gzipped
		{232 * mib, 2, true, 2},
		{465 * mib, 4, true, 4},
		{2 << 30, 2, true, MaxRounds},
		{1 << 40, 2, true, MaxRounds},
		{100 * mib, 16, true, MaxRounds},
		{465 * mib, 2, false, 1},
		{1 << 40, 4, false, 1},
	}
	for _, tt := range tests {
		if got := AutoRounds(tt.bytes, tt.branches, tt.held); got != tt.want {
			t.Errorf("AutoRounds(%d, %d, %v) = %d, want %d", tt.bytes, tt.branches, tt.held, got, tt.want)
		}
	}
}

func TestPartitionScale(t *testing.T) {
	const gb = 1e9
	tests := []struct {
		input   int64
		spilled bool
		want    int
	}{
		{0, true, 1},
		{1.25 * gb, true, 1}, // SCALE, 1.39M documents
		{partitionInputBytes, true, 1},
		{partitionInputBytes + 1, true, 2},
		{4.98 * gb, true, 4},  // tiled 4 times
		{12.4 * gb, true, 8},  // tiled 10 times
		{1 << 50, true, 64},   // at most 64
		{12.4 * gb, false, 1}, // not spilled: the runner holds the shuffles
	}
	for _, tt := range tests {
		if got := PartitionScale(tt.input, tt.spilled); got != tt.want {
			t.Errorf("PartitionScale(%d, %v) = %d, want %d", tt.input, tt.spilled, got, tt.want)
		}
	}
}

func TestAutoCCRounds(t *testing.T) {
	const gb = 1e9
	tests := []struct {
		local bool
		input int64
		want  int
	}{
		{true, 1.25 * gb, 0},                // SCALE on one machine: the union-find takes every edge
		{true, 4.98 * gb, ClusterCCRounds},  // tiled 4 times: rounds, so the union-find does not grow
		{false, 1.25 * gb, ClusterCCRounds}, // a cluster
	}
	for _, tt := range tests {
		if got := AutoCCRounds(tt.local, PartitionScale(tt.input, true)); got != tt.want {
			t.Errorf("AutoCCRounds(%v, scale of %d bytes) = %d, want %d", tt.local, tt.input, got, tt.want)
		}
	}
}
