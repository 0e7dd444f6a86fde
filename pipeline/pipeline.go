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

// Files is the input file list as (index, path), whole and split into
// branches by index mod the number of branches. A stage that reads files
// runs once per branch, so that a runner that gives each stage a single
// bundle (Prism) still reads several files at once; on a cluster the
// branches are merely more transforms. Outputs do not depend on the split.
type Files struct {
	All      beam.PCollection
	Branches []beam.PCollection
	Paths    map[int]string // by file index
}

// NewFiles creates the file collections for files, in n branches.
func NewFiles(s beam.Scope, files []string, n int) Files {
	n = max(1, min(n, len(files)))
	var f Files
	refs := make([][]FileRef, n)
	var all []FileRef
	f.Paths = map[int]string{}
	for i, path := range files {
		refs[i%n] = append(refs[i%n], FileRef{Index: i, Path: path})
		all = append(all, FileRef{Index: i, Path: path})
		f.Paths[i] = path
	}
	f.All = beam.ParDo(s, fileKV, beam.CreateList(s, all))
	for b := range refs {
		f.Branches = append(f.Branches, beam.ParDo(s, fileKV, beam.CreateList(s, refs[b])))
	}
	return f
}

// perFile applies dofn, which has nOut outputs, to each branch: to the
// branch's files alone, or with cols (collections keyed by file index,
// split the same way) joined to them by CoGroupByKey. It returns each output
// flattened over the branches.
func (f Files) perFile(s beam.Scope, nOut int, dofn any, cols ...beam.PCollection) []beam.PCollection {
	return flattenEach(s, f.perBranch(s, nOut, dofn, cols...))
}

// flattenEach flattens each list of outs.
func flattenEach(s beam.Scope, outs [][]beam.PCollection) []beam.PCollection {
	flat := make([]beam.PCollection, len(outs))
	for i := range outs {
		flat[i] = beam.Flatten(s, outs[i]...)
	}
	return flat
}

// perBranch is perFile without the flatten: output i of branch b is outs[i][b].
func (f Files) perBranch(s beam.Scope, nOut int, dofn any, cols ...beam.PCollection) [][]beam.PCollection {
	outs := make([][]beam.PCollection, nOut)
	n := len(f.Branches)
	for b, files := range f.Branches {
		in := files
		if len(cols) > 0 {
			joined := []beam.PCollection{files}
			for _, c := range cols {
				if n > 1 {
					c = beam.ParDo(s, &transforms.BranchFn{N: n, I: b}, c)
				}
				joined = append(joined, c)
			}
			in = beam.CoGroupByKey(s, joined...)
		}
		for i, o := range beam.ParDoN(s, dofn, in) {
			outs[i] = append(outs[i], o)
		}
	}
	return outs
}

// byFile applies dofn to col (keyed by file index) grouped by file with one
// plain GroupByKey, whose values a runner may stream to the DoFn; dofn is
// called only for files that have values. Such DoFns find the paths they
// need in Files.Paths, and work on a file on another goroutine while the
// next file arrives (see transforms.aheadEmits), so a runner that gives the
// stage one bundle (Prism) still uses every core, without the copies of col
// that perFile's branches would cost.
func byFile(s beam.Scope, dofn any, col beam.PCollection) []beam.PCollection {
	return beam.ParDoN(s, dofn, beam.GroupByKey(s, col))
}

// Build adds the whole job to s: read files (sorted, indexed), find
// near-duplicates under cfg and write every output to cfg.Output.
func Build(s beam.Scope, cfg transforms.Config, files []string) {
	if cfg.Work == "" {
		cfg.Work = transforms.JoinPath(cfg.Output, transforms.WorkDirName)
	}
	fileCol := NewFiles(s, files, cfg.Branches)

	keys, rejects, readStats := Read(s, cfg, fileCol)
	exactMatches, skips, exactStats := ExactDuplicates(s, cfg, keys)
	entries, signStats := Signatures(s, cfg, fileCol, skips)
	pairs, candStats := Candidates(s, cfg, entries)
	verified, verifyStats := Verify(s, cfg, fileCol, pairs)
	matches := beam.GroupByKey(s, beam.Flatten(s, exactMatches, verified))
	clusters, removes, clusterStats := Clusters(s, cfg, matches)
	writeStats := Write(s, cfg, fileCol, matches, clusters, rejects, removes)
	Summary(s, cfg, readStats, exactStats, signStats, candStats, verifyStats, clusterStats, writeStats)
	if cfg.IndexOut != "" {
		WriteIndex(s, cfg, fileCol, removes)
	}
}

// Read is the first pass over the input.
//
// In: (file index, path). Out: exact-key records (partition, chunk), reject
// lines (file index, chunk) and stats (name, n).
func Read(s beam.Scope, cfg transforms.Config, files Files) (keys, rejects, st beam.PCollection) {
	s = s.Scope("Read")
	o := files.perFile(s, 3, &transforms.ReadKeysFn{Cfg: cfg})
	return o[0], o[1], o[2]
}

// ExactDuplicates groups documents by the hash of their normalized text.
//
// In: exact-key records (partition, chunk). Out: exact matches (file index,
// chunk), lines to skip in the signature pass (file index, chunk), stats.
func ExactDuplicates(s beam.Scope, cfg transforms.Config, keys beam.PCollection) (matches, skips, st beam.PCollection) {
	s = s.Scope("ExactDuplicates")
	return beam.ParDo3(s, &transforms.ExactFn{Cfg: cfg}, beam.GroupByKey(s, keys))
}

// Signatures is the second pass over the input: SimHash, MinHash, block
// keys. The documents' infos go to one info shard per input file in
// cfg.Work, which Verify reads.
//
// In: files (index, path) and lines to skip (index, chunk). Out: block
// entries (partition, chunk) in cfg.ShuffleRounds() collections, by
// partition mod that (see splitRounds), and stats.
func Signatures(s beam.Scope, cfg transforms.Config, files Files, skips beam.PCollection) (entries []beam.PCollection, st beam.PCollection) {
	s = s.Scope("Signatures")
	o := files.perBranch(s, 3, &transforms.SignFn{Cfg: cfg, InfoShards: true}, skips)
	return splitRounds(s, cfg.ShuffleRounds(), o[0]...), beam.Flatten(s, o[2]...) // o[1], the shuffled infos, stays empty
}

// splitRounds splits the collections cols, keyed by partition or file, into
// n collections by key mod n, each the flatten of its part of every col.
func splitRounds(s beam.Scope, n int, cols ...beam.PCollection) []beam.PCollection {
	n = max(1, n)
	rounds := make([]beam.PCollection, n)
	for i := range n {
		var parts []beam.PCollection
		for _, c := range cols {
			if n > 1 {
				c = beam.ParDo(s, &transforms.BranchFn{N: n, I: i}, c)
			}
			parts = append(parts, c)
		}
		rounds[i] = beam.Flatten(s, parts...)
	}
	return rounds
}

// inRounds groups each of rounds by key and applies dofn, whose last of
// nOut outputs is its stats, to the groups, one round after the other: a
// round's grouped input waits, through transforms.After, for the stats of
// the round before. A runner that keeps every shuffled byte in memory
// (Prism) then builds and copies one round's groups at a time. It returns
// each output flattened over the rounds.
func inRounds(s beam.Scope, nOut int, dofn any, rounds []beam.PCollection) []beam.PCollection {
	outs := make([][]beam.PCollection, nOut)
	for i, part := range rounds {
		if i > 0 {
			part = beam.Flatten(s, part, beam.ParDo(s, transforms.After, outs[nOut-1][i-1]))
		}
		for j, o := range beam.ParDoN(s, dofn, beam.GroupByKey(s, part)) {
			outs[j] = append(outs[j], o)
		}
	}
	return flattenEach(s, outs)
}

// Candidates groups block entries by partition and proposes pairs, one
// round of entries after the other (see inRounds).
//
// In: rounds of block entries (partition, chunk). Out: candidate pairs
// (file index of the first document, chunk), stats.
func Candidates(s beam.Scope, cfg transforms.Config, entries []beam.PCollection) (pairs, st beam.PCollection) {
	s = s.Scope("Candidates")
	o := inRounds(s, 2, &transforms.CandidatesFn{Cfg: cfg}, entries)
	return o[0], o[1]
}

// Verify joins candidate pairs with both documents' infos, in two steps
// keyed by input file, each reading the file's info shard, and keeps the
// pairs that pass the test. The second step (Check) runs in
// cfg.ShuffleRounds() rounds by the file of the second document (see
// inRounds). Pairs whose MinHash estimate cannot decide go
// to an exact check of their shingle sets, computed from the two documents
// re-read in their files.
//
// In: files (index, path), pairs (file index of A, chunk). Out: verified
// matches (file index of A, chunk), stats.
func Verify(s beam.Scope, cfg transforms.Config, files Files, pairs beam.PCollection) (matches, st beam.PCollection) {
	s = s.Scope("Verify")
	halves := byFile(s.Scope("JoinFirst"), &transforms.HalfJoinFileFn{Cfg: cfg}, pairs)
	checked := inRounds(s.Scope("Check"), 3, &transforms.VerifyFileFn{Cfg: cfg}, splitRounds(s, cfg.ShuffleRounds(), halves[0]))
	accepted, unsure, st1, st2 := checked[0], checked[1], halves[1], checked[2]
	exact, st3 := ExactChecks(s, cfg, files.Paths, unsure, st2)
	return beam.Flatten(s, accepted, exact), beam.Flatten(s, st1, st2, st3)
}

// ExactChecks computes the exact Jaccard of the unsure pairs in
// cfg.ShuffleRounds() rounds, one after the other, each for the pairs whose
// second document's file belongs to the round (index mod the rounds):
// transforms.ShingleSetsFn sends the first documents' shingle sets to the
// files of the second ones, and transforms.ExactJaccardFn compares them
// there. A round's grouped input waits for the stats of the round before it
// (the first for after), flattened in by transforms.After. A runner that
// keeps every shuffled byte in memory (Prism) then holds one round's
// shingle sets at a time, the largest shuffle of a run at full size; each
// round reads the files again, but parses only the records it needs.
//
// In: unsure matches (file index of A, chunk), stats to wait for. Out:
// matches (file index of A, chunk), stats.
func ExactChecks(s beam.Scope, cfg transforms.Config, paths map[int]string, unsure, after beam.PCollection) (matches, st beam.PCollection) {
	n := cfg.ShuffleRounds()
	var ms, sts []beam.PCollection
	for i := range n {
		part := unsure
		if n > 1 {
			part = beam.ParDo(s, &transforms.DestBranchFn{N: n, I: i}, unsure)
		}
		wait := beam.ParDo(s, transforms.After, after)
		grouped := beam.GroupByKey(s, beam.Flatten(s, part, wait))
		sets, st1 := beam.ParDo2(s.Scope("ShingleSets"), &transforms.ShingleSetsFn{Cfg: cfg, Paths: paths}, grouped)
		exact := byFile(s.Scope("ExactJaccard"), &transforms.ExactJaccardFn{Cfg: cfg, Paths: paths}, sets)
		ms, sts = append(ms, exact[0]), append(sts, st1, exact[1])
		after = exact[1]
	}
	return beam.Flatten(s, ms...), beam.Flatten(s, sts...)
}

// Clusters finds the connected components of all matches: rounds of
// large-star and small-star steps over partitions of the documents, then
// Settle/Resolve assign the components that have become stars, and the edges
// of any other component go to a union-find on one worker (see package
// components). Cluster lines are written per partition of the components'
// smallest documents.
//
// In: matches grouped by any key. Out: cluster lines (file index, chunk),
// documents to remove (file index, chunk), stats.
func Clusters(s beam.Scope, cfg transforms.Config, matches beam.PCollection) (clusters, removes, st beam.PCollection) {
	s = s.Scope("Clusters")
	edges, members := beam.ParDo2(s, &transforms.EdgesFn{Cfg: cfg}, matches)
	for range cfg.CCRounds {
		edges = beam.ParDo(s, &transforms.StarFn{Cfg: cfg, Large: true}, beam.GroupByKey(s, edges))
		edges = beam.ParDo(s, &transforms.StarFn{Cfg: cfg}, beam.GroupByKey(s, edges))
	}
	stars, leaves, rest := beam.ParDo3(s, &transforms.SettleFn{Cfg: cfg}, beam.GroupByKey(s, edges))
	settled, rest2 := beam.ParDo2(s, &transforms.ResolveFn{Cfg: cfg}, beam.CoGroupByKey(s, stars, leaves))
	unsettled, remStats := beam.ParDo2(s, &transforms.RemainderFn{Cfg: cfg}, beam.GroupByKey(s, beam.Flatten(s, rest, rest2)))
	rooted := beam.ParDo(s, &transforms.MembersFn{Cfg: cfg}, beam.CoGroupByKey(s, members, beam.Flatten(s, settled, unsettled)))
	clusters, removes, st = beam.ParDo3(s, &transforms.ClusterFn{Cfg: cfg}, beam.GroupByKey(s, rooted))
	return clusters, removes, beam.Flatten(s, st, remStats)
}

// Write writes pairs, clusters, rejects and the deduplicated input, one
// shard per input file that has any.
//
// In: files, matches grouped by file index, cluster lines, reject lines,
// removals (keyed by file index). Out: stats.
func Write(s beam.Scope, cfg transforms.Config, files Files, matches, clusters, rejects, removes beam.PCollection) beam.PCollection {
	s = s.Scope("Write")
	write := func(kind string, grouped beam.PCollection) beam.PCollection {
		return beam.ParDo(s.Scope(kind), &transforms.WriteLinesFn{Cfg: cfg, Kind: kind}, grouped)
	}
	shard := func(kind string, col beam.PCollection) beam.PCollection { return write(kind, beam.GroupByKey(s, col)) }
	dedup := files.perFile(s.Scope("dedup"), 1, &transforms.WriteDedupFn{Cfg: cfg}, removes, rejects)[0]
	return beam.Flatten(s,
		write(transforms.KindPairs, matches),
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
