// Package spill stands in for a shuffle on one machine: a Writer appends
// chunks, each under a partition number, to one file and ends the file with
// an index of where each chunk lies; a File reads back the chunks of one
// partition, so that a reader of several such files holds one partition at
// a time, not the whole shuffle.
//
// A file is the chunks as written, back to back, then the index: per chunk
// its partition and length (uvarints) and the CRC-32C of its bytes; then
// the index's length (8 bytes, little-endian), the CRC-32C of the index (4
// bytes) and the magic "NDSPILL1". The chunks' offsets follow from their
// lengths. A file without a whole index (a writer that failed or never
// closed) does not open.
package spill

import (
	"bufio"
	"cmp"
	"encoding/binary"
	"errors"
	"fmt"
	"hash/crc32"
	"io"
	"math"
	"os"
	"slices"
)

const magic = "NDSPILL1"

// tailBytes is the fixed end of a file: index length, its CRC, the magic.
const tailBytes = 8 + 4 + len(magic)

// ErrCorrupt is wrapped by every error about a file's content.
var ErrCorrupt = errors.New("corrupt spill file")

var castagnoli = crc32.MakeTable(crc32.Castagnoli)

// extent is where one chunk lies.
type extent struct {
	part int
	off  int64
	n    int
	crc  uint32
}

// Writer appends chunks to a new file. Its methods are not safe for
// concurrent use.
type Writer struct {
	path string
	f    io.WriteCloser
	bw   *bufio.Writer
	off  int64
	ext  []extent
	err  error
}

// NewWriter starts the file at path, writing it to f (a file just
// created there, or a writer of it), which Close and Abort close. What
// stands between the writer and the disk (the job's stop gate, its count
// of bytes written, making room when the disk is full) is f's.
func NewWriter(path string, f io.WriteCloser) *Writer {
	return &Writer{path: path, f: f, bw: bufio.NewWriterSize(f, 1<<20)}
}

// Add appends chunk under partition part (≥ 0). After an error every call
// returns that error and writes nothing.
func (w *Writer) Add(part int, chunk []byte) error {
	if w.err != nil {
		return w.err
	}
	if part < 0 {
		w.err = fmt.Errorf("spill %s: negative partition %d", w.path, part)
		return w.err
	}
	if _, err := w.bw.Write(chunk); err != nil {
		w.err = err
		return err
	}
	w.ext = append(w.ext, extent{part: part, off: w.off, n: len(chunk), crc: crc32.Checksum(chunk, castagnoli)})
	w.off += int64(len(chunk))
	return nil
}

// Size is the number of chunk bytes added so far.
func (w *Writer) Size() int64 { return w.off }

// Close writes the index and closes the file. On an error (here or in an
// earlier Add) it removes the file and returns the error.
func (w *Writer) Close() error {
	err := w.err
	if err == nil {
		var idx []byte
		for _, e := range w.ext {
			idx = binary.AppendUvarint(idx, uint64(e.part))
			idx = binary.AppendUvarint(idx, uint64(e.n))
			idx = binary.LittleEndian.AppendUint32(idx, e.crc)
		}
		tail := binary.LittleEndian.AppendUint64(nil, uint64(len(idx)))
		tail = binary.LittleEndian.AppendUint32(tail, crc32.Checksum(idx, castagnoli))
		tail = append(tail, magic...)
		if _, err = w.bw.Write(idx); err == nil {
			if _, err = w.bw.Write(tail); err == nil {
				err = w.bw.Flush()
			}
		}
	}
	if cerr := w.f.Close(); err == nil {
		err = cerr
	}
	if err != nil {
		os.Remove(w.path)
		w.err = err
	}
	w.ext = nil
	return err
}

// Abort closes and removes the file.
func (w *Writer) Abort() {
	w.f.Close()
	os.Remove(w.path)
	w.err = errors.New("aborted")
}

// File is one spill file opened for reading.
type File struct {
	path string
	f    *os.File
	ext  []extent // by partition, then offset
}

// Open opens the spill file at path and reads its index.
func Open(path string) (*File, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, err
	}
	sf, err := open(path, f)
	if err != nil {
		f.Close()
		return nil, err
	}
	return sf, nil
}

func open(path string, f *os.File) (*File, error) {
	fi, err := f.Stat()
	if err != nil {
		return nil, err
	}
	size := fi.Size()
	bad := func(what string) error { return fmt.Errorf("%s: %w: %s", path, ErrCorrupt, what) }
	if size < int64(tailBytes) {
		return nil, bad("shorter than its index")
	}
	tail := make([]byte, tailBytes)
	if _, err := f.ReadAt(tail, size-int64(tailBytes)); err != nil {
		return nil, err
	}
	if string(tail[12:]) != magic {
		return nil, bad("no index at the end (the writer did not finish)")
	}
	n := binary.LittleEndian.Uint64(tail)
	if n > uint64(size-int64(tailBytes)) {
		return nil, bad("index longer than the file")
	}
	idx := make([]byte, n)
	if _, err := f.ReadAt(idx, size-int64(tailBytes)-int64(n)); err != nil {
		return nil, err
	}
	if crc32.Checksum(idx, castagnoli) != binary.LittleEndian.Uint32(tail[8:]) {
		return nil, bad("index checksum mismatch")
	}
	data := size - int64(tailBytes) - int64(n)
	sf := &File{path: path, f: f}
	var off int64
	for len(idx) > 0 {
		part, k1 := binary.Uvarint(idx)
		if k1 <= 0 {
			return nil, bad("index entry")
		}
		ln, k2 := binary.Uvarint(idx[k1:])
		if k2 <= 0 || len(idx) < k1+k2+4 || ln > uint64(data-off) || part > math.MaxInt {
			return nil, bad("index entry")
		}
		sf.ext = append(sf.ext, extent{part: int(part), off: off, n: int(ln), crc: binary.LittleEndian.Uint32(idx[k1+k2:])})
		off += int64(ln)
		idx = idx[k1+k2+4:]
	}
	if off != data {
		return nil, bad("chunks and index disagree on the length")
	}
	slices.SortStableFunc(sf.ext, func(a, b extent) int { return cmp.Compare(a.part, b.part) })
	return sf, nil
}

// Close closes the file.
func (f *File) Close() error { return f.f.Close() }

// Each calls fn with every chunk of partition part, in the order written,
// read into buf (grown as needed and returned for reuse): a chunk is valid
// only during its call.
func (f *File) Each(part int, buf []byte, fn func(chunk []byte) error) ([]byte, error) {
	r := f.Reader(part)
	for {
		chunk, ok, err := r.Next(buf)
		if !ok || err != nil {
			return buf, err
		}
		buf = chunk
		if err := fn(chunk); err != nil {
			return buf, err
		}
	}
}

// Reader reads the chunks of partition part one by one (see Next).
func (f *File) Reader(part int) *Reader {
	i, _ := slices.BinarySearchFunc(f.ext, part, func(e extent, p int) int { return cmp.Compare(e.part, p) })
	j := i
	for j < len(f.ext) && f.ext[j].part == part {
		j++
	}
	return &Reader{f: f, ext: f.ext[i:j]}
}

// A Reader reads the chunks of one partition of a File in the order
// written.
type Reader struct {
	f   *File
	ext []extent
}

// Next reads the next chunk into buf (grown as needed) and returns it; ok
// is false after the last one.
func (r *Reader) Next(buf []byte) (chunk []byte, ok bool, err error) {
	if len(r.ext) == 0 {
		return buf, false, nil
	}
	e := r.ext[0]
	r.ext = r.ext[1:]
	if cap(buf) < e.n {
		buf = make([]byte, e.n)
	}
	buf = buf[:e.n]
	if _, err := r.f.f.ReadAt(buf, e.off); err != nil {
		if err == io.EOF {
			err = io.ErrUnexpectedEOF
		}
		return buf, false, fmt.Errorf("%s: %w", r.f.path, err)
	}
	if crc32.Checksum(buf, castagnoli) != e.crc {
		return buf, false, fmt.Errorf("%s: %w: checksum mismatch in the chunk at offset %d", r.f.path, ErrCorrupt, e.off)
	}
	return buf, true, nil
}
