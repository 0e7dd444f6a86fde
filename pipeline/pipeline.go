// Package pipeline chains the stages of package transforms into neardup's
// two jobs: Build, a run, and BuildAudit, an audit of new files against an
// index. Each stage is a composite transform; what flows between them is
// described there and in docs/ARCHITECTURE.md.
package pipeline

import (
	"context"
	"fmt"

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
//
// The file list goes to a file manifest in the work directory (by default
// inside cfg.Output), which the job reads at run time: Build writes it.
func Build(ctx context.Context, s beam.Scope, cfg transforms.Config, files []string) error {
	fileCol, r, err := read(ctx, s, &cfg, files)
	if err != nil {
		return err
	}
	exactMatches, skips, exactStats := transforms.ExactDuplicates(s, cfg, r.keys)
	entries, signStats := transforms.Signatures(s, cfg, r.segments, skips)
	pairs, candStats := transforms.Candidates(s, cfg, entries)
	verified, verifyStats := transforms.Verify(s, cfg, fileCol, pairs)
	clusters, removes, clusterStats := transforms.Clusters(s, cfg, transforms.GroupMatches(s, cfg, exactMatches, verified))
	writeStats := transforms.Write(s, cfg, fileCol, beam.Flatten(s, exactMatches, verified), clusters, r.rejects, removes)
	if cfg.IndexOut != "" { // the summary, which removes the work directory, waits for it
		writeStats = beam.Flatten(s, writeStats, transforms.WriteIndex(s, cfg, fileCol, removes))
	}
	transforms.Summary(s, cfg, fileCol, r.stats, exactStats, signStats, candStats, verifyStats, clusterStats, writeStats)
	return nil
}

// readOut is what the first pass gives the others besides the files.
type readOut struct {
	keys, rejects, segments, stats beam.PCollection
}

// read checks cfg (Config.Validate), sets its work directory (by default
// inside cfg.Output), writes the file manifest of files there and adds the
// first pass over them (Read).
// It returns the files, with what the first pass read of each (Seen: the
// later passes check the files against it), and Read's other outputs.
func read(ctx context.Context, s beam.Scope, cfg *transforms.Config, files []string) (fc transforms.Files, r readOut, err error) {
	if err := cfg.Validate(); err != nil {
		return fc, r, fmt.Errorf("job configuration: %w", err)
	}
	if cfg.Work == "" {
		cfg.Work = output.JoinPath(cfg.Output, transforms.WorkDirName)
	}
	if fc, err = newFiles(ctx, s, *cfg, transforms.InputsManifest, refsOf(files), len(files)); err != nil {
		return fc, r, err
	}
	r.keys, r.rejects, fc.Seen, r.segments, r.stats = transforms.Read(s, *cfg, fc)
	return fc, r, nil
}

// refsOf numbers files in order.
func refsOf(files []string) []transforms.FileRef {
	refs := make([]transforms.FileRef, len(files))
	for i, f := range files {
		refs[i] = transforms.FileRef{Index: i, Path: f}
	}
	return refs
}

// newFiles writes refs as the file manifest name in cfg.Work and returns
// its file collections, in at most n branches (and cfg.Branches).
func newFiles(ctx context.Context, s beam.Scope, cfg transforms.Config, name string, refs []transforms.FileRef, n int) (transforms.Files, error) {
	manifest, err := transforms.WriteFileManifest(ctx, cfg.Work, name, refs)
	if err != nil {
		return transforms.Files{}, fmt.Errorf("writing the input list: %w", err)
	}
	return transforms.NewFiles(s, manifest, max(1, min(cfg.Branches, n))), nil
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
	// UpdateIndex, if set, is where the next index goes: a manifest that
	// lists the old index's generations and a new generation of the new
	// documents kept.
	UpdateIndex string
	// Scan reads every record of the index (IndexScan) instead of looking
	// the batch's keys up (IndexLookup): the same outputs, at the cost of
	// the index's size; the tests compare the two.
	Scan bool
}

// BuildAudit adds an audit job to s: the new files (sorted) are read,
// deduplicated among themselves like a run, and checked against the index;
// every output goes to cfg.Output.
//
//	files ─ Read ─ ExactDuplicates ── AuditSignatures ──────────┐
//	            └────────── key set ──┴─ IndexLookup ─ AuditExact  │
//	                                            └─ AuditCandidates (new+indexed) ─ AuditVerify ─ split
//	batch matches ─ Clusters ─┐
//	index matches ────────────┴─ WriteAudit ─ dedup, AuditSummary, [UpdateIndex]
func BuildAudit(ctx context.Context, s beam.Scope, cfg transforms.Config, files []string, opt AuditOptions) error {
	if opt.Manifest.Version == 2 && !opt.Scan { // no key files
		return fmt.Errorf("index %s is of version %d: convert it with `neardup index compact --index %s --output NEW_DIR`", opt.Index, opt.Manifest.Version, opt.Index)
	}
	cfg.IndexOut = opt.UpdateIndex // the signature pass writes pre-shards there
	cfg.Spill = false              // its shuffles meet the index's records: none is spilled
	shards := opt.Manifest.Shards
	newFiles, r, err := read(ctx, s, &cfg, files)
	if err != nil {
		return err
	}
	keys, rejects, readStats := r.keys, r.rejects, r.stats
	batchExact, skips, exactStats := transforms.ExactDuplicates(s, cfg, keys)
	entries, infos, signStats := transforms.AuditSignatures(s, cfg, r.segments, skips)
	meet := transforms.IndexLookup
	if opt.Scan {
		meet = transforms.IndexScan
	}
	idxKeys, idxEntries, idxInfos, scanStats := meet(s, cfg, opt.Index, keys, entries)
	idxExact, auditExactStats := transforms.AuditExact(s, cfg, keys, idxKeys)
	pairs, candStats := transforms.AuditCandidates(s, cfg, entries, idxEntries)

	checkManifest := "" // (new, indexed) pairs decided by the estimate
	if opt.ReadSources {
		refs := refsOf(files)
		for k, sh := range shards {
			refs = append(refs, transforms.FileRef{Index: transforms.IndexFileBase + k, Path: sh.Source})
		}
		if checkManifest, err = transforms.WriteFileManifest(ctx, cfg.Work, transforms.CheckManifest, refs); err != nil {
			return fmt.Errorf("writing the list of files to check: %w", err)
		}
	}
	batchMatches, idxMatches, verifyStats := transforms.AuditVerify(s, cfg, newFiles, checkManifest, beam.Flatten(s, infos, idxInfos), pairs)
	batchMatches = beam.Flatten(s, batchExact, batchMatches) // keyed by file index: grouped for Clusters, in parts for the pairs shards
	idxMatches = beam.Flatten(s, idxExact, idxMatches)

	// The batch is decided with its documents that have an indexed match
	// removed beforehand: the index's documents are all kept.
	clusters, removes, clusterStats := transforms.Clusters(s, cfg, beam.GroupByKey(s, beam.Flatten(s, batchMatches, transforms.OutsideMarks(s, idxMatches))))
	clusterStats = transforms.RenameStat(s, clusterStats, output.StatRemoved, output.StatRemovedInBatch)

	allRemoves, writeStats := transforms.WriteAudit(s, cfg, opt.Index, newFiles, batchMatches, idxMatches, clusters, rejects, removes)
	if opt.UpdateIndex != "" { // the summary, which removes the work directory, waits for it
		writeStats = beam.Flatten(s, writeStats, transforms.UpdateIndex(s, cfg, opt.Index, newFiles, allRemoves))
	}
	transforms.AuditSummary(s, cfg, opt.Index, newFiles, readStats, exactStats, signStats, scanStats, auditExactStats, candStats, verifyStats, clusterStats, writeStats)
	return nil
}
