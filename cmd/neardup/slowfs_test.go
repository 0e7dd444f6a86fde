package main

import (
	"context"
	"io"
	"os"
	"path/filepath"
	"strings"
	"time"

	"github.com/apache/beam/sdks/v2/go/pkg/beam/io/filesystem"
)

// slowScheme is a Beam filesystem of the test binary for a job that takes
// as long as a test needs: slow:///path is the local file /path, and a
// read of a file (with the variables set) first creates the file named by NEARDUP_TEST_SLOW_MARK,
// so that the test knows the job is reading, then waits until the file
// named by NEARDUP_TEST_SLOW_UNTIL exists (at most a minute).
const slowScheme = "slow"

func registerSlowFS() {
	filesystem.Register(slowScheme, func(context.Context) filesystem.Interface { return slowFS{} })
}

type slowFS struct{}

func local(path string) string { return strings.TrimPrefix(path, slowScheme+"://") }

func (slowFS) Close() error { return nil }

func (slowFS) List(_ context.Context, glob string) ([]string, error) {
	matches, err := filepath.Glob(local(glob))
	var objects []string // only files, as an object store lists
	for _, m := range matches {
		if fi, err := os.Stat(m); err == nil && fi.Mode().IsRegular() {
			objects = append(objects, slowScheme+"://"+m)
		}
	}
	return objects, err
}

func (slowFS) OpenRead(_ context.Context, path string) (io.ReadCloser, error) {
	if mark := os.Getenv("NEARDUP_TEST_SLOW_MARK"); mark != "" {
		os.WriteFile(mark, nil, 0o644)
	}
	if until := os.Getenv("NEARDUP_TEST_SLOW_UNTIL"); until != "" {
		for deadline := time.Now().Add(time.Minute); time.Now().Before(deadline); time.Sleep(10 * time.Millisecond) {
			if _, err := os.Stat(until); err == nil {
				break
			}
		}
	}
	return os.Open(local(path))
}

// OpenWrite and Remove make slow:// a store of objects, as gs:// is: no
// directories to make or remove, no rename (Beam's filesystem.Rename copies
// and removes).
func (slowFS) OpenWrite(_ context.Context, path string) (io.WriteCloser, error) {
	if err := os.MkdirAll(filepath.Dir(local(path)), 0o755); err != nil {
		return nil, err
	}
	return os.Create(local(path))
}

func (slowFS) Remove(_ context.Context, path string) error {
	if err := os.Remove(local(path)); err != nil {
		return err
	}
	// Directories are not objects: remove those left empty.
	for d := filepath.Dir(local(path)); os.Remove(d) == nil; d = filepath.Dir(d) {
	}
	return nil
}

func (slowFS) Size(_ context.Context, path string) (int64, error) {
	fi, err := os.Stat(local(path))
	if err != nil {
		return 0, err
	}
	return fi.Size(), nil
}

func (slowFS) LastModified(_ context.Context, path string) (time.Time, error) {
	fi, err := os.Stat(local(path))
	if err != nil {
		return time.Time{}, err
	}
	return fi.ModTime(), nil
}
