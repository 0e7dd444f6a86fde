// Package transforms is neardup's Beam layer and the algorithms under it.
// It holds no code of its own: its packages do, one per role, each a set
// of composite transforms followed by their DoFns, which move compact
// records (package format/wire) between the runner and the Beam-free
// algorithm packages (text, sketch, match, graph, format; choice names
// the values of their settings' types). Package
// pipeline chains the composites into the run and the audit:
//
//	files ─ ingest.Read ─ exact.ExactDuplicates ─┬────────────────────────────────────────────────────────┐
//	   └──────────── sign.Signatures ─ near.Candidates ─ near.Verify (─ near.ExactChecks) ─ matches ─┴─ cluster.Clusters ─ write.Write ─ write.Summary
//
// The stage packages, in the order the data passes them; each imports only
// those before it. Each stage's composites take its Options, which its
// OptionsFor derives from the job's Config once, when the job is built:
//
//	jobstate  progress, busy times and fault hooks of the job in this process
//	jobfiles  the input list, the work directory and its files, spilled shuffles (a package per kind)
//	job       the job's Config and the narrow configurations of the DoFns
//	ingest    the first pass: read, parse, normalize, document shards
//	exact     exact duplicates
//	sign      signatures and block entries
//	near      candidates, verification, exact checks
//	cluster   connected components and the removal rule
//	write     pairs, clusters, rejects, deduplicated copies, summary.json
//	indexing  the signature index: write, update, compact, open
//	audit     new files against an index
//
// Every shuffle carries partition numbers and byte chunks of packed
// records, never document text; documents are read from the work
// directory's document shards, or from their files where their bytes are
// needed again (the exact checks, the deduplicated copy). The internal
// packages are the Beam layer's own: the worker goroutines over a file's
// documents (internal/docpool), the rounds and branches of the large
// shuffles (internal/rounds), the tallies of shuffles and stages
// (internal/tally), fault injection (internal/faults), the job files'
// writers and their stop gate (internal/workfiles) and free disk space
// (internal/diskroom). The stage tests share their helpers in package
// stagetest, which only tests import.
package transforms
