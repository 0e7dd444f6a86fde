package write

import (
	"cmp"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"slices"

	"github.com/apache/beam/sdks/v2/go/pkg/beam"
	"github.com/apache/beam/sdks/v2/go/pkg/beam/register"
	"github.com/apache/beam/sdks/v2/go/pkg/beam/transforms/stats"

	"github.com/neardup/neardup/transforms/format/summary"
	"github.com/neardup/neardup/transforms/format/wire"
	"github.com/neardup/neardup/transforms/jobfiles"
	"github.com/neardup/neardup/transforms/jobfiles/filelist"
	"github.com/neardup/neardup/transforms/jobstate"
)

func init() {
	register.DoFn4x1[context.Context, int64, func(*[]byte) bool, func(*[]byte) bool, error](&writeSummaryFn{})
	register.Function2x2(ToOneKey)
	register.Function2x2(encodeStat)
}

// Summary sums every stage's stats and writes summary.json, with the input
// files as the first pass read them (files.Seen).
//
// In: stats (name, n) of every stage.
func Summary(s beam.Scope, o Options, files filelist.Files, sts ...beam.PCollection) {
	s = s.Scope("Summary")
	beam.ParDo0(s, &writeSummaryFn{Out: o.Out.Dir, Work: o.Work}, SumStats(s, files, sts...))
}

// SumStats sums the stats sts by name and gathers the sums under one key,
// with files.Seen.
//
// Out: (0, stat records (see encodeStat), summary.InputFile JSON).
func SumStats(s beam.Scope, files filelist.Files, sts ...beam.PCollection) beam.PCollection {
	sums := stats.SumPerKey(s, beam.Flatten(s, sts...))
	return beam.CoGroupByKey(s, beam.ParDo(s, encodeStat, sums), beam.ParDo(s, ToOneKey, files.SeenCol(s)))
}

// ReadInputs decodes the summary.InputFile JSON of inputs, in index order.
func ReadInputs(inputs func(*[]byte) bool) ([]summary.InputFile, error) {
	var all []summary.InputFile
	var b []byte
	for inputs(&b) {
		var in summary.InputFile
		if err := json.Unmarshal(b, &in); err != nil {
			return nil, fmt.Errorf("summary: input file: %w", err)
		}
		all = append(all, in)
	}
	slices.SortFunc(all, func(a, b summary.InputFile) int { return cmp.Compare(a.Index, b.Index) })
	return all, nil
}

// ReadStats sums the stat records of chunks by name.
func ReadStats(chunks func(*[]byte) bool) (map[string]int64, error) {
	counts := map[string]int64{}
	var chunk []byte
	for chunks(&chunk) {
		name, v, err := wire.DecodeStat(chunk)
		if err != nil {
			return nil, fmt.Errorf("summary: %w", err)
		}
		counts[name] += v
	}
	return counts, nil
}

// writeSummaryFn writes summary.json from the summed stats.
//
// In: (key, stat records: see encodeStat, input files: see readInputs).
// Out: summary.json in the output directory.
type writeSummaryFn struct {
	Out  string           // the output directory
	Work jobfiles.WorkDir // removed once the summary is written
}

func (fn *writeSummaryFn) ProcessElement(ctx context.Context, _ int64, chunks, inputs func(*[]byte) bool) error {
	defer jobstate.Busy(ctx, "Summary", jobstate.Begin())
	counts, err := ReadStats(chunks)
	if err != nil {
		return err
	}
	summary.AllCounts(counts, false)
	sum := summary.NewSummary(counts)
	if sum.Inputs, err = ReadInputs(inputs); err != nil {
		return err
	}
	if err := WriteJSON(ctx, fn.Out, summary.FileName, sum); err != nil {
		return err
	}
	// Every stage that reads the info shards has sent its stats here.
	return fn.Work.RemoveAll(ctx)
}

// WriteJSON writes v, indented, to dir/name (encoding/json sorts map keys:
// deterministic).
func WriteJSON(ctx context.Context, dir, name string, v any) error {
	return jobfiles.WriteAtomically(ctx, dir, name, func(w io.Writer) error {
		enc := json.NewEncoder(w)
		enc.SetIndent("", "  ")
		return enc.Encode(v)
	})
}

// ToOneKey moves every element to key 0, for a step that must see them all
// (a manifest, the summary).
func ToOneKey(_ int64, v []byte) (int64, []byte) { return 0, v }

// encodeStat packs a (name, value) stat into one element (wire.AppendStat).
func encodeStat(name string, v int64) (int64, []byte) { return 0, wire.AppendStat(nil, name, v) }
