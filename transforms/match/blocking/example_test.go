package blocking_test

import (
	"fmt"

	"github.com/neardup/neardup/transforms/match/blocking"
)

func ExampleTables() {
	tables, err := blocking.NewTables(blocking.ChooseDesign(3, 1e6))
	if err != nil {
		panic(err)
	}
	a := uint64(0xdeadbeefcafef00d)
	b := a ^ 1<<3 ^ 1<<30 ^ 1<<60 // Hamming distance 3
	ka := tables.AppendKeys(nil, a)
	kb := tables.AppendKeys(nil, b)
	shared := 0
	for i := range ka {
		if ka[i] == kb[i] {
			shared++
		}
	}
	fmt.Println(tables.Design(), tables.Len(), "tables,", shared, "shared")
	// Output: k=3 m=4 4 tables, 1 shared
}

func ExampleChooseBands() {
	b := blocking.ChooseBands(0.8, 128, blocking.DefaultWeights)
	fmt.Printf("%v: %.3f of pairs at similarity 0.8 share a band\n", b, b.Prob(0.8))
	// Output: 18x7: 0.986 of pairs at similarity 0.8 share a band
}
