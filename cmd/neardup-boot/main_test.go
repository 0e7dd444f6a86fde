package main

import (
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"io"
	"io/fs"
	"log"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"google.golang.org/protobuf/proto"

	"github.com/apache/beam/sdks/v2/go/pkg/beam/artifact"
	pipepb "github.com/apache/beam/sdks/v2/go/pkg/beam/model/pipeline_v1"
)

func fileArtifact(t *testing.T, path, role string) *pipepb.ArtifactInformation {
	t.Helper()
	p, err := proto.Marshal(&pipepb.ArtifactFilePayload{Path: path})
	if err != nil {
		t.Fatal(err)
	}
	return &pipepb.ArtifactInformation{TypeUrn: artifact.URNFileArtifact, TypePayload: p, RoleUrn: role}
}

func TestKeepAndCached(t *testing.T) {
	dir := t.TempDir()
	cache := filepath.Join(dir, "cache")
	staged := filepath.Join(dir, "worker")
	if err := os.WriteFile(staged, []byte("a worker binary"), 0o755); err != nil {
		t.Fatal(err)
	}
	sum := sha256.Sum256([]byte("a worker binary"))
	good := hex.EncodeToString(sum[:])
	if _, ok := cached(cache, good); ok {
		t.Fatal("cached before it was kept")
	}
	other := strings.Repeat("0", 64)
	if err := keep(cache, other, staged); err == nil || !strings.Contains(err.Error(), "the job server gave "+other) {
		t.Fatalf("kept under a SHA-256 its bytes do not have: %v", err)
	}
	if _, ok := cached(cache, other); ok {
		t.Fatal("a binary of another SHA-256 is in the cache")
	}
	for range 2 { // a second worker keeps the same build again
		if err := keep(cache, good, staged); err != nil {
			t.Fatal(err)
		}
	}
	path, ok := cached(cache, good)
	if !ok || path != filepath.Join(cache, good) {
		t.Fatalf("cached: %q %v", path, ok)
	}
	if b, err := os.ReadFile(path); err != nil || string(b) != "a worker binary" {
		t.Fatalf("cached binary: %q %v", b, err)
	}
	if names, _ := os.ReadDir(cache); len(names) != 1 {
		t.Fatalf("cache holds %d files, want 1 (no temporary left)", len(names))
	}
	if _, ok := cached("", good); ok {
		t.Error("found without a cache directory")
	}
	if _, ok := cached(cache, ""); ok {
		t.Error("found without a SHA-256")
	}
}

func TestWorkerName(t *testing.T) {
	for _, c := range []struct {
		name string
		arts []*pipepb.ArtifactInformation
		want string // "" for an error
	}{
		{"one", []*pipepb.ArtifactInformation{fileArtifact(t, "1-neardup", "")}, "1-neardup"},
		{"by role", []*pipepb.ArtifactInformation{fileArtifact(t, "data", ""), fileArtifact(t, "2-neardup", artifact.URNGoWorkerBinaryRole)}, "2-neardup"},
		{"by name", []*pipepb.ArtifactInformation{fileArtifact(t, "data", ""), fileArtifact(t, "worker", "")}, "worker"},
		{"none", nil, ""},
		{"no worker", []*pipepb.ArtifactInformation{fileArtifact(t, "a", ""), fileArtifact(t, "b", "")}, ""},
	} {
		got, err := workerName(c.arts)
		if got != c.want || (err == nil) != (c.want != "") {
			t.Errorf("%s: got %q, %v; want %q", c.name, got, err, c.want)
		}
	}
}

// TestCachedVerifies plants entries that must not start: bytes of another
// SHA-256 under a valid name, a symbolic link to a binary that does hash
// to the name, a file others can write. Each is refused, removed (the
// link, not what it points to) and logged in one line; the binary is then
// kept again and found.
func TestCachedVerifies(t *testing.T) {
	good := []byte("the worker binary")
	s := sha256.Sum256(good)
	sum := hex.EncodeToString(s[:])
	for _, c := range []struct {
		name  string
		plant func(t *testing.T, entry, dir string)
		log   string
	}{
		{"tampered", func(t *testing.T, entry, _ string) {
			writeFile(t, entry, []byte("#!/bin/sh\necho other code\n"), 0o700)
		}, "hashes to SHA-256"},
		{"symlink", func(t *testing.T, entry, dir string) {
			target := filepath.Join(dir, "elsewhere")
			writeFile(t, target, good, 0o700)
			if err := os.Symlink(target, entry); err != nil {
				t.Fatal(err)
			}
		}, "is a symbolic link"},
		{"writable by others", func(t *testing.T, entry, _ string) {
			writeFile(t, entry, good, 0o777)
		}, "is writable by others"},
		{"directory", func(t *testing.T, entry, _ string) {
			if err := os.Mkdir(entry, 0o700); err != nil {
				t.Fatal(err)
			}
		}, "is not a regular file"},
	} {
		t.Run(c.name, func(t *testing.T) {
			dir := t.TempDir()
			cache := filepath.Join(dir, "cache")
			if err := os.Mkdir(cache, 0o700); err != nil {
				t.Fatal(err)
			}
			entry := filepath.Join(cache, sum)
			c.plant(t, entry, dir)
			var logged strings.Builder
			log.SetOutput(&logged)
			defer log.SetOutput(os.Stderr)
			if path, ok := cached(cache, sum); ok {
				t.Fatalf("started %s from a planted entry", path)
			}
			if lines := strings.Count(logged.String(), "\n"); lines != 1 || !strings.Contains(logged.String(), c.log) {
				t.Errorf("log %q, want one line with %q", logged.String(), c.log)
			}
			if _, err := os.Lstat(entry); !errors.Is(err, fs.ErrNotExist) {
				t.Errorf("planted entry still there: %v", err)
			}
			if c.name == "symlink" {
				if b, err := os.ReadFile(filepath.Join(dir, "elsewhere")); err != nil || string(b) != string(good) {
					t.Errorf("the link's target was touched: %q %v", b, err)
				}
			}
			staged := filepath.Join(dir, "staged")
			writeFile(t, staged, good, 0o755)
			if err := keep(cache, sum, staged); err != nil {
				t.Fatal(err)
			}
			if path, ok := cached(cache, sum); !ok || path != entry {
				t.Fatalf("after keeping it again: %q %v", path, ok)
			}
		})
	}
}

// TestCacheDirChecked: a cache directory others can write, or a symbolic
// link to one, is not used, and nothing is kept in it.
func TestCacheDirChecked(t *testing.T) {
	good := []byte("the worker binary")
	s := sha256.Sum256(good)
	sum := hex.EncodeToString(s[:])
	dir := t.TempDir()
	open := filepath.Join(dir, "open")
	if err := os.Mkdir(open, 0o700); err != nil {
		t.Fatal(err)
	}
	if err := os.Chmod(open, 0o777); err != nil {
		t.Fatal(err)
	}
	writeFile(t, filepath.Join(open, sum), good, 0o500)
	link := filepath.Join(dir, "link")
	real := filepath.Join(dir, "real")
	if err := os.Mkdir(real, 0o700); err != nil {
		t.Fatal(err)
	}
	writeFile(t, filepath.Join(real, sum), good, 0o500)
	if err := os.Symlink(real, link); err != nil {
		t.Fatal(err)
	}
	staged := filepath.Join(dir, "staged")
	writeFile(t, staged, good, 0o755)
	log.SetOutput(io.Discard)
	defer log.SetOutput(os.Stderr)
	for _, cache := range []string{open, link} {
		if path, ok := cached(cache, sum); ok {
			t.Errorf("started %s from cache %s", path, cache)
		}
		if err := keep(cache, sum, staged); err == nil {
			t.Errorf("kept a binary in %s", cache)
		}
	}
}

func writeFile(t *testing.T, path string, b []byte, mode os.FileMode) {
	t.Helper()
	if err := os.WriteFile(path, b, mode); err != nil {
		t.Fatal(err)
	}
	if err := os.Chmod(path, mode); err != nil { // past the umask
		t.Fatal(err)
	}
}
