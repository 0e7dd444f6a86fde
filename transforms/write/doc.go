// Package write writes a job's outputs (Write): matches, cluster lines,
// rejects and removals in; out go the pairs, clusters and rejects shards
// and the deduplicated copy of each input, then summary.json (Summary)
// from every stage's stats.
package write
