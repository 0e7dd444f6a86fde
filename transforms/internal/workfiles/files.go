// Package workfiles writes and reads the files a job keeps on Beam's
// filesystems (local, gs://, ...): whole files written atomically through a
// temporary name, readers that close their filesystem, and the file
// manifest that lists a job's input files.
package workfiles

import (
	"bufio"
	"context"
	"crypto/rand"
	"encoding/hex"
	"fmt"
	"io"
	"os"

	"github.com/apache/beam/sdks/v2/go/pkg/beam/io/filesystem"

	"github.com/neardup/neardup/transforms/internal/diskroom"
	"github.com/neardup/neardup/transforms/internal/faults"
	"github.com/neardup/neardup/transforms/objects"
)

// Write writes the file name in dir through a temporary name in the same
// directory and renames it into place, so that a failed or retried bundle
// never leaves a partial final file. A write that fails for lack of space
// is retried once after the job's optional files are dropped (see package
// diskroom). If hooked, the test hook of fault
// injection (stage "Write") runs before the rename. Once Stop is called
// it creates, writes and renames nothing (see Do). The bytes count as
// written to a work file of kind ("" for an output: see Writer).
func Write(ctx context.Context, dir, name, kind string, write func(w io.Writer) error, hooked bool) error {
	final := objects.JoinPath(dir, name)
	fs, err := filesystem.New(ctx, final)
	if err != nil {
		return fmt.Errorf("writing %s: %w", final, err)
	}
	defer fs.Close()
	var rnd [8]byte
	_, _ = rand.Read(rnd[:])
	tmp := objects.JoinPath(dir, ".tmp-"+name+"-"+hex.EncodeToString(rnd[:]))
	var wc io.WriteCloser
	err = Do(func() (err error) {
		wc, err = fs.OpenWrite(ctx, tmp)
		return err
	})
	if err != nil {
		return fmt.Errorf("writing %s: %w", tmp, err)
	}
	bw := bufio.NewWriterSize(diskroom.Writer(Writer(kind, wc)), 1<<20)
	err = write(bw)
	if err == nil {
		err = bw.Flush()
	}
	if cerr := wc.Close(); err == nil {
		err = cerr
	}
	if err == nil && hooked {
		err = faults.Inject("Write", name)
	}
	if err == nil {
		err = Do(func() error { return filesystem.Rename(ctx, fs, tmp, final) })
	}
	if err != nil {
		if rm, ok := fs.(filesystem.Remover); ok {
			_ = rm.Remove(ctx, tmp)
		}
		return fmt.Errorf("writing %s: %w", final, err)
	}
	return nil
}

// Create creates the local file path, which must not exist, for a work
// file of kind: its writes count as written to kind (see Writer), a write
// that fails for lack of space is retried once after the job's optional
// files are dropped (see package diskroom), and once Stop is called it
// creates and writes nothing (see Do).
func Create(path, kind string) (io.WriteCloser, error) {
	var f *os.File
	err := Do(func() (err error) {
		f, err = os.OpenFile(path, os.O_WRONLY|os.O_CREATE|os.O_EXCL, 0o644)
		return err
	})
	if err != nil {
		return nil, err
	}
	return struct {
		io.Writer
		io.Closer
	}{diskroom.Writer(Writer(kind, f)), f}, nil
}

// Open opens path for reading on its Beam filesystem; closing the reader
// closes the filesystem too.
func Open(ctx context.Context, path string) (io.ReadCloser, error) {
	fsys, err := filesystem.New(ctx, path)
	if err != nil {
		return nil, err
	}
	rc, err := fsys.OpenRead(ctx, path)
	if err != nil {
		fsys.Close()
		return nil, err
	}
	return fsReader{rc, fsys}, nil
}

// fsReader is a reader that closes its filesystem with itself.
type fsReader struct {
	io.ReadCloser
	fsys filesystem.Interface
}

// Close closes the reader, then its filesystem.
func (r fsReader) Close() error {
	err := r.ReadCloser.Close()
	if cerr := r.fsys.Close(); err == nil {
		err = cerr
	}
	return err
}
