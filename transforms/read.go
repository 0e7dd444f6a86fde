package transforms

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"time"
	"unsafe"

	"github.com/apache/beam/sdks/v2/go/pkg/beam"
	"github.com/apache/beam/sdks/v2/go/pkg/beam/io/filesystem"
	"github.com/apache/beam/sdks/v2/go/pkg/beam/register"

	"github.com/neardup/neardup/transforms/format/output"
	"github.com/neardup/neardup/transforms/format/record"
	"github.com/neardup/neardup/transforms/format/wire"
	"github.com/neardup/neardup/transforms/text/normalize"
)

func init() {
	register.DoFn6x1[context.Context, int, string, func(int, []byte), func(int, []byte), func(string, int64), error](&readKeysFn{})
}

// Read is the first pass over the input.
//
// In: (file index, path). Out: exact-key records (partition, chunk), reject
// lines (file index, chunk) and stats (name, n).
func Read(s beam.Scope, cfg Config, files Files) (keys, rejects, st beam.PCollection) {
	s = s.Scope("Read")
	o := files.perFile(s, 3, &readKeysFn{Cfg: cfg})
	return o[0], o[1], o[2]
}

// readKeysFn is the first pass over an input file.
//
// In: (file index, path). Out: the exact-duplicate key records of its good
// documents, as wire.Info chunks keyed by partition of the key; its rejects,
// as JSON lines keyed by file index; and stats.
type readKeysFn struct {
	Cfg Config
}

func (fn *readKeysFn) ProcessElement(ctx context.Context, file int, path string, emit, emitRejects func(int, []byte), emitStat func(string, int64)) error {
	defer busy(ctx, "Read", time.Now())
	opt := fn.Cfg.recordOptions()
	b := wire.NewBatcher(0)
	var rejects []byte
	var docs, rej, nbytes int64
	normalizer := func() (func(*docItem, *keyed), error) {
		return func(d *docItem, k *keyed) {
			// The slot's storage holds the normalized text until the
			// batch's results are emitted.
			d.buf = normalize.Into(slotFor(d.buf, len(d.Text)+len(d.Text)/8), d.Text)
			k.norm = d.buf
			k.info = wire.Info{Doc: wire.DocNum(file, d.Index), ID: d.ID, Len: int64(d.RawLen), Exact: normalize.Key(unsafe.String(unsafe.SliceData(k.norm), len(k.norm)))}
		}, nil
	}
	spool := fn.Cfg.newSpool(ctx, file, path)
	var tee io.Writer
	if spool != nil {
		tee = spool
		defer spool.abort()
	}
	norms := fn.Cfg.newNormSpool(ctx, file, path)
	defer norms.abort()
	broken := false // a read error ends the file: keep no spool of it
	read := func(doc func(record.Doc) error, reject func(record.Reject) error) error {
		return readFileFrom(ctx, path, path, opt, tee, doc, reject)
	}
	err := mapDocs(parsed(read), fn.Cfg.Workers, normalizer, func(k *keyed) {
		in := &k.info
		docs++
		Progress.Read.Add(1)
		nbytes += in.Len
		b.Add(wire.Partition(in.Exact, fn.Cfg.Partitions), func(c []byte) []byte { return wire.AppendInfo(c, in) }, emit)
		norms.add(wire.Line(in.Doc), int(in.Len), in.ID, k.norm)
	}, func(r record.Reject) error {
		rej++
		if r.Reason == record.ReasonCorruptGzip || r.Reason == record.ReasonReadError {
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
		return fmt.Errorf("reading %s: %w", path, err)
	}
	if !broken {
		if spool != nil {
			spool.commit(ctx)
		}
		norms.commit(ctx)
	}
	b.Flush(emit)
	if len(rejects) > 0 {
		emitRejects(file, rejects)
	}
	emitStat(output.StatInput, docs+rej)
	emitStat(output.StatRejected, rej)
	emitStat(output.StatDocuments, docs)
	emitStat(output.StatBytes, nbytes)
	return injectFault("Read", path) // a test hook; nil unless a test sets it
}

// keyed is what the first pass computes for a document: its exact-duplicate
// key record and its normalized text, for the normalized spool; norm is
// the storage of the document's batch slot (docItem.buf), valid until the
// batch's results are emitted.
type keyed struct {
	info wire.Info
	norm []byte
}

// readFileFrom opens the file at open (any Beam filesystem, gzip by
// extension) and parses it as if it were the input file name: records and
// rejects are named by name (for the text format, name is the document id).
// If tee is not nil, it gets the decompressed bytes.
//
// A path that is a directory or that may not be opened is one whole-file
// reject (Line 0, record.ReasonNotAFile or record.ReasonUnreadable): every pass over the
// input sees the same reject and no record of the file. Any other failure to
// open the file is an error, which fails the bundle (a runner may retry it).
func readFileFrom(ctx context.Context, open, name string, opt record.Options, tee io.Writer, doc func(record.Doc) error, reject func(record.Reject) error) error {
	path := open
	fsys, err := filesystem.New(ctx, path)
	if err != nil {
		return fmt.Errorf("opening %s: %w", path, err)
	}
	defer fsys.Close()
	rc, err := fsys.OpenRead(ctx, path)
	if errors.Is(err, fs.ErrPermission) {
		return reject(record.Reject{File: path, Reason: record.ReasonUnreadable, Detail: fmt.Sprintf("%s: %v", path, err)})
	}
	if err != nil {
		return fmt.Errorf("opening %s: %w", path, err)
	}
	defer rc.Close()
	// The local filesystem opens a directory without error; reading it
	// fails. Other filesystems have no directories to open.
	if st, ok := rc.(interface{ Stat() (fs.FileInfo, error) }); ok {
		if fi, err := st.Stat(); err == nil && fi.IsDir() {
			return reject(record.Reject{File: path, Reason: record.ReasonNotAFile, Detail: path + ": is a directory"})
		}
	}
	r, err := record.Decompress(path, rc)
	if err != nil {
		// A gzip header that does not parse: the whole file is one reject.
		return reject(record.Reject{File: name, Reason: record.ReasonCorruptGzip, Detail: fmt.Sprintf("%s: %v", name, err)})
	}
	if tee != nil {
		r = io.TeeReader(r, tee)
	}
	return record.Read(r, name, opt, doc, reject)
}
