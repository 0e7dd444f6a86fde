package exact

import (
	"cmp"
	"context"
	"fmt"
	"runtime"
	"slices"
	"time"

	"github.com/apache/beam/sdks/v2/go/pkg/beam"
	"github.com/apache/beam/sdks/v2/go/pkg/beam/register"

	"github.com/neardup/neardup/transforms/format/summary"
	"github.com/neardup/neardup/transforms/format/wire"
	"github.com/neardup/neardup/transforms/internal/docpool"
	"github.com/neardup/neardup/transforms/internal/tally"
	"github.com/neardup/neardup/transforms/jobfiles"
	"github.com/neardup/neardup/transforms/jobfiles/spilled"
	"github.com/neardup/neardup/transforms/jobstate"
	"github.com/neardup/neardup/transforms/match/exactdup"
)

func init() {
	register.DoFn6x1[context.Context, int64, func(*[]byte) bool, func(int64, []byte), func(int64, []byte), func(string, int64), error](&exactFn{})
	register.DoFn9x1[context.Context, int64, func(*[]byte) bool, func(int64, []byte), func(int64, []byte), func(int64, []byte), func(int64, []byte), func(int64, []byte), func(string, int64), error](&passOnFn{})
}

// ExactDuplicates groups documents by the hash of their normalized text.
//
// In: exact-key records (partition, chunk). Out: exact matches (file index,
// chunk), lines to skip in the signature pass (segment, chunk), stats.
func ExactDuplicates(s beam.Scope, o Options, keys beam.PCollection) (matches, skips, st beam.PCollection) {
	s = s.Scope("ExactDuplicates")
	return beam.ParDo3(s, &exactFn{Work: o.Work, KeepLongest: o.KeepLongest}, spilled.Group(s, o.Work, "keys", keys))
}

// PassOn is ExactDuplicates over the first pass's one shuffle
// (ingest.ReadOne), which it passes on: besides ExactDuplicates' outputs,
// Out: the rejects (file index, reject lines), what each unit read (file
// index, unitResult JSON: for ingest.MergeInputs) and the segment markers
// (segment, marker), as Read emits them; the first pass's stats go with
// its own.
func PassOn(s beam.Scope, o Options, first beam.PCollection) (matches, skips, rejects, inputs, segments, st beam.PCollection) {
	s = s.Scope("ExactDuplicates")
	out := beam.ParDoN(s, &passOnFn{exactFn: exactFn{Work: o.Work, KeepLongest: o.KeepLongest}}, spilled.Group(s, o.Work, "keys", first))
	return out[0], out[1], out[2], out[3], out[4], out[5]
}

// passOnFn is exactFn over the groups of the first pass's shuffle keyed by
// wire.FirstPass: it passes the chunks of the other kinds on, each to its
// output under its own key, and stat records to its stats.
type passOnFn struct {
	exactFn
}

func (fn *passOnFn) ProcessElement(ctx context.Context, key int64, chunks func(*[]byte) bool, emitMatch, emitSkip, emitReject, emitInput, emitSegment func(int64, []byte), emitStat func(string, int64)) error {
	kind, k, err := wire.FirstPassKey(key)
	if err != nil {
		return err
	}
	var emit func(int64, []byte)
	switch kind {
	case wire.FirstExact:
		return fn.exactFn.ProcessElement(ctx, k, chunks, emitMatch, emitSkip, emitStat)
	case wire.FirstRejects:
		emit = emitReject
	case wire.FirstInputs:
		emit = emitInput
	case wire.FirstSegments:
		emit = emitSegment
	case wire.FirstStats:
		emit = func(_ int64, c []byte) {
			if name, v, derr := wire.DecodeStat(c); derr != nil {
				err = cmp.Or(err, fmt.Errorf("first pass stats: %w", derr))
			} else {
				emitStat(name, v)
			}
		}
	}
	return cmp.Or(fn.In.Each(fn.Work, int(key), chunks, func(c []byte) error {
		emit(k, slices.Clone(c)) // c is valid only during the call
		return nil
	}), err)
}

// FinishBundle emits the output of the partitions still being grouped.
func (fn *passOnFn) FinishBundle(ctx context.Context, emitMatch, emitSkip, _, _, _ func(int64, []byte), emitStat func(string, int64)) error {
	return fn.exactFn.FinishBundle(ctx, emitMatch, emitSkip, emitStat)
}

// exactFn finds exact duplicates within one partition of exact-key records.
//
// In: (partition, chunks of wire.Info with Exact set). Out: for every group
// of documents with the same normalized text, one exact match per
// non-representative member (wire.Match chunks keyed by the file of the
// smaller document), and the members to leave out of the signature pass
// (chunks of uvarint line numbers keyed by segment). A partition's records
// are decoded on the DoFn's goroutine and grouped on another while the
// runner hands over the next partition (see docpool.AheadEmits).
type exactFn struct {
	Work                jobfiles.WorkDir
	KeepLongest         bool // the longest member is its group's representative, else the first
	spilled.GroupReader      // with Work.Spill, the records are in spill files

	ahead docpool.AheadEmits
}

func (fn *exactFn) ProcessElement(ctx context.Context, k int64, chunks func(*[]byte) bool, emitMatch, emitSkip func(int64, []byte), emitStat func(string, int64)) error {
	part := int(k)
	start := time.Now()
	infos, err := readExactInfos(&fn.In, fn.Work, part, chunks)
	if err != nil {
		return err
	}
	jobstate.AddBusy(ctx, "ExactDuplicates", time.Since(start), start)
	fn.ahead.Start(2, func(emits []func(int64, []byte), emitStat func(string, int64)) error {
		jobstate.Running.Add(1) // for WaitIdle
		defer jobstate.Running.Add(-1)
		fn.groups(infos, emits[0], emits[1], emitStat)
		return nil
	})
	return fn.ahead.Drain(runtime.GOMAXPROCS(0), []func(int64, []byte){emitMatch, emitSkip}, emitStat, jobstate.BusyIn(ctx, "ExactDuplicates"))
}

// FinishBundle emits the output of the partitions still being grouped.
func (fn *exactFn) FinishBundle(ctx context.Context, emitMatch, emitSkip func(int64, []byte), emitStat func(string, int64)) error {
	return fn.ahead.Drain(0, []func(int64, []byte){emitMatch, emitSkip}, emitStat, jobstate.BusyIn(ctx, "ExactDuplicates"))
}

// groups sorts the infos of one partition by exact key, then document, and
// emits an exact match and a line to skip for each member of a group but
// its representative: each run of equal keys is one group.
func (fn *exactFn) groups(infos []wire.Info, emitMatch, emitSkip func(int64, []byte), emitStat func(string, int64)) {
	emitMatch, reportMatches := tally.CountShuffle(tally.ShuffleMatches, emitMatch, emitStat)
	emitSkip, reportSkips := tally.CountShuffle(tally.ShuffleSkipLines, emitSkip, emitStat)
	exactdup.Sort(infos)
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
	emitStat(summary.StatExactDups, dups)
	reportMatches()
	reportSkips()
	jobstate.Progress.Skipped.Add(dups)
}

// ByExactKey returns the infos of group part (readExactInfos) sorted by
// exact key, then document: each run of equal keys is one exact-duplicate
// group, its first document the earliest in input order.
func ByExactKey(in *spilled.In, w jobfiles.WorkDir, part int, chunks func(*[]byte) bool) ([]wire.Info, error) {
	infos, err := readExactInfos(in, w, part, chunks)
	if err != nil {
		return nil, err
	}
	exactdup.Sort(infos)
	return infos, nil
}

// readExactInfos decodes every wire.Info chunk of group part.
func readExactInfos(in *spilled.In, w jobfiles.WorkDir, part int, chunks func(*[]byte) bool) ([]wire.Info, error) {
	var infos []wire.Info
	err := in.Each(w, part, chunks, func(c []byte) (err error) {
		for len(c) > 0 {
			var info wire.Info
			if c, err = wire.DecodeInfo(c, &info); err != nil {
				return err
			}
			infos = append(infos, info)
		}
		return nil
	})
	return infos, err
}
