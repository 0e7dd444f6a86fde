package workfiles

import (
	"context"
	"maps"
	"os"
	"path/filepath"
	"strings"
	"testing"

	_ "github.com/apache/beam/sdks/v2/go/pkg/beam/io/filesystem/local"
)

// TestFileManifest: a manifest written by WriteManifest reads back as
// the same paths by index, whatever they hold (tabs, line breaks, a
// leading quote), and a damaged line is an error naming it.
func TestFileManifest(t *testing.T) {
	ctx := context.Background()
	dir := t.TempDir()
	refs := []FileRef{{0, "/a/x.jsonl"}, {1, "gs://b/y z.jsonl.gz"}, {7, "/c/tab\tin.jsonl"},
		{8, "/d/line\nbreak.jsonl"}, {9, "/e/cr\r.jsonl"}, {10, `"quoted".jsonl`}}
	m, err := WriteManifest(ctx, dir, "inputs.tsv", refs)
	if err != nil {
		t.Fatal(err)
	}
	got, err := FilePaths(ctx, m)
	if err != nil {
		t.Fatal(err)
	}
	want := map[int]string{0: "/a/x.jsonl", 1: "gs://b/y z.jsonl.gz", 7: "/c/tab\tin.jsonl",
		8: "/d/line\nbreak.jsonl", 9: "/e/cr\r.jsonl", 10: `"quoted".jsonl`}
	if !maps.Equal(got, want) {
		t.Fatalf("read back %v, want %v", got, want)
	}
	bad := filepath.Join(dir, "damaged.tsv")
	if err := os.WriteFile(bad, []byte("0\t/a\nnot a line\n2\t\"bad quote\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	if _, err := FilePaths(ctx, bad); err == nil || !strings.Contains(err.Error(), "line 2") {
		t.Errorf("damaged manifest: %v, want an error naming line 2", err)
	}
	if err := os.WriteFile(bad, []byte("0\t/a\n2\t\"bad quote\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	if _, err := FilePaths(ctx, bad); err == nil || !strings.Contains(err.Error(), "line 2") {
		t.Errorf("a broken quoted path: %v, want an error naming line 2", err)
	}
}
