package transforms

import (
	"context"
	"crypto/rand"
	"encoding/hex"
	"fmt"
	"os"
	"path/filepath"

	"github.com/apache/beam/sdks/v2/go/pkg/beam/log"

	"github.com/neardup/neardup/transforms/format/record"
	"github.com/neardup/neardup/transforms/internal/docpool"
)

// The spool keeps a copy of each compressed (gzip or zstd) input file,
// written by the first pass: its decompressed bytes, so that the passes
// that need the records as they are (the deduplicated copy) read plain
// bytes instead of inflating the file again. (The passes that shingle
// documents read the document shards instead: see docshards.go.) It is a
// local-disk cache for runs on one machine
// (workDir.Spool names a directory the command creates and removes); a pass
// that finds no spool file, as on a cluster where passes run on other
// machines, reads the input itself. A file whose reading ended in an error
// gets no spool, and a copy that cannot be written (a full disk, say) is
// dropped with a warning in the runner's log: the job goes on without it.

// Spooled returns the spool copy of input file index file if there is one,
// else path itself.
func (c Config) Spooled(file int, path string) string { return c.work().spooled(file, path) }

// spooled is Config.Spooled.
func (w workDir) spooled(file int, path string) string {
	if w.Spool != "" {
		if _, err := os.Stat(w.spoolPath(file)); err == nil {
			return w.spoolPath(file)
		}
	}
	return path
}

// spoolPath is where the copy of input file index file lives.
func (w workDir) spoolPath(file int) string {
	return filepath.Join(w.Spool, fmt.Sprintf("input-%05d", file))
}

// reader returns the reader of input file index file at path: from the
// spool if it holds the file, else from path itself, checked against the
// first pass's reading of it in w.Dir (see input.go). Records and rejects
// are named by path either way.
func (w workDir) reader(ctx context.Context, file int, path string, opt record.Options) docpool.FileReader {
	return func(doc func(record.Doc) error, reject func(record.Reject) error) error {
		rd := fileRead{open: w.spooled(file, path), name: path, opt: opt}
		rd.plain = rd.open != path
		if !rd.plain { // a spool copy holds what the first pass read
			var err error
			if rd.seen, err = readSeen(ctx, w.Dir, file); err != nil {
				return err
			}
		}
		_, err := readFileFrom(ctx, rd, doc, reject)
		return err
	}
}

// spoolFile is a spool copy being written: a temporary name, renamed into
// place by commit. Its Write never fails: the first error is kept, and the
// copy is dropped at commit.
type spoolFile struct {
	*os.File
	final, input string
	err          error
}

// Write writes p to the copy unless a write failed before; it reports
// success either way, so that reading the input through an io.TeeReader
// goes on.
func (s *spoolFile) Write(p []byte) (int, error) {
	if s.err == nil {
		_, s.err = s.File.Write(p)
	}
	return len(p), nil
}

// newSpool starts the spool copy of an input file, or returns nil when
// there is no spool. It gets bytes only if the file is compressed (see
// compressedTee); the caller commits it only then.
func (w workDir) newSpool(ctx context.Context, file int, path string) *spoolFile {
	if w.Spool == "" {
		return nil
	}
	return newSpoolFile(ctx, w.spoolPath(file), path)
}

// newSpoolFile creates a temporary file that commit renames to final, the
// spool copy of input path, or returns nil (with a warning) if it cannot.
func newSpoolFile(ctx context.Context, final, path string) *spoolFile {
	var rnd [6]byte
	_, _ = rand.Read(rnd[:])
	f, err := os.Create(final + ".tmp-" + hex.EncodeToString(rnd[:]))
	if err != nil {
		log.Warnf(ctx, "no spool copy of %s, later passes read it again: %v", path, err)
		return nil
	}
	return &spoolFile{File: f, final: final, input: path}
}

// commit closes the copy and renames it into place, or drops it if it could
// not be written.
func (s *spoolFile) commit(ctx context.Context) {
	err := s.err
	if err == nil {
		err = s.File.Close()
	}
	if err == nil {
		err = os.Rename(s.File.Name(), s.final)
	}
	if err != nil {
		log.Warnf(ctx, "dropped the spool copy of %s, later passes read it again: %v", s.input, err)
		s.abort()
		return
	}
	s.File = nil
}

// abort removes an uncommitted copy.
func (s *spoolFile) abort() {
	if s != nil && s.File != nil {
		s.File.Close()
		os.Remove(s.File.Name())
		s.File = nil
	}
}
