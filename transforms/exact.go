package transforms

import (
	"context"

	"github.com/apache/beam/sdks/v2/go/pkg/beam"
	"github.com/apache/beam/sdks/v2/go/pkg/beam/register"

	"github.com/neardup/neardup/transforms/format/output"
	"github.com/neardup/neardup/transforms/format/wire"
	"github.com/neardup/neardup/transforms/internal/tally"
	"github.com/neardup/neardup/transforms/match/exactdup"
)

func init() {
	register.DoFn6x1[context.Context, int, func(*[]byte) bool, func(int, []byte), func(int, []byte), func(string, int64), error](&exactFn{})
}

// ExactDuplicates groups documents by the hash of their normalized text.
//
// In: exact-key records (partition, chunk). Out: exact matches (file index,
// chunk), lines to skip in the signature pass (segment, chunk), stats.
func ExactDuplicates(s beam.Scope, cfg Config, keys beam.PCollection) (matches, skips, st beam.PCollection) {
	s = s.Scope("ExactDuplicates")
	return beam.ParDo3(s, &exactFn{Work: cfg.work(), KeepLongest: cfg.Keep == "longest"}, groupSpilled(s, cfg, "keys", keys))
}

// exactFn finds exact duplicates within one partition of exact-key records.
//
// In: (partition, chunks of wire.Info with Exact set). Out: for every group
// of documents with the same normalized text, one exact match per
// non-representative member (wire.Match chunks keyed by the file of the
// smaller document), and the members to leave out of the signature pass
// (chunks of uvarint line numbers keyed by segment).
type exactFn struct {
	Work        workDir
	KeepLongest bool // the longest member is its group's representative, else the first
	groupReader      // with Work.Spill, the records are in spill files
}

func (fn *exactFn) ProcessElement(ctx context.Context, part int, chunks func(*[]byte) bool, emitMatch, emitSkip func(int, []byte), emitStat func(string, int64)) error {
	defer busy(ctx, "ExactDuplicates", begin())
	emitMatch, reportMatches := tally.CountShuffle(output.ShuffleMatches, emitMatch, emitStat)
	emitSkip, reportSkips := tally.CountShuffle(output.ShuffleSkipLines, emitSkip, emitStat)
	infos, err := byExactKey(&fn.in, fn.Work, part, chunks)
	if err != nil {
		return err
	}
	matches := wire.NewBatcher(0)
	skips := wire.NewBatcher(0)
	bits := fn.Work.SegmentBits
	var dups int64
	exactdup.Groups(infos, func(group []wire.Info) {
		rep := exactdup.Representative(group, fn.KeepLongest)
		for k := range group {
			if k == rep {
				continue
			}
			dups++
			m := exactdup.Match(&group[rep], &group[k])
			matches.Add(wire.File(m.A), func(c []byte) []byte { return wire.AppendMatch(c, &m) }, emitMatch)
			line := wire.Line(group[k].Doc)
			skips.Add(wire.Segment(group[k].Doc, bits), func(c []byte) []byte { return wire.AppendLineNum(c, line) }, emitSkip)
		}
	})
	matches.Flush(emitMatch)
	skips.Flush(emitSkip)
	emitStat(output.StatExactDups, dups)
	reportMatches()
	reportSkips()
	Progress.Skipped.Add(dups)
	return nil
}

func cmpU64(a, b uint64) int {
	switch {
	case a < b:
		return -1
	case a > b:
		return 1
	}
	return 0
}

// byExactKey decodes every wire.Info chunk of chunks and sorts the infos by
// exact key, then document: each run of equal keys is one exact-duplicate
// group, its first document the earliest in input order.
func byExactKey(in *spillIn, w workDir, part int, chunks func(*[]byte) bool) ([]wire.Info, error) {
	var infos []wire.Info
	err := in.each(w, part, chunks, func(c []byte) (err error) {
		for len(c) > 0 {
			var info wire.Info
			if c, err = wire.DecodeInfo(c, &info); err != nil {
				return err
			}
			infos = append(infos, info)
		}
		return nil
	})
	if err != nil {
		return nil, err
	}
	exactdup.Sort(infos)
	return infos, nil
}
