// Package pipeline chains the stage packages under transforms/ into neardup's
// two jobs: Build, a run, and BuildAudit, an audit of new files against an
// index. Each stage is a composite transform; what flows between them is
// described there and in docs/ARCHITECTURE.md.
package pipeline

import (
	"context"
	"fmt"

	"github.com/apache/beam/sdks/v2/go/pkg/beam"

	"github.com/neardup/neardup/transforms/audit"
	"github.com/neardup/neardup/transforms/cluster"
	"github.com/neardup/neardup/transforms/exact"
	"github.com/neardup/neardup/transforms/format/index"
	"github.com/neardup/neardup/transforms/format/summary"
	"github.com/neardup/neardup/transforms/indexing"
	"github.com/neardup/neardup/transforms/ingest"
	"github.com/neardup/neardup/transforms/job"
	"github.com/neardup/neardup/transforms/jobfiles"
	"github.com/neardup/neardup/transforms/jobfiles/filelist"
	"github.com/neardup/neardup/transforms/near"
	"github.com/neardup/neardup/transforms/objects"
	"github.com/neardup/neardup/transforms/sign"
	"github.com/neardup/neardup/transforms/write"
)

// Build adds the whole job to s: read files (sorted, indexed), find
// near-duplicates under cfg and write every output to cfg.Output.
//
//	files ─ Read ─ ExactDuplicates ─┬─────────────────────────────────────────────────┐
//	                                └─ Signatures ─ Candidates ─ Verify ─ matches ─┴─ Clusters ─ Write ─ Summary
//	                                                                                            └─ WriteIndex (with cfg.IndexOut)
//
// Read has one output, which ExactDuplicates passes on (exact.PassOn).
//
// The file list goes to a file manifest in the work directory (by default
// inside cfg.Output), which the job reads at run time: Build writes it.
func Build(ctx context.Context, s beam.Scope, cfg job.Config, files []string) error {
	fileCol, err := readFiles(ctx, s, &cfg, files)
	if err != nil {
		return err
	}
	// ExactDuplicates passes on the first pass's other outputs: the first
	// pass has one output, so that every runner computes it once.
	first := ingest.ReadOne(s, ingest.OptionsFor(cfg), fileCol)
	exactMatches, skips, rejects, inputs, segments, exactStats := exact.PassOn(s, exact.OptionsFor(cfg), first) // stats: the first pass's too
	fileCol.Seen = ingest.MergeInputs(s, ingest.OptionsFor(cfg), inputs)
	nearOpt, clusterOpt, writeOpt := near.OptionsFor(cfg), cluster.OptionsFor(cfg), write.OptionsFor(cfg)
	entries := sign.Signatures(s, sign.OptionsFor(cfg), segments, skips)
	pairs, candStats := near.Candidates(s, nearOpt, entries) // with the signature pass's stats
	verified, verifyStats := near.Verify(s, nearOpt, fileCol, pairs)
	clusters, removes, fates, clusterStats := cluster.Clusters(s, clusterOpt, cluster.GroupMatches(s, clusterOpt.Work, exactMatches, verified))
	writeStats := write.Write(s, writeOpt, fileCol, beam.Flatten(s, exactMatches, verified), clusters, rejects, removes, fates)
	if cfg.IndexOut != "" { // the summary, which removes the work directory, waits for it
		writeStats = beam.Flatten(s, writeStats, indexing.WriteIndex(s, indexing.OptionsFor(cfg), fileCol, removes))
	}
	write.Summary(s, writeOpt, fileCol, exactStats, candStats, verifyStats, clusterStats, writeStats)
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
func read(ctx context.Context, s beam.Scope, cfg *job.Config, files []string) (fc filelist.Files, r readOut, err error) {
	if fc, err = readFiles(ctx, s, cfg, files); err != nil {
		return fc, r, err
	}
	r.keys, r.rejects, fc.Seen, r.segments, r.stats = ingest.Read(s, ingest.OptionsFor(*cfg), fc)
	return fc, r, nil
}

// readFiles checks cfg (Config.Validate), sets its work directory (by
// default inside cfg.Output) and writes the file manifest of files there:
// the files, for the first pass to read.
func readFiles(ctx context.Context, s beam.Scope, cfg *job.Config, files []string) (filelist.Files, error) {
	if err := cfg.Validate(); err != nil {
		return filelist.Files{}, fmt.Errorf("job configuration: %w", err)
	}
	if cfg.Work == "" {
		cfg.Work = objects.JoinPath(cfg.Output, jobfiles.WorkDirName)
	}
	return newFiles(ctx, s, *cfg, jobfiles.InputsManifest, refsOf(files), len(files))
}

// refsOf numbers files in order.
func refsOf(files []string) []filelist.Ref {
	refs := make([]filelist.Ref, len(files))
	for i, f := range files {
		refs[i] = filelist.Ref{Index: i, Path: f}
	}
	return refs
}

// newFiles writes refs as the file manifest name in cfg.Work and returns
// its file collections, in at most n branches (and cfg.Branches).
func newFiles(ctx context.Context, s beam.Scope, cfg job.Config, name string, refs []filelist.Ref, n int) (filelist.Files, error) {
	manifest, err := filelist.WriteManifest(ctx, cfg.Work, name, refs)
	if err != nil {
		return filelist.Files{}, fmt.Errorf("writing the input list: %w", err)
	}
	return filelist.New(s, manifest, max(1, min(cfg.Branches, n))), nil
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
func BuildAudit(ctx context.Context, s beam.Scope, cfg job.Config, files []string, opt AuditOptions) error {
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
	auditOpt := audit.OptionsFor(cfg, opt.Index)
	batchExact, skips, exactStats := exact.ExactDuplicates(s, exact.OptionsFor(cfg), keys)
	entries, infos, signStats := sign.AuditSignatures(s, sign.OptionsFor(cfg), r.segments, skips)
	meet := audit.IndexLookup
	if opt.Scan {
		meet = audit.IndexScan
	}
	idxKeys, idxEntries, idxInfos, scanStats := meet(s, auditOpt, keys, entries)
	idxExact, auditExactStats := audit.AuditExact(s, auditOpt, keys, idxKeys)
	pairs, candStats := audit.AuditCandidates(s, auditOpt, entries, idxEntries)

	checkManifest := "" // (new, indexed) pairs decided by the estimate
	if opt.ReadSources {
		refs := refsOf(files)
		for k, sh := range shards {
			refs = append(refs, filelist.Ref{Index: filelist.IndexFileBase + k, Path: sh.Source})
		}
		if checkManifest, err = filelist.WriteManifest(ctx, cfg.Work, jobfiles.CheckManifest, refs); err != nil {
			return fmt.Errorf("writing the list of files to check: %w", err)
		}
	}
	batchMatches, idxMatches, verifyStats := audit.AuditVerify(s, auditOpt, newFiles, checkManifest, beam.Flatten(s, infos, idxInfos), pairs)
	batchMatches = beam.Flatten(s, batchExact, batchMatches) // keyed by file index: grouped for Clusters, in parts for the pairs shards
	idxMatches = beam.Flatten(s, idxExact, idxMatches)

	// The batch is decided with its documents that have an indexed match
	// removed beforehand: the index's documents are all kept.
	clusters, removes, fates, clusterStats := cluster.Clusters(s, cluster.OptionsFor(cfg), beam.GroupByKey(s, beam.Flatten(s, batchMatches, cluster.OutsideMarks(s, idxMatches))))
	clusterStats = audit.RenameStat(s, clusterStats, summary.StatRemoved, summary.StatRemovedInBatch)

	allRemoves, writeStats := audit.WriteAudit(s, auditOpt, newFiles, batchMatches, idxMatches, clusters, rejects, removes, fates)
	if opt.UpdateIndex != "" { // the summary, which removes the work directory, waits for it
		writeStats = beam.Flatten(s, writeStats, indexing.UpdateIndex(s, indexing.OptionsFor(cfg), opt.Index, newFiles, allRemoves))
	}
	audit.AuditSummary(s, auditOpt, newFiles, readStats, exactStats, signStats, scanStats, auditExactStats, candStats, verifyStats, clusterStats, writeStats)
	return nil
}
