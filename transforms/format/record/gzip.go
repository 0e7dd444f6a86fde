package record

import (
	"bufio"
	"bytes"
	"errors"
	"fmt"
	"io"
	"runtime"
	"strconv"
	"strings"
	"sync"

	"github.com/klauspost/compress/gzip"
	"github.com/klauspost/compress/zstd"
	"github.com/klauspost/pgzip"

	"github.com/neardup/neardup/transforms/choice"
)

// ErrCorruptGzip is wrapped by the read errors of a Decompress reader when
// the gzip data itself is damaged (bad header, bad deflate data, checksum
// mismatch, truncation), as opposed to a failure of the underlying reader.
// Read reports such an error as ReasonCorruptGzip.
var ErrCorruptGzip = errors.New("corrupt gzip stream")

// ErrCorruptZstd is ErrCorruptGzip for zstd data (ReasonCorruptZstd).
var ErrCorruptZstd = errors.New("corrupt zstd stream")

// ErrTrailingGarbage is wrapped by the error a Decompress reader returns,
// after all the decompressed data, when bytes that are neither a gzip
// member (zstd frame) nor zero padding follow the last whole member
// (frame), as `gzip -t` warns "decompression OK, trailing garbage
// ignored". Zero padding after the last member or frame is read as the end
// of the stream. Read reports such an error as ReasonTrailingGarbage: one
// reject for the file, after its records, that is no record.
var ErrTrailingGarbage = errors.New("trailing garbage")

// IsGzip reports whether name ends in ".gz" (in any case).
func IsGzip(name string) bool { return ByName(name) == Gzip }

// Compression is the compression of a stream.
type Compression int8

// The compressions. Unknown asks NewReader to detect it.
const (
	Unknown Compression = iota - 1
	None                // not compressed
	Gzip                // gzip (RFC 1952), any number of members
	Zstd                // Zstandard (RFC 8878), any number of frames
)

// compressionNames are the names of the compressions (Unknown has none).
var compressionNames = choice.Names[Compression]{
	{Value: None, Name: "none"},
	{Value: Gzip, Name: "gzip"},
	{Value: Zstd, Name: "zstd"},
}

// String returns the name of c: none, gzip, zstd or unknown.
func (c Compression) String() string {
	if name, ok := compressionNames.Name(c); ok {
		return name
	}
	return "unknown"
}

// MarshalText returns the name of c, and nothing for Unknown.
func (c Compression) MarshalText() ([]byte, error) {
	if c == Unknown {
		return nil, nil
	}
	return compressionNames.Marshal("compression", c)
}

// UnmarshalText sets c to the compression named text: none, gzip or zstd,
// in any case; nothing is Unknown.
func (c *Compression) UnmarshalText(text []byte) (err error) {
	if len(text) == 0 {
		*c = Unknown
		return nil
	}
	*c, err = compressionNames.Parse(string(text))
	return err
}

// Ext is the file name extension of c: "", ".gz" or ".zst".
func (c Compression) Ext() string {
	switch c {
	case Gzip:
		return ".gz"
	case Zstd:
		return ".zst"
	}
	return ""
}

// ParseCompression returns the compression named s: none, gzip or zstd,
// in any case; its error quotes s.
func ParseCompression(s string) (Compression, error) {
	c, err := compressionNames.Parse(s)
	if err != nil {
		return Unknown, fmt.Errorf("compression %q: %w", s, err)
	}
	return c, nil
}

// ByName is the compression the name of a file says: Gzip for ".gz", Zstd
// for ".zst" or ".zstd" (in any case), else Unknown.
func ByName(name string) Compression {
	if i := strings.LastIndexByte(name, '.'); i >= 0 {
		switch strings.ToLower(name[i:]) {
		case ".gz":
			return Gzip
		case ".zst", ".zstd":
			return Zstd
		}
	}
	return Unknown
}

// MaxZstdWindow is the largest zstd window read: 2 GiB, that of zstd
// --long=31, the largest the zstd command writes (the decoder's default
// is 512 MiB). A frame with a larger window is damaged data
// (ErrCorruptZstd). The decoder holds a frame's window while it reads it:
// a local job counts the window of each zstd input's first frame against
// its memory budget (pipeline/plan).
const MaxZstdWindow = 1 << 31

// The magic numbers that start a gzip member and a zstd frame.
var (
	gzipMagic = []byte{0x1F, 0x8B}
	zstdMagic = []byte{0x28, 0xB5, 0x2F, 0xFD}
)

// Sniff is the compression the first bytes of a stream show: Gzip or Zstd
// by their magic numbers, else None. Neither magic number is valid UTF-8,
// so no text or JSON is taken for compressed data.
func Sniff(head []byte) Compression {
	switch {
	case len(head) >= len(zstdMagic) && string(head[:len(zstdMagic)]) == string(zstdMagic):
		return Zstd
	case len(head) >= len(gzipMagic) && string(head[:len(gzipMagic)]) == string(gzipMagic):
		return Gzip
	}
	return None
}

// Decompress returns a reader of the decompressed data of r, which holds
// the file name: gzip for a name ending in ".gz", zstd for ".zst" or
// ".zstd", else what the first bytes show (see Sniff). It is NewReader
// with Unknown.
func Decompress(name string, r io.Reader) (io.Reader, error) {
	if r == nil {
		return nil, fmt.Errorf("record: %s: nil reader", name)
	}
	return NewReader(name, r, Unknown), nil
}

// Reader is the decompressing reader of a stream (see NewReader).
//
// The compression is found, and the gzip header or zstd frame header read,
// lazily, on the first Read, so that even a damaged header is reported by
// Read as a Reject instead of failing the caller. Any damage gives a read
// error that wraps ErrCorruptGzip or ErrCorruptZstd after the data decoded
// before it; a failure of the source itself is returned wrapped but without
// either. A checksum is only checked at the end of its member or frame, so
// data decoded before a bad checksum is detected may already be altered.
// When the data was found compressed by its first bytes rather than by the
// file name, the error says so ("gzip data in a file named x.jsonl").
//
// The decoders are github.com/klauspost/compress's gzip (a faster drop-in
// for compress/gzip, which differs only on damaged input: it may stop a few
// bytes earlier before reporting the damage, and it rejects a member header
// with reserved flag bits set, as RFC 1952 requires) and zstd, single
// threaded.
type Reader struct {
	name  string
	src   *sourceReader
	c     Compression
	named bool // c comes from the name (or the caller), not the content
	r     io.Reader
	gz    *gzip.Reader  // r for gzip: one member at a time
	br    *bufio.Reader // gz's source, left just after a member's end
	err   error
}

// NewReader returns the decompressing reader of r for the file name with
// compression c, or, for Unknown, the compression ByName gives, else the
// one Sniff finds in the first bytes.
func NewReader(name string, r io.Reader, c Compression) *Reader {
	d := &Reader{name: name, src: &sourceReader{r: r}, c: c, named: true}
	if c == Unknown {
		d.c = ByName(name)
		d.named = d.c != Unknown
	}
	return d
}

// Compression is the compression of the stream: known after the first Read
// (Unknown before, when the name does not tell).
func (d *Reader) Compression() Compression { return d.c }

func (d *Reader) Read(p []byte) (int, error) {
	if d.err != nil {
		return 0, d.err
	}
	if d.r == nil {
		if err := d.start(); err != nil {
			d.err = err
			return 0, err
		}
	}
	n, err := d.r.Read(p)
	for err == io.EOF && d.gz != nil { // empty members give nothing
		if err = d.nextMember(); err != nil || n > 0 {
			break
		}
		n, err = d.r.Read(p)
	}
	switch {
	case err == io.EOF && d.c == Zstd && d.src.n == 0:
		err = io.ErrNoProgress // an empty stream is no zstd frame (as an empty gzip stream is no member)
	case errors.Is(err, zstd.ErrMagicMismatch) && d.src.n > int64(len(zstdMagic)):
		// Not the first frame: what follows the last one.
		err = d.trailer(d.src.tail[:])
	case err != nil && err != io.EOF && d.c == Zstd && d.src.frames.short(d.src):
		// 1 to 3 bytes after the last frame, which the decoder takes
		// for a cut frame: what follows the last one, as 4 or more.
		err = d.trailer(d.src.tail[len(d.src.tail)-int(d.src.n-d.src.frames.end):])
	}
	if err != nil && err != io.EOF && !errors.Is(err, ErrTrailingGarbage) {
		err = d.wrap(err)
	}
	if err != nil && err != io.EOF {
		d.err = err
	}
	return n, err
}

// nextMember starts the gzip member after the one that ended, if there is
// one: io.EOF at the end of the stream or before zero padding, an
// ErrTrailingGarbage error before other bytes.
func (d *Reader) nextMember() error {
	head, err := d.br.Peek(len(gzipMagic))
	switch {
	case len(head) == 0 && err == io.EOF:
		return io.EOF
	case err != nil && err != io.EOF:
		return err
	case !bytes.Equal(head, gzipMagic):
		return d.trailer(nil)
	}
	if err := d.gz.Reset(d.br); err != nil {
		return err
	}
	d.gz.Multistream(false)
	return nil
}

// trailer reads what follows the last whole member or frame, of which the
// decoder already consumed seen: io.EOF if it is all zero bytes, else an
// error wrapping ErrTrailingGarbage that says where it starts.
func (d *Reader) trailer(seen []byte) error {
	at := d.src.n - int64(len(seen))
	if d.br != nil {
		at -= int64(d.br.Buffered())
	}
	var rest io.Reader = d.src
	if d.br != nil {
		rest = d.br
	}
	zero := bytes.Count(seen, []byte{0}) == len(seen)
	var buf [4096]byte
	for zero {
		n, err := rest.Read(buf[:])
		zero = bytes.Count(buf[:n], []byte{0}) == n
		if err == io.EOF && zero {
			return io.EOF
		}
		if err != nil && err != io.EOF {
			return err
		}
	}
	what := "member"
	if d.c == Zstd {
		what = "frame"
	}
	return fmt.Errorf("%w after the last %s %s of %s: the bytes from offset %d are neither a %[2]s %[3]s nor zero padding",
		ErrTrailingGarbage, d.c, what, d.name, at)
}

// start finds the compression if needed and makes the decoder.
func (d *Reader) start() error {
	var src io.Reader = d.src
	if d.c == Unknown {
		var head [4]byte
		n, err := io.ReadFull(d.src, head[:])
		if d.src.err != nil {
			return fmt.Errorf("reading %s: %w", d.name, err)
		}
		d.c = Sniff(head[:n])
		src = io.MultiReader(strings.NewReader(string(head[:n])), d.src)
		if d.c == Zstd {
			d.src.frames = &zstdFrames{}
			d.src.frames.Write(head[:n])
		}
	} else if d.c == Zstd {
		d.src.frames = &zstdFrames{}
	}
	var err error
	switch d.c {
	case None:
		d.r = src
		return nil
	case Gzip:
		// The decoder reads a bufio.Reader no further than the end of a
		// member, so that what follows it can be looked at.
		d.br = bufio.NewReader(src) // the size the decoder would give its own
		if d.gz, err = gzip.NewReader(d.br); err == nil {
			d.gz.Multistream(false)
			d.r = d.gz
		}
	case Zstd:
		var zr *zstd.Decoder
		zr, err = zstd.NewReader(src, zstd.WithDecoderConcurrency(1), zstd.WithDecoderLowmem(true), zstd.WithDecoderMaxWindow(MaxZstdWindow))
		d.r = zr
	}
	if err != nil {
		return d.wrap(err)
	}
	return nil
}

// wrap classifies a decoder error: a failure of the source stays a plain
// (wrapped) error, anything else wraps ErrCorruptGzip or ErrCorruptZstd.
func (d *Reader) wrap(err error) error {
	if d.src.err != nil {
		return fmt.Errorf("reading %s input: %w", d.c, d.src.err)
	}
	corrupt := ErrCorruptGzip
	if d.c == Zstd {
		corrupt = ErrCorruptZstd
	}
	what := ""
	if !d.named {
		what = fmt.Sprintf("%s data in a file named %s: ", d.c, d.name)
	}
	switch {
	case err == io.EOF || err == io.ErrNoProgress: // not even a header
		return fmt.Errorf("%w: %sno %s header (empty input)", corrupt, what, d.c)
	case err == io.ErrUnexpectedEOF:
		return fmt.Errorf("%w: %struncated: %w", corrupt, what, err)
	}
	return fmt.Errorf("%w: %s%w", corrupt, what, err)
}

// sourceReader remembers the first error of the underlying reader other
// than io.EOF, to tell I/O failures from damaged compressed data, and the
// last bytes read.
type sourceReader struct {
	r      io.Reader
	n      int64   // bytes read
	tail   [4]byte // the last 4 bytes read (zeros before the first 4)
	err    error
	eof    bool        // r said io.EOF
	frames *zstdFrames // of a zstd stream: where its last whole frame ends
}

func (s *sourceReader) Read(p []byte) (int, error) {
	n, err := s.r.Read(p)
	s.n += int64(n)
	s.eof = s.eof || err == io.EOF
	if s.frames != nil {
		s.frames.Write(p[:n])
	}
	if n >= len(s.tail) {
		copy(s.tail[:], p[n-len(s.tail):n])
	} else if n > 0 {
		copy(s.tail[:], s.tail[n:])
		copy(s.tail[len(s.tail)-n:], p[:n])
	}
	if err != nil && err != io.EOF && s.err == nil {
		s.err = err
	}
	return n, err
}

// Level is how hard a writer compresses: LevelFast (the zero Level),
// LevelDefault, LevelBest, or a number, 1 to 9 for gzip (as gzip -1 to
// -9) and 1 to 22 for zstd (as the zstd command's levels, mapped to the
// nearest of the encoder's four). A level changes the compressed bytes,
// never what they decompress to, and the same level gives the same bytes
// every run.
type Level int

// The named levels: gzip 1, 6 and 9; zstd's fastest, default and best
// encoder.
const (
	LevelFast    Level = 0
	LevelDefault Level = -1
	LevelBest    Level = -2
)

// levelNames are the levels with a name.
var levelNames = choice.Names[Level]{
	{Value: LevelFast, Name: "fast"},
	{Value: LevelDefault, Name: "default"},
	{Value: LevelBest, Name: "best"},
}

// ParseLevel returns the level s names: fast, default, best (in any case)
// or a number from 1 to 22; its error quotes s.
func ParseLevel(s string) (Level, error) {
	var l Level
	if err := l.UnmarshalText([]byte(s)); err != nil {
		return LevelFast, fmt.Errorf("compression level %q: %w", s, err)
	}
	return l, nil
}

// UnmarshalText sets l to the level text names: fast, default, best (in
// any case) or a number from 1 to 22.
func (l *Level) UnmarshalText(text []byte) error {
	if v, err := levelNames.Parse(string(text)); err == nil {
		*l = v
		return nil
	}
	if n, err := strconv.Atoi(strings.TrimSpace(string(text))); err == nil && n >= 1 && n <= 22 {
		*l = Level(n)
		return nil
	}
	return errors.New("want fast, default, best, or 1 to 9 for gzip, 1 to 22 for zstd")
}

// MarshalText returns the name of l.
func (l Level) MarshalText() ([]byte, error) { return []byte(l.String()), nil }

// String returns the name of l: fast, default, best or its number.
func (l Level) String() string {
	if name, ok := levelNames.Name(l); ok {
		return name
	}
	return strconv.Itoa(int(l))
}

// gzipLevel is the flate level of l, or an error if l is no gzip level.
func (l Level) gzipLevel() (int, error) {
	switch {
	case l == LevelFast:
		return 1, nil
	case l == LevelDefault:
		return 6, nil
	case l == LevelBest:
		return 9, nil
	case l >= 1 && l <= 9:
		return int(l), nil
	}
	return 0, fmt.Errorf("record: compression level %v is no gzip level (want fast, default, best or 1 to 9)", l)
}

// zstdLevel is the zstd encoder level of l, or an error if l is no zstd
// level.
func (l Level) zstdLevel() (zstd.EncoderLevel, error) {
	switch {
	case l == LevelFast:
		return zstd.SpeedFastest, nil
	case l == LevelDefault:
		return zstd.SpeedDefault, nil
	case l == LevelBest:
		return zstd.SpeedBestCompression, nil
	case l >= 1 && l <= 22:
		return zstd.EncoderLevelFromZstd(int(l)), nil
	}
	return 0, fmt.Errorf("record: compression level %v is no zstd level (want fast, default, best or 1 to 22)", l)
}

// Check reports whether l is a level of compression c (any level is one of
// None).
func (l Level) Check(c Compression) error {
	var err error
	switch c {
	case Gzip:
		_, err = l.gzipLevel()
	case Zstd:
		_, err = l.zstdLevel()
	}
	return err
}

// NewWriter is NewWriterLevel at LevelFast.
func NewWriter(w io.Writer, c Compression) (io.WriteCloser, error) {
	return NewWriterLevel(w, c, LevelFast)
}

// NewWriterLevel returns a writer that compresses what it is given with c
// at level to w; Close flushes it (and does not close w). The output
// depends only on the data and the level: no time or name in the gzip
// header, zstd encoded on one goroutine. Gzip is compressed in blocks of
// gzipBlock bytes on every core (github.com/klauspost/pgzip: each block
// primed with the 32 KiB before it, so the file is about as small as a
// serial gzip's): the deduplicated copy of a gzipped input is written once
// the job knows what to remove, with nothing else left to do, and a serial
// gzip took a large share of a run's time (docs/BENCHMARKS.md). The blocks, and
// so the file, do not depend on the number of cores or on how the data is
// split into writes.
func NewWriterLevel(w io.Writer, c Compression, level Level) (io.WriteCloser, error) {
	switch c {
	case None:
		return nopCloser{w}, nil
	case Gzip:
		n, err := level.gzipLevel()
		if err != nil {
			return nil, err
		}
		zw, _ := gzipWriters[n].Get().(*pgzip.Writer)
		if zw == nil {
			if zw, err = pgzip.NewWriterLevel(w, n); err != nil {
				return nil, err
			}
		} else {
			zw.Reset(w)
		}
		return &pooledGzip{zw, n}, zw.SetConcurrency(gzipBlock, max(2, runtime.GOMAXPROCS(0)))
	case Zstd:
		l, err := level.zstdLevel()
		if err != nil {
			return nil, err
		}
		return zstd.NewWriter(w, zstd.WithEncoderConcurrency(1), zstd.WithEncoderLevel(l))
	}
	return nil, fmt.Errorf("record: no writer for compression %v", c)
}

// gzipBlock is the size of the blocks a gzip output is compressed in.
const gzipBlock = 1 << 20

// gzipWriters keeps closed gzip writers for the next NewWriterLevel, one
// pool per flate level (a pgzip.Writer keeps its level when reset): each
// pgzip.Writer has a pool of its own for its 1 MiB blocks, and a new
// writer per output file left those blocks as garbage by the hundreds
// (docs/BENCHMARKS.md).
var gzipWriters [10]sync.Pool

// pooledGzip is a gzip writer that goes back to gzipWriters[level] when
// closed without error.
type pooledGzip struct {
	zw    *pgzip.Writer
	level int
}

func (w *pooledGzip) Write(p []byte) (int, error) {
	if w.zw == nil {
		return 0, errors.New("record: write to a closed gzip writer")
	}
	return w.zw.Write(p)
}

func (w *pooledGzip) Close() error {
	zw := w.zw
	if zw == nil {
		return nil
	}
	w.zw = nil
	err := zw.Close()
	if err == nil {
		gzipWriters[w.level].Put(zw)
	}
	return err
}

type nopCloser struct{ io.Writer }

func (nopCloser) Close() error { return nil }
