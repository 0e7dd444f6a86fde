package transforms

import (
	"context"
	"encoding/json"
	"fmt"
	"unsafe"

	"github.com/apache/beam/sdks/v2/go/pkg/beam"
	"github.com/apache/beam/sdks/v2/go/pkg/beam/register"

	"github.com/neardup/neardup/transforms/format/fingerprint"
	"github.com/neardup/neardup/transforms/format/output"
	"github.com/neardup/neardup/transforms/format/record"
	"github.com/neardup/neardup/transforms/format/wire"
	"github.com/neardup/neardup/transforms/text/normalize"
)

func init() {
	register.DoFn8x1[context.Context, int, func(*[]byte) bool, func(int, []byte), func(int, []byte), func(int, []byte), func(int, []byte), func(string, int64), error](&readKeysFn{})
}

// Read is the first pass over the input.
//
// In: (file index, path). Out: exact-key records (partition, chunk), reject
// lines (file index, chunk), what it read of each file (file index,
// output.InputFile JSON: set Files.Seen to it for the summary), segment
// markers (segment, marker: see docshards.go), for Signatures, and stats
// (name, n). It reads the files in units (see units.go). The later passes
// find what it read in cfg.Work: the first reading of each file (see
// input.go) and the documents of each segment (see docshards.go).
func Read(s beam.Scope, cfg Config, files Files) (keys, rejects, inputs, segments, st beam.PCollection) {
	s = s.Scope("Read")
	outs := make([][]beam.PCollection, 5)
	for _, units := range readUnits(s, cfg, files) {
		for i, o := range beam.ParDoN(s, &readKeysFn{Cfg: cfg}, units) {
			outs[i] = append(outs[i], o)
		}
	}
	o := flattenEach(s, outs)
	inputs = beam.ParDo(s, &mergeReadFn{Cfg: cfg}, beam.GroupByKey(s, o[2]))
	return o[0], o[1], inputs, o[3], o[4]
}

// readKeysFn is the first pass over a unit of an input file (see units.go).
//
// In: (the unit's key, readUnit JSON). Out: the exact-duplicate key records
// of its good documents, as wire.Info chunks keyed by partition of the key;
// its rejects, as JSON lines keyed by file index; what it read of the file
// (unitResult JSON keyed by file index, with the fingerprint of what it
// read: see mergeReadFn); the markers of the document shards it wrote in
// Cfg.Work, keyed by segment; and stats.
type readKeysFn struct {
	Cfg Config
}

func (fn *readKeysFn) ProcessElement(ctx context.Context, _ int, units func(*[]byte) bool, emit, emitRejects, emitInput, emitSegment func(int, []byte), emitStat func(string, int64)) error {
	var b []byte
	for units(&b) {
		var u readUnit
		if err := json.Unmarshal(b, &u); err != nil {
			return fmt.Errorf("read unit: %w", err)
		}
		if err := fn.read(ctx, u, emit, emitRejects, emitInput, emitSegment, emitStat); err != nil {
			return err
		}
	}
	return nil
}

// read reads unit u.
func (fn *readKeysFn) read(ctx context.Context, u readUnit, emit, emitRejects, emitInput, emitSegment func(int, []byte), emitStat func(string, int64)) error {
	defer busy(ctx, "Read", begin())
	file, path := u.File, u.Path
	emit, reportKeys := countShuffle(output.ShuffleExactKeys, emit, emitStat)
	emitRejects, reportRejects := countShuffle(output.ShuffleOutLines, emitRejects, emitStat)
	opt := fn.Cfg.recordOptions()
	lineIDs := false
	opt.OnLineIDs = func() { lineIDs = true }
	comp := record.None
	b := wire.NewBatcher(0)
	var rejects []byte
	var docs, rej, nbytes int64
	reasons := map[string]int64{}
	normalizer := func() (func(*docItem, *keyed), error) {
		return func(d *docItem, k *keyed) {
			// The slot's storage holds the normalized text until the
			// batch's results are emitted.
			d.buf = normalize.Into(slotFor(d.buf, len(d.Text)+len(d.Text)/8), d.Text)
			k.norm = d.buf
			k.rawLen = d.RawLen
			k.info = wire.Info{Doc: wire.DocNum(file, d.Index), ID: d.ID, Len: int64(d.Len), Exact: normalize.Key(unsafe.String(unsafe.SliceData(k.norm), len(k.norm)))}
		}, nil
	}
	rd := fileRead{open: path, name: path, opt: opt, count: &Progress.Bytes, comp: &comp}
	var spool *spoolFile
	if u.Of > 1 { // a range of a Parquet or line file: no spool copy
		if u.IDs != nil { // a line file (lineunits.go)
			rd.opt.Lines = &record.LineRange{First: u.First, End: u.End, Offset: u.Offset}
			rd.opt.IDs = *u.IDs
		} else {
			rd.opt.Rows = &record.RowRange{First: u.First, End: u.End}
		}
		rd.stat = &fingerprint.Fingerprint{Size: u.Size, ModTime: u.ModTime}
		rd.version = u.Version
		rd.partial = u.U > 0
	} else {
		spool = fn.Cfg.newSpool(ctx, file, path)
	}
	if spool != nil {
		rd.tee = spool
		defer spool.abort()
	}
	docShards := fn.Cfg.newDocSegments(ctx, file, path)
	broken := false // a read error ends the file: keep no spool of it
	var fp *fingerprint.Fingerprint
	read := func(doc func(record.Doc) error, reject func(record.Reject) error) (err error) {
		fp, err = readFileFrom(ctx, rd, doc, reject)
		return err
	}
	err := mapDocs(parsed(read), fn.Cfg.Workers, normalizer, func(k *keyed) {
		in := &k.info
		docs++
		Progress.Read.Add(1)
		nbytes += int64(k.rawLen) // input_bytes: the records as read
		b.Add(wire.Partition(in.Exact, fn.Cfg.Partitions), func(c []byte) []byte { return wire.AppendInfo(c, in) }, emit)
		docShards.add(wire.Line(in.Doc), int(in.Len), in.ID, k.norm)
	}, func(r record.Reject) error {
		rej++
		reasons[r.Reason]++
		if record.EndsFile(r.Reason) {
			broken = true
		}
		line, err := json.Marshal(output.RejectLine{File: r.File, Line: r.Line, Offset: r.Offset, Reason: r.Reason, Detail: r.Detail, Sample: r.Sample})
		if err != nil {
			return err
		}
		rejects = wire.AppendLine(rejects, uint64(r.Line), uint64(r.Offset), line)
		return nil
	})
	if err != nil {
		docShards.abort()
		return fmt.Errorf("reading %s: %w", path, err)
	}
	// A file whose reading ended in an error keeps the document shards of
	// what was read: the job goes on with those documents.
	if err := docShards.finish(emitSegment); err != nil {
		return err
	}
	if !broken && spool != nil && comp != record.None {
		spool.commit(ctx)
	}
	b.Flush(emit)
	if len(rejects) > 0 {
		emitRejects(file, rejects)
	}
	in := output.InputFile{Index: file, Path: path, Records: docs + rej, Rejected: rej}
	if len(reasons) > 0 {
		in.Reasons = reasons
	}
	if fp != nil { // else a whole-file reject, not read
		if u.U == 0 { // the whole file's, see units.go
			in.Bytes, in.Fingerprint, in.Compression = fp.Size, fp.String(), comp.String()
			if fp.Size < 0 {
				in.Bytes = fp.Read
			}
		}
		if lineIDs {
			in.IDs = output.LineIDs
		}
	}
	line, err := json.Marshal(unitResult{U: u.U, Of: max(u.Of, 1), In: in})
	if err != nil {
		return err
	}
	emitInput(file, line)
	emitStat(output.StatReadUnits, 1)
	emitStat(output.StatInput, docs+rej)
	emitStat(output.StatRejected, rej)
	emitStat(output.StatDocuments, docs)
	emitStat(output.StatBytes, nbytes)
	reportKeys()
	reportRejects()
	return injectFault("Read", path) // a test hook; nil unless a test sets it
}

// keyed is what the first pass computes for a document: its exact-duplicate
// key record and its normalized text, for its document shard; norm is
// the storage of the document's batch slot (docItem.buf), valid until the
// batch's results are emitted.
type keyed struct {
	info   wire.Info
	norm   []byte
	rawLen int // the record's bytes as read (record.Doc.Raw)
}
