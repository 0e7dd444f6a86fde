package similarity

import (
	"fmt"
	"math"
	"math/rand/v2"
	"testing"
)

func TestContainment(t *testing.T) {
	tests := []struct {
		name       string
		a, b       []uint64
		aInB, bInA float64
	}{
		{"both empty", nil, nil, 0, 0},
		{"a empty", nil, []uint64{1, 2}, 0, 0},
		{"b empty", []uint64{1, 2}, nil, 0, 0},
		{"equal", []uint64{1, 2, 3}, []uint64{1, 2, 3}, 1, 1},
		{"a inside b", []uint64{2, 4}, []uint64{1, 2, 3, 4, 5}, 1, 0.4},
		{"half of a", []uint64{1, 2, 3, 4}, []uint64{3, 4, 5}, 0.5, 2.0 / 3},
		{"disjoint", []uint64{1, 3, 5}, []uint64{2, 4, 6}, 0, 0},
		{"extreme values", []uint64{0, math.MaxUint64}, []uint64{math.MaxUint64}, 0.5, 1},
	}
	for _, tt := range tests {
		if got := Containment(tt.a, tt.b); got != tt.aInB {
			t.Errorf("%s: Containment(%v, %v) = %v, want %v", tt.name, tt.a, tt.b, got, tt.aInB)
		}
		if got := Containment(tt.b, tt.a); got != tt.bInA {
			t.Errorf("%s: Containment(%v, %v) = %v, want %v", tt.name, tt.b, tt.a, got, tt.bInA)
		}
		// Jaccard is at most either containment.
		if j := Jaccard(tt.a, tt.b); j > tt.aInB || j > tt.bInA {
			t.Errorf("%s: Jaccard %v above a containment (%v, %v)", tt.name, j, tt.aInB, tt.bInA)
		}
	}
}

func TestContainment32(t *testing.T) {
	// The exact checks' 32-bit sets (set32 in transforms/near) give the
	// same values as 64-bit ones with the same members.
	a, b := []uint32{7, 8, 9, math.MaxUint32}, []uint32{8, math.MaxUint32}
	if got := Containment(a, b); got != 0.5 {
		t.Errorf("Containment(%v, %v) = %v, want 0.5", a, b, got)
	}
	if got := Containment(b, a); got != 1 {
		t.Errorf("Containment(%v, %v) = %v, want 1", b, a, got)
	}
}

func TestContainmentBruteForce(t *testing.T) {
	r := rand.New(rand.NewPCG(7, 7))
	for range 1000 {
		universe := 1 + r.IntN(40)
		ma, a := randomSet(r, 30, universe)
		mb, b := randomSet(r, 30, universe)
		inter := 0
		for v := range ma {
			if mb[v] {
				inter++
			}
		}
		want := 0.0
		if len(ma) > 0 {
			want = float64(inter) / float64(len(ma))
		}
		if got := Containment(a, b); got != want {
			t.Fatalf("Containment(%v, %v) = %v, want %v", a, b, got, want)
		}
	}
}

func ExampleContainment() {
	// A short text whose shingles all occur in a longer one: wholly inside
	// it, though their Jaccard is low.
	short := Set([]uint64{11, 12, 13})
	long := Set([]uint64{10, 11, 12, 13, 14, 15, 16, 17, 18, 19})
	fmt.Printf("short in long %.2f\n", Containment(short, long))
	fmt.Printf("long in short %.2f\n", Containment(long, short))
	fmt.Printf("Jaccard       %.2f\n", Jaccard(short, long))
	// Output:
	// short in long 1.00
	// long in short 0.30
	// Jaccard       0.30
}

func BenchmarkContainment(b *testing.B) {
	rng := rand.New(rand.NewPCG(8, 9))
	for _, n := range []int{100, 1000, 10000} {
		// a is n shingles, half of them in b, which is ten times larger.
		a64 := make([]uint64, n)
		b64 := make([]uint64, 10*n)
		for i := range a64 {
			a64[i] = rng.Uint64()
		}
		for i := range b64 {
			b64[i] = rng.Uint64()
		}
		copy(b64, a64[:n/2])
		a64, b64 = Set(a64), Set(b64)
		a32, b32 := make([]uint32, len(a64)), make([]uint32, len(b64))
		for i, v := range a64 {
			a32[i] = uint32(v)
		}
		for i, v := range b64 {
			b32[i] = uint32(v)
		}
		a32, b32 = Set(a32), Set(b32)
		b.Run(fmt.Sprintf("n=%d/uint64", n), func(b *testing.B) {
			for b.Loop() {
				Containment(a64, b64)
			}
		})
		b.Run(fmt.Sprintf("n=%d/uint32", n), func(b *testing.B) {
			for b.Loop() {
				Containment(a32, b32)
			}
		})
	}
}
