package unionfind_test

import (
	"fmt"

	"github.com/neardup/neardup/transforms/graph/unionfind"
)

func ExampleSparse() {
	s := unionfind.NewSparse()
	s.Union(900, 42)
	s.Union(7, 1000)
	s.Union(1000, 900)
	s.Union(5, 6)
	fmt.Println(s.Find(900), s.Find(6), s.Find(3))
	fmt.Println(s.Components())
	// Output:
	// 7 5 3
	// [[5 6] [7 42 900 1000]]
}
