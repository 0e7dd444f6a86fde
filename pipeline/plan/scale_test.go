package plan

import (
	"testing"

	"github.com/neardup/neardup/transforms/job"
	"github.com/neardup/neardup/transforms/match/ensemble"
)

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
		{4.98 * gb, true, 1},  // tiled 4 times
		{12.4 * gb, true, 2},  // tiled 10 times
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
		local   bool
		input   int64
		spilled bool
		want    int
	}{
		{true, 1.25 * gb, true, 0},                 // SCALE on one machine: the union-find takes every edge
		{true, ccRoundsInputBytes, true, 0},        // the largest input without rounds
		{true, 2.5 * gb, true, ClusterCCRounds},    // tiled twice: rounds, so the union-find does not grow
		{true, 12.4 * gb, false, 0},                // the runner holds the shuffles
		{false, 1.25 * gb, true, ClusterCCRounds},  // a cluster
		{false, 1.25 * gb, false, ClusterCCRounds}, // a cluster
	}
	for _, tt := range tests {
		if got := AutoCCRounds(tt.local, tt.input, tt.spilled); got != tt.want {
			t.Errorf("AutoCCRounds(%v, %d, %v) = %d, want %d", tt.local, tt.input, tt.spilled, got, tt.want)
		}
	}
}

// TestKeyBits checks that a generation's key files follow its key
// entries: one per 256 MiB of input without containment keys, and as
// many more as a document's containment keys multiply its entries (187
// at --containment 0.8: 8.5 times).
func TestKeyBits(t *testing.T) {
	cfg := job.DefaultConfig()
	cfg.Containment = 0.8
	k := ensemble.KeysPerDoc(cfg.ContainOptions())
	if k < 100 || k > 300 {
		t.Fatalf("ensemble.KeysPerDoc at 0.8 = %d; want about 187", k)
	}
	tests := []struct {
		input       int64
		containKeys int
		want        int
	}{
		{1 << 20, 0, 0},
		{256 << 20, 0, 0},
		{257 << 20, 0, 1},
		{1 << 30, 0, 2},
		{1 << 20, k, 0},
		{1 << 30, k, 6},       // 8.5 GiB of entries' share
		{1_250_000_000, k, 6}, // SCALE: 64 key files, 8 without containment
		{1_250_000_000, 0, 3}, // SCALE
		{1 << 50, k, 12},      // the most
		{335_000_000, 187, 4}, // SCALE's last 4 shards
	}
	for _, tt := range tests {
		if got := KeyBits(tt.input, tt.containKeys); got != tt.want {
			t.Errorf("KeyBits(%d, %d) = %d; want %d", tt.input, tt.containKeys, got, tt.want)
		}
	}
}
