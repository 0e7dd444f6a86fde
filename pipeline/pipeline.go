// Package pipeline chains the stages of package transforms into neardup's
// two jobs: Build, a run, and BuildAudit, an audit of new files against an
// index. Each stage is a composite transform; what flows between them is
// described there and in docs/ARCHITECTURE.md.
package pipeline

import (
	"github.com/apache/beam/sdks/v2/go/pkg/beam"

	"github.com/neardup/neardup/transforms"
	"github.com/neardup/neardup/transforms/format/index"
	"github.com/neardup/neardup/transforms/format/output"
)

// Build adds the whole job to s: read files (sorted, indexed), find
// near-duplicates under cfg and write every output to cfg.Output.
//
//	files ─ Read ─ ExactDuplicates ─┬──────────────────────────────┐
//	   └──────────── Signatures ─ Candidates ─ Verify ─ matches ─┴─ Clusters ─ Write ─ Summary
//	                                                                          └─ WriteIndex (with cfg.IndexOut)
func Build(s beam.Scope, cfg transforms.Config, files []string) {
	if cfg.Work == "" {
		cfg.Work = output.JoinPath(cfg.Output, transforms.WorkDirName)
	}
	fileCol := transforms.NewFiles(s, files, cfg.Branches)

	keys, rejects, inputs, readStats := transforms.Read(s, cfg, fileCol)
	fileCol.Seen = inputs // the later passes check the files against what Read read
	exactMatches, skips, exactStats := transforms.ExactDuplicates(s, cfg, keys)
	entries, signStats := transforms.Signatures(s, cfg, fileCol, skips)
	pairs, candStats := transforms.Candidates(s, cfg, entries)
	verified, verifyStats := transforms.Verify(s, cfg, fileCol, pairs)
	matches := beam.GroupByKey(s, beam.Flatten(s, exactMatches, verified))
	clusters, removes, clusterStats := transforms.Clusters(s, cfg, matches)
	writeStats := transforms.Write(s, cfg, fileCol, matches, clusters, rejects, removes)
	transforms.Summary(s, cfg, fileCol, readStats, exactStats, signStats, candStats, verifyStats, clusterStats, writeStats)
	if cfg.IndexOut != "" {
		transforms.WriteIndex(s, cfg, fileCol, removes)
	}
}

// AuditOptions says what an audit checks the new files against.
type AuditOptions struct {
	Index    string          // the index directory
	Manifest *index.Manifest // its manifest, read and checked
	// ReadSources: exact checks of (new, indexed) pairs the MinHash estimate
	// cannot decide read the indexed document from its source file (as the
	// index records it); otherwise the estimate decides them against the
	// threshold.
	ReadSources bool
	// UpdateIndex, if set, is where the next index goes: the old shards,
	// copied, and shards of the new documents kept.
	UpdateIndex string
}

// BuildAudit adds an audit job to s: the new files (sorted) are read,
// deduplicated among themselves like a run, and checked against the index;
// every output goes to cfg.Output.
//
//	files ─ Read ─ ExactDuplicates ── AuditSignatures ──────────┐
//	            └────────── key set ──┴─ IndexScan ─ AuditExact  │
//	                                            └─ AuditCandidates (new+indexed) ─ AuditVerify ─ split
//	batch matches ─ Clusters ─┐
//	index matches ────────────┴─ WriteAudit ─ dedup, AuditSummary, [UpdateIndex]
func BuildAudit(s beam.Scope, cfg transforms.Config, files []string, opt AuditOptions) {
	cfg.IndexOut = opt.UpdateIndex // the signature pass writes pre-shards there
	shards := opt.Manifest.Shards
	newFiles := transforms.NewFiles(s, files, cfg.Branches)

	keys, rejects, inputs, readStats := transforms.Read(s, cfg, newFiles)
	newFiles.Seen = inputs // the later passes check the files against what Read read
	batchExact, skips, exactStats := transforms.ExactDuplicates(s, cfg, keys)
	entries, infos, signStats := transforms.AuditSignatures(s, cfg, newFiles, skips)
	idxKeys, idxEntries, idxInfos, scanStats := transforms.IndexScan(s, cfg, opt.Index, shards, keys, entries)
	idxExact, auditExactStats := transforms.AuditExact(s, cfg, keys, idxKeys)
	pairs, candStats := transforms.AuditCandidates(s, cfg, entries, idxEntries)

	var checkPaths map[int]string // nil: (new, indexed) pairs decided by the estimate
	if opt.ReadSources {
		checkPaths = map[int]string{}
		for i, f := range files {
			checkPaths[i] = f
		}
		for k, sh := range shards {
			checkPaths[transforms.IndexFileBase+k] = sh.Source
		}
	}
	batchMatches, idxMatches, verifyStats := transforms.AuditVerify(s, cfg, newFiles, checkPaths, beam.Flatten(s, infos, idxInfos), pairs)
	batchMatches = beam.GroupByKey(s, beam.Flatten(s, batchExact, batchMatches)) // by file index, for Clusters and the pairs shards
	idxMatches = beam.Flatten(s, idxExact, idxMatches)

	clusters, removes, clusterStats := transforms.Clusters(s, cfg, batchMatches)
	clusterStats = transforms.RenameStat(s, clusterStats, output.StatRemoved, output.StatRemovedInBatch)

	sources := make([]string, len(shards))
	for i, sh := range shards {
		sources[i] = sh.Source
	}
	allRemoves, writeStats := transforms.WriteAudit(s, cfg, sources, newFiles, batchMatches, idxMatches, clusters, rejects, removes)
	transforms.AuditSummary(s, cfg, opt.Index, newFiles, readStats, exactStats, signStats, scanStats, auditExactStats, candStats, verifyStats, clusterStats, writeStats)
	if opt.UpdateIndex != "" {
		transforms.UpdateIndex(s, cfg, opt.Index, shards, newFiles, allRemoves)
	}
}
