// Package pipeline assembles neardup's Beam pipeline from the DoFns in
// package transforms. Each stage is a composite transform; the data flow is
//
//	files ─ Read ─ ExactDuplicates ─┬──────────────────────────────┐
//	   └──────────── Signatures ─ Candidates ─ Verify ─ matches ─┴─ Clusters ─ Write ─ Summary
//
// Shuffles carry partition numbers and packed chunks of document numbers,
// keys and small sketches (package wire); document text is read from the
// input files again where it is needed (signatures, the deduplicated copy).
package pipeline

import (
	"reflect"

	"github.com/apache/beam/sdks/v2/go/pkg/beam"
	"github.com/apache/beam/sdks/v2/go/pkg/beam/register"
	"github.com/apache/beam/sdks/v2/go/pkg/beam/transforms/stats"

	"github.com/neardup/neardup/transforms"
)

// FileRef names one input file and its index in the sorted input list.
type FileRef struct {
	Index int
	Path  string
}

func init() {
	beam.RegisterType(reflect.TypeFor[FileRef]())
	register.Function1x2(fileKV)
}

func fileKV(f FileRef) (int, string) { return f.Index, f.Path }

// Build adds the whole job to s: read files (sorted, indexed), find
// near-duplicates under cfg and write every output to cfg.Output.
func Build(s beam.Scope, cfg transforms.Config, files []string) {
	refs := make([]FileRef, len(files))
	for i, f := range files {
		refs[i] = FileRef{Index: i, Path: f}
	}
	fileCol := beam.ParDo(s, fileKV, beam.CreateList(s, refs))

	keys, rejects, readStats := Read(s, cfg, fileCol)
	exactMatches, skips, exactStats := ExactDuplicates(s, cfg, keys)
	entries, infos, signStats := Signatures(s, cfg, fileCol, skips)
	pairs, candStats := Candidates(s, cfg, entries)
	verified, verifyStats := Verify(s, cfg, fileCol, infos, pairs)
	matches := beam.Flatten(s, exactMatches, verified)
	clusters, removes, clusterStats := Clusters(s, cfg, matches)
	writeStats := Write(s, cfg, fileCol, matches, clusters, rejects, removes)
	Summary(s, cfg, readStats, exactStats, signStats, candStats, verifyStats, clusterStats, writeStats)
}

// Read is the first pass over the input.
//
// In: (file index, path). Out: exact-key records (partition, chunk), reject
// lines (file index, chunk) and stats (name, n).
func Read(s beam.Scope, cfg transforms.Config, files beam.PCollection) (keys, rejects, st beam.PCollection) {
	s = s.Scope("Read")
	return beam.ParDo3(s, &transforms.ReadKeysFn{Cfg: cfg}, files)
}

// ExactDuplicates groups documents by the hash of their normalized text.
//
// In: exact-key records (partition, chunk). Out: exact matches (file index,
// chunk), lines to skip in the signature pass (file index, chunk), stats.
func ExactDuplicates(s beam.Scope, cfg transforms.Config, keys beam.PCollection) (matches, skips, st beam.PCollection) {
	s = s.Scope("ExactDuplicates")
	return beam.ParDo3(s, &transforms.ExactFn{Cfg: cfg}, beam.GroupByKey(s, keys))
}

// Signatures is the second pass over the input: SimHash, MinHash, block keys.
//
// In: files (index, path) and lines to skip (index, chunk). Out: block
// entries (partition, chunk), document infos (partition, chunk), stats.
func Signatures(s beam.Scope, cfg transforms.Config, files, skips beam.PCollection) (entries, infos, st beam.PCollection) {
	s = s.Scope("Signatures")
	return beam.ParDo3(s, &transforms.SignFn{Cfg: cfg}, beam.CoGroupByKey(s, files, skips))
}

// Candidates groups block entries by partition and proposes pairs.
//
// In: block entries (partition, chunk). Out: candidate pairs (partition of
// the first document, chunk), stats.
func Candidates(s beam.Scope, cfg transforms.Config, entries beam.PCollection) (pairs, st beam.PCollection) {
	s = s.Scope("Candidates")
	return beam.ParDo2(s, &transforms.CandidatesFn{Cfg: cfg}, beam.GroupByKey(s, entries))
}

// Verify joins candidate pairs with both documents' infos, in two rounds
// keyed by document partition, and keeps the pairs that pass the test. Pairs
// whose MinHash estimate cannot decide go to an exact check of their shingle
// sets, computed from the two documents re-read in their files.
//
// In: files (index, path), infos (partition, chunk), pairs (partition of A,
// chunk). Out: verified matches (file index of A, chunk), stats.
func Verify(s beam.Scope, cfg transforms.Config, files, infos, pairs beam.PCollection) (matches, st beam.PCollection) {
	s = s.Scope("Verify")
	halves, st1 := beam.ParDo2(s, &transforms.HalfJoinFn{Cfg: cfg}, beam.CoGroupByKey(s, infos, pairs))
	accepted, unsure, st2 := beam.ParDo3(s, &transforms.VerifyFn{Cfg: cfg}, beam.CoGroupByKey(s, infos, halves))
	withSets, st3 := beam.ParDo2(s, &transforms.ShingleSetsFn{Cfg: cfg}, beam.CoGroupByKey(s, files, unsure))
	exact, st4 := beam.ParDo2(s, &transforms.ExactJaccardFn{Cfg: cfg}, beam.CoGroupByKey(s, files, withSets))
	return beam.Flatten(s, accepted, exact), beam.Flatten(s, st1, st2, st3, st4)
}

// Clusters finds the connected components of all matches.
//
// In: matches (any key, chunk). Out: cluster lines (file index, chunk),
// documents to remove (file index, chunk), stats.
func Clusters(s beam.Scope, cfg transforms.Config, matches beam.PCollection) (clusters, removes, st beam.PCollection) {
	s = s.Scope("Clusters")
	one := beam.GroupByKey(s, beam.ParDo(s, transforms.ToOneKey, matches))
	return beam.ParDo3(s, &transforms.ClusterFn{Cfg: cfg}, one)
}

// Write writes pairs, clusters, rejects and the deduplicated input, one
// shard per input file that has any.
//
// In: files, matches, cluster lines, reject lines, removals (all keyed by
// file index). Out: stats.
func Write(s beam.Scope, cfg transforms.Config, files, matches, clusters, rejects, removes beam.PCollection) beam.PCollection {
	s = s.Scope("Write")
	shard := func(kind string, col beam.PCollection) beam.PCollection {
		return beam.ParDo(s.Scope(kind), &transforms.WriteLinesFn{Cfg: cfg, Kind: kind}, beam.GroupByKey(s, col))
	}
	dedup := beam.ParDo(s.Scope("dedup"), &transforms.WriteDedupFn{Cfg: cfg}, beam.CoGroupByKey(s, files, removes, rejects))
	return beam.Flatten(s,
		shard(transforms.KindPairs, matches),
		shard(transforms.KindClusters, clusters),
		shard(transforms.KindRejects, rejects),
		dedup)
}

// Summary sums every stage's stats and writes summary.json.
func Summary(s beam.Scope, cfg transforms.Config, sts ...beam.PCollection) {
	s = s.Scope("Summary")
	sums := stats.SumPerKey(s, beam.Flatten(s, sts...))
	one := beam.GroupByKey(s, beam.ParDo(s, transforms.EncodeStat, sums))
	beam.ParDo0(s, &transforms.WriteSummaryFn{Cfg: cfg}, one)
}
