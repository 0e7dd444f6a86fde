package similarity

import (
	"fmt"
	"math/rand/v2"
	"testing"
)

// sortedSet returns a sorted set of n distinct values below max.
func sortedSet(r *rand.Rand, n int, max uint32) []uint32 {
	s := make([]uint32, 0, n)
	for len(s) < n {
		s = append(s, r.Uint32N(max))
		s = Set(s)
	}
	return s
}

func TestIntersection(t *testing.T) {
	r := rand.New(rand.NewPCG(3, 4))
	for trial := range 3000 {
		na, nb := r.IntN(60), r.IntN(60)
		if trial%3 == 0 {
			nb = r.IntN(3000) // skewed: the galloping path
		}
		max := uint32(na + nb + 1 + r.IntN(200))
		a, b := sortedSet(r, na, max), sortedSet(r, nb, max)
		want, _ := Overlap(a, b)
		if got := Intersection(a, b, 0); got != want {
			t.Fatalf("Intersection(%v, %v, 0) = %d, want %d", a, b, got, want)
		}
		if got := Intersection(b, a, 0); got != want {
			t.Fatalf("Intersection(b, a, 0) = %d, want %d", got, want)
		}
		for need := 0; need <= na+1; need++ {
			got := Intersection(a, b, need)
			if want >= need && got != want || want < need && got >= need {
				t.Fatalf("Intersection(%v, %v, %d) = %d; the intersection is %d", a, b, need, got, want)
			}
		}
	}
}

func ExampleIntersection() {
	a := []uint32{2, 4, 6, 8}
	b := []uint32{1, 2, 3, 4, 5, 6, 7}
	fmt.Println(Intersection(a, b, 0), Intersection(a, b, 3))
	fmt.Println(Intersection(a, b, 4) < 4) // at most 3 of a are in b
	// Output:
	// 3 3
	// true
}

func BenchmarkIntersection(b *testing.B) {
	r := rand.New(rand.NewPCG(5, 6))
	for _, sz := range [][2]int{{1000, 1000}, {100, 4000}, {20, 5000}} {
		x, y := sortedSet(r, sz[0], 1<<20), sortedSet(r, sz[1], 1<<20)
		b.Run(fmt.Sprintf("%dx%d", sz[0], sz[1]), func(b *testing.B) {
			for b.Loop() {
				Intersection(x, y, 0)
			}
		})
		b.Run(fmt.Sprintf("Overlap%dx%d", sz[0], sz[1]), func(b *testing.B) {
			for b.Loop() {
				Overlap(x, y)
			}
		})
	}
}
