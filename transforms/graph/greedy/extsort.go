package greedy

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
	"sync/atomic"
	"unsafe"
)

// External sorting for Stream: fixed-size binary records, sorted runs of
// at most a share of the budget written through bufio, merged k ways.

// codec is how records of type T are written, read and ordered. cmp must
// be a total order on the records a sort sees, so that the order of equal
// keys does not depend on how the records were split into runs.
type codec[T any] struct {
	size int
	put  func(b []byte, v *T)
	get  func(b []byte, v *T)
	cmp  func(a, b T) int
}

// spillDir is the temporary directory of one Stream's spilled decision:
// its files, the share of the budget a sorter buffers and the merges'
// fan-in and read buffers.
type spillDir struct {
	dir     string
	files   int
	share   int64 // bytes a sorter buffers before it writes a run
	fanIn   int
	bufSize int
}

func newSpillDir(parent string, budget int64) (*spillDir, error) {
	dir, err := os.MkdirTemp(parent, "greedy-decide-")
	if err != nil {
		return nil, fmt.Errorf("greedy: spill directory %s: %w", parent, unwrapPath(err))
	}
	buf := int(min(max(budget/64, 512), 64<<10))
	fan := int(min(max(budget/int64(4*buf), 2), 256))
	return &spillDir{dir: dir, share: budget / 4, fanIn: fan, bufSize: buf}, nil
}

// unwrapPath drops the path of a *fs.PathError, for messages that name
// the file themselves.
func unwrapPath(err error) error {
	var pe *fs.PathError
	if errors.As(err, &pe) {
		return pe.Err
	}
	return err
}

func fileErr(op, name string, err error) error {
	return fmt.Errorf("greedy: %s %s: %w", op, name, unwrapPath(err))
}

func (sp *spillDir) remove() error {
	if sp == nil {
		return nil
	}
	if err := os.RemoveAll(sp.dir); err != nil {
		return fileErr("remove", sp.dir, err)
	}
	return nil
}

// writer writes records of type T to a new file of sp.
type writer[T any] struct {
	c    *codec[T]
	f    *os.File
	w    *bufio.Writer
	b    []byte
	name string
	n    int64 // records put
}

// spilledBytes counts the bytes this process has written to the files of
// spilled decisions and not yet taken (TakeSpilledBytes).
var spilledBytes atomic.Int64

// TakeSpilledBytes returns the bytes this process has written to spilled
// decisions' files since the last call.
func TakeSpilledBytes() int64 { return spilledBytes.Swap(0) }

func newWriter[T any](sp *spillDir, c *codec[T]) (*writer[T], error) {
	name := filepath.Join(sp.dir, strconv.Itoa(sp.files)+".run")
	sp.files++
	f, err := os.Create(name)
	if err != nil {
		return nil, fileErr("create", name, err)
	}
	return &writer[T]{c: c, f: f, w: bufio.NewWriterSize(f, sp.bufSize), b: make([]byte, c.size), name: name}, nil
}

func (w *writer[T]) put(v *T) error {
	w.c.put(w.b, v)
	w.n++
	if _, err := w.w.Write(w.b); err != nil {
		return fileErr("write", w.name, err)
	}
	return nil
}

// close flushes and closes the file and returns its name; on an error the
// file is removed.
func (w *writer[T]) close() (string, error) {
	spilledBytes.Add(w.n * int64(len(w.b)))
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

// abort closes and removes the file.
func (w *writer[T]) abort() {
	w.f.Close()
	os.Remove(w.name)
}

// source yields records in order.
type source[T any] interface {
	next(v *T) (bool, error)
	close()
}

// reader reads the records of a file; close removes the file when owned.
type reader[T any] struct {
	c     *codec[T]
	f     *os.File
	r     *bufio.Reader
	b     []byte
	name  string
	owned bool
}

func openReader[T any](sp *spillDir, c *codec[T], name string, owned bool) (*reader[T], error) {
	f, err := os.Open(name)
	if err != nil {
		return nil, fileErr("open", name, err)
	}
	return &reader[T]{c: c, f: f, r: bufio.NewReaderSize(f, sp.bufSize), b: make([]byte, c.size), name: name, owned: owned}, nil
}

func (r *reader[T]) next(v *T) (bool, error) {
	if _, err := io.ReadFull(r.r, r.b); err != nil {
		if err == io.EOF {
			return false, nil
		}
		return false, fileErr("read", r.name, err)
	}
	r.c.get(r.b, v)
	return true, nil
}

func (r *reader[T]) close() {
	r.f.Close()
	if r.owned {
		os.Remove(r.name)
	}
}

// memSource yields a sorted slice.
type memSource[T any] struct{ recs []T }

func (m *memSource[T]) next(v *T) (bool, error) {
	if len(m.recs) == 0 {
		return false, nil
	}
	*v, m.recs = m.recs[0], m.recs[1:]
	return true, nil
}

func (m *memSource[T]) close() { m.recs = nil }

// sorter sorts records of type T: it buffers up to its share of the budget,
// writes each full buffer as a sorted run, and merges the runs.
type sorter[T any] struct {
	sp   *spillDir
	c    *codec[T]
	buf  []T
	max  int
	runs []string
}

func newSorter[T any](sp *spillDir, c *codec[T]) *sorter[T] {
	var zero T
	return &sorter[T]{sp: sp, c: c, max: int(max(sp.share/int64(unsafe.Sizeof(zero)), 2))}
}

func (s *sorter[T]) add(v T) error {
	if len(s.buf) >= s.max {
		if err := s.flush(); err != nil {
			return err
		}
	} else if len(s.buf) == cap(s.buf) { // grow to at most max, not beyond
		s.buf = slices.Grow(s.buf, min(max(2*len(s.buf), 64), s.max)-len(s.buf))
	}
	s.buf = append(s.buf, v)
	return nil
}

// flush writes the buffer as a sorted run.
func (s *sorter[T]) flush() error {
	slices.SortFunc(s.buf, s.c.cmp)
	w, err := newWriter(s.sp, s.c)
	if err != nil {
		return err
	}
	for i := range s.buf {
		if err := w.put(&s.buf[i]); err != nil {
			w.abort()
			return err
		}
	}
	name, err := w.close()
	if err != nil {
		return err
	}
	s.runs = append(s.runs, name)
	s.buf = s.buf[:0]
	return nil
}

// sorted returns the records in order: from memory when no run was written,
// else merged from the runs (at most fanIn at a time: the others are
// merged into longer runs first). The runs are removed as they are read.
func (s *sorter[T]) sorted() (source[T], error) {
	if len(s.runs) == 0 {
		slices.SortFunc(s.buf, s.c.cmp)
		m := &memSource[T]{recs: s.buf}
		s.buf = nil
		return m, nil
	}
	if len(s.buf) > 0 {
		if err := s.flush(); err != nil {
			return nil, err
		}
	}
	s.buf = nil
	for len(s.runs) > s.sp.fanIn {
		m, err := s.merge(s.runs[:s.sp.fanIn])
		if err != nil {
			return nil, err
		}
		w, err := newWriter(s.sp, s.c)
		if err == nil {
			err = copyTo(w, m)
		}
		m.close()
		if err != nil {
			return nil, err
		}
		s.runs = append(s.runs[s.sp.fanIn:], w.name)
	}
	runs := s.runs
	s.runs = nil
	return s.merge(runs)
}

// copyTo writes the records of src to w and closes w.
func copyTo[T any](w *writer[T], src source[T]) error {
	var v T
	for {
		ok, err := src.next(&v)
		if err != nil {
			w.abort()
			return err
		}
		if !ok {
			_, err := w.close()
			return err
		}
		if err := w.put(&v); err != nil {
			w.abort()
			return err
		}
	}
}

// toFile writes the records of src to a file of sp, closes src and returns
// the file's name, for a sorted stream read more than once.
func toFile[T any](sp *spillDir, c *codec[T], src source[T]) (string, error) {
	defer src.close()
	w, err := newWriter(sp, c)
	if err != nil {
		return "", err
	}
	if err := copyTo(w, src); err != nil {
		return "", err
	}
	return w.name, nil
}

// mergeSource merges sorted runs: a binary heap of the runs by their
// current records.
type mergeSource[T any] struct {
	c     *codec[T]
	rs    []*reader[T]
	heads []T
	heap  []int // indices into rs, ordered by heads
}

// merge opens the runs (which it then owns: closing removes them).
func (s *sorter[T]) merge(runs []string) (*mergeSource[T], error) {
	m := &mergeSource[T]{c: s.c, heads: make([]T, len(runs))}
	for _, name := range runs {
		r, err := openReader(s.sp, s.c, name, true)
		if err != nil {
			m.close()
			return nil, err
		}
		m.rs = append(m.rs, r)
	}
	for i, r := range m.rs {
		ok, err := r.next(&m.heads[i])
		if err != nil {
			m.close()
			return nil, err
		}
		if ok {
			m.heap = append(m.heap, i)
		}
	}
	for i := len(m.heap)/2 - 1; i >= 0; i-- {
		m.down(i)
	}
	return m, nil
}

func (m *mergeSource[T]) less(i, j int) bool {
	return m.c.cmp(m.heads[m.heap[i]], m.heads[m.heap[j]]) < 0
}

func (m *mergeSource[T]) down(i int) {
	n := len(m.heap)
	for {
		l := 2*i + 1
		if l >= n {
			return
		}
		if r := l + 1; r < n && m.less(r, l) {
			l = r
		}
		if !m.less(l, i) {
			return
		}
		m.heap[i], m.heap[l] = m.heap[l], m.heap[i]
		i = l
	}
}

func (m *mergeSource[T]) next(v *T) (bool, error) {
	if len(m.heap) == 0 {
		return false, nil
	}
	top := m.heap[0]
	*v = m.heads[top]
	ok, err := m.rs[top].next(&m.heads[top])
	if err != nil {
		return false, err
	}
	if !ok {
		last := len(m.heap) - 1
		m.heap[0] = m.heap[last]
		m.heap = m.heap[:last]
	}
	m.down(0)
	return true, nil
}

func (m *mergeSource[T]) close() {
	for _, r := range m.rs {
		r.close()
	}
	m.rs, m.heap = nil, nil
}
