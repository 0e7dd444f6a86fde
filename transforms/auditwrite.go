package transforms

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"slices"
	"strconv"

	"github.com/apache/beam/sdks/v2/go/pkg/beam"
	"github.com/apache/beam/sdks/v2/go/pkg/beam/register"

	"github.com/neardup/neardup/transforms/format/output"
	"github.com/neardup/neardup/transforms/format/record"
	"github.com/neardup/neardup/transforms/format/wire"
)

func init() {
	register.DoFn6x1[context.Context, int, func(*[]byte) bool, func(*[]byte) bool, func(int, []byte), func(string, int64), error](&writeAuditFn{})
	register.DoFn4x1[context.Context, int, func(*[]byte) bool, func(*[]byte) bool, error](&writeAuditSummaryFn{})
	register.DoFn3x0[string, int64, func(string, int64)](&renameStatFn{})
}

// WriteAudit writes the audit lines of the new documents with an indexed
// match, and then the outputs of a run (Write) for the new files, whose
// deduplicated copies leave out both the duplicates of the index and those
// the clusters within the batch remove. indexDir is the index directory, whose
// manifest names the source file of each shard.
//
// In: files, batch matches keyed by file, (new, indexed) matches, cluster
// lines, rejects, documents removed within the batch (keyed by file index).
// Out: every document removed (line lists keyed by file index), stats.
func WriteAudit(s beam.Scope, cfg Config, indexDir string, files Files, batchMatches, idxMatches, clusters, rejects, removes beam.PCollection) (allRemoves, st beam.PCollection) {
	s = s.Scope("Write")
	allRemoves, st = beam.ParDo2(s, &writeAuditFn{Cfg: cfg, Index: indexDir}, beam.CoGroupByKey(s, idxMatches, removes))
	return allRemoves, beam.Flatten(s, st, Write(s, cfg, files, batchMatches, clusters, rejects, allRemoves))
}

// AuditSummary sums every stage's stats and writes audit-summary.json for
// an audit against the index in dir, with the new files as the first pass
// read them (files.Seen).
func AuditSummary(s beam.Scope, cfg Config, dir string, files Files, sts ...beam.PCollection) {
	s = s.Scope("Summary")
	beam.ParDo0(s, &writeAuditSummaryFn{Cfg: cfg, Index: dir}, sumStats(s, files, sts...))
}

// RenameStat renames the stats named from in st to to.
func RenameStat(s beam.Scope, st beam.PCollection, from, to string) beam.PCollection {
	return beam.ParDo(s, &renameStatFn{From: from, To: to}, st)
}

// writeAuditFn writes the audit lines of one new input file and merges its
// two removal lists.
//
// In: (file index, (new, indexed) matches of its documents, its documents
// removed within the batch). Out: audit-<file>.jsonl (when any document of
// the file has an indexed match), one line per such document in input
// order; the union of both removal lists (uvarint lines keyed by file) for
// the deduplicated copy; and the counts.
type writeAuditFn struct {
	Cfg   Config
	Index string // the index directory

	sources []string // source file of each index shard, from its manifest
}

func (fn *writeAuditFn) Setup(ctx context.Context) error {
	m, err := ReadManifest(ctx, fn.Index)
	if err != nil {
		return err
	}
	for _, sh := range m.Shards {
		fn.sources = append(fn.sources, sh.Source)
	}
	return nil
}

func (fn *writeAuditFn) ProcessElement(ctx context.Context, file int, matchChunks, removeChunks func(*[]byte) bool, emitRemove func(int, []byte), emitStat func(string, int64)) error {
	defer busy(ctx, "Write.audit", begin())
	inBatch, err := wire.ReadLineSet(removeChunks)
	if err != nil {
		return fmt.Errorf("audit: removal list of file %d: %w", file, err)
	}
	best := map[wire.Doc]map[wire.Doc]wire.Match{} // new doc -> indexed doc -> match
	var chunk []byte
	for matchChunks(&chunk) {
		for c := chunk; len(c) > 0; {
			var m wire.Match
			if c, err = wire.DecodeMatch(c, &m); err != nil {
				return err
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
	docs := make([]wire.Doc, 0, len(best))
	for d := range best {
		docs = append(docs, d)
	}
	slices.Sort(docs)
	var exact, nmatches, batchOnly int64
	if len(docs) > 0 {
		err = writeCompressed(ctx, fn.Cfg.Output, output.ShardName(output.KindAudit, file), fn.Cfg.outCompression(record.None), func(w io.Writer) error {
			for _, d := range docs {
				ms := make([]wire.Match, 0, len(best[d]))
				for _, m := range best[d] {
					ms = append(ms, m)
				}
				slices.SortFunc(ms, func(a, b wire.Match) int {
					if better(a, b) {
						return -1
					}
					if better(b, a) {
						return 1
					}
					return cmpU64(a.B, b.B)
				})
				line := output.AuditLine{Doc: ms[0].IDA}
				for _, m := range ms {
					k := wire.File(m.B) - IndexFileBase
					src := ""
					if k >= 0 && k < len(fn.sources) {
						src = fn.sources[k]
					}
					j, _ := strconv.ParseFloat(strconv.FormatFloat(float64(m.Jaccard), 'f', 4, 32), 64)
					line.Matches = append(line.Matches, output.AuditMatch{ID: m.IDB, Jaccard: j, Hamming: int(m.Hamming), Method: m.Method.String(), Source: src})
				}
				if ms[0].Method == wire.Exact {
					exact++
				}
				nmatches += int64(len(ms))
				b, err := json.Marshal(line)
				if err != nil {
					return err
				}
				if _, err := w.Write(append(b, '\n')); err != nil {
					return err
				}
			}
			return nil
		})
		if err != nil {
			return err
		}
	}
	removed := wire.NewBatcher(0)
	batchLines := inBatch.Lines()
	all := make([]int64, 0, len(docs)+len(batchLines))
	for _, d := range docs {
		all = append(all, wire.Line(d))
	}
	for _, l := range batchLines {
		if _, dup := best[wire.DocNum(file, l)]; !dup {
			all = append(all, l)
			batchOnly++
		}
	}
	slices.Sort(all)
	for _, l := range all {
		removed.Add(file, func(c []byte) []byte { return wire.AppendLineNum(c, l) }, emitRemove)
	}
	removed.Flush(emitRemove)
	emitStat(output.StatDupOfIndex, int64(len(docs)))
	emitStat(output.StatExactOfIndex, exact)
	emitStat(output.StatIndexMatches, nmatches)
	emitStat(output.StatBatchOnly, batchOnly)
	emitStat(output.StatRemoved, int64(len(all)))
	return nil
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
	Cfg   Config
	Index string
}

func (fn *writeAuditSummaryFn) ProcessElement(ctx context.Context, _ int, chunks, inputs func(*[]byte) bool) error {
	defer busy(ctx, "Summary", begin())
	counts, err := readStats(chunks)
	if err != nil {
		return err
	}
	sum := output.NewAuditSummary(fn.Index, counts)
	if sum.Inputs, err = readInputs(inputs); err != nil {
		return err
	}
	if err := writeJSON(ctx, fn.Cfg.Output, output.AuditSummaryName, sum); err != nil {
		return err
	}
	// Every stage that reads the file manifests has sent its stats here.
	return removeInfoShards(ctx, fn.Cfg)
}

// renameStatFn renames stat From to To.
type renameStatFn struct{ From, To string }

func (fn *renameStatFn) ProcessElement(name string, v int64, emit func(string, int64)) {
	if name == fn.From {
		name = fn.To
	}
	emit(name, v)
}
