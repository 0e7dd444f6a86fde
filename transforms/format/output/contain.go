package output

// Containment stat and shuffle names (a run with --containment).
const (
	// StatContainSmall counts the signed documents with shingles but fewer
	// distinct ones than --containment-min-size: never paired as contained
	// or containing documents.
	StatContainSmall = "containment_below_min_size"
	// ShuffleContain is Signatures → Candidates, partitions [2P, 3P).
	ShuffleContain = "containment_entries"
)
