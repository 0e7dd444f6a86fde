package transforms

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
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
	register.DoFn8x1[context.Context, int, string, func(int, []byte), func(int, []byte), func(int, []byte), func(int, []byte), func(string, int64), error](&readKeysFn{})
}

// Read is the first pass over the input.
//
// In: (file index, path). Out: exact-key records (partition, chunk), reject
// lines (file index, chunk), what it read of each file (file index,
// output.InputFile JSON: set Files.Seen to it for the summary), segment
// markers (segment, marker: see docshards.go), for Signatures, and stats
// (name, n). The later passes find what it read in cfg.Work: the first
// reading of each file (see input.go) and the documents of each segment
// (see docshards.go).
func Read(s beam.Scope, cfg Config, files Files) (keys, rejects, inputs, segments, st beam.PCollection) {
	s = s.Scope("Read")
	o := files.perFile(s, 5, &readKeysFn{Cfg: cfg})
	return o[0], o[1], o[2], o[3], o[4]
}

// readKeysFn is the first pass over an input file.
//
// In: (file index, path). Out: the exact-duplicate key records of its good
// documents, as wire.Info chunks keyed by partition of the key; its rejects,
// as JSON lines keyed by file index; its output.InputFile, with the
// fingerprint of what it read, as JSON keyed by file index (and in
// Cfg.Work, for the later passes: see input.go); the markers of the
// document shards it wrote in Cfg.Work, keyed by segment; and stats.
type readKeysFn struct {
	Cfg Config
}

func (fn *readKeysFn) ProcessElement(ctx context.Context, file int, path string, emit, emitRejects, emitInput, emitSegment func(int, []byte), emitStat func(string, int64)) error {
	defer busy(ctx, "Read", begin())
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
	spool := fn.Cfg.newSpool(ctx, file, path)
	var tee io.Writer
	if spool != nil {
		tee = spool
		defer spool.abort()
	}
	docShards := fn.Cfg.newDocSegments(ctx, file, path)
	broken := false // a read error ends the file: keep no spool of it
	var fp *fingerprint.Fingerprint
	read := func(doc func(record.Doc) error, reject func(record.Reject) error) (err error) {
		fp, err = readFileFrom(ctx, fileRead{open: path, name: path, opt: opt, tee: tee, count: &Progress.Bytes, comp: &comp}, doc, reject)
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
	if err := docShards.finish(nil, emitSegment); err != nil {
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
		in.Bytes, in.Fingerprint, in.Compression = fp.Size, fp.String(), comp.String()
		if fp.Size < 0 {
			in.Bytes = fp.Read
		}
		if lineIDs {
			in.IDs = output.LineIDs
		}
	}
	line, err := json.Marshal(in)
	if err != nil {
		return err
	}
	emitInput(file, line)
	if fn.Cfg.Work != "" { // for the later passes, see input.go
		if err := writeSeen(ctx, fn.Cfg.Work, file, line); err != nil {
			return err
		}
	}
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
