package main

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"

	"github.com/neardup/neardup/transforms/format/index"
)

// TestIndexGenerations: with a chain g0 ← g1 (g1's manifest lists g0),
// no command writes into, replaces or removes g0 (exit 2, one line naming
// both directories, nothing changed), whether the directory is named as
// it is, through "..", or through a symbolic link; and an index read other
// than as written is refused (exit 1, one line, nothing written): a
// manifest that lists a generation twice or whose key files do not cover
// its documents, or a generation rebuilt in place with files of the same
// sizes (TestIndexVersion3: the same of an index of version 3).
func TestIndexGenerations(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	input := filepath.Join(dir, "in", "a.jsonl")
	copyFile(t, sampleFile(t, "sample-0.jsonl"), input)
	batch := sampleFile(t, "sample-1.jsonl.gz")
	g0, g1 := filepath.Join(dir, "g0"), filepath.Join(dir, "g1")
	if code, stderr := neardup(t, "", "run", "--quiet", "--input", input, "--output", filepath.Join(dir, "run0"), "--index-out", g0); code != 0 {
		t.Fatalf("run: exit %d: %s", code, stderr)
	}
	if code, stderr := neardup(t, "", "audit", "--quiet", "--index", g0, "--input", batch, "--output", filepath.Join(dir, "a1"), "--update-index", g1); code != 0 {
		t.Fatalf("audit: exit %d: %s", code, stderr)
	}
	link := filepath.Join(t.TempDir(), "link") // to g0, outside dir
	if err := os.Symlink(g0, link); err != nil {
		t.Fatal(err)
	}
	out := filepath.Join(dir, "out")
	for _, c := range []struct {
		name string
		args []string
		want string
	}{
		{"next index replaces a generation", []string{"audit", "--index", g1, "--input", batch, "--output", out, "--update-index", g0, "--overwrite"},
			"--update-index " + g0 + " overlaps " + g0 + ", a generation of the index --index " + g1 + " (the same directory)"},
		{"next index is a generation through ..", []string{"audit", "--index", g1, "--input", batch, "--output", out, "--update-index", g1 + "/../g0/", "--overwrite"},
			"--update-index " + g1 + "/../g0/ overlaps " + g0 + ", a generation of the index --index " + g1 + " (the same directory)"},
		{"output is a generation", []string{"audit", "--index", g1, "--input", batch, "--output", g0, "--overwrite"},
			"--output " + g0 + " overlaps " + g0 + ", a generation of the index --index " + g1 + " (the same directory)"},
		{"output inside a generation", []string{"audit", "--index", g1, "--input", batch, "--output", filepath.Join(g0, "out")},
			"--output " + filepath.Join(g0, "out") + " overlaps " + g0 + ", a generation of the index --index " + g1 + " (inside it)"},
		{"output inside a generation through a link", []string{"audit", "--index", g1, "--input", batch, "--output", filepath.Join(link, "out")},
			"--output " + filepath.Join(link, "out") + " overlaps " + g0 + ", a generation of the index --index " + g1 + " (inside it)"},
		{"compact output inside a generation", []string{"index", "compact", "--index", g1, "--output", filepath.Join(g0, "compact")},
			"--output " + filepath.Join(g0, "compact") + " overlaps " + g0 + ", a generation of the index --index " + g1 + " (inside it)"},
		{"compact output inside a generation through a link", []string{"index", "compact", "--index", g1, "--output", filepath.Join(link, "compact")},
			"--output " + filepath.Join(link, "compact") + " overlaps " + g0 + ", a generation of the index --index " + g1 + " (inside it)"},
	} {
		before := snapshot(t, dir)
		args := c.args
		if args[0] == "audit" {
			args = append(args, "--quiet")
		}
		code, stderr := neardup(t, "", args...)
		if code != 2 || !strings.Contains(stderr, c.want) {
			t.Errorf("%s: exit %d, stderr %q; want 2 and %q", c.name, code, stderr, c.want)
		}
		checkOneLine(t, stderr)
		if after := snapshot(t, dir); !sameSnapshot(before, after) {
			t.Errorf("%s: %s changed: %q, was %q", c.name, dir, keys(after), keys(before))
		}
	}

	// The compaction of the chain: one generation, its fingerprint recorded.
	c0 := filepath.Join(dir, "c0")
	if code, stderr := neardup(t, "", "index", "compact", "--index", g1, "--output", c0); code != 0 {
		t.Fatalf("index compact: exit %d: %s", code, stderr)
	}
	if m := readManifest(t, c0); m.Version != index.Version || len(m.Generations) != 1 || m.Generations[0].Fingerprint == "" || m.Documents != readManifest(t, g1).Documents {
		t.Errorf("compacted manifest: version %d, %d generations, fingerprint %q, %d documents", m.Version, len(m.Generations), m.Generations[0].Fingerprint, m.Documents)
	}

	// Manifests that do not hold together: exit 1, nothing written.
	manifest := filepath.Join(g1, index.ManifestName)
	orig, err := os.ReadFile(manifest)
	if err != nil {
		t.Fatal(err)
	}
	edit := func(change func(m *index.Manifest)) { // of the manifest as written
		t.Helper()
		if err := os.WriteFile(manifest, orig, 0o644); err != nil {
			t.Fatal(err)
		}
		m := readManifest(t, g1)
		change(m)
		b, err := json.MarshalIndent(m, "", "  ")
		if err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(manifest, b, 0o644); err != nil {
			t.Fatal(err)
		}
	}
	refused := func(what, want string) {
		t.Helper()
		next := filepath.Join(dir, "next")
		code, stderr := neardup(t, "", "audit", "--quiet", "--index", g1, "--input", batch, "--output", out, "--update-index", next)
		if code != 1 || !strings.Contains(stderr, want) {
			t.Errorf("%s: exit %d, stderr %q; want 1 and %q", what, code, stderr, want)
		}
		checkOneLine(t, stderr)
		for _, d := range []string{out, next} {
			if _, err := os.Stat(d); err == nil {
				t.Errorf("%s: %s was made", what, d)
			}
		}
	}
	edit(func(m *index.Manifest) {
		m.Generations = append(m.Generations[:1], m.Generations...)
		m.Documents += m.Generations[0].Documents
	})
	refused("a generation listed twice", manifest+": index: corrupt: generation "+g0+" is listed twice (generations 0 and 1)")
	edit(func(m *index.Manifest) { m.Generations[0].Dir = g1 + "/" })
	refused("the index's own directory listed as a generation", manifest+": index: corrupt: generation "+g1+"/ is listed twice (generation 0 and the manifest's own)")
	var docs int64
	edit(func(m *index.Manifest) {
		m.Generations[1].Keys = []index.KeyFile{}
		docs = m.Generations[1].Documents
	})
	refused("key files emptied", manifest+": index: corrupt: generation 1 (): its key files hold 0 exact keys for "+strconv.FormatInt(docs, 10)+" documents (one each)")
	if err := os.WriteFile(manifest, orig, 0o644); err != nil {
		t.Fatal(err)
	}

	// g0 rebuilt in place from its input with one id changed (same
	// length): the same file sizes, other contents. Run reads no index, so
	// it may; g1's audit then refuses g0.
	m0 := readManifest(t, g0)
	b, err := os.ReadFile(input)
	if err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(input, []byte(strings.Replace(string(b), `"id": "d000007"`, `"id": "x000007"`, 1)), 0o644); err != nil {
		t.Fatal(err)
	}
	if code, stderr := neardup(t, "", "run", "--quiet", "--input", input, "--output", filepath.Join(dir, "run0b"), "--index-out", g0, "--overwrite"); code != 0 {
		t.Fatalf("rebuild: exit %d: %s", code, stderr)
	}
	m0b := readManifest(t, g0)
	for i, sh := range m0b.Shards {
		if sh.Bytes != m0.Shards[i].Bytes || sh.CRC32C == m0.Shards[i].CRC32C {
			t.Fatalf("rebuilt shard %s: %d bytes, CRC-32C %d; want %d bytes as before, and not CRC-32C %d", sh.Name, sh.Bytes, sh.CRC32C, m0.Shards[i].Bytes, m0.Shards[i].CRC32C)
		}
	}
	for i, k := range m0b.Generations[0].Keys {
		if k.Bytes != m0.Generations[0].Keys[i].Bytes {
			t.Fatalf("rebuilt key file %s: %d bytes, want %d", k.Name, k.Bytes, m0.Generations[0].Keys[i].Bytes)
		}
	}
	refused("a generation rebuilt in place", "index "+g1+" needs generation "+g0+" with fingerprint "+m0.Generations[0].Fingerprint+", but "+
		filepath.Join(g0, index.ManifestName)+" gives it "+m0b.Generations[0].Fingerprint+": the generation was rebuilt or replaced since")
	compact := filepath.Join(dir, "compact")
	if code, stderr := neardup(t, "", "index", "compact", "--index", g1, "--output", compact); code != 1 || !strings.Contains(stderr, "the generation was rebuilt or replaced since") {
		t.Errorf("index compact of an index whose generation was rebuilt: exit %d, stderr %q; want 1 and the refusal", code, stderr)
	} else if _, err := os.Stat(compact); err == nil {
		t.Errorf("index compact of an index whose generation was rebuilt made %s", compact)
	}
}
