package objects

import (
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"strconv"

	"cloud.google.com/go/storage"
	"google.golang.org/api/option"
)

// gcsClient returns this process's GCS client, built as Beam's gcs
// filesystem builds its own (application default credentials, else
// unauthenticated access), for reads only. The storage client itself reads
// STORAGE_EMULATOR_HOST, which is part of the key: a test that starts an
// emulator of its own gets a client of its own.
func gcsClient(ctx context.Context) (*storage.Client, error) {
	return client(ctx, "gs\x00"+os.Getenv("STORAGE_EMULATOR_HOST"), func(ctx context.Context) (*storage.Client, error) {
		c, err := storage.NewClient(ctx, option.WithScopes(storage.ScopeReadOnly))
		if err != nil {
			c, err = storage.NewClient(ctx, option.WithoutAuthentication())
		}
		return c, err
	})
}

// openGCS sets o to the current generation of gs://bucket/key.
func openGCS(ctx context.Context, o *Object, bucket, key string) error {
	c, err := gcsClient(ctx)
	if err != nil {
		return fmt.Errorf("a GCS client: %w", err)
	}
	h := c.Bucket(bucket).Object(key)
	attrs, err := h.Attrs(ctx)
	if err != nil {
		return err
	}
	if attrs.ContentEncoding == "gzip" {
		// GCS serves it decompressed (decompressive transcoding): its
		// stored bytes are not what a reader of it gets.
		return fmt.Errorf("%w: stored with Content-Encoding gzip", ErrNotRanged)
	}
	o.Size, o.ModTime = attrs.Size, attrs.Updated
	o.Version = "generation=" + strconv.FormatInt(attrs.Generation, 10)
	o.store = gcsObject{h: h.Generation(attrs.Generation), gen: attrs.Generation}
	return nil
}

// gcsObject is one generation of a GCS object.
type gcsObject struct {
	h   *storage.ObjectHandle // of that generation
	gen int64
}

func (g gcsObject) open(ctx context.Context, off, n int64) (io.ReadCloser, error) {
	r, err := g.h.NewRangeReader(ctx, off, n)
	if errors.Is(err, storage.ErrObjectNotExist) {
		return nil, fmt.Errorf("%w: generation %d is gone", ErrChanged, g.gen)
	}
	if err != nil {
		return nil, err
	}
	if gen := r.Attrs.Generation; gen != 0 && gen != g.gen {
		r.Close()
		return nil, fmt.Errorf("%w: generation %d read, %d opened", ErrChanged, gen, g.gen)
	}
	return r, nil
}
