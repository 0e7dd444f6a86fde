package pipeline

import (
	"github.com/apache/beam/sdks/v2/go/pkg/beam"
	"github.com/apache/beam/sdks/v2/go/pkg/beam/transforms/stats"

	"github.com/neardup/neardup/transforms"
	"github.com/neardup/neardup/transforms/format/index"
)

// WriteIndex writes the signature index of the documents a job keeps to
// cfg.IndexOut: one shard per input file, then index.json.
//
// In: files, documents removed (uvarint lines keyed by file index).
func WriteIndex(s beam.Scope, cfg transforms.Config, files Files, removes beam.PCollection) {
	s = s.Scope("WriteIndex")
	metas := files.perFile(s, 1, &transforms.WriteIndexFn{Cfg: cfg, Dir: cfg.IndexOut}, removes)[0]
	writeManifest(s, cfg.IndexOut, cfg.IndexConfig(), metas)
}

func writeManifest(s beam.Scope, dir string, ic index.Config, metas beam.PCollection) {
	one := beam.GroupByKey(s, beam.ParDo(s, transforms.ToOneKey, metas))
	beam.ParDo0(s, &transforms.WriteManifestFn{Dir: dir, Config: ic}, one)
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

// newFileRefs is NewFiles for files with given indexes.
func newFileRefs(s beam.Scope, refs []FileRef, n int) Files {
	n = max(1, min(n, len(refs)))
	f := Files{Paths: map[int]string{}}
	split := make([][]FileRef, n)
	for _, r := range refs {
		split[r.Index%n] = append(split[r.Index%n], r)
		f.Paths[r.Index] = r.Path
	}
	f.All = beam.ParDo(s, fileKV, beam.CreateList(s, refs))
	for b := range split {
		f.Branches = append(f.Branches, beam.ParDo(s, fileKV, beam.CreateList(s, split[b])))
	}
	return f
}

// BuildAudit adds an audit job to s: the new files (sorted) are read,
// deduplicated among themselves like a run, and checked against the index;
// every output goes to cfg.Output.
//
//	files ─ Read ─ ExactDuplicates ── Signatures ───────────────┐
//	            └────────── key set ──┴─ IndexScan ─ AuditExact  │
//	                                            └─ Candidates (new+indexed) ─ Verify ─ split
//	batch matches ─ Clusters ─┐
//	index matches ────────────┴─ WriteAudit ─ dedup, summary, [next index]
func BuildAudit(s beam.Scope, cfg transforms.Config, files []string, opt AuditOptions) {
	cfg.IndexOut = opt.UpdateIndex // the signature pass writes pre-shards there
	newFiles := NewFiles(s, files, cfg.Branches)
	keys, rejects, readStats := Read(s, cfg, newFiles)
	batchExact, skips, exactStats := ExactDuplicates(s, cfg, keys)
	entries, infos, signStats := auditSignatures(s, cfg, newFiles, skips)
	idxExact, idxEntries, idxInfos, scanStats := IndexScan(s, cfg, opt, keys, entries)

	sa := s.Scope("AuditExact")
	idxExactMatches, st0 := beam.ParDo2(sa, &transforms.AuditExactFn{Cfg: cfg}, beam.GroupByKey(sa, beam.Flatten(sa, keys, idxExact)))

	sc := s.Scope("Candidates")
	pairs, candStats := beam.ParDo2(sc, &transforms.AuditCandidatesFn{Cfg: cfg}, beam.GroupByKey(sc, beam.Flatten(sc, entries, idxEntries)))

	batchMatches, idxMatches, verifyStats := auditVerify(s, cfg, opt, files, newFiles, beam.Flatten(s, infos, idxInfos), pairs)
	batchMatches = beam.Flatten(s, batchExact, batchMatches)
	idxMatches = beam.Flatten(s, idxExactMatches, idxMatches)

	batchMatches = beam.GroupByKey(s, batchMatches) // by file index, for Clusters and the pairs shards
	clusters, removes, clusterStats := Clusters(s, cfg, batchMatches)
	clusterStats = beam.ParDo(s, &transforms.RenameStatFn{From: transforms.StatRemoved, To: transforms.StatRemovedInBatch}, clusterStats)

	sw := s.Scope("Write")
	sources := make([]string, len(opt.Manifest.Shards))
	for i, sh := range opt.Manifest.Shards {
		sources[i] = sh.Source
	}
	allRemoves, auditStats := beam.ParDo2(sw, &transforms.WriteAuditFn{Cfg: cfg, Sources: sources}, beam.CoGroupByKey(sw, idxMatches, removes))
	write := func(kind string, grouped beam.PCollection) beam.PCollection {
		return beam.ParDo(sw.Scope(kind), &transforms.WriteLinesFn{Cfg: cfg, Kind: kind}, grouped)
	}
	shard := func(kind string, col beam.PCollection) beam.PCollection { return write(kind, beam.GroupByKey(sw, col)) }
	dedup := newFiles.perFile(sw.Scope("dedup"), 1, &transforms.WriteDedupFn{Cfg: cfg}, allRemoves, rejects)[0]
	writeStats := beam.Flatten(sw,
		write(transforms.KindPairs, batchMatches),
		shard(transforms.KindClusters, clusters),
		shard(transforms.KindRejects, rejects),
		dedup)

	ss := s.Scope("Summary")
	sums := stats.SumPerKey(ss, beam.Flatten(ss, readStats, exactStats, signStats, scanStats, st0, candStats, verifyStats, clusterStats, auditStats, writeStats))
	beam.ParDo0(ss, &transforms.WriteAuditSummaryFn{Cfg: cfg, Index: opt.Index}, beam.GroupByKey(ss, beam.ParDo(ss, transforms.EncodeStat, sums)))

	if opt.UpdateIndex != "" {
		su := s.Scope("UpdateIndex")
		old := opt.Manifest.Shards
		refs := make([]FileRef, len(old))
		for i, sh := range old {
			refs[i] = FileRef{Index: i, Path: sh.Name}
		}
		copied := beam.ParDo(su, &transforms.CopyShardFn{From: opt.Index, To: opt.UpdateIndex, Shards: old},
			beam.ParDo(su, fileKV, beam.CreateList(su, refs)))
		written := newFiles.perFile(su, 1, &transforms.WriteIndexFn{Cfg: cfg, Dir: cfg.IndexOut, Offset: len(old)}, allRemoves)[0]
		writeManifest(su, opt.UpdateIndex, cfg.IndexConfig(), beam.Flatten(su, copied, written))
	}
}

// auditSignatures is Signatures with the infos shuffled rather than written
// to info shards: an audit joins them with the infos of indexed documents.
//
// Out: block entries (partition, chunk), infos (partition, chunk), stats.
func auditSignatures(s beam.Scope, cfg transforms.Config, files Files, skips beam.PCollection) (entries, infos, st beam.PCollection) {
	s = s.Scope("Signatures")
	o := files.perFile(s, 3, &transforms.SignFn{Cfg: cfg}, skips)
	return o[0], o[1], o[2]
}

// IndexScan reads the index shards and keeps what meets the new batch: the
// exact keys and block keys the batch has too, and the infos of the
// indexed documents with such block keys.
//
// In: the batch's exact-key records and block entries. Out: indexed
// exact-key records (partition of the key, chunk), indexed block entries
// (partition of the key, chunk), indexed infos (partition of the document,
// chunk), stats.
func IndexScan(s beam.Scope, cfg transforms.Config, opt AuditOptions, keys, entries beam.PCollection) (exact, idxEntries, infos, st beam.PCollection) {
	s = s.Scope("IndexScan")
	keySet := beam.Flatten(s,
		beam.ParDo(s, &transforms.ExactKeysFn{}, keys),
		beam.ParDo(s, &transforms.BlockKeysFn{Cfg: cfg}, entries))
	shards := opt.Manifest.Shards
	refs := make([]FileRef, len(shards))
	for i, sh := range shards {
		refs[i] = FileRef{Index: i, Path: sh.Name}
	}
	if len(refs) == 0 {
		empty := beam.ParDo(s, fileKV, beam.CreateList(s, []FileRef{}))
		exact, idxEntries, infos, st = beam.ParDo4(s, &transforms.IndexScanFn{Cfg: cfg, Dir: opt.Index, Shards: shards}, empty, beam.SideInput{Input: keySet})
		return
	}
	fs := newFileRefs(s, refs, cfg.Branches)
	var outs [4][]beam.PCollection
	for _, b := range fs.Branches {
		o := beam.ParDoN(s, &transforms.IndexScanFn{Cfg: cfg, Dir: opt.Index, Shards: shards}, b, beam.SideInput{Input: keySet})
		for i := range outs {
			outs[i] = append(outs[i], o[i])
		}
	}
	return beam.Flatten(s, outs[0]...), beam.Flatten(s, outs[1]...), beam.Flatten(s, outs[2]...), beam.Flatten(s, outs[3]...)
}

// auditVerify is Verify for an audit. Pairs are (new, new) or (new,
// indexed); the ones the estimate cannot decide are checked exactly from
// the documents' files: new ones always, indexed ones from their source
// files when opt.ReadSources, else by the estimate against the threshold.
//
// Out: matches within the batch and (new, indexed) matches, both keyed by
// the new document's file, and stats.
func auditVerify(s beam.Scope, cfg transforms.Config, opt AuditOptions, files []string, newFiles Files, infos, pairs beam.PCollection) (batch, idx, st beam.PCollection) {
	s = s.Scope("Verify")
	halves, st1 := beam.ParDo2(s, &transforms.HalfJoinFn{Cfg: cfg}, beam.CoGroupByKey(s, infos, pairs))
	accepted, unsure, st2 := beam.ParDo3(s, &transforms.VerifyFn{Cfg: cfg}, beam.CoGroupByKey(s, infos, halves))
	checkFiles := newFiles
	if opt.ReadSources {
		var refs []FileRef
		for i, f := range files {
			refs = append(refs, FileRef{Index: i, Path: f})
		}
		for k, sh := range opt.Manifest.Shards {
			refs = append(refs, FileRef{Index: transforms.IndexFileBase + k, Path: sh.Source})
		}
		checkFiles = newFileRefs(s, refs, cfg.Branches)
	} else {
		var byEstimate beam.PCollection
		unsure, byEstimate = beam.ParDo2(s, &transforms.SplitMatchesFn{Cfg: cfg, Decide: true}, unsure)
		accepted = beam.Flatten(s, accepted, byEstimate)
	}
	exact, st3 := ExactChecks(s, cfg, checkFiles.Paths, unsure, st2)
	batch, idx = beam.ParDo2(s, &transforms.SplitMatchesFn{Cfg: cfg}, beam.Flatten(s, accepted, exact))
	return batch, idx, beam.Flatten(s, st1, st2, st3)
}
