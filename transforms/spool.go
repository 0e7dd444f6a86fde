package transforms

import (
	"context"
	"crypto/rand"
	"encoding/hex"
	"fmt"
	"os"
	"path/filepath"

	"github.com/neardup/neardup/transforms/record"
)

// The spool keeps a decompressed copy of each gzipped input file, written by
// the first pass, so that the later passes (signatures, exact checks, the
// deduplicated copy) read plain bytes instead of inflating the file again.
// It is a local-disk cache for runs on one machine (Config.Spool names a
// directory the command creates and removes); a pass that finds no spool
// file, as on a cluster where passes run on other machines, reads the input
// itself. A file whose reading ended in an error gets no spool.

// Spooled returns the spool copy of input file index file if there is one,
// else path itself.
func (c Config) Spooled(file int, path string) string {
	if c.Spool != "" {
		if _, err := os.Stat(c.spoolPath(file)); err == nil {
			return c.spoolPath(file)
		}
	}
	return path
}

// spoolPath is where the copy of input file index file lives.
func (c Config) spoolPath(file int) string {
	return filepath.Join(c.Spool, fmt.Sprintf("input-%05d", file))
}

// reader returns the reader of input file index file at path: from the
// spool if it holds the file, else from path itself. Records and rejects
// are named by path either way.
func (c Config) reader(ctx context.Context, file int, path string, opt record.Options) fileReader {
	open := c.Spooled(file, path)
	return func(doc func(record.Doc) error, reject func(record.Reject) error) error {
		return readFileFrom(ctx, open, path, opt, nil, doc, reject)
	}
}

// spoolFile is a spool copy being written: a temporary name, renamed into
// place by commit.
type spoolFile struct {
	*os.File
	final string
}

// newSpool starts the spool copy of a gzipped input file, or returns nil
// when there is no spool or the file is not compressed.
func (c Config) newSpool(_ context.Context, file int, path string) (*spoolFile, error) {
	if c.Spool == "" || !record.IsGzip(path) {
		return nil, nil
	}
	var rnd [6]byte
	_, _ = rand.Read(rnd[:])
	final := c.spoolPath(file)
	f, err := os.Create(final + ".tmp-" + hex.EncodeToString(rnd[:]))
	if err != nil {
		return nil, fmt.Errorf("spool for %s: %w", path, err)
	}
	return &spoolFile{File: f, final: final}, nil
}

// commit closes the copy and renames it into place.
func (s *spoolFile) commit() error {
	if err := s.File.Close(); err != nil {
		return fmt.Errorf("spool %s: %w", s.final, err)
	}
	if err := os.Rename(s.File.Name(), s.final); err != nil {
		return fmt.Errorf("spool %s: %w", s.final, err)
	}
	s.File = nil
	return nil
}

// abort removes an uncommitted copy.
func (s *spoolFile) abort() {
	if s.File != nil {
		s.File.Close()
		os.Remove(s.File.Name())
	}
}
