package index

import (
	"fmt"
	"io"
)

// rangedFile reads byte ranges of one index file of known size, into a
// buffer reused by the next read, and counts the bytes read: the shards'
// and the key files' lookups (ShardAt, KeyFileAt).
type rangedFile struct {
	ra   io.ReaderAt
	kind string // "index shard", "index key file": how errors name the file
	name string
	size int64
	buf  []byte

	// Read counts the bytes read from the file.
	Read int64
}

// corrupt is an ErrCorrupt naming the file.
func (r *rangedFile) corrupt(format string, args ...any) error {
	return fmt.Errorf("%s %s: %w: %s", r.kind, r.name, ErrCorrupt, fmt.Sprintf(format, args...))
}

// read reads n bytes at off, the part of the file called what (into a
// buffer reused by the next read).
func (r *rangedFile) read(off, n int64, what string) ([]byte, error) {
	if off < 0 || n < 0 || off+n > r.size {
		return nil, r.corrupt("the %s at %d+%d is outside its %d bytes", what, off, n, r.size)
	}
	if int64(cap(r.buf)) < n {
		r.buf = make([]byte, n)
	}
	b := r.buf[:n]
	m, err := r.ra.ReadAt(b, off)
	r.Read += int64(m)
	if m < len(b) {
		if err == nil || err == io.EOF {
			return nil, r.corrupt("truncated in the %s at %d", what, off)
		}
		return nil, fmt.Errorf("%s %s: reading the %s: %w", r.kind, r.name, what, err)
	}
	return b, nil
}
