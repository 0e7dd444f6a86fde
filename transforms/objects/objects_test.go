package objects

import (
	"bytes"
	"context"
	"errors"
	"io"
	"math/rand/v2"
	"net/http"
	"strings"
	"sync/atomic"
	"testing"

	"github.com/neardup/neardup/transforms/objects/objectstest"
)

// emulator is a storage emulator of one scheme in this process, serving
// the bucket "b", with the requests it served counted.
type emulator struct {
	scheme   string
	store    *objectstest.Store
	requests atomic.Int64 // GETs of object content
}

// counted serves h, counting its GET requests of content (not of
// metadata: a GCS JSON API metadata GET has no alt=media).
func (e *emulator) counted(h http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.Method == http.MethodGet && (e.scheme == "s3" || !strings.Contains(r.URL.Path, "/storage/v1/") || r.URL.Query().Get("alt") == "media") {
			e.requests.Add(1)
		}
		h.ServeHTTP(w, r)
	})
}

// startGCS starts fake-gcs-server (objectstest.GCS).
func startGCS(t *testing.T) *emulator {
	e := &emulator{scheme: "gs"}
	e.store = objectstest.GCS(t, "b", e.counted)
	return e
}

// startS3 starts gofakes3 (objectstest.S3).
func startS3(t *testing.T) *emulator {
	e := &emulator{scheme: "s3"}
	e.store = objectstest.S3(t, "b", e.counted)
	return e
}

// put creates or replaces the object key of the bucket "b".
func (e *emulator) put(t *testing.T, key string, data []byte) { e.store.Put(t, key, data) }

func emulators(t *testing.T, test func(t *testing.T, e *emulator)) {
	for name, start := range map[string]func(*testing.T) *emulator{"gs": startGCS, "s3": startS3} {
		t.Run(name, func(t *testing.T) { test(t, start(t)) })
	}
}

// TestReadAt: ReadAt reads the bytes of the object at any offset, fewer at
// its end with io.EOF, in one request each; NewReader reads from an
// offset to the end in one request.
func TestReadAt(t *testing.T) {
	emulators(t, func(t *testing.T, e *emulator) {
		data := make([]byte, 100_000)
		for i := range data {
			data[i] = byte(rand.N(256))
		}
		e.put(t, "dir/obj", data)
		o, err := Open(t.Context(), e.scheme+"://b/dir/obj")
		if err != nil {
			t.Fatal(err)
		}
		if o.Size != int64(len(data)) || o.ModTime.IsZero() || o.Version == "" {
			t.Fatalf("Open: size %d, mtime %v, version %q; want size %d and both", o.Size, o.ModTime, o.Version, len(data))
		}
		t.Logf("%s: version %s, modified %v", o.Path, o.Version, o.ModTime)
		before := e.requests.Load()
		for _, c := range []struct {
			off, n int64
			want   int64
			eof    bool
		}{
			{0, 10, 10, false},
			{12345, 5000, 5000, false},
			{99_990, 10, 10, false},
			{99_990, 20, 10, true},
			{100_000, 5, 0, true},
			{0, 100_000, 100_000, false},
		} {
			p := make([]byte, c.n)
			n, err := o.ReadAt(p, c.off)
			if int64(n) != c.want || (err == io.EOF) != c.eof || (err != nil && err != io.EOF) {
				t.Errorf("ReadAt(%d bytes, %d) = %d, %v; want %d, EOF %v", c.n, c.off, n, err, c.want, c.eof)
			}
			if !bytes.Equal(p[:n], data[c.off:c.off+int64(n)]) {
				t.Errorf("ReadAt(%d bytes, %d): wrong bytes", c.n, c.off)
			}
		}
		// The read at the end asks nothing.
		if got, want := e.requests.Load()-before, int64(5); got != want || o.Requests() != want {
			t.Errorf("%d requests served, %d made; want %d", got, o.Requests(), want)
		}
		rc, err := o.NewReader(99_000)
		if err != nil {
			t.Fatal(err)
		}
		rest, err := io.ReadAll(rc)
		rc.Close()
		if err != nil || !bytes.Equal(rest, data[99_000:]) {
			t.Errorf("NewReader(99000): %d bytes, %v; want the last 1000", len(rest), err)
		}
		if _, err := Open(t.Context(), e.scheme+"://b/missing"); err == nil || !strings.Contains(err.Error(), "b/missing") {
			t.Errorf("Open of a missing object: %v, want an error naming it", err)
		}
	})
}

// TestReplaced: an object replaced after Open fails its reads with
// ErrChanged, which Changed keeps.
func TestReplaced(t *testing.T) {
	emulators(t, func(t *testing.T, e *emulator) {
		e.put(t, "obj", []byte(strings.Repeat("a", 1000)))
		o, err := Open(t.Context(), e.scheme+"://b/obj")
		if err != nil {
			t.Fatal(err)
		}
		p := make([]byte, 10)
		if _, err := o.ReadAt(p, 0); err != nil || o.Changed() != nil {
			t.Fatalf("ReadAt before the change: %v (Changed %v)", err, o.Changed())
		}
		e.put(t, "obj", []byte(strings.Repeat("b", 1000))) // the same size
		_, err = o.ReadAt(p, 10)
		if !errors.Is(err, ErrChanged) || !strings.Contains(err.Error(), o.Path) {
			t.Fatalf("ReadAt after the change: %v (read %q), want ErrChanged naming %s", err, p, o.Path)
		}
		if o.Changed() == nil {
			t.Error("Changed() is nil after a read found the object replaced")
		}
		t.Logf("%v", err)
		if _, err := o.NewReader(0); !errors.Is(err, ErrChanged) {
			t.Errorf("NewReader after the change: %v, want ErrChanged", err)
		}
	})
}

// TestClientOnce: the objects of one scheme and configuration share one
// client.
func TestClientOnce(t *testing.T) {
	startGCS(t)
	ctx := context.Background()
	a, err := gcsClient(ctx)
	if err != nil {
		t.Fatal(err)
	}
	b, err := gcsClient(ctx)
	if err != nil || a != b {
		t.Errorf("two GCS clients (%p, %p, %v), want one", a, b, err)
	}
}
