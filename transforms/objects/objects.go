// Package objects reads objects of cloud storage (gs://, s3://) in byte
// ranges, and joins the paths of local and cloud directories (JoinPath).
// Beam's filesystems open an object as one stream; a Parquet file, read
// by row groups and columns, wants an io.ReaderAt, which an Object is:
// each ReadAt is one ranged request (GCS NewRangeReader, an S3 GetObject
// with a Range header) of the version of the object that Open saw (its
// GCS generation, its S3 ETag), so that reads of one object, in several
// processes, are all of the same bytes, or fail with an error wrapping
// ErrChanged once the object was replaced.
//
// The clients are built as Beam's gcs and s3 filesystems build theirs, so
// that they reach the same storage with the same credentials: GCS with
// the application default credentials, or none if there are none, and
// STORAGE_EMULATOR_HOST for an emulator; S3 with the AWS SDK's default
// configuration (AWS_REGION, AWS_ENDPOINT_URL, profiles and the rest).
// A process builds one client per scheme and configuration, on first use,
// and keeps it: an Object costs no client of its own.
package objects

import (
	"context"
	"errors"
	"fmt"
	"io"
	"strings"
	"sync"
	"sync/atomic"
	"time"
)

// ErrChanged is wrapped by the errors of reads of an object that was
// replaced (or deleted) since Open saw it.
var ErrChanged = errors.New("object replaced since it was opened")

// ErrNotRanged is wrapped by the error of Open for an object that cannot
// be read in ranges of its stored bytes (a GCS object stored with gzip
// content encoding, which GCS decompresses as it serves it): read it as a
// stream.
var ErrNotRanged = errors.New("object cannot be read in byte ranges")

// Supported reports whether path is an object that Open can open: a gs://
// or s3:// path.
func Supported(path string) bool {
	return strings.HasPrefix(path, "gs://") || strings.HasPrefix(path, "s3://")
}

// JoinPath joins a directory (a local path or a URL such as gs://bucket/dir)
// and a file name.
func JoinPath(dir, name string) string { return strings.TrimSuffix(dir, "/") + "/" + name }

// Object is an object of cloud storage, opened for reads of ranges of one
// version of it.
type Object struct {
	Path    string    // the gs:// or s3:// path
	Size    int64     // bytes
	ModTime time.Time // when this version was written (GCS Updated, S3 LastModified)
	// Version identifies the version read: "generation=N" for GCS,
	// "etag=E" for S3.
	Version string

	ctx      context.Context
	store    store
	requests atomic.Int64
	mu       sync.Mutex
	changed  error // the first read that found the object replaced
}

// store is a scheme's client, for the object of one bucket and key.
type store interface {
	// open returns a reader of the bytes [off, off+n) of the version
	// that stat saw (n < 0: to the end), which fails with an error
	// wrapping ErrChanged if that version is no longer there.
	open(ctx context.Context, off, n int64) (io.ReadCloser, error)
}

// Open returns the object at path (see Supported), with its size,
// modification time and version; ctx is that of every read of it.
func Open(ctx context.Context, path string) (*Object, error) {
	scheme, rest, _ := strings.Cut(path, "://")
	bucket, key, _ := strings.Cut(rest, "/")
	if bucket == "" || key == "" {
		return nil, fmt.Errorf("%s: not a bucket and object name", path)
	}
	o := &Object{Path: path, ctx: ctx}
	var err error
	switch scheme {
	case "gs":
		err = openGCS(ctx, o, bucket, key)
	case "s3":
		err = openS3(ctx, o, bucket, key)
	default:
		err = fmt.Errorf("not a gs:// or s3:// path")
	}
	if err != nil {
		return nil, fmt.Errorf("%s: %w", path, err)
	}
	return o, nil
}

// ReadAt reads len(p) bytes at off in one ranged request (fewer at the end
// of the object, with io.EOF).
func (o *Object) ReadAt(p []byte, off int64) (int, error) {
	if off < 0 {
		return 0, fmt.Errorf("%s: read at negative offset %d", o.Path, off)
	}
	n := min(int64(len(p)), max(o.Size-off, 0))
	if n == 0 {
		if len(p) == 0 {
			return 0, nil
		}
		return 0, io.EOF
	}
	rc, err := o.open(off, n)
	if err != nil {
		return 0, err
	}
	k, err := io.ReadFull(rc, p[:n])
	rc.Close()
	if err != nil {
		return k, o.failed(fmt.Errorf("%s: reading %d bytes at %d: %w", o.Path, n, off, err))
	}
	if n < int64(len(p)) {
		return k, io.EOF
	}
	return k, nil
}

// ReadSize is the size of read an Object prefers (PreferredReadSize): a
// Parquet decoder reading a column chunk through a buffer of 4 KiB would
// make a request of each page header.
const ReadSize = 1 << 20

// PreferredReadSize returns ReadSize, which record.ReadParquet takes for
// the size of its decoder's read buffers.
func (o *Object) PreferredReadSize() int { return ReadSize }

// NewReader returns a reader of the object from byte off to its end, in
// one request.
func (o *Object) NewReader(off int64) (io.ReadCloser, error) {
	return o.open(off, -1)
}

func (o *Object) open(off, n int64) (io.ReadCloser, error) {
	o.requests.Add(1)
	rc, err := o.store.open(o.ctx, off, n)
	if err != nil {
		return nil, o.failed(fmt.Errorf("%s: %w", o.Path, err))
	}
	return rc, nil
}

// failed records err if it wraps ErrChanged, and returns it.
func (o *Object) failed(err error) error {
	if errors.Is(err, ErrChanged) {
		o.mu.Lock()
		if o.changed == nil {
			o.changed = err
		}
		o.mu.Unlock()
	}
	return err
}

// Changed returns the error of the first read that found the object
// replaced since Open saw it, or nil: a consumer that takes a failed read
// for damage (a Parquet decoder) asks it once done.
func (o *Object) Changed() error {
	o.mu.Lock()
	defer o.mu.Unlock()
	return o.changed
}

// Requests returns the number of requests of the object's content made so
// far (ReadAt and NewReader calls; not Open's).
func (o *Object) Requests() int64 { return o.requests.Load() }

// clients holds the clients of this process, one per scheme and
// configuration (the environment that configures it), built on first use.
var clients struct {
	sync.Mutex
	m map[string]any
}

// client returns the client of key, built by build on first use.
func client[T any](ctx context.Context, key string, build func(context.Context) (T, error)) (T, error) {
	clients.Lock()
	defer clients.Unlock()
	if c, ok := clients.m[key]; ok {
		return c.(T), nil
	}
	c, err := build(context.WithoutCancel(ctx)) // it outlives the call
	if err != nil {
		return c, err
	}
	if clients.m == nil {
		clients.m = map[string]any{}
	}
	clients.m[key] = c
	return c, nil
}
