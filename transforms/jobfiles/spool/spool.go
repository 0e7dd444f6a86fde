// Package spool keeps a copy of each compressed (gzip or zstd) input
// file, written by the first pass, so that the passes that need the
// records as they are (the deduplicated copy) read plain bytes instead of
// inflating the file again. In: the decompressed bytes that the first pass
// tees to a File (Start, File.Commit): those that can reach the file's
// dedup copy (record.Options.Copy: its records' lines with their line
// ends, and of every other line, rejected or blank, its line end alone,
// so that the copy's lines are numbered as the file's). Out: the path a
// later pass reads the input from, the copy or the input itself (Source).
// (The passes that shingle documents read the document shards instead:
// see package docshards.)
//
// It is a local-disk cache for runs on one machine (jobfiles.WorkDir.Spool
// names a directory the command creates and removes, and Forget releases
// once its job has ended); a pass that finds no spool file, as on a
// cluster where passes run on other machines, reads the input itself. A
// file whose reading ended in an error gets no spool, and a copy that
// cannot be written (a full disk, say) is dropped with a warning in the
// runner's log: the job goes on without it.
//
// The spool yields to the files the job needs (see package diskroom): when
// a needed write fails for lack of space, every copy of the spool
// directory, written or being written, is deleted, no more are made, and
// the write is retried; the later passes then read the inputs themselves.
package spool

import (
	"bufio"
	"context"
	"crypto/rand"
	"encoding/hex"
	"errors"
	"io"
	"os"
	"path/filepath"
	"sync"

	"github.com/apache/beam/sdks/v2/go/pkg/beam/log"

	"github.com/neardup/neardup/transforms/internal/diskroom"
	"github.com/neardup/neardup/transforms/internal/workfiles"
	"github.com/neardup/neardup/transforms/jobfiles"
)

// dirs holds the *spoolDir of each spool directory of a job under
// way in this process, by path, from its first use to Forget.
var dirs sync.Map

// spoolDir is a spool directory: whether it was dropped to make room, and
// the copies being written into it.
type spoolDir struct {
	path       string
	mu         sync.Mutex
	dropped    bool
	open       map[*File]bool
	unregister func() // from diskroom
}

// dirOf returns the state of the spool directory dir, registered
// with diskroom the first time.
func dirOf(dir string) *spoolDir {
	if d, ok := dirs.Load(dir); ok {
		return d.(*spoolDir)
	}
	v, loaded := dirs.LoadOrStore(dir, &spoolDir{path: dir, open: map[*File]bool{}})
	d := v.(*spoolDir)
	if !loaded {
		unregister := diskroom.Optional(d.drop)
		d.mu.Lock()
		d.unregister = unregister
		d.mu.Unlock()
	}
	return d
}

// Forget releases what this process holds of the spool directory
// dir once its job has ended: the directory's state, and its place among
// the files that yield to other jobs' (see package diskroom). A job that
// uses dir afterwards starts afresh.
func Forget(dir string) {
	v, ok := dirs.LoadAndDelete(dir)
	if !ok {
		return
	}
	d := v.(*spoolDir)
	d.mu.Lock()
	unregister := d.unregister
	d.mu.Unlock()
	if unregister != nil {
		unregister()
	}
}

// isDropped reports whether the spool was dropped to make room.
func (d *spoolDir) isDropped() bool {
	d.mu.Lock()
	defer d.mu.Unlock()
	return d.dropped
}

// errSpoolDropped is why a copy being written was dropped.
var errSpoolDropped = errors.New("the spool was dropped to make room for the work files")

// drop deletes every copy in the spool directory, written or being
// written, so that no more are made, and reports whether it deleted any.
func (d *spoolDir) drop() bool {
	d.mu.Lock()
	defer d.mu.Unlock()
	d.dropped = true
	freed := false
	for s := range d.open {
		freed = s.fail(errSpoolDropped) || freed
	}
	done, _ := filepath.Glob(filepath.Join(d.path, "input-[0-9]*"))
	for _, p := range done {
		freed = os.Remove(p) == nil || freed
	}
	return freed
}

// Source returns the path to read input file index file (path) from: its
// copy in w.Spool if there is one, else path itself.
func Source(w jobfiles.WorkDir, file int, path string) string {
	if w.Spool != "" && !dirOf(w.Spool).isDropped() {
		if _, err := os.Stat(Path(w, file)); err == nil {
			return Path(w, file)
		}
	}
	return path
}

// Path is where the copy of input file index file lives in w.Spool.
func Path(w jobfiles.WorkDir, file int) string {
	return filepath.Join(w.Spool, jobfiles.SpoolName(file))
}

// File is a spool copy being written: a temporary name, renamed into
// place by Commit. Its Write never fails: the first error is kept, the
// copy's bytes are deleted at once, and the copy is dropped at commit.
type File struct {
	dir          *spoolDir
	mu           sync.Mutex // guards the writes and err
	file         *os.File
	bw           *bufio.Writer // to file: the copy gets a line at a time
	final, input string
	err          error
}

// Write writes p to the copy unless a write failed before; it reports
// success either way, so that reading the input goes on.
func (s *File) Write(p []byte) (int, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.err == nil {
		if _, err := s.bw.Write(p); err != nil {
			s.failLocked(err)
		}
	}
	return len(p), nil
}

// fail drops the copy's bytes for the reason err, unless it failed before,
// and reports whether it held any.
func (s *File) fail(err error) bool {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.err != nil {
		return false
	}
	return s.failLocked(err)
}

// failLocked is fail with s.mu held: the file is emptied and its name
// removed at once, to give its space back; commit or abort closes it.
func (s *File) failLocked(err error) bool {
	s.err = err
	s.bw.Reset(io.Discard)
	fi, serr := s.file.Stat()
	_ = s.file.Truncate(0)
	_ = os.Remove(s.file.Name())
	return serr == nil && fi.Size() > 0
}

// Start starts the copy in w.Spool of input file index file (path), or
// returns nil when there is no spool or it was dropped to make room. The
// first pass tees to it only the bytes of a compressed file (see
// input.FileRead.Tee), and commits it only then.
func Start(ctx context.Context, w jobfiles.WorkDir, file int, path string) *File {
	if w.Spool == "" {
		return nil
	}
	return newFile(ctx, dirOf(w.Spool), Path(w, file), path)
}

// newFile creates a temporary file in d that Commit renames to final,
// the spool copy of input path, or returns nil (with a warning) if it
// cannot or d was dropped.
func newFile(ctx context.Context, d *spoolDir, final, path string) *File {
	d.mu.Lock()
	defer d.mu.Unlock()
	if d.dropped {
		return nil
	}
	var rnd [6]byte
	_, _ = rand.Read(rnd[:])
	var f *os.File
	err := workfiles.Do(func() (err error) {
		f, err = os.Create(filepath.Join(filepath.Dir(final), ".tmp-"+filepath.Base(final)+"-"+hex.EncodeToString(rnd[:])))
		return err
	})
	if err != nil {
		log.Warnf(ctx, "no spool copy of %s, later passes read it again: %v", path, err)
		return nil
	}
	s := &File{dir: d, file: f, bw: bufio.NewWriterSize(workfiles.Writer(workfiles.KindSpool, f), 256<<10), final: final, input: path}
	d.open[s] = true
	return s
}

// Commit closes the copy and renames it into place, or drops it if it could
// not be written or the spool was dropped.
func (s *File) Commit(ctx context.Context) {
	s.dir.mu.Lock()
	defer s.dir.mu.Unlock()
	delete(s.dir.open, s)
	s.mu.Lock()
	defer s.mu.Unlock()
	err := s.err
	if err == nil {
		err = s.bw.Flush()
	}
	if err == nil {
		err = s.file.Close()
	}
	if err == nil {
		err = workfiles.Do(func() error { return os.Rename(s.file.Name(), s.final) })
	}
	if err != nil {
		log.Warnf(ctx, "dropped the spool copy of %s, later passes read it again: %v", s.input, err)
		s.file.Close()
		os.Remove(s.file.Name())
	}
	s.file = nil
}

// Abort removes an uncommitted copy.
func (s *File) Abort() {
	if s == nil {
		return
	}
	s.dir.mu.Lock()
	defer s.dir.mu.Unlock()
	delete(s.dir.open, s)
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.file != nil {
		s.file.Close()
		os.Remove(s.file.Name())
		s.file = nil
	}
}
