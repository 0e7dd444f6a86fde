package mix

import "testing"

func TestFmix64(t *testing.T) {
	// Reference values of MurmurHash3's fmix64.
	tests := []struct{ in, want uint64 }{
		{0, 0},
		{1, 0xb456bcfc34c2cb2c},
		{0xffffffffffffffff, 0x64b5720b4b825f21},
	}
	for _, tt := range tests {
		if got := Fmix64(tt.in); got != tt.want {
			t.Errorf("Fmix64(%#x) = %#x, want %#x", tt.in, got, tt.want)
		}
	}
	// A bijection: no two of many consecutive inputs collide.
	seen := map[uint64]bool{}
	for i := uint64(0); i < 1<<16; i++ {
		h := Fmix64(i)
		if seen[h] {
			t.Fatalf("collision at %d", i)
		}
		seen[h] = true
	}
}
