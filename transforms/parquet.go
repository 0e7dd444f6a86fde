package transforms

import (
	"bytes"
	"context"
	"fmt"
	"io"
	"os"

	"github.com/neardup/neardup/transforms/format/fingerprint"
	"github.com/neardup/neardup/transforms/format/record"
	"github.com/neardup/neardup/transforms/format/wire"
)

// Parquet inputs (record.FormatFor: --format parquet, or a name ending in
// ".parquet") are read by row groups and columns, which needs an
// io.ReaderAt. A local file is one already (*os.File); the fingerprint's
// count and checksum of its stored bytes are then taken by reading the
// whole file once more, sequentially, after parsing it (the decoder reads
// only the id and text columns, out of order). A reader that is not an
// io.ReaderAt (a remote filesystem) is first copied, through the
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
func readParquetFile(rc io.Reader, fr *fingerprint.Reader, size int64, rd fileRead, doc func(record.Doc) error, reject func(record.Reject) error) error {
	use := rd.parquet
	if use == nil {
		use = func(ra io.ReaderAt, size int64) error {
			return record.ReadParquet(ra, size, rd.name, rd.opt, doc, reject)
		}
	}
	if ra, ok := rc.(io.ReaderAt); ok && size >= 0 {
		return use(ra, size)
	}
	if size >= 0 && size <= parquetInMemory {
		data, err := io.ReadAll(fr)
		if err != nil {
			return fmt.Errorf("reading %s: %w", rd.open, err)
		}
		return use(bytes.NewReader(data), int64(len(data)))
	}
	tmp, err := os.CreateTemp("", "neardup-parquet-*")
	if err != nil {
		return fmt.Errorf("a local copy of %s: %w", rd.open, err)
	}
	defer os.Remove(tmp.Name())
	defer tmp.Close()
	n, err := io.Copy(tmp, fr)
	if err != nil {
		return fmt.Errorf("a local copy of %s in %s: %w", rd.open, tmp.Name(), err)
	}
	return use(tmp, n)
}

// writeParquetDedup writes to w the deduplicated copy of the Parquet input
// file index file at path: its good rows that opt.Only selects (those not
// removed), read again as the first pass read them, copied whole with
// record.CopyParquet. A file rejected whole (not Parquet, no text column)
// gets an empty copy (0 bytes): there is no schema to write. It returns
// the number of rows kept.
func (c Config) writeParquetDedup(ctx context.Context, file int, path string, opt record.Options, w io.Writer) (int64, error) {
	var kept int64
	rd := fileRead{open: path, name: path, opt: opt}
	rd.parquet = func(ra io.ReaderAt, size int64) error {
		var keep wire.LineSet
		whole := false
		err := record.ReadParquet(ra, size, path, opt, func(d record.Doc) error {
			keep.Add(d.Index)
			return nil
		}, func(r record.Reject) error {
			whole = whole || r.Line == 0
			return nil
		})
		if err != nil || whole {
			return err
		}
		if kept, err = record.CopyParquet(ra, size, keep.Lines(), w); err != nil {
			return fmt.Errorf("copying %s: %w", path, err)
		}
		return nil
	}
	var err error
	if rd.seen, err = readSeen(ctx, c.Work, file); err != nil {
		return 0, err
	}
	_, err = readFileFrom(ctx, rd, func(record.Doc) error { return nil }, func(record.Reject) error { return nil })
	return kept, err
}
