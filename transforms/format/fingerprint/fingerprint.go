// Package fingerprint identifies the content of an input file as a pass
// of a job read it, so that a later pass over the file can tell that it
// changed in between: its size and modification time, from the
// filesystem, and the number and CRC-32C (Castagnoli) of the stored bytes
// read (compressed, for a compressed file), computed by a Reader while the
// pass reads them rather than in a pass of its own.
//
// A later pass checks the cheap part before reading (CheckStat) and the
// checksum of what it read after (CheckRead), before it commits anything it
// made of the file.
package fingerprint

import (
	"errors"
	"fmt"
	"hash/crc32"
	"io"
	"strconv"
	"strings"
	"time"
)

// Fingerprint is what a pass read of a file.
type Fingerprint struct {
	Size    int64     // from the filesystem; -1 if unknown
	ModTime time.Time // from the filesystem; zero if unknown
	Read    int64     // stored bytes read, to the end of the file
	CRC     uint32    // CRC-32C of those bytes
}

var table = crc32.MakeTable(crc32.Castagnoli)

// String returns f as "size=N mtime=T read=N crc32c=XXXXXXXX" (T in
// RFC 3339 with nanoseconds, UTC, or "-" if unknown), which Parse reads.
func (f Fingerprint) String() string {
	mtime := "-"
	if !f.ModTime.IsZero() {
		mtime = f.ModTime.UTC().Format(time.RFC3339Nano)
	}
	return fmt.Sprintf("size=%d mtime=%s read=%d crc32c=%08x", f.Size, mtime, f.Read, f.CRC)
}

// Parse reads the String form of a Fingerprint.
func Parse(s string) (Fingerprint, error) {
	var f Fingerprint
	fields := strings.Fields(s)
	bad := func(what string) (Fingerprint, error) {
		return Fingerprint{}, fmt.Errorf("fingerprint %q: bad %s", s, what)
	}
	if len(fields) != 4 {
		return bad("form")
	}
	var err error
	for i, key := range []string{"size", "mtime", "read", "crc32c"} {
		v, ok := strings.CutPrefix(fields[i], key+"=")
		if !ok {
			return bad(key)
		}
		switch key {
		case "size":
			f.Size, err = strconv.ParseInt(v, 10, 64)
		case "mtime":
			if v != "-" {
				f.ModTime, err = time.Parse(time.RFC3339Nano, v)
			}
		case "read":
			f.Read, err = strconv.ParseInt(v, 10, 64)
		case "crc32c":
			var c uint64
			c, err = strconv.ParseUint(v, 16, 32)
			f.CRC = uint32(c)
		}
		if err != nil {
			return bad(key)
		}
	}
	return f, nil
}

// ErrChanged is wrapped by the errors of CheckStat and CheckRead.
var ErrChanged = errors.New("input changed during the run")

// ChangedError says that input file Name is not what an earlier pass read:
// Now says what this pass found, Was what the first pass did.
type ChangedError struct {
	Name, Now, Was string
}

func (e *ChangedError) Error() string {
	return fmt.Sprintf("input %s changed during the run (%s, the first pass %s): rerun when it is stable", e.Name, e.Now, e.Was)
}

func (e *ChangedError) Unwrap() error { return ErrChanged }

// CheckStat compares what the filesystem now says of file name (size -1 or
// a zero mtime: unknown) with f, the first pass's fingerprint of it; what
// either side does not know is not compared.
func (f Fingerprint) CheckStat(name string, size int64, mtime time.Time) error {
	sizeDiffers := size >= 0 && f.Size >= 0 && size != f.Size
	timeDiffers := !mtime.IsZero() && !f.ModTime.IsZero() && !mtime.Equal(f.ModTime)
	if !sizeDiffers && !timeDiffers {
		return nil
	}
	stat := func(size int64, mtime time.Time) string {
		if mtime.IsZero() {
			return fmt.Sprintf("%d bytes", size)
		}
		return fmt.Sprintf("%d bytes modified %s", size, mtime.UTC().Format(time.RFC3339Nano))
	}
	return &ChangedError{Name: name, Now: "now " + stat(size, mtime), Was: "saw " + stat(f.Size, f.ModTime)}
}

// CheckRead compares the stored bytes a pass read of file name, n of them
// with CRC-32C crc, with those the first pass read (f).
func (f Fingerprint) CheckRead(name string, n int64, crc uint32) error {
	if n == f.Read && crc == f.CRC {
		return nil
	}
	return &ChangedError{Name: name, Now: fmt.Sprintf("read %d bytes with CRC-32C 0x%08x", n, crc),
		Was: fmt.Sprintf("read %d bytes with 0x%08x", f.Read, f.CRC)}
}

// Reader passes on the bytes of a file, counting them and computing their
// CRC-32C.
type Reader struct {
	r   io.Reader
	n   int64
	crc uint32
	err error // the first error other than io.EOF
}

// NewReader returns a Reader of r.
func NewReader(r io.Reader) *Reader { return &Reader{r: r} }

func (r *Reader) Read(p []byte) (int, error) {
	n, err := r.r.Read(p)
	if n > 0 {
		r.n += int64(n)
		r.crc = crc32.Update(r.crc, table, p[:n])
	}
	if err != nil && err != io.EOF && r.err == nil {
		r.err = err
	}
	return n, err
}

// Finish reads what is left of the file, so that the count and checksum
// cover it to its end however much the consumer read, and returns them. A
// read error ends the file: both then cover the bytes before it, and err
// is the first read error (the consumer's or Finish's).
func (r *Reader) Finish() (n int64, crc uint32, err error) {
	if r.err == nil {
		_, _ = io.Copy(io.Discard, r)
	}
	return r.n, r.crc, r.err
}
