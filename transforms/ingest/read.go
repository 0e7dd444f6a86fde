package ingest

import (
	"cmp"
	"context"
	"encoding/json"
	"fmt"
	"runtime"
	"unsafe"

	"github.com/apache/beam/sdks/v2/go/pkg/beam"
	"github.com/apache/beam/sdks/v2/go/pkg/beam/register"

	"github.com/neardup/neardup/transforms/format/fingerprint"
	"github.com/neardup/neardup/transforms/format/output"
	"github.com/neardup/neardup/transforms/format/record"
	"github.com/neardup/neardup/transforms/format/summary"
	"github.com/neardup/neardup/transforms/format/wire"
	"github.com/neardup/neardup/transforms/internal/docpool"
	"github.com/neardup/neardup/transforms/internal/faults"
	"github.com/neardup/neardup/transforms/internal/rounds"
	"github.com/neardup/neardup/transforms/internal/tally"
	"github.com/neardup/neardup/transforms/job"
	"github.com/neardup/neardup/transforms/jobfiles"
	"github.com/neardup/neardup/transforms/jobfiles/docshards"
	"github.com/neardup/neardup/transforms/jobfiles/filelist"
	"github.com/neardup/neardup/transforms/jobfiles/input"
	"github.com/neardup/neardup/transforms/jobfiles/spool"
	"github.com/neardup/neardup/transforms/jobstate"
	"github.com/neardup/neardup/transforms/text/normalize"
)

func init() {
	register.DoFn8x1[context.Context, int64, func(*[]byte) bool, func(int64, []byte), func(int64, []byte), func(int64, []byte), func(int64, []byte), func(string, int64), error](&readKeysFn{})
}

// Read is the first pass over the input.
//
// In: (file index, path). Out: exact-key records (partition, chunk), reject
// lines (file index, chunk), what it read of each file (file index,
// summary.InputFile JSON: set Files.Seen to it for the summary), segment
// markers (segment, marker: see docshards.Writer), for Signatures, and stats
// (name, n). It reads the files in units (see units.go). The later passes
// find what it read in o.Work: the first reading of each file (see
// input.ReadSeen) and the documents of each segment (see
// docshards.SegmentDocs).
func Read(s beam.Scope, o Options, files filelist.Files) (keys, rejects, inputs, segments, st beam.PCollection) {
	s = s.Scope("Read")
	all := read(s, o, files, false)
	return all[0], all[1], MergeInputs(s, o, all[2]), all[3], all[4]
}

// ReadOne is Read with one output: the exact keys, and under the other
// kinds of wire.FirstPass the rejects, what each unit read, the segment
// markers and the stats, which exact.PassOn passes on (give its inputs to
// MergeInputs). Beam's Spark runner computed the five-output first pass
// twice (it wrote every document shard twice), as it did a signature stage
// with two outputs: with one output it computes it once.
//
// In: (file index, path). Out: (wire.FirstPass key, chunk).
func ReadOne(s beam.Scope, o Options, files filelist.Files) beam.PCollection {
	s = s.Scope("Read")
	return read(s, o, files, true)[0]
}

// read adds the first pass's readKeysFn over files, its outputs flattened
// over the branches; with one, everything under output 0 (ReadOne).
func read(s beam.Scope, o Options, files filelist.Files, one bool) []beam.PCollection {
	outs := make([][]beam.PCollection, 5)
	read := &readKeysFn{Work: o.Work, Read: o.Read, Norm: o.Norm, Partitions: o.Partitions, One: one}
	for _, units := range readUnits(s, o, files) {
		for i, out := range beam.ParDoN(s, read, units) {
			outs[i] = append(outs[i], out)
		}
	}
	if one {
		return rounds.FlattenEach(s, outs[:1])
	}
	return rounds.FlattenEach(s, outs)
}

// MergeInputs merges what the units of each file read (Read's or
// exact.PassOn's (file index, unitResult JSON)) into what the first pass
// read of the file: (file index, summary.InputFile JSON), for
// filelist.Files.Seen.
func MergeInputs(s beam.Scope, o Options, units beam.PCollection) beam.PCollection {
	return beam.ParDo(s.Scope("Read"), &mergeReadFn{WorkDir: o.Work.Dir}, beam.GroupByKey(s, units))
}

// readKeysFn is the first pass over a unit of an input file (see units.go).
//
// In: (the unit's key, readUnit JSON). Out: the exact-duplicate key records
// of its good documents, as wire.Info chunks keyed by partition of the key;
// its rejects, as JSON lines keyed by file index; what it read of the file
// (unitResult JSON keyed by file index, with the fingerprint of what it
// read: see mergeReadFn); the markers of the document shards it wrote in
// the work directory, keyed by segment; and stats.
type readKeysFn struct {
	Work       jobfiles.WorkDir
	Read       job.ReadOptions
	Norm       normalize.Form // how the texts are normalized
	Partitions int            // of the exact keys
	// One sends every output to the first, under the kinds of
	// wire.FirstPass (ReadOne); the others stay empty.
	One bool

	// ahead reads the next units while the runner hands them over, so
	// that the files of a bundle are read on every core.
	ahead docpool.AheadStream
}

// readAheadBytes is the output a unit read ahead holds before it waits.
const ReadAheadBytes = 8 << 20

// Setup bounds the output of the units read ahead, once per DoFn
// instance.
func (fn *readKeysFn) Setup() { fn.ahead.Limit = ReadAheadBytes }

func (fn *readKeysFn) ProcessElement(ctx context.Context, _ int64, units func(*[]byte) bool, emit, emitRejects, emitInput, emitSegment func(int64, []byte), emitStat func(string, int64)) error {
	emits := []func(int64, []byte){emit, emitRejects, emitInput, emitSegment}
	var b []byte
	for units(&b) {
		var u readUnit
		if err := json.Unmarshal(b, &u); err != nil {
			fn.ahead.Abort()
			return fmt.Errorf("read unit: %w", err)
		}
		fn.ahead.Start(len(emits), func(e []func(int64, []byte), emitStat func(string, int64)) error {
			jobstate.Running.Add(1) // for WaitIdle: the unit writes files
			defer jobstate.Running.Add(-1)
			return fn.read(ctx, u, e[0], e[1], e[2], e[3], emitStat)
		})
		// One unit per worker at once: the reading of a unit (its
		// decompression and parsing) is one goroutine.
		if err := fn.ahead.Drain(cmp.Or(fn.Work.Workers, runtime.GOMAXPROCS(0))-1, emits, emitStat, jobstate.BusyIn(ctx, "Read")); err != nil {
			return err
		}
	}
	return nil
}

// Teardown discards the output of the units still being read ahead and
// waits for them to return: a bundle that fails, or whose emit panics
// (the job cancelled downstream), ends without FinishBundle, and its
// units would go on reading and writing work files after the job.
func (fn *readKeysFn) Teardown() { fn.ahead.Abort() }

// FinishBundle emits the output of the units still being read.
func (fn *readKeysFn) FinishBundle(ctx context.Context, emit, emitRejects, emitInput, emitSegment func(int64, []byte), emitStat func(string, int64)) error {
	return fn.ahead.Drain(0, []func(int64, []byte){emit, emitRejects, emitInput, emitSegment}, emitStat, jobstate.BusyIn(ctx, "Read"))
}

// read reads unit u, on a goroutine of its own: its documents' exact keys
// to emit, its rejects to emitRejects, what it read to emitInput, its
// document shards' markers to emitSegment.
func (fn *readKeysFn) read(ctx context.Context, u readUnit, emit, emitRejects, emitInput, emitSegment func(int64, []byte), emitStat func(string, int64)) error {
	if fn.One {
		emitRejects, emitInput, emitSegment, emitStat = firstPassOf(emit)
	}
	emit, reportKeys := tally.CountShuffle(tally.ShuffleExactKeys, emit, emitStat)
	emitRejects, reportRejects := tally.CountShuffle(tally.ShuffleOutLines, emitRejects, emitStat)
	r := unitReader{fn: fn, u: u, reasons: map[string]int64{}, rejects: newRejectLines(fn.Work.Dir)}
	defer r.rejects.abort()
	if err := r.run(ctx, emit, emitSegment); err != nil {
		return err
	}
	if err := r.rejects.emit(u.File, emitRejects); err != nil {
		return err
	}
	line, err := json.Marshal(unitResult{U: u.U, Of: max(u.Of, 1), In: r.inputFile()})
	if err != nil {
		return err
	}
	emitInput(int64(u.File), line)
	r.stats().Emit(emitStat)
	reportKeys()
	reportRejects()
	return faults.Inject("Read", u.Path) // a test hook; nil unless a test sets it
}

// firstPassOf returns the emitters of the rejects, inputs, segment
// markers and stats that send them to emit, the first pass's one output,
// under their wire.FirstPass kinds.
func firstPassOf(emit func(int64, []byte)) (rejects, inputs, segments func(int64, []byte), stats func(string, int64)) {
	tag := func(p wire.FirstPass) func(int64, []byte) {
		return func(k int64, c []byte) { emit(p.Key(k), c) }
	}
	key := wire.FirstStats.Key(0)
	return tag(wire.FirstRejects), tag(wire.FirstInputs), tag(wire.FirstSegments),
		func(name string, v int64) { emit(key, wire.AppendStat(nil, name, v)) }
}

// unitReader is the first pass over one unit: what it has read and counted.
type unitReader struct {
	fn *readKeysFn
	u  readUnit

	comp    record.Compression       // the file's, as found
	fp      *fingerprint.Fingerprint // of what was read; nil: not opened
	lineIDs bool                     // the records are identified as FILE:LINE
	broken  bool                     // a read error ended the file: keep no spool of it
	docs    int64                    // good documents
	unrank  int64                    // of those, without a rank under a keep field
	rej     int64                    // rejects
	bytes   int64                    // the good records' bytes as read
	reasons map[string]int64         // rejects by reason
	rejects *rejectLines             // reject lines
}

// run reads the unit, emitting its documents' exact keys in chunks to emit
// and writing their document shards, whose markers go to emitSegment; it
// commits the spool copy of a file read whole and without error.
func (r *unitReader) run(ctx context.Context, emit, emitSegment func(int64, []byte)) error {
	rd, spooled := r.open(ctx)
	if spooled != nil {
		rd.Tee = spooled
		defer spooled.Abort()
	}
	docShards := docshards.NewWriter(ctx, r.fn.Work, r.u.File, r.u.Path)
	b := wire.NewBatcher(0)
	read := func(doc func(record.Doc) error, reject func(record.Reject) error) (err error) {
		// A cancelled job stops the reading at its next document.
		r.fp, err = input.Read(ctx, rd, func(d record.Doc) error {
			if err := ctx.Err(); err != nil {
				return err
			}
			return doc(d)
		}, reject)
		return err
	}
	err := docpool.Map(docpool.Parsed(read), r.fn.Work.Workers, r.normalizer, func(k *keyed) {
		in := &k.info
		r.docs++
		if in.Rank.IsZero() && r.fn.Read.Keep.Name != "" {
			r.unrank++
		}
		jobstate.Progress.Read.Add(1)
		r.bytes += int64(k.rawLen) // input_bytes: the records as read
		b.Add(wire.Partition(in.Exact, r.fn.Partitions), func(c []byte) []byte { return wire.AppendInfo(c, in) }, emit)
		docShards.Add(wire.Line(in.Doc), int(in.Len), in.Rank, in.ID, k.norm)
	}, r.reject)
	if err != nil {
		docShards.Abort()
		return fmt.Errorf("reading %s: %w", r.u.Path, err)
	}
	// A file whose reading ended in an error keeps the document shards of
	// what was read: the job goes on with those documents.
	if err := docShards.Finish(emitSegment); err != nil {
		return err
	}
	if !r.broken && spooled != nil && r.comp != record.None {
		spooled.Commit(ctx)
	}
	b.Flush(emit)
	return nil
}

// open returns how to read the unit: a range of a split file, or a whole
// file, with its spool copy to write (nil without a spool).
func (r *unitReader) open(ctx context.Context) (input.FileRead, *spool.File) {
	u := r.u
	rd := input.FileRead{Open: u.Path, Name: r.fn.Work.NameOf(u.Path), Opt: r.fn.Read.Options(), Count: &jobstate.Progress.Bytes, Comp: &r.comp}
	rd.Opt.OnLineIDs = func() { r.lineIDs = true }
	if u.Of <= 1 {
		return rd, spool.Start(ctx, r.fn.Work, u.File, u.Path)
	}
	// A range of a Parquet or line file: no spool copy.
	if u.IDs != nil { // a line file (lineunits.go)
		rd.Opt.Lines = &record.LineRange{First: u.First, End: u.End, Offset: u.Offset}
		rd.Opt.IDs = *u.IDs
	} else {
		rd.Opt.Rows = &record.RowRange{First: u.First, End: u.End}
	}
	rd.Stat = &fingerprint.Fingerprint{Size: u.Size, ModTime: u.ModTime}
	rd.Version = u.Version
	rd.Partial = u.U > 0
	return rd, nil
}

// normalizer is docpool.Map' worker of the first pass: a document's
// normalized text and exact key.
func (r *unitReader) normalizer() (func(*docpool.Doc, *keyed), error) {
	file := r.u.File
	return func(d *docpool.Doc, k *keyed) {
		// The slot's storage holds the normalized text until the
		// batch's results are emitted.
		d.Buf = r.fn.Norm.Into(docpool.Slot(d.Buf, len(d.Text)+len(d.Text)/8), d.Text)
		k.norm = d.Buf
		k.rawLen = d.RawLen
		k.info = wire.Info{Doc: wire.DocNum(file, d.Index), ID: d.ID, Len: int64(d.Len), Rank: d.Rank, Exact: normalize.Key(unsafe.String(unsafe.SliceData(k.norm), len(k.norm)))}
	}, nil
}

// reject counts a reject and adds its line. A reject that is no record
// (record.IsRecord: trailing garbage after a compressed file's last
// member) is listed with its reason but not counted as a rejected record.
func (r *unitReader) reject(rj record.Reject) error {
	if record.IsRecord(rj.Reason) {
		r.rej++
	}
	r.reasons[rj.Reason]++
	if record.EndsFile(rj.Reason) {
		r.broken = true
	}
	line, err := json.Marshal(output.RejectLine{File: rj.File, Line: rj.Line, Offset: rj.Offset, Reason: rj.Reason, Detail: rj.Detail, Sample: rj.Sample})
	if err != nil {
		return err
	}
	r.rejects.add(uint64(rj.Line), uint64(rj.Offset), line)
	return nil
}

// inputFile is what the unit read of its file.
func (r *unitReader) inputFile() summary.InputFile {
	in := summary.InputFile{Index: r.u.File, Path: r.fn.Work.NameOf(r.u.Path), Records: r.docs + r.rej, Rejected: r.rej}
	if len(r.reasons) > 0 {
		in.Reasons = r.reasons
	}
	if r.fp == nil { // a whole-file reject, not read
		return in
	}
	if r.u.U == 0 { // the whole file's, see units.go
		in.Bytes, in.Fingerprint, in.Compression = r.fp.Size, r.fp.String(), r.comp.String()
		if r.fp.Size < 0 {
			in.Bytes = r.fp.Read
		}
	}
	if r.lineIDs {
		in.IDs = summary.LineIDs
	}
	return in
}

// stats is what the unit counted.
func (r *unitReader) stats() tally.Counts {
	c := tally.Counts{
		{Name: summary.StatReadUnits, N: 1},
		{Name: summary.StatInput, N: r.docs + r.rej},
		{Name: summary.StatRejected, N: r.rej},
		{Name: summary.StatDocuments, N: r.docs},
		{Name: summary.StatBytes, N: r.bytes},
	}
	if r.fn.Read.Keep.Name != "" {
		c = append(c, tally.Stat{Name: summary.StatUnranked, N: r.unrank})
	}
	return c
}

// keyed is what the first pass computes for a document: its exact-duplicate
// key record and its normalized text, for its document shard; norm is
// the storage of the document's batch slot (docpool.Doc.Buf), valid until the
// batch's results are emitted.
type keyed struct {
	info   wire.Info
	norm   []byte
	rawLen int // the record's bytes as read (record.Doc.Raw)
}

// MapBytes is the most memory the batches of one unit's docpool.Map hold
// on workers goroutines (docpool.MapBytes).
func MapBytes(workers int) int64 { return docpool.MapBytes[keyed](workers) }
