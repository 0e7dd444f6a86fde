// Package transforms is neardup's Beam layer: one file per stage of the job,
// each holding the stage's composite transform followed by its DoFns, which
// move compact records (package format/wire) between the runner and the
// Beam-free algorithm packages below (text, sketch, match, graph, format).
// Package pipeline chains the composites into the run and the audit:
//
//	files ─ Read ─ ExactDuplicates ─┬──────────────────────────────────────────────┐
//	   └──────────── Signatures ─ Candidates ─ Verify (─ ExactChecks) ─ matches ─┴─ Clusters ─ Write ─ Summary
//
// Every shuffle carries partition numbers and byte chunks of packed records,
// never document text; documents are re-read from their files where their
// bytes are needed again (signatures, exact checks, the deduplicated copy).
// The plumbing shared by the stages: files.go (the input file list and the
// per-file branches), rounds.go (shuffle rounds), docpool.go (the worker
// goroutines over a file's documents), workfiles.go (info shards),
// docshards.go (each segment's documents, normalized, for the passes that
// shingle them), spool.go (decompressed copies of the inputs), metrics.go and
// faultinject.go.
package transforms
