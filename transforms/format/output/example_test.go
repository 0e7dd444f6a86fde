package output_test

import (
	"fmt"
	"os"
	"path/filepath"

	"github.com/neardup/neardup/transforms/format/output"
)

// Reading a run's pairs: every pairs shard of the output directory, plain
// or compressed, in order.
func ExampleEach() {
	dir, err := os.MkdirTemp("", "neardup-example-")
	if err != nil {
		panic(err)
	}
	defer os.RemoveAll(dir)
	lines := `{"a":"doc-1","b":"doc-7","jaccard":0.875,"hamming":4,"method":"minhash"}` + "\n" +
		`{"a":"doc-2","b":"doc-3","jaccard":1,"hamming":0,"method":"exact"}` + "\n"
	if err := os.WriteFile(filepath.Join(dir, output.ShardName(output.KindPairs, 0)), []byte(lines), 0o644); err != nil {
		panic(err)
	}

	err = output.Each(dir, output.KindPairs, func(p *output.PairLine) bool {
		fmt.Printf("%s %s %.3f %s\n", p.A, p.B, p.Jaccard, p.Method)
		return true
	})
	if err != nil {
		panic(err)
	}
	// Output:
	// doc-1 doc-7 0.875 minhash
	// doc-2 doc-3 1.000 exact
}
