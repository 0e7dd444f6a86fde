package record

import (
	"errors"
	"fmt"
	"io"
	"strings"

	"github.com/klauspost/compress/gzip"
)

// ErrCorruptGzip is wrapped by the read errors of a Decompress reader when
// the gzip data itself is damaged (bad header, bad deflate data, checksum
// mismatch, truncation), as opposed to a failure of the underlying reader.
// Read reports such an error as ReasonCorruptGzip.
var ErrCorruptGzip = errors.New("corrupt gzip stream")

// IsGzip reports whether name ends in ".gz" (in any case).
func IsGzip(name string) bool {
	return len(name) >= 3 && strings.EqualFold(name[len(name)-3:], ".gz")
}

// Decompress returns r unchanged unless name ends in ".gz" (see IsGzip); then
// it returns a reader of the decompressed data of all the gzip members in r.
//
// The gzip header is read lazily, on the first Read, so that even a damaged
// header is reported by Read as a Reject instead of failing the caller. Any
// damage gives a read error that wraps ErrCorruptGzip after the data decoded
// before it; a failure of r itself is returned wrapped but without
// ErrCorruptGzip. A gzip member's checksum is only checked at its end, so
// data decoded before a bad checksum is detected may already be altered.
// The returned error is non-nil only when r is nil.
//
// The decoder is github.com/klauspost/compress/gzip, a faster drop-in for
// compress/gzip. It differs only on damaged input: it may stop a few bytes
// earlier before reporting the damage, and it rejects a member header with
// reserved flag bits set (as RFC 1952 requires), which compress/gzip
// ignores.
func Decompress(name string, r io.Reader) (io.Reader, error) {
	if r == nil {
		return nil, fmt.Errorf("record: %s: nil reader", name)
	}
	if !IsGzip(name) {
		return r, nil
	}
	return &gzipReader{src: &sourceReader{r: r}}, nil
}

// sourceReader remembers the first error of the underlying reader other
// than io.EOF, to tell I/O failures from damaged gzip data.
type sourceReader struct {
	r   io.Reader
	err error
}

func (s *sourceReader) Read(p []byte) (int, error) {
	n, err := s.r.Read(p)
	if err != nil && err != io.EOF && s.err == nil {
		s.err = err
	}
	return n, err
}

// gzipReader decompresses a multi-member gzip stream, creating the
// gzip.Reader on the first Read. Its first error other than io.EOF sticks.
type gzipReader struct {
	src *sourceReader
	zr  *gzip.Reader
	err error
}

func (g *gzipReader) Read(p []byte) (int, error) {
	if g.err != nil {
		return 0, g.err
	}
	if g.zr == nil {
		zr, err := gzip.NewReader(g.src)
		if err != nil {
			g.err = g.wrap(err)
			return 0, g.err
		}
		g.zr = zr
	}
	n, err := g.zr.Read(p)
	if err != nil && err != io.EOF {
		g.err = g.wrap(err)
		err = g.err
	}
	return n, err
}

// wrap classifies a gzip error: a failure of the source stays a plain
// (wrapped) error, anything else wraps ErrCorruptGzip.
func (g *gzipReader) wrap(err error) error {
	switch {
	case g.src.err != nil:
		return fmt.Errorf("reading gzip input: %w", g.src.err)
	case err == io.EOF: // from gzip.NewReader: not even a header
		return fmt.Errorf("%w: no gzip header (empty input)", ErrCorruptGzip)
	case err == io.ErrUnexpectedEOF:
		return fmt.Errorf("%w: truncated: %w", ErrCorruptGzip, err)
	}
	return fmt.Errorf("%w: %w", ErrCorruptGzip, err)
}
