package extsort

import (
	"slices"
	"unsafe"
)

// Sorter sorts records of type T: it buffers up to its share of the
// budget, writes each full buffer as a sorted run (Codec.Sort), and merges
// the runs.
type Sorter[T any] struct {
	d    *Dir
	c    *Codec[T]
	buf  []T
	max  int
	runs []string
}

// NewSorter returns a Sorter writing its runs to d.
func NewSorter[T any](d *Dir, c *Codec[T]) *Sorter[T] {
	var zero T
	return &Sorter[T]{d: d, c: c, max: int(max(d.share/int64(unsafe.Sizeof(zero)), 2))}
}

// Add adds v, writing a run first if the buffer is full.
func (s *Sorter[T]) Add(v T) error {
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

// Runs is the number of runs written so far.
func (s *Sorter[T]) Runs() int { return len(s.runs) }

// flush writes the buffer as a sorted run.
func (s *Sorter[T]) flush() error {
	run := s.c.sort(s.buf)
	w, err := NewWriter(s.d, s.c)
	if err != nil {
		return err
	}
	for i := range run {
		if err := w.Put(&run[i]); err != nil {
			w.Abort()
			return err
		}
	}
	name, err := w.Close()
	if err != nil {
		return err
	}
	s.runs = append(s.runs, name)
	s.buf = s.buf[:0]
	return nil
}

// Sorted returns the records in order: from memory when no run was
// written, else merged from the runs (at most fanIn at a time: the others
// are merged into longer runs first). The runs are removed as they are
// read. With a Codec.Sort that drops repeats, some may remain, from
// different runs, next to each other.
func (s *Sorter[T]) Sorted() (Source[T], error) {
	if len(s.runs) == 0 {
		m := &memSource[T]{recs: s.c.sort(s.buf)}
		s.buf = nil
		return m, nil
	}
	if len(s.buf) > 0 {
		if err := s.flush(); err != nil {
			return nil, err
		}
	}
	s.buf = nil
	for len(s.runs) > s.d.fanIn {
		m, err := s.merge(s.runs[:s.d.fanIn])
		if err != nil {
			return nil, err
		}
		w, err := NewWriter(s.d, s.c)
		if err == nil {
			err = copyTo(w, m)
		}
		m.Close()
		if err != nil {
			return nil, err
		}
		s.runs = append(s.runs[s.d.fanIn:], w.name)
	}
	runs := s.runs
	s.runs = nil
	return s.merge(runs)
}

// copyTo writes the records of src to w and closes w.
func copyTo[T any](w *Writer[T], src Source[T]) error {
	var v T
	for {
		ok, err := src.Next(&v)
		if err != nil {
			w.Abort()
			return err
		}
		if !ok {
			_, err := w.Close()
			return err
		}
		if err := w.Put(&v); err != nil {
			w.Abort()
			return err
		}
	}
}

// ToFile writes the records of src to a new file of d, closes src and returns
// the file's name, for a sorted stream read more than once.
func ToFile[T any](d *Dir, c *Codec[T], src Source[T]) (string, error) {
	defer src.Close()
	w, err := NewWriter(d, c)
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
	c     *Codec[T]
	rs    []*Reader[T]
	heads []T
	heap  []int // indices into rs, ordered by heads
}

// merge opens the runs (which it then owns: closing removes them).
func (s *Sorter[T]) merge(runs []string) (*mergeSource[T], error) {
	m := &mergeSource[T]{c: s.c, heads: make([]T, len(runs))}
	for _, name := range runs {
		r, err := Open(s.d, s.c, name, true)
		if err != nil {
			m.Close()
			return nil, err
		}
		m.rs = append(m.rs, r)
	}
	for i, r := range m.rs {
		ok, err := r.Next(&m.heads[i])
		if err != nil {
			m.Close()
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
	return m.c.Cmp(m.heads[m.heap[i]], m.heads[m.heap[j]]) < 0
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

func (m *mergeSource[T]) Next(v *T) (bool, error) {
	if len(m.heap) == 0 {
		return false, nil
	}
	top := m.heap[0]
	*v = m.heads[top]
	ok, err := m.rs[top].Next(&m.heads[top])
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

func (m *mergeSource[T]) Close() {
	for _, r := range m.rs {
		r.Close()
	}
	m.rs, m.heap = nil, nil
}
