package jobfiles

import (
	"context"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"strings"
	"syscall"
	"time"

	"github.com/apache/beam/sdks/v2/go/pkg/beam/io/filesystem"

	"github.com/neardup/neardup/transforms/format/wire"
	"github.com/neardup/neardup/transforms/internal/workfiles"
	"github.com/neardup/neardup/transforms/objects"
)

// WorkDir is a stage's handle on the job's work directory: what every
// DoFn that reads or writes work files holds, in place of the job's
// Config. The packages below this one make the work files in it: info
// shards (package recshards), document shards (package docshards), spill
// files (spilled.To), spool copies (package spool) and the first pass's
// reading of each input (package input).
type WorkDir struct {
	Dir         string // Config.Work: every worker must be able to read and write it
	SegmentBits int    // Config.SegmentBits or its default, never 0
	Spill       bool   // Config.Spill
	Spool       string // Config.Spool
	Workers     int    // Config.Workers: goroutines over a file's documents (0: GOMAXPROCS)
	Stdin       string // Config.Stdin: the input file that holds standard input's copy
}

// NameOf is the name of the input file at path in records, rejects and the
// summary: the path, or "-" for standard input's copy.
func (w WorkDir) NameOf(path string) string {
	if w.Stdin != "" && path == w.Stdin {
		return "-"
	}
	return path
}

// Segment returns the key of the segment of document d (wire.Segment).
func (w WorkDir) Segment(d wire.Doc) int { return wire.Segment(d, w.SegmentBits) }

// SegmentShardName is the InfoShardName of the segment with key seg.
func (w WorkDir) SegmentShardName(seg int) string {
	return InfoShardName(wire.SegmentFile(seg, w.SegmentBits))
}

// WorkDirName is the work directory pipeline.Build uses, inside the output
// directory, when Config.Work is not set.
const WorkDirName = ".tmp-work"

// StopWriters ends the writing of files by every job of this process, for
// good: from now on no goroutine of a job (a unit read ahead, a shard
// being written, a spill or spool file) creates, writes or renames a file,
// and those under way are waited for, up to timeout; it reports whether
// they ended. A command stopped by a signal calls it before it removes
// its directories (see workfiles.Stop).
func StopWriters(timeout time.Duration) bool { return workfiles.Stop(timeout) }

// WorkFileError is the error of writing what (a work file named in it) to
// the work directory dir, needing about size bytes: without the temporary
// path the error holds, and with a hint when the disk is full.
func WorkFileError(what, dir string, err error, size int64) error {
	var pe *fs.PathError
	if errors.As(err, &pe) {
		err = pe.Err // its path is a temporary name, or what's own
	}
	hint := ""
	if errors.Is(err, syscall.ENOSPC) || errors.Is(err, syscall.EDQUOT) {
		hint = "; set TMPDIR to a larger disk"
	}
	return fmt.Errorf("writing %s in %s: %w (needs about %s%s)", what, dir, err, AboutBytes(size), hint)
}

// AboutBytes formats n bytes, rounded up to a kB or MB.
func AboutBytes(n int64) string {
	if n < 1<<20 {
		return fmt.Sprintf("%d kB", (n+1<<10-1)>>10)
	}
	return fmt.Sprintf("%d MB", (n+1<<20-1)>>20)
}

// WriteAtomically is workfiles.Write with the test hook of fault
// injection (stage "Write").
func WriteAtomically(ctx context.Context, dir, name string, write func(w io.Writer) error) error {
	return workfiles.Write(ctx, dir, name, "", write, true)
}

// RemoveMatching removes the files of dir that match any of globs, on dir's
// Beam filesystem; nothing if that filesystem cannot remove files.
func RemoveMatching(ctx context.Context, dir string, globs ...string) error {
	fsys, err := filesystem.New(ctx, objects.JoinPath(dir, "x"))
	if err != nil {
		return err
	}
	defer fsys.Close()
	rm, ok := fsys.(filesystem.Remover)
	if !ok {
		return nil
	}
	for _, glob := range globs {
		names, err := fsys.List(ctx, objects.JoinPath(dir, glob))
		if err != nil {
			return fmt.Errorf("listing %s: %w", dir, err)
		}
		for _, name := range names {
			if err := rm.Remove(ctx, name); err != nil {
				return fmt.Errorf("removing %s: %w", name, err)
			}
		}
	}
	return nil
}

// RemoveAll removes the info shards, the document shards (see
// DocShardName), the spill files and the first
// pass's readings of the inputs (and leftovers of their temporary names)
// from w.Dir, and the directory itself when it is local and left empty.
func (w WorkDir) RemoveAll(ctx context.Context) error {
	if w.Dir == "" {
		return nil
	}
	if err := RemoveMatching(ctx, w.Dir, "info-*.bin", ".tmp-info-*", "docs-*.bin", ".tmp-docs-*", "part-*.jsonl", ".tmp-part-*", SpillPattern, "seen-*.json", ".tmp-seen-*", InputsManifest, CheckManifest, ".tmp-"+InputsManifest+"-*", ".tmp-"+CheckManifest+"-*"); err != nil {
		return fmt.Errorf("work directory: %w", err)
	}
	if !strings.Contains(w.Dir, "://") {
		_ = os.Remove(w.Dir) // only if empty; a command's own work directory is its to remove
	}
	return nil
}
