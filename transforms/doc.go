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
//
// The stages, in the order the data passes them: read.go (with units.go
// and lineunits.go, the units a file is read in), exact.go, signatures.go,
// candidates.go, verify.go, exactcheck.go, clusters.go (with
// clusteredges.go), write.go (with writeparts.go), summary.go and index.go.
// An audit's own stages: auditscan.go (the index scan), auditmatch.go and
// auditwrite.go.
//
// No DoFn holds the job's Config: each holds the narrow configuration of
// its algorithm (stageconfig.go, verify.Config) and a handle on the work
// directory (workDir, workfiles.go), which the composites derive from
// Config (config.go). What the stages share: the input file list and its
// branches (files.go), the job's shuffle rounds (rounds.go), spilled shuffles
// (spilled.go), the work files (workfiles.go: info shards; docshards.go:
// each segment's documents, normalized; seen.go: the first pass's reading
// of each input; spool.go: decompressed copies of the inputs), the reading
// of an input file (input.go, parquet.go), the signers (signers.go), busy
// times and progress (metrics.go), and in internal packages: the worker
// goroutines over a file's documents and the work ahead of the runner
// (internal/docpool), the rounds and
// branches of the large shuffles (internal/rounds), the tallies of the
// shuffles and the counts of the stages (internal/tally) and fault
// injection (internal/faults, with its test hooks in faults.go).
package transforms
