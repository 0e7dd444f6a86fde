package input

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"os"

	"github.com/neardup/neardup/transforms/format/fingerprint"
	"github.com/neardup/neardup/transforms/format/record"
	"github.com/neardup/neardup/transforms/format/wire"
	"github.com/neardup/neardup/transforms/internal/diskroom"
	"github.com/neardup/neardup/transforms/internal/workfiles"
	"github.com/neardup/neardup/transforms/jobfiles"
	"github.com/neardup/neardup/transforms/objects"
)

// Parquet inputs (record.FormatFor: --format parquet, or a name ending in
// ".parquet") are read by row groups and columns, which needs an
// io.ReaderAt. A local file is one already (*os.File); the fingerprint's
// count and checksum of its stored bytes are then taken by reading the
// whole file once more, sequentially, after parsing it (the decoder reads
// only the id and text columns, out of order).
//
// A gs:// or s3:// object is read through an objects.Object (readObject),
// every read of it, ranges and stream, of the version of it that the read
// found (its GCS generation or S3 ETag), which must be the version the
// splitter saw for a unit of a split file: an object replaced meanwhile
// fails the job. A unit other than the first reads the ranges of its row
// groups only; the first, or a file read whole, also streams the whole
// object, in one request, for the fingerprint. A file read whole of at
// most parquetInMemory bytes is read into memory instead, in that one
// request, and parsed there.
//
// Any other reader, not an io.ReaderAt (another remote filesystem, an
// object that cannot be read in ranges), is first copied, through the
// fingerprint's reader: into memory when it is at most parquetInMemory
// bytes, else into a temporary file in the local temporary directory
// (os.TempDir: the job's work directory may be remote on a cluster),
// removed once read.

// parquetInMemory is the largest remote Parquet input read into memory
// rather than copied to a local temporary file.
const parquetInMemory = 64 << 20

// readParquetFile reads the Parquet input rc of size bytes (-1: unknown),
// whose stored bytes fr passes on, with rd.parquet if set, else parsing it
// with record.ReadParquet. When it returns, fr has read the whole file.
func readParquetFile(rc io.Reader, fr *fingerprint.Reader, size int64, rd FileRead, doc func(record.Doc) error, reject func(record.Reject) error) error {
	use := rd.parquetParser(doc, reject)
	if ra, ok := rc.(io.ReaderAt); ok && size >= 0 {
		return use(ra, size)
	}
	if size >= 0 && size <= parquetInMemory {
		data, err := io.ReadAll(fr)
		if err != nil {
			return fmt.Errorf("reading %s: %w", rd.Open, err)
		}
		return use(bytes.NewReader(data), int64(len(data)))
	}
	var tmp *os.File
	err := workfiles.Do(func() (err error) {
		tmp, err = os.CreateTemp("", "neardup-parquet-*")
		return err
	})
	if err != nil {
		return fmt.Errorf("a local copy of %s: %w", rd.Open, err)
	}
	defer os.Remove(tmp.Name())
	defer tmp.Close()
	n, err := io.Copy(diskroom.Writer(workfiles.Writer(workfiles.KindParquet, tmp)), fr)
	if err != nil {
		return fmt.Errorf("a local copy of %s in %s: %w", rd.Open, tmp.Name(), err)
	}
	return use(tmp, n)
}

// parquetParser returns rd.parquet if set, else a parse of a Parquet
// input with record.ReadParquet.
func (rd FileRead) parquetParser(doc func(record.Doc) error, reject func(record.Reject) error) func(ra io.ReaderAt, size int64) error {
	if rd.parquet != nil {
		return rd.parquet
	}
	return func(ra io.ReaderAt, size int64) error {
		return record.ReadParquet(ra, size, rd.Name, rd.Opt, doc, reject)
	}
}

// readObject reads the Parquet input rd.open, a gs:// or s3:// object, in
// ranges (see above; Read says the rest). It reads nothing and
// returns done false for an object that cannot be read in ranges
// (objects.ErrNotRanged), which is then read as a stream.
func readObject(ctx context.Context, rd FileRead, doc func(record.Doc) error, reject func(record.Reject) error) (_ *fingerprint.Fingerprint, done bool, err error) {
	obj, err := objects.Open(ctx, rd.Open)
	if errors.Is(err, objects.ErrNotRanged) {
		return nil, false, nil
	}
	if err != nil {
		return nil, true, fmt.Errorf("opening %s: %w", rd.Open, err)
	}
	fp := fingerprint.Fingerprint{Size: obj.Size, ModTime: obj.ModTime}
	replaced := &fingerprint.ChangedError{Name: rd.Name, Now: "now replaced, its " + obj.Version + " gone", Was: "saw " + obj.Version}
	if rd.Version != "" && obj.Version != rd.Version { // checked first: it says more than the time
		replaced.Now, replaced.Was = "now "+obj.Version, "saw "+rd.Version
		return nil, true, replaced
	}
	for _, want := range []*fingerprint.Fingerprint{rd.Stat, fpOf(rd.seen)} {
		if want != nil {
			if err := want.CheckStat(rd.Name, fp.Size, fp.ModTime); err != nil {
				return nil, true, err
			}
		}
	}
	if rd.Comp != nil {
		*rd.Comp = record.None // a Parquet file's codecs are its own
	}
	use := rd.parquetParser(doc, reject)
	// stream reads the object's stored bytes, in order, for the
	// fingerprint (and parses them when they are read into memory).
	stream := func() error {
		rc, err := obj.NewReader(0)
		if err != nil {
			return err
		}
		var r io.Reader = rc
		if rd.Count != nil {
			r = &countingReader{rc, rd.Count}
		}
		fr := fingerprint.NewReader(r)
		var readErr error
		if rd.Stat == nil && obj.Size <= parquetInMemory { // parsed in memory
			var data []byte
			if data, readErr = io.ReadAll(fr); readErr == nil {
				err = use(bytes.NewReader(data), int64(len(data)))
			}
		}
		if readErr == nil {
			fp.Read, fp.CRC, readErr = fr.Finish()
		}
		rc.Close()
		if readErr != nil {
			return fmt.Errorf("reading %s: %w", rd.Open, readErr)
		}
		return err
	}
	switch {
	case rd.Partial:
		err = use(obj, obj.Size)
	case rd.Stat == nil && obj.Size <= parquetInMemory:
		err = stream()
	default:
		if err = use(obj, obj.Size); err == nil {
			err = stream()
		}
	}
	if obj.Changed() != nil || errors.Is(err, objects.ErrChanged) {
		return nil, true, replaced
	}
	if err != nil || rd.Partial {
		return &fp, true, err
	}
	if rd.seen != nil {
		if err := rd.seen.fp.CheckRead(rd.Name, fp.Read, fp.CRC); err != nil {
			return nil, true, err
		}
	}
	if fp.Read != fp.Size {
		return nil, true, &fingerprint.ChangedError{Name: rd.Name, Now: fmt.Sprintf("read %d bytes", fp.Read),
			Was: fmt.Sprintf("opened it with %d bytes", fp.Size)}
	}
	return &fp, true, nil
}

// fpOf returns the fingerprint of s, or nil.
func fpOf(s *Seen) *fingerprint.Fingerprint {
	if s == nil {
		return nil
	}
	return &s.fp
}

// WriteParquetDedup writes to out the deduplicated copy of the Parquet input
// file index file at path, checked against the first pass's reading of it
// in w: its good rows that opt.Only selects (those not
// removed), read again as the first pass read them, copied whole with
// record.CopyParquetAdding, with the column add appended to each (none when
// add is nil). A file rejected whole (not Parquet, no text column) gets an
// empty copy (0 bytes): there is no schema to write. It returns the number
// of rows kept.
func WriteParquetDedup(ctx context.Context, w jobfiles.WorkDir, file int, path string, opt record.Options, add *record.ParquetGroup, out io.Writer) (int64, error) {
	var kept int64
	rd := FileRead{Open: path, Name: w.NameOf(path), Opt: opt}
	rd.parquet = func(ra io.ReaderAt, size int64) error {
		var keep wire.LineSet
		whole := false
		err := record.ReadParquet(ra, size, rd.Name, opt, func(d record.Doc) error {
			keep.Add(d.Index)
			return nil
		}, func(r record.Reject) error {
			whole = whole || r.Line == 0
			return nil
		})
		if err != nil || whole {
			return err
		}
		if kept, err = record.CopyParquetAdding(ra, size, keep.Lines(), add, out); err != nil {
			return fmt.Errorf("copying %s: %w", path, err)
		}
		return nil
	}
	var err error
	if rd.seen, err = ReadSeen(ctx, w.Dir, file); err != nil {
		return 0, err
	}
	_, err = Read(ctx, rd, func(record.Doc) error { return nil }, func(record.Reject) error { return nil })
	return kept, err
}
