package transforms

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"strings"
	"sync/atomic"
	"syscall"

	"github.com/apache/beam/sdks/v2/go/pkg/beam/io/filesystem"

	"github.com/neardup/neardup/transforms/format/fingerprint"
	"github.com/neardup/neardup/transforms/format/output"
	"github.com/neardup/neardup/transforms/format/record"
	"github.com/neardup/neardup/transforms/objects"
)

// Every pass over an input file opens it here (readFileFrom). The first
// pass takes the file's fingerprint (see package fingerprint) while it
// reads it, emits it in the file's output.InputFile (Files.Seen, for the
// summary) and writes that InputFile to Config.Work (seenName), beside the
// info shards. A later pass that reads the input itself, rather than its
// spool copy, reads it there and checks the file against it, so that a
// file changed between passes fails the job instead of giving outputs of
// two different files; a pass that finds none (no work directory, a stage
// tested alone) reads without checking. The file reaches every pass, the
// exact checks included, without a change to any pass's inputs: a side
// input there keeps Prism's scheduler busy (about 3 s of CPU on SCALE).

// fileRead says which file readFileFrom reads and how.
type fileRead struct {
	open string // the path to open: the input file or its spool copy
	name string // the input file's path, which names its records and rejects
	opt  record.Options
	// plain: open is a spool copy, already decompressed; else its
	// compression is found by name or content (record.NewReader).
	plain bool
	// tee, if not nil, gets the decompressed bytes of a compressed file
	// (nothing of a plain one).
	tee io.Writer
	// comp, if not nil, gets the compression found (record.None for a
	// file not read or empty).
	comp *record.Compression
	// seen, if not nil, is the first pass's reading of the input, which
	// open is then (not a spool copy): see readFileFrom.
	seen *seenFile
	// count, if not nil, gets the number of stored bytes read.
	count *atomic.Int64
	// stat, if not nil, is the size and modification time the file must
	// have before and after this read: what the splitter saw of a file
	// read in units (see units.go).
	stat *fingerprint.Fingerprint
	// version, if not "", is the version of the gs:// or s3:// object
	// that this read must find (objects.Object.Version): what the
	// splitter saw.
	version string
	// partial: this read is a unit of a file read in units other than the
	// first, which takes the count and checksum of the whole file: it
	// reads its rows only.
	partial bool
	// parquet, if not nil, is called with a Parquet input in place of
	// record.ReadParquet (see parquet.go).
	parquet func(ra io.ReaderAt, size int64) error
}

// seenFile is what the first pass read of an input file.
type seenFile struct {
	unread bool // it rejected the whole file without reading it
	fp     fingerprint.Fingerprint
	comp   record.Compression // the compression it found
}

// seenName is the name of the first pass's InputFile of input file index
// file in Config.Work.
func seenName(file int) string { return fmt.Sprintf("seen-%05d.json", file) }

// writeSeen writes in (JSON, b) to dir as the first pass's reading of its
// file.
func writeSeen(ctx context.Context, dir string, file int, b []byte) error {
	err := writeFile(ctx, dir, seenName(file), func(w io.Writer) error {
		_, err := w.Write(b)
		return err
	}, false)
	if err != nil {
		return fmt.Errorf("work directory %s: %w", dir, err)
	}
	return nil
}

// readSeen returns the first pass's reading of input file index file from
// dir, or nil if there is none (no work directory, or a pass run without
// the first, as in a test of one stage).
func readSeen(ctx context.Context, dir string, file int) (*seenFile, error) {
	if dir == "" {
		return nil, nil
	}
	path := output.JoinPath(dir, seenName(file))
	rc, err := openRead(ctx, path)
	if errors.Is(err, fs.ErrNotExist) {
		return nil, nil
	}
	if err != nil {
		return nil, fmt.Errorf("the first pass's reading of input file %d: %w", file, err)
	}
	defer rc.Close()
	var in output.InputFile
	if err := json.NewDecoder(rc).Decode(&in); err != nil {
		return nil, fmt.Errorf("%s: %w", path, err)
	}
	if in.Fingerprint == "" {
		return &seenFile{unread: true}, nil
	}
	fp, err := fingerprint.Parse(in.Fingerprint)
	if err != nil {
		return nil, fmt.Errorf("%s: %w", path, err)
	}
	comp := record.None
	if in.Compression != "" {
		if comp, err = record.ParseCompression(in.Compression); err != nil {
			return nil, fmt.Errorf("%s: %w", path, err)
		}
	}
	return &seenFile{fp: fp, comp: comp}, nil
}

// readFileFrom opens rd.open (any Beam filesystem; gzip or zstd by name or
// content, see record.NewReader, unless rd.plain; Parquet by name or format,
// see parquet.go) and
// parses it as if it were the input file rd.name: records and rejects are
// named by rd.name (for the text format, it is the document id). It
// returns the fingerprint of the stored bytes it read, or nil if it did
// not open the file.
//
// A path that is not a regular file (a directory, a FIFO, a socket, a
// device; for a local path, also a dangling symlink or a symlink loop) or
// that may not be opened is one whole-file reject (Line 0,
// record.ReasonNotAFile or record.ReasonUnreadable), found without opening
// the file where the filesystem can tell: opening a FIFO blocks. Every pass
// over the input sees the same reject and no record of the file. Any other
// failure to open the file is an error, which fails the bundle (a runner
// may retry it).
//
// With rd.seen, a later pass reads nothing of a file the first pass did not
// read, and fails with a *fingerprint.ChangedError when the file's size or
// modification time (checked before reading) or the bytes it read (checked
// once read, before the caller commits anything) are not the first pass's.
func readFileFrom(ctx context.Context, rd fileRead, doc func(record.Doc) error, reject func(record.Reject) error) (*fingerprint.Fingerprint, error) {
	if rd.seen != nil && rd.seen.unread {
		return nil, nil
	}
	path := rd.open
	wholeFile := func(reason, detail string) (*fingerprint.Fingerprint, error) {
		if rd.seen != nil { // the first pass read it
			return nil, &fingerprint.ChangedError{Name: rd.name, Now: "now " + detail, Was: "read it"}
		}
		return nil, reject(record.Reject{File: rd.name, Reason: reason, Detail: rd.name + ": " + detail})
	}
	local := !strings.Contains(path, "://")
	if local {
		fi, err := os.Stat(path) // follows symlinks
		if what := notAFile(path, fi, err); what != "" {
			return wholeFile(record.ReasonNotAFile, what)
		}
		if errors.Is(err, fs.ErrPermission) { // a directory on the way may not be searched
			return wholeFile(record.ReasonUnreadable, err.Error())
		}
		if err != nil {
			return nil, fmt.Errorf("opening %s: %w", path, err)
		}
	}
	if !local && objects.Supported(path) && record.FormatFor(rd.name, rd.opt.Format) == record.Parquet {
		if fp, done, err := readObject(ctx, rd, doc, reject); done { // parquet.go
			return fp, err
		}
	}
	fsys, err := filesystem.New(ctx, path)
	if err != nil {
		return nil, fmt.Errorf("opening %s: %w", path, err)
	}
	defer fsys.Close()
	fp := fingerprint.Fingerprint{Size: -1}
	if !local {
		// What the filesystem can say without opening the file.
		if fp.Size, err = fsys.Size(ctx, path); err != nil {
			fp.Size = -1
		}
		if lm, ok := fsys.(filesystem.LastModifiedGetter); ok {
			fp.ModTime, _ = lm.LastModified(ctx, path)
		}
	}
	rc, err := fsys.OpenRead(ctx, path)
	if errors.Is(err, fs.ErrPermission) {
		return wholeFile(record.ReasonUnreadable, err.Error())
	}
	if err != nil {
		return nil, fmt.Errorf("opening %s: %w", path, err)
	}
	defer rc.Close()
	// Size and modification time of the local file opened (it may have been
	// replaced since the Stat above).
	if st, ok := rc.(interface{ Stat() (fs.FileInfo, error) }); ok {
		if fi, err := st.Stat(); err == nil {
			if what := notAFile(path, fi, nil); what != "" {
				return wholeFile(record.ReasonNotAFile, what)
			}
			fp.Size, fp.ModTime = fi.Size(), fi.ModTime()
		}
	}
	if rd.seen != nil {
		if err := rd.seen.fp.CheckStat(rd.name, fp.Size, fp.ModTime); err != nil {
			return nil, err
		}
	}
	if rd.stat != nil {
		if err := rd.stat.CheckStat(rd.name, fp.Size, fp.ModTime); err != nil {
			return nil, err
		}
	}
	if rg := rd.opt.Lines; rg != nil && rg.Offset > 0 { // a unit of a line file (lineunits.go)
		sk, ok := rc.(io.Seeker)
		if !ok {
			return nil, fmt.Errorf("reading %s from byte %d: not a local file", path, rg.Offset)
		}
		if _, err := sk.Seek(rg.Offset, io.SeekStart); err != nil {
			return nil, fmt.Errorf("reading %s from byte %d: %w", path, rg.Offset, err)
		}
	}
	var stored io.Reader = rc
	counted := &countingReader{rc, rd.count}
	if rd.count != nil {
		stored = counted
	}
	fr := fingerprint.NewReader(stored)
	comp := record.None // a Parquet file's codecs are its own
	if record.FormatFor(rd.name, rd.opt.Format) == record.Parquet {
		err = readParquetFile(rc, fr, fp.Size, rd, doc, reject) // parquet.go
	} else {
		comp, err = readStream(fr, rd, doc, reject)
	}
	if err != nil {
		return nil, err
	}
	if rd.opt.Lines != nil { // unit 0 reads on for the checksum: the rest is the other units' to count
		counted.n = nil
	}
	if rd.comp != nil {
		*rd.comp = comp
	}
	if rd.partial {
		return &fp, rd.statAgain(path)
	}
	var readErr error
	fp.Read, fp.CRC, readErr = fr.Finish()
	if rd.seen != nil {
		if err := rd.seen.fp.CheckRead(rd.name, fp.Read, fp.CRC); err != nil {
			return nil, err
		}
	}
	if local && readErr == nil && fp.Read != fp.Size {
		// Written to while this pass read it.
		return nil, &fingerprint.ChangedError{Name: rd.name, Now: fmt.Sprintf("read %d bytes", fp.Read),
			Was: fmt.Sprintf("opened it with %d bytes", fp.Size)}
	}
	return &fp, rd.statAgain(path)
}

// statAgain checks, once read, that the local file at path still has the
// size and modification time of rd.stat, if set.
func (rd fileRead) statAgain(path string) error {
	if rd.stat == nil {
		return nil
	}
	fi, err := os.Stat(path)
	if err != nil {
		return &fingerprint.ChangedError{Name: rd.name, Now: "now " + err.Error(), Was: "saw it"}
	}
	return rd.stat.CheckStat(rd.name, fi.Size(), fi.ModTime())
}

// readStream parses the input of a line format or the text format from fr,
// decompressed by its name or content (see record.NewReader), and returns
// the compression it found.
func readStream(fr io.Reader, rd fileRead, doc func(record.Doc) error, reject func(record.Reject) error) (record.Compression, error) {
	c := record.Unknown
	if rd.plain || rd.opt.Lines != nil { // a unit of a line file is not compressed (lineunits.go)
		c = record.None
	}
	dr := record.NewReader(rd.name, fr, c)
	var r io.Reader = dr
	if rd.tee != nil {
		r = compressedTee{dr, rd.tee}
	}
	err := record.Read(r, rd.name, rd.opt, doc, reject)
	return max(dr.Compression(), record.None), err
}

// notAFile says what the local path is when it is not a regular file (nor
// a directory), given its os.Stat: a dangling symlink, a symlink loop, a
// named pipe, a socket, a device; "" if it is a regular file, or if err is
// another error.
func notAFile(path string, fi fs.FileInfo, err error) string {
	switch {
	case errors.Is(err, syscall.ELOOP):
		return "symlink loop"
	case errors.Is(err, fs.ErrNotExist):
		if li, lerr := os.Lstat(path); lerr == nil && li.Mode()&fs.ModeSymlink != 0 {
			target, _ := os.Readlink(path)
			return fmt.Sprintf("dangling symlink (to %s)", target)
		}
		return ""
	case err != nil:
		return ""
	}
	m := fi.Mode()
	switch {
	case m.IsRegular():
		return ""
	case m.IsDir():
		return "is a directory"
	case m&fs.ModeNamedPipe != 0:
		return "a named pipe (FIFO), not a regular file"
	case m&fs.ModeSocket != 0:
		return "a socket, not a regular file"
	case m&fs.ModeCharDevice != 0:
		return "a character device, not a regular file"
	case m&fs.ModeDevice != 0:
		return "a block device, not a regular file"
	}
	return fmt.Sprintf("not a regular file (mode %v)", m)
}

// compressedTee reads r and writes what it reads to w when r's stream is
// compressed (known from its first read on).
type compressedTee struct {
	r *record.Reader
	w io.Writer
}

func (t compressedTee) Read(p []byte) (int, error) {
	n, err := t.r.Read(p)
	if n > 0 && t.r.Compression() != record.None {
		if _, werr := t.w.Write(p[:n]); werr != nil {
			return n, werr
		}
	}
	return n, err
}

// countingReader adds the bytes read through it to n, if not nil.
type countingReader struct {
	r io.Reader
	n *atomic.Int64
}

func (c *countingReader) Read(p []byte) (int, error) {
	k, err := c.r.Read(p)
	if c.n != nil {
		c.n.Add(int64(k))
	}
	return k, err
}
