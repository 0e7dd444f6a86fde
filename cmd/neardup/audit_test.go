package main

import (
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/neardup/neardup/cmd/neardup/internal/outdir"
	"github.com/neardup/neardup/transforms/format/index"
	"github.com/neardup/neardup/transforms/format/summary"
)

// TestOpenNextIndex: the next index may not be the old one, inside it,
// or around it, and must be empty.
func TestOpenNextIndex(t *testing.T) {
	root := t.TempDir()
	old := filepath.Join(root, "idx")
	if err := os.MkdirAll(old, 0o755); err != nil {
		t.Fatal(err)
	}
	full := filepath.Join(root, "full")
	if err := os.MkdirAll(full, 0o755); err != nil {
		t.Fatal(err)
	}
	os.WriteFile(filepath.Join(full, "x"), nil, 0o644)
	for _, c := range []struct {
		next string
		ok   bool
	}{
		{filepath.Join(root, "idx2"), true},
		{old, false},
		{old + "/", false},
		{filepath.Join(old, "next"), false},
		{root, false},
		{full, false},
	} {
		var aborts []func()
		open := func(k outdir.Kind, dir string) (*outdir.Dir, error) {
			d, abort, err := openDir(k, dir, false, nil)
			if err == nil {
				aborts = append(aborts, abort)
			}
			return d, err
		}
		_, err := openNextIndex(open, old, c.next)
		if (err == nil) != c.ok {
			t.Errorf("next %s: err %v, want ok=%v", c.next, err, c.ok)
		}
		for _, abort := range aborts {
			abort()
		}
	}
}

// TestAuditCommand runs 'neardup run --index-out' and 'neardup audit
// --update-index' as a user would, then the audits the command must refuse:
// flags that differ from the index's settings, a next index inside the old
// one, a manifest of another version, a truncated shard.
func TestAuditCommand(t *testing.T) {
	sample, err := filepath.Abs("../../testdata/sample")
	if err != nil {
		t.Fatal(err)
	}
	dir := t.TempDir()
	idx, next := filepath.Join(dir, "idx"), filepath.Join(dir, "next")
	if code, stderr := neardup(t, "", "run", "--quiet", "--input", filepath.Join(sample, "sample-0.jsonl"),
		"--output", filepath.Join(dir, "run"), "--index-out", idx); code != 0 {
		t.Fatalf("run: exit %d: %s", code, stderr)
	}
	newInput := filepath.Join(sample, "sample-1.jsonl.gz")
	audit := func(out string, extra ...string) (int, string) {
		return neardup(t, "", append([]string{"audit", "--quiet", "--input", newInput, "--output", filepath.Join(dir, out)}, extra...)...)
	}
	if code, stderr := audit("a1", "--index", idx, "--update-index", next); code != 0 {
		t.Fatalf("audit: exit %d: %s", code, stderr)
	}
	for _, name := range []string{"audit-summary.json", "audit-00000.jsonl", "dedup-00000.jsonl.gz"} { // as its input, gzipped
		if _, err := os.Stat(filepath.Join(dir, "a1", name)); err != nil {
			t.Errorf("audit output: %v", err)
		}
	}
	for _, name := range []string{index.ManifestName, index.ShardName(0), index.KeyFileName(0)} { // the new generation alone
		if _, err := os.Stat(filepath.Join(next, name)); err != nil {
			t.Errorf("next index: %v", err)
		}
	}
	// audit-summary.json records the settings the audit ran with: the
	// index's, and the shape chosen for this machine.
	man := readManifest(t, idx)
	sumJSON, err := os.ReadFile(filepath.Join(dir, "a1", summary.AuditFileName))
	if err != nil {
		t.Fatal(err)
	}
	var sum summary.AuditSummary
	if err := json.Unmarshal(sumJSON, &sum); err != nil {
		t.Fatal(err)
	}
	if got := sum.Settings; got == nil || got.Config != man.Config || got.CCRounds != 0 || got.Runner != "direct" {
		t.Errorf("audit settings %+v; want the index's %+v, cc_rounds 0, runner direct", got, man.Config)
	}
	refused := []struct {
		name string
		args []string
		want string
		code int // 2: a mistake on the command line
	}{
		{"other threshold", []string{"--index", idx, "--threshold", "0.9"}, "threshold: index 0.8, now 0.9", 2},
		{"next index inside the old", []string{"--index", idx, "--update-index", filepath.Join(idx, "sub")}, "overlaps the old index", 2},
		{"no index", []string{"--index", filepath.Join(dir, "none")}, "no manifest", 1},
	}
	for _, c := range refused {
		code, stderr := audit("refused", c.args...)
		if code != c.code || !strings.Contains(stderr, c.want) {
			t.Errorf("%s: exit %d, stderr %q; want %d and a failure saying %q", c.name, code, stderr, c.code, c.want)
		}
	}
	// A manifest of another version, then a truncated shard.
	manifest := filepath.Join(next, index.ManifestName)
	b, err := os.ReadFile(manifest)
	if err != nil {
		t.Fatal(err)
	}
	cur := fmt.Sprintf(`"version": %d`, index.Version)
	os.WriteFile(manifest, []byte(strings.Replace(string(b), cur, `"version": 7`, 1)), 0o644)
	if code, stderr := audit("v7", "--index", next); code == 0 || !strings.Contains(stderr, "unsupported version 7") {
		t.Errorf("version 7: exit %d, stderr %q", code, stderr)
	}
	// An index of version 1 (lengths of JSONL records were their lines):
	// refused with one line that says to rebuild it.
	os.WriteFile(manifest, []byte(strings.Replace(string(b), cur, `"version": 1`, 1)), 0o644)
	if code, stderr := audit("v1", "--index", next); code == 0 || strings.Count(stderr, "\n") != 1 ||
		!strings.Contains(stderr, "unsupported version 1") || !strings.Contains(stderr, "rebuild the index with `neardup run --index-out`") {
		t.Errorf("version 1: exit %d, stderr %q; want one line saying to rebuild the index", code, stderr)
	}
	// An index of version 2: refused with one line naming the command that
	// converts it.
	m0 := readManifest(t, idx)
	v2, _ := json.Marshal(map[string]any{"format": index.FormatName, "version": 2, "config": m0.Config, "documents": m0.Documents, "shards": m0.Shards})
	os.WriteFile(manifest, v2, 0o644)
	if code, stderr := audit("v2", "--index", next); code == 0 || strings.Count(stderr, "\n") != 1 ||
		!strings.Contains(stderr, "neardup index compact --index "+next+" --output NEW_DIR") {
		t.Errorf("version 2: exit %d, stderr %q; want one line naming the conversion", code, stderr)
	}
	os.WriteFile(manifest, b, 0o644)
	// A truncated shard, then a generation removed.
	shard := filepath.Join(next, index.ShardName(0))
	sb, err := os.ReadFile(shard)
	if err != nil {
		t.Fatal(err)
	}
	os.WriteFile(shard, sb[:len(sb)-5], 0o644)
	want := fmt.Sprintf("index %s needs generation %s (%s has %d bytes, the manifest says %d)", next, next, shard, len(sb)-5, len(sb))
	if code, stderr := audit("cut", "--index", next); code == 0 || !strings.Contains(stderr, want) {
		t.Errorf("truncated shard: exit %d, stderr %q; want %q", code, stderr, want)
	}
	os.WriteFile(shard, sb, 0o644)
	os.Remove(filepath.Join(idx, index.ShardName(0)))
	want = fmt.Sprintf("index %s needs generation %s (%s is missing)", next, idx, filepath.Join(idx, index.ShardName(0)))
	if code, stderr := audit("gone", "--index", next); code == 0 || strings.Count(stderr, "\n") != 1 || !strings.Contains(stderr, want) {
		t.Errorf("generation removed: exit %d, stderr %q; want %q", code, stderr, want)
	}
}

// readManifest reads and checks the manifest of the index in dir.
func readManifest(t *testing.T, dir string) *index.Manifest {
	t.Helper()
	b, err := os.ReadFile(filepath.Join(dir, index.ManifestName))
	if err != nil {
		t.Fatal(err)
	}
	m, err := index.ParseManifest(b, dir)
	if err != nil {
		t.Fatal(err)
	}
	return m
}
