package indexing

import "testing"

// TestCompactBits checks that a compacted index's key files hold about
// compactPartitionDocs documents' entries each, fewer documents when each
// has containment keys too.
func TestCompactBits(t *testing.T) {
	tests := []struct {
		docs        int64
		containKeys int
		want        int
	}{
		{0, 0, 0},
		{1 << 16, 0, 0},
		{1<<16 + 1, 0, 1},
		{980_620, 0, 4},    // SCALE's kept documents
		{980_620, 187, 7},  // with --containment 0.8: 127 key files of entries
		{9_806_719, 0, 8},  // x10
		{1 << 40, 187, 16}, // the most
	}
	for _, tt := range tests {
		if got := compactBits(tt.docs, tt.containKeys); got != tt.want {
			t.Errorf("compactBits(%d, %d) = %d; want %d", tt.docs, tt.containKeys, got, tt.want)
		}
	}
}
