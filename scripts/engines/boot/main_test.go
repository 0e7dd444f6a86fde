package main

import (
	"crypto/sha256"
	"encoding/hex"
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

func TestValidSHA256(t *testing.T) {
	sum := sha256.Sum256([]byte("worker"))
	good := hex.EncodeToString(sum[:])
	for _, c := range []struct{ in, want string }{
		{good, good},
		{strings.ToUpper(good), good},
		{"", ""},
		{strings.Repeat("z", 64), ""},
		{good[:62], ""},
		{good + "00", ""},
	} {
		if got := validSHA256(c.in); got != c.want {
			t.Errorf("validSHA256(%q) = %q, want %q", c.in, got, c.want)
		}
	}
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
