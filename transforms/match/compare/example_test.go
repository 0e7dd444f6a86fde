package compare_test

import (
	"fmt"

	"github.com/neardup/neardup/transforms/match/compare"
)

// One changed word of 14 is in 5 of the 10 five-word shingles of each text,
// so only 5 of the 15 distinct shingles are shared; case and punctuation do
// not count.
func Example() {
	r, err := compare.Texts(
		"The quick brown fox jumps over the lazy dog and keeps running far away.",
		"the quick brown fox jumped over the lazy dog and keeps running far away",
		compare.DefaultOptions())
	if err != nil {
		panic(err)
	}
	fmt.Printf("jaccard %.4f (%d of %d shingles), near-duplicate: %v\n", r.Jaccard, r.Inter, r.Union, r.NearDup())
	fmt.Printf("hamming %d, simhash near-duplicate: %v\n", r.Hamming, r.SimHashNearDup())
	fmt.Printf("only in A %q, only in B %q\n", r.A.Only, r.B.Only)
	// Output:
	// jaccard 0.3333 (5 of 15 shingles), near-duplicate: false
	// hamming 19, simhash near-duplicate: false
	// only in A ["jumps"], only in B ["jumped"]
}
