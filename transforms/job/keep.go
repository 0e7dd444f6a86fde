package job

import "fmt"

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

// ParseKeep parses the name of a Keep: longest or first.
func ParseKeep(name string) (Keep, error) {
	switch name {
	case "longest":
		return KeepLongest, nil
	case "first":
		return KeepFirst, nil
	}
	return 0, fmt.Errorf("keep %q: want longest or first", name)
}

// String returns the name ParseKeep accepts for k.
func (k Keep) String() string {
	if k == KeepFirst {
		return "first"
	}
	return "longest"
}
