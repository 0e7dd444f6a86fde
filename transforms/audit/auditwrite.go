package audit

import (
	"cmp"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"maps"
	"slices"
	"strconv"

	"github.com/apache/beam/sdks/v2/go/pkg/beam"
	"github.com/apache/beam/sdks/v2/go/pkg/beam/register"

	"github.com/neardup/neardup/transforms/cluster"
	"github.com/neardup/neardup/transforms/format/output"
	"github.com/neardup/neardup/transforms/format/record"
	"github.com/neardup/neardup/transforms/format/summary"
	"github.com/neardup/neardup/transforms/format/wire"
	"github.com/neardup/neardup/transforms/indexing"
	"github.com/neardup/neardup/transforms/internal/tally"
	"github.com/neardup/neardup/transforms/job"
	"github.com/neardup/neardup/transforms/jobfiles"
	"github.com/neardup/neardup/transforms/jobfiles/filelist"
	"github.com/neardup/neardup/transforms/jobstate"
	"github.com/neardup/neardup/transforms/write"
)

func init() {
	register.DoFn8x1[context.Context, int64, func(*[]byte) bool, func(*[]byte) bool, func(*[]byte) bool, func(int64, []byte), func(int64, []byte), func(string, int64), error](&writeAuditFn{})
	register.DoFn4x1[context.Context, int64, func(*[]byte) bool, func(*[]byte) bool, error](&writeAuditSummaryFn{})
	register.DoFn3x0[string, int64, func(string, int64)](&renameStatFn{})
}

// WriteAudit writes the audit lines of the new documents with an indexed
// match, and then the outputs of a run (Write) for the new files, whose
// deduplicated copies leave out both the duplicates of the index and those
// the clusters within the batch remove. o.Index is the index directory, whose
// manifest names the source file of each shard.
//
// In: files, batch matches keyed by file, (new, indexed) matches, cluster
// lines, rejects, documents removed within the batch and, with
// o.Write.Out.Fates, the fates Clusters gave (keyed by file index). Out:
// every document removed (line lists keyed by file index), stats.
func WriteAudit(s beam.Scope, o Options, files filelist.Files, batchMatches, idxMatches, clusters, rejects, removes, fates beam.PCollection) (allRemoves, st beam.PCollection) {
	s = s.Scope("Write")
	out := beam.ParDoN(s, &writeAuditFn{Out: o.Write.Out, Index: o.Index}, beam.CoGroupByKey(s, idxMatches, removes, fates))
	allRemoves, allFates, st := out[0], out[1], out[2]
	return allRemoves, beam.Flatten(s, st, write.Write(s, o.Write, files, batchMatches, clusters, rejects, allRemoves, allFates))
}

// AuditSummary sums every stage's stats and writes audit-summary.json for
// an audit against the index in o.Index, with the new files as the first pass
// read them (files.Seen).
func AuditSummary(s beam.Scope, o Options, files filelist.Files, sts ...beam.PCollection) {
	s = s.Scope("Summary")
	beam.ParDo0(s, &writeAuditSummaryFn{Out: o.Write.Out.Dir, Work: o.Write.Work, Index: o.Index}, write.SumStats(s, files, sts...))
}

// RenameStat renames the stats named from in st to to.
func RenameStat(s beam.Scope, st beam.PCollection, from, to string) beam.PCollection {
	return beam.ParDo(s, &renameStatFn{From: from, To: to}, st)
}

// writeAuditFn writes the audit lines of one new input file and merges its
// two removal lists.
//
// In: (file index, (new, indexed) matches of its documents, its documents
// removed within the batch, fates from Clusters keyed by the file). Out:
// audit-<file>.jsonl (when any document of the file has an indexed match),
// one line per such document in input order; the union of both removal
// lists (uvarint lines keyed by file) for the deduplicated copy; with
// Out.Fates, every fate of the file's documents: those Clusters gave, the
// fates of the documents the index removes, and those of the documents
// removed for none whose via is the file's (see completeFates), each
// keyed by its document's file; and the counts.
type writeAuditFn struct {
	Out   job.OutDir
	Index string // the index directory

	sources []string // source file of each index shard, from its manifest
}

func (fn *writeAuditFn) Setup(ctx context.Context) error {
	m, err := indexing.ReadManifest(ctx, fn.Index)
	if err != nil {
		return err
	}
	for _, sh := range m.Shards {
		fn.sources = append(fn.sources, sh.Source)
	}
	return nil
}

func (fn *writeAuditFn) ProcessElement(ctx context.Context, k int64, matchChunks, removeChunks, fateChunks func(*[]byte) bool, emitRemove, emitFate func(int64, []byte), emitStat func(string, int64)) error {
	file := int(k)
	defer jobstate.Busy(ctx, "Write.audit", jobstate.Begin())
	inBatch, err := wire.ReadLineSet(removeChunks)
	if err != nil {
		return fmt.Errorf("audit: removal list of file %d: %w", file, err)
	}
	best, err := bestMatches(matchChunks)
	if err != nil {
		return err
	}
	lines := slices.Sorted(maps.Keys(best))
	var st auditCounts
	if len(lines) > 0 {
		err = write.WriteCompressed(ctx, fn.Out.Dir, output.ShardName(output.KindAudit, file), fn.Out.Compression(record.None), func(w io.Writer) error {
			return fn.writeLines(w, lines, best, inBatch, &st)
		})
		if err != nil {
			return err
		}
	}
	docs := slices.DeleteFunc(lines, func(d wire.Doc) bool { return !removing(best[d]) })
	all, batchOnly := mergeRemovals(file, docs, best, inBatch)
	emitLines(file, all, emitRemove)
	if err := fn.fates(file, docs, best, fateChunks, emitFate); err != nil {
		return err
	}
	tally.Counts{
		{Name: summary.StatDupOfIndex, N: int64(len(docs))},
		{Name: summary.StatExactOfIndex, N: st.exact},
		{Name: summary.StatIndexMatches, N: st.matches},
		{Name: summary.StatBatchOnly, N: batchOnly},
		{Name: summary.StatRemoved, N: int64(len(all))},
		{Name: summary.StatContainsIndex, N: st.kept},
	}.Emit(emitStat)
	return nil
}

// emitLines emits lines, line numbers of input file index file, in
// chunks keyed by file.
func emitLines(file int, lines []int64, emit func(int64, []byte)) {
	b := wire.NewBatcher(0)
	for _, l := range lines {
		b.Add(file, func(c []byte) []byte { return wire.AppendLineNum(c, l) }, emit)
	}
	b.Flush(emit)
}

// fates emits, with Out.Fates, the fates of input file index file
// (completeFates).
func (fn *writeAuditFn) fates(file int, docs []wire.Doc, best map[wire.Doc]map[wire.Doc]wire.Match, fateChunks func(*[]byte) bool, emit func(int64, []byte)) error {
	if !fn.Out.Fates {
		return nil
	}
	if err := completeFates(docs, best, fateChunks, emit); err != nil {
		return fmt.Errorf("audit: fates of file %d: %w", file, err)
	}
	return nil
}

// bestMatches decodes the (new, indexed) matches of matchChunks and keeps
// the best (see better) of each pair of documents: new document -> indexed
// document -> match.
func bestMatches(matchChunks func(*[]byte) bool) (map[wire.Doc]map[wire.Doc]wire.Match, error) {
	best := map[wire.Doc]map[wire.Doc]wire.Match{}
	var chunk []byte
	var err error
	for matchChunks(&chunk) {
		for c := chunk; len(c) > 0; {
			var m wire.Match
			if c, err = wire.DecodeMatch(c, &m); err != nil {
				return nil, err
			}
			byIdx := best[m.A]
			if byIdx == nil {
				byIdx = map[wire.Doc]wire.Match{}
				best[m.A] = byIdx
			}
			if old, ok := byIdx[m.B]; !ok || better(m, old) {
				byIdx[m.B] = m
			}
		}
	}
	return best, nil
}

// auditCounts is what the audit lines of a file counted.
type auditCounts struct {
	exact   int64 // documents whose best match is exact
	matches int64 // (new, indexed) matches
	kept    int64 // documents kept: only indexed documents inside them
}

// removing reports whether the matches of a new document remove it: any
// match but a containment one whose indexed document is the contained
// one (cluster.Removes).
func removing(ms map[wire.Doc]wire.Match) bool {
	for _, m := range ms {
		if cluster.Removes(&m) {
			return true
		}
	}
	return false
}

// writeLines writes the audit line of each of docs, in order, to w: its
// matches in best, best first.
func (fn *writeAuditFn) writeLines(w io.Writer, docs []wire.Doc, best map[wire.Doc]map[wire.Doc]wire.Match, inBatch wire.LineSet, st *auditCounts) error {
	for _, d := range docs {
		ms := slices.Collect(maps.Values(best[d]))
		slices.SortFunc(ms, func(a, b wire.Match) int {
			if better(a, b) {
				return -1
			}
			if better(b, a) {
				return 1
			}
			return cmp.Compare(a.B, b.B)
		})
		line := output.AuditLine{Doc: ms[0].IDA}
		for _, m := range ms {
			k := wire.File(m.B) - filelist.IndexFileBase
			src := ""
			if k >= 0 && k < len(fn.sources) {
				src = fn.sources[k]
			}
			j, _ := strconv.ParseFloat(strconv.FormatFloat(float64(m.Jaccard), 'f', 4, 32), 64)
			line.Matches = append(line.Matches, auditMatch(&m, j, src))
		}
		if ms[0].Method == wire.Exact {
			st.exact++
		}
		if line.Kept = !removing(best[d]) && !inBatch.Has(wire.Line(d)); line.Kept {
			st.kept++
		}
		st.matches += int64(len(ms))
		b, err := json.Marshal(line)
		if err != nil {
			return err
		}
		if _, err := w.Write(append(b, '\n')); err != nil {
			return err
		}
	}
	return nil
}

// auditMatch is the audit line's entry of match m (new, indexed), of
// Jaccard j (rounded) with an indexed document of source src.
func auditMatch(m *wire.Match, j float64, src string) output.AuditMatch {
	am := output.AuditMatch{ID: m.IDB, Jaccard: j, Estimated: m.Estimated, Hamming: int(m.Hamming), Method: m.Method.String(), Source: src}
	if m.Method == wire.Containment {
		am.Containment, _ = strconv.ParseFloat(strconv.FormatFloat(float64(m.Containment), 'f', 4, 32), 64)
		am.Inside = "new"
		if m.Inside == wire.SideB {
			am.Inside = "indexed"
		}
	}
	return am
}

// mergeRemovals returns the lines of input file file that its copy leaves
// out, sorted: the documents with an indexed match that removes them
// (docs, in best) and those removed within the batch (inBatch), and how
// many of these have no such match.
func mergeRemovals(file int, docs []wire.Doc, best map[wire.Doc]map[wire.Doc]wire.Match, inBatch wire.LineSet) (all []int64, batchOnly int64) {
	batchLines := inBatch.Lines()
	all = make([]int64, 0, len(docs)+len(batchLines))
	for _, d := range docs {
		all = append(all, wire.Line(d))
	}
	for _, l := range batchLines {
		// A document whose indexed matches all lie inside it is removed
		// by its batch cluster alone.
		if ms, dup := best[wire.DocNum(file, l)]; !dup || !removing(ms) {
			all = append(all, l)
			batchOnly++
		}
	}
	slices.Sort(all)
	return all, batchOnly
}

// better orders matches of one new document: exact first, then by
// Jaccard, then by Hamming distance.
func better(a, b wire.Match) bool {
	if (a.Method == wire.Exact) != (b.Method == wire.Exact) {
		return a.Method == wire.Exact
	}
	if a.Jaccard != b.Jaccard {
		return a.Jaccard > b.Jaccard
	}
	return a.Hamming < b.Hamming
}

// writeAuditSummaryFn writes audit-summary.json from the summed stats.
type writeAuditSummaryFn struct {
	Out   string           // the output directory
	Work  jobfiles.WorkDir // removed once the summary is written
	Index string
}

func (fn *writeAuditSummaryFn) ProcessElement(ctx context.Context, _ int64, chunks, inputs func(*[]byte) bool) error {
	defer jobstate.Busy(ctx, "Summary", jobstate.Begin())
	counts, err := write.ReadStats(chunks)
	if err != nil {
		return err
	}
	summary.AllCounts(counts, true)
	sum := summary.NewAuditSummary(fn.Index, counts)
	if sum.Inputs, err = write.ReadInputs(inputs); err != nil {
		return err
	}
	if err := write.WriteJSON(ctx, fn.Out, summary.AuditFileName, sum); err != nil {
		return err
	}
	// Every stage that reads the file manifests has sent its stats here.
	return fn.Work.RemoveAll(ctx)
}

// renameStatFn renames stat From to To.
type renameStatFn struct{ From, To string }

func (fn *renameStatFn) ProcessElement(name string, v int64, emit func(string, int64)) {
	if name == fn.From {
		name = fn.To
	}
	emit(name, v)
}
