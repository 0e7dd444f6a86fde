// Package ingest is the first pass over the input (Read): files in,
// each read once in units, parsed and normalized; out go the exact-key
// records, the rejected records, what was read of each file, and one
// document shard per segment in the work directory, from which the later
// passes take the documents.
package ingest
