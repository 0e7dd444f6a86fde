package ingest

import (
	"cmp"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"os"
	"slices"
	"strings"
	"time"

	"github.com/apache/beam/sdks/v2/go/pkg/beam"
	"github.com/apache/beam/sdks/v2/go/pkg/beam/register"

	"github.com/neardup/neardup/transforms/format/record"
	"github.com/neardup/neardup/transforms/format/summary"
	"github.com/neardup/neardup/transforms/format/wire"
	"github.com/neardup/neardup/transforms/job"
	"github.com/neardup/neardup/transforms/jobfiles/filelist"
	"github.com/neardup/neardup/transforms/jobfiles/input"
	"github.com/neardup/neardup/transforms/objects"
)

// The first pass reads each input file in *units*. A file is one unit,
// except a Parquet file of more than splitter.UnitRows rows, local or a
// gs:// or s3:// object (read in ranges, see package objects), or a local
// uncompressed JSONL or TSV file of more than unitRows lines: that is read
// in units of about unitRows rows (whole segments, so that each segment's
// document shard is still written by one unit), each a read of the file's
// range: for Parquet, a row range (record.Options.Rows, see unitCuts) that
// decodes only its row groups; for a line file, a line range that starts
// at its first line's byte offset (record.Options.Lines, see
// lineunits.go). The units go through a GroupByKey, keyed by
// their first segment, so that a runner spreads them over its workers, and
// to the branches of the pass by file index plus unit number, so that
// Prism reads a file's units in several branches at once.
//
// What each unit read of its file (counts, rejects by reason, ids) is
// merged per file (mergeReadFn) into the file's summary.InputFile, which
// goes to the summary (Files.Seen) and to the work directory
// (seen-NNNNN.json, see input.WriteSeen) for the later passes that read the file.
// The fingerprint's checksum covers the whole file, taken by unit 0, which
// reads the file to its end once it has parsed its range; every unit
// checks, before and after its read, that the file has the size and
// modification time the splitter saw, so a file changed while its units
// read it fails the job. An object's units check its version (GCS
// generation, S3 ETag) too, and every read of it is of that version
// (see input.FileRead.Version). A file of another remote filesystem (Beam's
// filesystems read a stream, not ranges) is one unit, and so are a remote
// or compressed line file, a text file (one record), and a file whose
// footer or lines cannot be read: its reading says why.

func init() {
	register.DoFn4x1[context.Context, int64, string, func(int64, []byte), error](&splitFn{})
	register.DoFn3x1[int64, []byte, func(int64, []byte), error](&unitBranchFn{})
	register.DoFn4x1[context.Context, int64, func(*[]byte) bool, func(int64, []byte), error](&mergeReadFn{})
	register.Function3x0(filelist.WaitFor)
}

// readUnit is one unit of the first pass: unit U (0-based) of the Of units
// of input file index File, at Path. A unit of a split file (Of > 1) reads
// the rows [First, End) and expects the size, modification time and
// version the splitter saw; a unit of a split line file (IDs set: see
// lineunits.go) reads the lines [First, End), from byte Offset, with the
// IDs the splitter settled for the file.
type readUnit struct {
	File       int
	Path       string
	U, Of      int
	First, End int64            `json:",omitempty"`
	Size       int64            `json:",omitempty"`
	ModTime    time.Time        `json:",omitzero"`
	Version    string           `json:",omitempty"` // of a gs:// or s3:// object
	Offset     int64            `json:",omitempty"`
	IDs        *record.IDSource `json:",omitempty"`
}

// unitResult is what a unit read of its file: the counts, reasons and
// ids of In are the unit's; unit 0's In also has the file's bytes,
// fingerprint and compression.
type unitResult struct {
	U, Of int
	In    summary.InputFile
}

// readUnits splits the files of every branch into units and returns them
// in as many branches, grouped by unit (one unit a key).
func readUnits(s beam.Scope, o Options, files filelist.Files) []beam.PCollection {
	var splits []beam.PCollection
	for _, b := range files.Branches {
		splits = append(splits, beam.ParDo(s, &splitFn{Split: splitterOf(o)}, b))
	}
	units := beam.Flatten(s, splits...)
	n := len(files.Branches)
	out := make([]beam.PCollection, n)
	for i := range n {
		part := units
		if n > 1 {
			part = beam.ParDo(s, &unitBranchFn{N: n, I: i}, units)
		}
		out[i] = beam.GroupByKey(s, part)
	}
	return out
}

// splitFn splits an input file into the units of the first pass.
//
// In: (file index, path). Out: (the segment key of the unit's first row,
// readUnit JSON).
type splitFn struct {
	Split splitter
}

func (fn *splitFn) ProcessElement(ctx context.Context, k int64, path string, emit func(int64, []byte)) error {
	file := int(k)
	for _, u := range fn.Split.splitFile(ctx, file, path) {
		b, err := json.Marshal(u)
		if err != nil {
			return err
		}
		emit(int64(wire.Segment(wire.DocNum(file, u.First), fn.Split.SegmentBits)), b)
	}
	return nil
}

// splitter cuts input files into the units of the first pass.
type splitter struct {
	Read        job.ReadOptions
	UnitRows    int64 // rows of a unit, whole segments (Config.unitRows); 0: a file is one unit
	SegmentBits int
}

// splitFile returns the units of input file index file at path.
func (c splitter) splitFile(ctx context.Context, file int, path string) []readUnit {
	whole := []readUnit{{File: file, Path: path, Of: 1}}
	per := c.UnitRows
	switch format := record.FormatFor(path, c.Read.Format); {
	case per == 0:
		return whole
	case format == record.JSONL || format == record.TSV:
		return c.splitLineFile(whole[0]) // lineunits.go
	case format != record.Parquet:
		return whole
	}
	st, ok := parquetGroups(ctx, path)
	if !ok {
		return whole
	}
	cuts := unitCuts(st.groups, per, int64(1)<<c.SegmentBits)
	n := len(cuts) - 1
	if n < 2 {
		return whole
	}
	units := make([]readUnit, n)
	for k := range units {
		units[k] = readUnit{File: file, Path: path, U: k, Of: n, First: cuts[k], End: cuts[k+1],
			Size: st.size, ModTime: st.mtime, Version: st.version}
	}
	units[n-1].End = wire.MaxLines // the rest, however many rows the file has when read
	return units
}

// splitStat is what the splitter saw of a Parquet file: the rows of its
// row groups, its size, modification time and, for an object of cloud
// storage, version (objects.Object.Version).
type splitStat struct {
	groups  []int64
	size    int64
	mtime   time.Time
	version string
}

// parquetGroups returns what the splitter sees of the Parquet file at
// path, a local file or a gs:// or s3:// object, or false for one that is
// to be one unit, whose reading says what is wrong: not a regular file
// (opening a FIFO blocks), not readable, not Parquet, or on another
// filesystem (Beam's read streams, not ranges).
func parquetGroups(ctx context.Context, path string) (st splitStat, ok bool) {
	var ra io.ReaderAt
	if strings.Contains(path, "://") {
		if !objects.Supported(path) {
			return st, false
		}
		obj, err := objects.Open(ctx, path)
		if err != nil {
			return st, false
		}
		ra, st.size, st.mtime, st.version = obj, obj.Size, obj.ModTime, obj.Version
	} else {
		fh, fi, err := openRegular(path)
		if err != nil {
			return st, false
		}
		defer fh.Close()
		ra, st.size, st.mtime = fh, fi.Size(), fi.ModTime()
	}
	var err error
	st.groups, err = record.ParquetRowGroups(ra, st.size)
	return st, err == nil
}

// openRegular opens the local file at path for the splitter, with its
// stat, if it is a regular file: it checks before opening, since opening
// a FIFO blocks, and again after, since the path may have changed between.
func openRegular(path string) (*os.File, os.FileInfo, error) {
	if fi, err := os.Stat(path); err != nil || !fi.Mode().IsRegular() {
		return nil, nil, fmt.Errorf("%s: not a regular file", path)
	}
	fh, err := os.Open(path)
	if err != nil {
		return nil, nil, err
	}
	fi, err := fh.Stat()
	if err != nil || !fi.Mode().IsRegular() {
		fh.Close()
		return nil, nil, fmt.Errorf("%s: not a regular file", path)
	}
	return fh, fi, nil
}

// unitCuts returns the first row of each unit of a file whose row groups
// hold groups rows, then the file's row count. A unit ends at the first
// row group start that is a whole number of segments of seg rows at or
// after per rows (whole segments), if one comes within 2·per rows; else
// after per rows; the last unit takes the rest. A file whose row groups
// are whole segments (pyarrow's default of 2²⁰ rows is 16) is then cut
// between row groups, so that a unit decodes no rows of a row group that
// the unit before it reads, but for the last row group.
func unitCuts(groups []int64, per, seg int64) []int64 {
	var total int64
	var ends []int64 // where a unit may end: row group starts at segment boundaries
	for _, n := range groups {
		if total%seg == 0 {
			ends = append(ends, total)
		}
		total += n
	}
	cuts := []int64{0}
	for last := int64(0); total-last > per; {
		next := last + per
		if i, _ := slices.BinarySearch(ends, next); i < len(ends) && ends[i] <= last+2*per {
			next = ends[i]
		}
		if next >= total {
			break
		}
		cuts = append(cuts, next)
		last = next
	}
	return append(cuts, total)
}

// unitBranchFn keeps the units of branch I of N: file index plus unit
// number, mod N, is I.
type unitBranchFn struct{ N, I int }

func (fn *unitBranchFn) ProcessElement(key int64, b []byte, emit func(int64, []byte)) error {
	var u readUnit
	if err := json.Unmarshal(b, &u); err != nil {
		return fmt.Errorf("read unit: %w", err)
	}
	if (u.File+u.U)%fn.N == fn.I {
		emit(key, b)
	}
	return nil
}

// mergeReadFn merges what the units of a file read into the file's
// summary.InputFile.
//
// In: (file index, unitResult JSON of each of its units). Out: (file index,
// summary.InputFile JSON), also written to WorkDir (see input.WriteSeen).
type mergeReadFn struct {
	WorkDir string // Config.Work
}

func (fn *mergeReadFn) ProcessElement(ctx context.Context, file int64, results func(*[]byte) bool, emit func(int64, []byte)) error {
	var parts []unitResult
	var b []byte
	for results(&b) {
		var r unitResult
		if err := json.Unmarshal(b, &r); err != nil {
			return fmt.Errorf("what the first pass read of input file %d: %w", file, err)
		}
		parts = append(parts, r)
	}
	slices.SortFunc(parts, func(a, b unitResult) int { return cmp.Compare(a.U, b.U) })
	for k, p := range parts {
		if p.U != k || p.Of != len(parts) {
			return fmt.Errorf("input file %d: the first pass read unit %d of %d as unit %d of %d units", file, k, len(parts), p.U, p.Of)
		}
	}
	in := parts[0].In
	for _, p := range parts[1:] {
		in.Records += p.In.Records
		in.Rejected += p.In.Rejected
		for r, n := range p.In.Reasons {
			if in.Reasons == nil {
				in.Reasons = map[string]int64{}
			}
			in.Reasons[r] += n
		}
		in.IDs = cmp.Or(in.IDs, p.In.IDs)
	}
	line, err := json.Marshal(in)
	if err != nil {
		return err
	}
	if fn.WorkDir != "" { // for the later passes, see input.ReadSeen
		if err := input.WriteSeen(ctx, fn.WorkDir, int(file), line); err != nil {
			return err
		}
	}
	emit(file, line)
	return nil
}

// splitterOf is how the first pass cuts input files into units.
func splitterOf(o Options) splitter {
	return splitter{Read: o.Read, UnitRows: o.UnitRows, SegmentBits: o.Work.SegmentBits}
}
