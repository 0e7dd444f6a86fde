package jobfiles

import (
	"bufio"
	"context"
	"crypto/rand"
	"encoding/hex"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"sync"

	"github.com/apache/beam/sdks/v2/go/pkg/beam/log"

	"github.com/neardup/neardup/transforms/internal/diskroom"
	"github.com/neardup/neardup/transforms/internal/workfiles"
)

// The spool keeps a copy of each compressed (gzip or zstd) input file,
// written by the first pass: the decompressed bytes that can reach the
// file's dedup copy (record.Options.Copy: its records' lines with their
// line ends, and of every other line, rejected or blank, its line end
// alone, so that the copy's lines are numbered as the file's), so that
// the passes that need the records as they are (the deduplicated copy)
// read plain bytes instead of inflating the file again. (The passes that
// shingle documents read the document shards instead: see package docshards.)
// It is a local-disk cache for runs on one machine
// (WorkDir.Spool names a directory the command creates and removes); a pass
// that finds no spool file, as on a cluster where passes run on other
// machines, reads the input itself. A file whose reading ended in an error
// gets no spool, and a copy that cannot be written (a full disk, say) is
// dropped with a warning in the runner's log: the job goes on without it.
//
// The spool yields to the files the job needs (see package diskroom): when
// a needed write fails for lack of space, every copy of the spool
// directory, written or being written, is deleted, no more are made, and
// the write is retried; the later passes then read the inputs themselves.

// spoolDirs holds the *SpoolDir of each spool directory of a job under
// way in this process, by path, from its first use to ForgetSpool.
var SpoolDirs sync.Map

// SpoolDir is a spool directory: whether it was dropped to make room, and
// the copies being written into it.
type SpoolDir struct {
	dir        string
	mu         sync.Mutex
	dropped    bool
	open       map[*SpoolFile]bool
	unregister func() // from diskroom
}

// SpoolDirOf returns the state of the spool directory dir, registered
// with diskroom the first time.
func SpoolDirOf(dir string) *SpoolDir {
	if d, ok := SpoolDirs.Load(dir); ok {
		return d.(*SpoolDir)
	}
	v, loaded := SpoolDirs.LoadOrStore(dir, &SpoolDir{dir: dir, open: map[*SpoolFile]bool{}})
	d := v.(*SpoolDir)
	if !loaded {
		unregister := diskroom.Optional(d.drop)
		d.mu.Lock()
		d.unregister = unregister
		d.mu.Unlock()
	}
	return d
}

// ForgetSpool releases what this process holds of the spool directory
// dir once its job has ended: the directory's state, and its place among
// the files that yield to other jobs' (see package diskroom). A job that
// uses dir afterwards starts afresh.
func ForgetSpool(dir string) {
	v, ok := SpoolDirs.LoadAndDelete(dir)
	if !ok {
		return
	}
	d := v.(*SpoolDir)
	d.mu.Lock()
	unregister := d.unregister
	d.mu.Unlock()
	if unregister != nil {
		unregister()
	}
}

// IsDropped reports whether the spool was dropped to make room.
func (d *SpoolDir) IsDropped() bool {
	d.mu.Lock()
	defer d.mu.Unlock()
	return d.dropped
}

// errSpoolDropped is why a copy being written was dropped.
var errSpoolDropped = errors.New("the spool was dropped to make room for the work files")

// drop deletes every copy in the spool directory, written or being
// written, so that no more are made, and reports whether it deleted any.
func (d *SpoolDir) drop() bool {
	d.mu.Lock()
	defer d.mu.Unlock()
	d.dropped = true
	freed := false
	for s := range d.open {
		freed = s.fail(errSpoolDropped) || freed
	}
	done, _ := filepath.Glob(filepath.Join(d.dir, "input-[0-9]*"))
	for _, p := range done {
		freed = os.Remove(p) == nil || freed
	}
	return freed
}

// Spooled returns the spool copy of input file index file if there is one,
// else path itself.
func (w WorkDir) Spooled(file int, path string) string {
	if w.Spool != "" && !SpoolDirOf(w.Spool).IsDropped() {
		if _, err := os.Stat(w.SpoolPath(file)); err == nil {
			return w.SpoolPath(file)
		}
	}
	return path
}

// SpoolPath is where the copy of input file index file lives.
func (w WorkDir) SpoolPath(file int) string {
	return filepath.Join(w.Spool, fmt.Sprintf("input-%05d", file))
}

// SpoolFile is a spool copy being written: a temporary name, renamed into
// place by commit. Its Write never fails: the first error is kept, the
// copy's bytes are deleted at once, and the copy is dropped at commit.
type SpoolFile struct {
	Dir          *SpoolDir
	mu           sync.Mutex // guards the writes and err
	File         *os.File
	Bw           *bufio.Writer // to file: the copy gets a line at a time
	Final, Input string
	Err          error
}

// Write writes p to the copy unless a write failed before; it reports
// success either way, so that reading the input goes on.
func (s *SpoolFile) Write(p []byte) (int, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.Err == nil {
		if _, err := s.Bw.Write(p); err != nil {
			s.failLocked(err)
		}
	}
	return len(p), nil
}

// fail drops the copy's bytes for the reason err, unless it failed before,
// and reports whether it held any.
func (s *SpoolFile) fail(err error) bool {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.Err != nil {
		return false
	}
	return s.failLocked(err)
}

// failLocked is fail with s.mu held: the file is emptied and its name
// removed at once, to give its space back; commit or abort closes it.
func (s *SpoolFile) failLocked(err error) bool {
	s.Err = err
	s.Bw.Reset(io.Discard)
	fi, serr := s.File.Stat()
	_ = s.File.Truncate(0)
	_ = os.Remove(s.File.Name())
	return serr == nil && fi.Size() > 0
}

// NewSpool starts the spool copy of an input file, or returns nil when
// there is no spool or it was dropped to make room. It gets bytes only if
// the file is compressed (see compressedTee); the caller commits it only
// then.
func (w WorkDir) NewSpool(ctx context.Context, file int, path string) *SpoolFile {
	if w.Spool == "" {
		return nil
	}
	return NewSpoolFile(ctx, SpoolDirOf(w.Spool), w.SpoolPath(file), path)
}

// NewSpoolFile creates a temporary file in d that commit renames to final,
// the spool copy of input path, or returns nil (with a warning) if it
// cannot or d was dropped.
func NewSpoolFile(ctx context.Context, d *SpoolDir, final, path string) *SpoolFile {
	d.mu.Lock()
	defer d.mu.Unlock()
	if d.dropped {
		return nil
	}
	var rnd [6]byte
	_, _ = rand.Read(rnd[:])
	var f *os.File
	err := workfiles.Do(func() (err error) {
		f, err = os.Create(final + ".tmp-" + hex.EncodeToString(rnd[:]))
		return err
	})
	if err != nil {
		log.Warnf(ctx, "no spool copy of %s, later passes read it again: %v", path, err)
		return nil
	}
	s := &SpoolFile{Dir: d, File: f, Bw: bufio.NewWriterSize(workfiles.Writer(workfiles.KindSpool, f), 256<<10), Final: final, Input: path}
	d.open[s] = true
	return s
}

// Commit closes the copy and renames it into place, or drops it if it could
// not be written or the spool was dropped.
func (s *SpoolFile) Commit(ctx context.Context) {
	s.Dir.mu.Lock()
	defer s.Dir.mu.Unlock()
	delete(s.Dir.open, s)
	s.mu.Lock()
	defer s.mu.Unlock()
	err := s.Err
	if err == nil {
		err = s.Bw.Flush()
	}
	if err == nil {
		err = s.File.Close()
	}
	if err == nil {
		err = workfiles.Do(func() error { return os.Rename(s.File.Name(), s.Final) })
	}
	if err != nil {
		log.Warnf(ctx, "dropped the spool copy of %s, later passes read it again: %v", s.Input, err)
		s.File.Close()
		os.Remove(s.File.Name())
	}
	s.File = nil
}

// Abort removes an uncommitted copy.
func (s *SpoolFile) Abort() {
	if s == nil {
		return
	}
	s.Dir.mu.Lock()
	defer s.Dir.mu.Unlock()
	delete(s.Dir.open, s)
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.File != nil {
		s.File.Close()
		os.Remove(s.File.Name())
		s.File = nil
	}
}
