// Package input reads an input file as every pass does. In: which file
// and how (FileRead: the input or its spool copy, the record options, a
// range of a split file); out: its records and rejects, named by the input
// file, and the fingerprint of the bytes read. The first pass writes what
// it read of each file (WriteSeen), and a later pass checks the file
// against it (ReadSeen, Reader): a file changed between passes fails the
// job. WriteParquetDedup writes the deduplicated copy of a Parquet input.
package input

import (
	"context"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"strings"
	"sync/atomic"
	"syscall"
	"time"

	"github.com/apache/beam/sdks/v2/go/pkg/beam/io/filesystem"

	"github.com/neardup/neardup/transforms/format/fingerprint"
	"github.com/neardup/neardup/transforms/format/record"
	"github.com/neardup/neardup/transforms/objects"
)

// Every pass over an input file opens it here (Read). The first
// pass takes the file's fingerprint (see package fingerprint) while it
// reads it, emits it in the file's summary.InputFile (filelist.Files.Seen,
// for the summary) and writes that InputFile to the work directory
// (WriteSeen), beside the info shards. A later pass that reads the input itself reads it there
// and checks the file against it, so that a file changed between passes
// fails the job instead of giving outputs of two different files; one
// that reads its spool copy checks the file's size and modification time
// (Seen.checkUnchanged, see Reader); a pass that finds none (no work directory, a
// stage tested alone) reads without checking. The file reaches every pass, the
// exact checks included, without a change to any pass's inputs: a side
// input there keeps Prism's scheduler busy.

// FileRead says which file Read reads and how.
type FileRead struct {
	Open string // the path to open: the input file or its spool copy
	Name string // the input file's path, which names its records and rejects
	Opt  record.Options
	// plain: open is a spool copy, already decompressed; else its
	// compression is found by name or content (record.NewReader).
	plain bool
	// tee, if not nil, gets the decompressed bytes of a compressed file
	// that can reach its dedup copy (record.Options.Copy; nothing of a
	// plain file).
	Tee io.Writer
	// comp, if not nil, gets the compression found (record.None for a
	// file not read or empty).
	Comp *record.Compression
	// seen, if not nil, is the first pass's reading of the input, which
	// open is then (not a spool copy): see Read.
	seen *Seen
	// count, if not nil, gets the number of stored bytes read.
	Count *atomic.Int64
	// stat, if not nil, is the size and modification time the file must
	// have before and after this read: what the splitter saw of a file
	// read in units (see ingest.Read).
	Stat *fingerprint.Fingerprint
	// version, if not "", is the version of the gs:// or s3:// object
	// that this read must find (objects.Object.Version): what the
	// splitter saw.
	Version string
	// partial: this read is a unit of a file read in units other than the
	// first, which takes the count and checksum of the whole file: it
	// reads its rows only.
	Partial bool
	// parquet, if not nil, is called with a Parquet input in place of
	// record.ReadParquet (see WriteParquetDedup).
	parquet func(ra io.ReaderAt, size int64) error
}

// Read opens rd.open (any Beam filesystem; gzip or zstd by name or
// content, see record.NewReader, unless rd.plain; Parquet by name or format,
// see readParquetFile) and
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
func Read(ctx context.Context, rd FileRead, doc func(record.Doc) error, reject func(record.Reject) error) (*fingerprint.Fingerprint, error) {
	if rd.seen != nil && rd.seen.unread {
		return nil, nil
	}
	path := rd.Open
	local := !strings.Contains(path, "://")
	if local {
		if err := checkLocal(path); err != nil {
			return rd.refuse(err, reject)
		}
	}
	if !local && objects.Supported(path) && record.FormatFor(rd.Name, rd.Opt.Format) == record.Parquet {
		if fp, done, err := readObject(ctx, rd, doc, reject); done { // parquet.go
			return fp, err
		}
	}
	fsys, err := filesystem.New(ctx, path)
	if err != nil {
		return nil, fmt.Errorf("opening %s: %w", path, err)
	}
	defer fsys.Close()
	rc, fp, err := openFile(ctx, fsys, path, local)
	if err != nil {
		return rd.refuse(err, reject)
	}
	defer rc.Close()
	return rd.readOpened(rc, fp, local, doc, reject)
}

// unreadable is a whole-file reject: the file is not a regular file or may
// not be opened (see Read).
type unreadable struct{ reason, detail string }

func (e *unreadable) Error() string { return e.detail }

// refuse returns err, or for an *unreadable the whole-file reject (an
// error with rd.seen: the first pass read the file).
func (rd FileRead) refuse(err error, reject func(record.Reject) error) (*fingerprint.Fingerprint, error) {
	u, ok := err.(*unreadable)
	switch {
	case !ok:
		return nil, err
	case rd.seen != nil:
		return nil, &fingerprint.ChangedError{Name: rd.Name, Now: "now " + u.detail, Was: "read it"}
	}
	return nil, reject(record.Reject{File: rd.Name, Reason: u.reason, Detail: rd.Name + ": " + u.detail})
}

// checkLocal checks that the local path is a regular file, without
// opening it.
func checkLocal(path string) error {
	fi, err := os.Stat(path) // follows symlinks
	if what := notAFile(path, fi, err); what != "" {
		return &unreadable{record.ReasonNotAFile, what}
	}
	if errors.Is(err, fs.ErrPermission) { // a directory on the way may not be searched
		return &unreadable{record.ReasonUnreadable, err.Error()}
	}
	if err != nil {
		return fmt.Errorf("opening %s: %w", path, err)
	}
	return nil
}

// openFile opens path on fsys, with its size and modification time: of the
// file opened, for a local one (it may have been replaced since
// checkLocal); else what the filesystem says without opening it.
func openFile(ctx context.Context, fsys filesystem.Interface, path string, local bool) (io.ReadCloser, fingerprint.Fingerprint, error) {
	fp := fingerprint.Fingerprint{Size: -1}
	var err error
	if !local {
		if fp.Size, err = fsys.Size(ctx, path); err != nil {
			fp.Size = -1
		}
		if lm, ok := fsys.(filesystem.LastModifiedGetter); ok {
			fp.ModTime, _ = lm.LastModified(ctx, path)
		}
	}
	rc, err := fsys.OpenRead(ctx, path)
	if errors.Is(err, fs.ErrPermission) {
		return nil, fp, &unreadable{record.ReasonUnreadable, err.Error()}
	}
	if err != nil {
		return nil, fp, fmt.Errorf("opening %s: %w", path, err)
	}
	if st, ok := rc.(interface{ Stat() (fs.FileInfo, error) }); ok {
		if fi, err := st.Stat(); err == nil {
			if what := notAFile(path, fi, nil); what != "" {
				rc.Close()
				return nil, fp, &unreadable{record.ReasonNotAFile, what}
			}
			fp.Size, fp.ModTime = fi.Size(), fi.ModTime()
		}
	}
	return rc, fp, nil
}

// readOpened reads the file rc opened rd.open, whose size and
// modification time are fp's, as Read says.
func (rd FileRead) readOpened(rc io.ReadCloser, fp fingerprint.Fingerprint, local bool, doc func(record.Doc) error, reject func(record.Reject) error) (*fingerprint.Fingerprint, error) {
	path := rd.Open
	for _, want := range []*fingerprint.Fingerprint{fpOf(rd.seen), rd.Stat} {
		if want != nil {
			if err := want.CheckStat(rd.Name, fp.Size, fp.ModTime); err != nil {
				return nil, err
			}
		}
	}
	if err := seekLines(rc, path, rd.Opt.Lines); err != nil {
		return nil, err
	}
	var stored io.Reader = rc
	counted := &countingReader{rc, rd.Count}
	if rd.Count != nil {
		stored = counted
	}
	fr := fingerprint.NewReader(stored)
	comp := record.None // a Parquet file's codecs are its own
	var err error
	if record.FormatFor(rd.Name, rd.Opt.Format) == record.Parquet {
		err = readParquetFile(rc, fr, fp.Size, rd, doc, reject) // parquet.go
	} else {
		comp, err = readStream(fr, rd, doc, reject)
	}
	if err != nil {
		return nil, err
	}
	if rd.Opt.Lines != nil { // unit 0 reads on for the checksum: the rest is the other units' to count
		counted.n = nil
	}
	if rd.Comp != nil {
		*rd.Comp = comp
	}
	if rd.Partial {
		return &fp, rd.statAgain(path)
	}
	var readErr error
	fp.Read, fp.CRC, readErr = fr.Finish()
	if rd.seen != nil {
		if err := rd.seen.fp.CheckRead(rd.Name, fp.Read, fp.CRC); err != nil {
			return nil, err
		}
	}
	if local && readErr == nil && fp.Read != fp.Size {
		// Written to while this pass read it.
		return nil, &fingerprint.ChangedError{Name: rd.Name, Now: fmt.Sprintf("read %d bytes", fp.Read),
			Was: fmt.Sprintf("opened it with %d bytes", fp.Size)}
	}
	return &fp, rd.statAgain(path)
}

// seekLines moves rc to the first line of the unit of a line file that
// lines reads (ingest.Read splits it), if it does not start the file.
func seekLines(rc io.Reader, path string, lines *record.LineRange) error {
	if lines == nil || lines.Offset <= 0 {
		return nil
	}
	sk, ok := rc.(io.Seeker)
	if !ok {
		return fmt.Errorf("reading %s from byte %d: not a local file", path, lines.Offset)
	}
	if _, err := sk.Seek(lines.Offset, io.SeekStart); err != nil {
		return fmt.Errorf("reading %s from byte %d: %w", path, lines.Offset, err)
	}
	return nil
}

// checkUnchanged checks, without reading it, that the input file path
// still has the size and modification time the first pass saw (s; nil:
// no check), for a pass that reads its spool copy instead: a file grown,
// cut or written to since fails it as a pass reading the file does. What
// the filesystem does not tell is not compared.
func (s *Seen) checkUnchanged(ctx context.Context, path string) error {
	if s == nil || s.unread {
		return nil
	}
	size, mtime := int64(-1), time.Time{}
	if !strings.Contains(path, "://") {
		fi, err := os.Stat(path)
		if err != nil {
			return &fingerprint.ChangedError{Name: path, Now: "now " + err.Error(), Was: "read it"}
		}
		size, mtime = fi.Size(), fi.ModTime()
	} else {
		fsys, err := filesystem.New(ctx, path)
		if err != nil {
			return fmt.Errorf("opening %s: %w", path, err)
		}
		defer fsys.Close()
		if n, err := fsys.Size(ctx, path); err == nil {
			size = n
		}
		if lm, ok := fsys.(filesystem.LastModifiedGetter); ok {
			mtime, _ = lm.LastModified(ctx, path)
		}
	}
	return s.fp.CheckStat(path, size, mtime)
}

// statAgain checks, once read, that the local file at path still has the
// size and modification time of rd.stat, if set.
func (rd FileRead) statAgain(path string) error {
	if rd.Stat == nil {
		return nil
	}
	fi, err := os.Stat(path)
	if err != nil {
		return &fingerprint.ChangedError{Name: rd.Name, Now: "now " + err.Error(), Was: "saw it"}
	}
	return rd.Stat.CheckStat(rd.Name, fi.Size(), fi.ModTime())
}

// readStream parses the input of a line format or the text format from fr,
// decompressed by its name or content (see record.NewReader), and returns
// the compression it found.
func readStream(fr io.Reader, rd FileRead, doc func(record.Doc) error, reject func(record.Reject) error) (record.Compression, error) {
	c := record.Unknown
	if rd.plain || rd.Opt.Lines != nil { // a unit of a line file is not compressed (ingest.Read)
		c = record.None
	}
	dr := record.NewReader(rd.Name, fr, c)
	opt := rd.Opt
	if rd.Tee != nil {
		opt.Copy = compressedTee{dr, rd.Tee}
	}
	err := record.Read(dr, rd.Name, opt, doc, reject)
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

// compressedTee writes to w what it gets when r's stream is compressed
// (known from r's first read on), and drops it when it is not.
type compressedTee struct {
	r *record.Reader
	w io.Writer
}

func (t compressedTee) Write(p []byte) (int, error) {
	if t.r.Compression() == record.None {
		return len(p), nil
	}
	return t.w.Write(p)
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
