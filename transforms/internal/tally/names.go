package tally

// Shuffle names: what a stage tallies a shuffle under (Shuffle.Report),
// and summary.json's shuffle_bytes and shuffle_elements name it by (see
// the shuffle table in docs/ARCHITECTURE.md).
const (
	ShuffleExactKeys   = "exact_keys"          // Read → ExactDuplicates
	ShuffleSkipLines   = "skip_lines"          // ExactDuplicates → Signatures
	ShuffleBands       = "band_entries"        // Signatures → Candidates, partitions [0, P)
	ShuffleTables      = "simhash_entries"     // Signatures → Candidates, partitions [P, 2P)
	ShuffleInfos       = "infos"               // Signatures → the join, without info shards
	ShuffleCandidates  = "candidate_pairs"     // Candidates → JoinFirst
	ShuffleHalves      = "half_joins"          // JoinFirst → Verify
	ShuffleUnsure      = "unsure_pairs"        // Verify → ExactChecks
	ShuffleSets        = "shingle_sets"        // ShingleSets → ExactJaccard
	ShuffleMatches     = "matches"             // exact and verified → Clusters, pairs output
	ShuffleEdges       = "edges"               // Clusters: rounds, settled stars and leaves, remainder
	ShuffleAssignments = "assignments"         // Clusters: (document, root)
	ShuffleMembers     = "members"             // Clusters: ids and lengths, then with their roots
	ShuffleLinks       = "links"               // Clusters: the matches, to their components
	ShuffleOutLines    = "output_lines"        // cluster and reject lines → Write
	ShuffleRemoved     = "removed_lines"       // Clusters → Write, WriteIndex
	ShuffleContain     = "containment_entries" // Signatures → Candidates, partitions [2P, 3P)
	ShuffleParts       = "output_parts"        // Write: pairs, cluster and reject records by part of their shard
)
