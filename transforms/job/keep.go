package job

import (
	"fmt"

	"github.com/neardup/neardup/transforms/choice"
)

// Keep says which documents have the priority to be kept: the documents of
// a group of exact duplicates, and the order in which near-duplicates are
// decided (see ClustersKept).
type Keep int

const (
	// KeepLongest gives the priority to the longest text (in bytes), then
	// to the first document.
	KeepLongest Keep = iota
	// KeepFirst gives the priority to the first document (input file
	// order, then line).
	KeepFirst
)

// keepNames are the names of the keep orders.
var keepNames = choice.Names[Keep]{{Value: KeepLongest, Name: "longest"}, {Value: KeepFirst, Name: "first"}}

// String returns the name of k.
func (k Keep) String() string {
	if name, ok := keepNames.Name(k); ok {
		return name
	}
	return fmt.Sprintf("Keep(%d)", int(k))
}

// MarshalText returns the name of k.
func (k Keep) MarshalText() ([]byte, error) { return keepNames.Marshal("keep order", k) }

// UnmarshalText sets k to the keep order text names: longest or first.
func (k *Keep) UnmarshalText(text []byte) (err error) {
	*k, err = keepNames.Parse(string(text))
	return err
}

// ParseKeep returns the keep order s names (Keep.UnmarshalText); its error quotes s.
func ParseKeep(s string) (Keep, error) {
	v, err := keepNames.Parse(s)
	if err != nil {
		return v, fmt.Errorf("keep order %q: %w", s, err)
	}
	return v, nil
}
