// Package extsort sorts fixed-size binary records within a memory budget:
// sorted runs of at most a share of the budget, written through bufio to
// a temporary directory and merged k ways; Fixed makes the Codec of a
// fixed-size record from the list of its fields. The clusters stage
// decides its large partitions with it (package graph/external),
// JoinFirst sorts a segment's candidate pairs with it (package near).
package extsort

import (
	"bufio"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"slices"
	"strconv"
)

// Codec is how records of type T are written, read and ordered. Cmp must
// be a total order on the records a sort sees, so that the order of equal
// keys does not depend on how the records were split into runs.
type Codec[T any] struct {
	Size int
	Put  func(b []byte, v *T)
	Get  func(b []byte, v *T)
	Cmp  func(a, b T) int
	// Sort, if set, sorts a run in Cmp's order in place and returns it,
	// possibly without some repeats (a faster sort for T, or one that
	// drops what the reader drops anyway); nil: slices.SortFunc by Cmp.
	Sort func(run []T) []T
}

func (c *Codec[T]) sort(run []T) []T {
	if c.Sort != nil {
		return c.Sort(run)
	}
	slices.SortFunc(run, c.Cmp)
	return run
}

// Dir is the temporary directory of one external sort or more: its files,
// the share of the budget a Sorter buffers and the merges' fan-in and read
// buffers.
type Dir struct {
	path    string
	files   int
	share   int64 // bytes a sorter buffers before it writes a run
	fanIn   int
	bufSize int
	count   func(n int64)
}

// NewDir makes a temporary directory in parent, named prefix and a random
// suffix, for sorts within about budget bytes: each Sorter buffers a
// quarter of it. count, if not nil, is given the bytes of each file
// written.
func NewDir(parent, prefix string, budget int64, count func(n int64)) (*Dir, error) {
	dir, err := os.MkdirTemp(parent, prefix)
	if err != nil {
		return nil, fmt.Errorf("external sort: directory %s: %w", parent, UnwrapPath(err))
	}
	buf := int(min(max(budget/64, 512), 64<<10))
	fan := int(min(max(budget/int64(4*buf), 2), 256))
	return &Dir{path: dir, share: budget / 4, fanIn: fan, bufSize: buf, count: count}, nil
}

// Path is the directory's path.
func (d *Dir) Path() string { return d.path }

// BufSize is the size of the read and write buffers of the directory's
// files, for other files of the same budget.
func (d *Dir) BufSize() int { return d.bufSize }

// Remove removes the directory and its files; a nil Dir is none.
func (d *Dir) Remove() error {
	if d == nil {
		return nil
	}
	if err := os.RemoveAll(d.path); err != nil {
		return fileErr("remove", d.path, err)
	}
	return nil
}

// UnwrapPath drops the path of a *fs.PathError, for messages that name
// the file themselves.
func UnwrapPath(err error) error {
	var pe *fs.PathError
	if errors.As(err, &pe) {
		return pe.Err
	}
	return err
}

func fileErr(op, name string, err error) error {
	return fmt.Errorf("external sort: %s %s: %w", op, name, UnwrapPath(err))
}

// Writer writes records of type T to a new file of a Dir.
type Writer[T any] struct {
	c    *Codec[T]
	d    *Dir
	f    *os.File
	w    *bufio.Writer
	b    []byte
	name string
	n    int64 // records put
}

// NewWriter creates a new file in d.
func NewWriter[T any](d *Dir, c *Codec[T]) (*Writer[T], error) {
	name := filepath.Join(d.path, strconv.Itoa(d.files)+".run")
	d.files++
	f, err := os.Create(name)
	if err != nil {
		return nil, fileErr("create", name, err)
	}
	return &Writer[T]{c: c, d: d, f: f, w: bufio.NewWriterSize(f, d.bufSize), b: make([]byte, c.Size), name: name}, nil
}

// Put writes v.
func (w *Writer[T]) Put(v *T) error {
	w.c.Put(w.b, v)
	w.n++
	if _, err := w.w.Write(w.b); err != nil {
		return fileErr("write", w.name, err)
	}
	return nil
}

// Close flushes and closes the file and returns its name; on an error the
// file is removed.
func (w *Writer[T]) Close() (string, error) {
	if w.d.count != nil {
		w.d.count(w.n * int64(len(w.b)))
	}
	err := w.w.Flush()
	if cerr := w.f.Close(); err == nil {
		err = cerr
	}
	if err != nil {
		os.Remove(w.name)
		return "", fileErr("write", w.name, err)
	}
	return w.name, nil
}

// Abort closes and removes the file.
func (w *Writer[T]) Abort() {
	w.f.Close()
	os.Remove(w.name)
}

// Source yields records in order.
type Source[T any] interface {
	// Next sets *v to the next record; false at the end.
	Next(v *T) (bool, error)
	// Close releases the source, and removes the files it owns.
	Close()
}

// Reader reads the records of a file; Close removes the file when owned.
type Reader[T any] struct {
	c     *Codec[T]
	f     *os.File
	r     *bufio.Reader
	b     []byte
	name  string
	owned bool
}

// Open opens file name of d for reading; owned: Close removes it.
func Open[T any](d *Dir, c *Codec[T], name string, owned bool) (*Reader[T], error) {
	f, err := os.Open(name)
	if err != nil {
		return nil, fileErr("open", name, err)
	}
	return &Reader[T]{c: c, f: f, r: bufio.NewReaderSize(f, d.bufSize), b: make([]byte, c.Size), name: name, owned: owned}, nil
}

func (r *Reader[T]) Next(v *T) (bool, error) {
	if _, err := io.ReadFull(r.r, r.b); err != nil {
		if err == io.EOF {
			return false, nil
		}
		return false, fileErr("read", r.name, err)
	}
	r.c.Get(r.b, v)
	return true, nil
}

func (r *Reader[T]) Close() {
	r.f.Close()
	if r.owned {
		os.Remove(r.name)
	}
}

// memSource yields a sorted slice.
type memSource[T any] struct{ recs []T }

func (m *memSource[T]) Next(v *T) (bool, error) {
	if len(m.recs) == 0 {
		return false, nil
	}
	*v, m.recs = m.recs[0], m.recs[1:]
	return true, nil
}

func (m *memSource[T]) Close() { m.recs = nil }
