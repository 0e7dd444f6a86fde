package main

import (
	"bytes"
	"encoding/binary"
	"encoding/json"
	"hash/crc32"
	"maps"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/neardup/neardup/transforms/format/index"
)

// restore makes dir hold exactly the files of snap (snapshot's).
func restore(t *testing.T, dir string, snap map[string]string) {
	t.Helper()
	if err := os.RemoveAll(dir); err != nil {
		t.Fatal(err)
	}
	for _, rel := range slices.Sorted(maps.Keys(snap)) {
		if snap[rel] == "<dir>" {
			if err := os.MkdirAll(filepath.Join(dir, rel), 0o755); err != nil {
				t.Fatal(err)
			}
			continue
		}
		copyBytes(t, filepath.Join(dir, rel), snap[rel])
	}
}

// manifestJSON returns the manifest of the index in dir as JSON objects,
// numbers kept as written.
func manifestJSON(t *testing.T, dir string) map[string]any {
	t.Helper()
	b, err := os.ReadFile(filepath.Join(dir, index.ManifestName))
	if err != nil {
		t.Fatal(err)
	}
	dec := json.NewDecoder(bytes.NewReader(b))
	dec.UseNumber()
	var m map[string]any
	if err := dec.Decode(&m); err != nil {
		t.Fatal(err)
	}
	return m
}

// editManifest rewrites the manifest of the index in dir through its JSON
// (manifestJSON), without recomputing anything.
func editManifest(t *testing.T, dir string, edit func(m map[string]any)) {
	t.Helper()
	m := manifestJSON(t, dir)
	edit(m)
	b, err := json.MarshalIndent(m, "", "  ")
	if err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(dir, index.ManifestName), b, 0o644); err != nil {
		t.Fatal(err)
	}
}

// generationsOf returns the generations of a manifest edited by
// editManifest.
func generationsOf(m map[string]any) []map[string]any {
	var gens []map[string]any
	for _, g := range m["generations"].([]any) {
		gens = append(gens, g.(map[string]any))
	}
	return gens
}

// refusedAudit runs an audit of idx (--output and --update-index in
// dir) and fails the test unless it exits 1 with one line holding each
// of want, and makes neither directory.
func refusedAudit(t *testing.T, what, dir, idx, batch string, want ...string) {
	t.Helper()
	out, next := filepath.Join(dir, "out"), filepath.Join(dir, "next")
	code, stderr := neardup(t, "", "audit", "--quiet", "--index", idx, "--input", batch, "--output", out, "--update-index", next)
	if code != 1 {
		t.Errorf("%s: exit %d, stderr %q; want 1", what, code, stderr)
	}
	for _, w := range want {
		if !strings.Contains(stderr, w) {
			t.Errorf("%s: stderr %q; want it to say %q", what, stderr, w)
		}
	}
	checkOneLine(t, stderr)
	for _, d := range []string{out, next} {
		if _, err := os.Stat(d); err == nil {
			t.Errorf("%s: %s was made: %q", what, d, listAll(d))
		}
	}
}

// TestIndexSettings (issue 54): an index's settings are what its manifest
// protects. A generation of other containment settings (or none) put in
// place of one a chain lists, with or without its manifest entry and
// fingerprint copied into the chain's manifest, and a config edited in
// index.json (containment 0.8 to 0.9, or removed) are refused when the
// index is opened: exit 1, one line naming both values, nothing written.
func TestIndexSettings(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	input := filepath.Join(dir, "in", "a.jsonl")
	copyFile(t, sampleFile(t, "sample-0.jsonl"), input)
	batch := sampleFile(t, "sample-1.jsonl.gz")
	g0, g1 := filepath.Join(dir, "g0"), filepath.Join(dir, "g1")
	build := func(idx string, flags ...string) {
		t.Helper()
		args := append([]string{"run", "--quiet", "--input", input, "--output", idx + "-run", "--index-out", idx}, flags...)
		if code, stderr := neardup(t, "", args...); code != 0 {
			t.Fatalf("run %q: exit %d: %s", flags, code, stderr)
		}
	}
	build(g0, "--containment", "0.8")
	if code, stderr := neardup(t, "", "audit", "--quiet", "--index", g0, "--input", batch, "--output", filepath.Join(dir, "a1"), "--update-index", g1); code != 0 {
		t.Fatalf("audit: exit %d: %s", code, stderr)
	}
	other := map[string]string{"0.9": filepath.Join(dir, "c09"), "none": filepath.Join(dir, "plain")}
	build(other["0.9"], "--containment", "0.9")
	build(other["none"])
	orig0, orig1 := snapshot(t, g0), snapshot(t, g1)
	g0Manifest, g1Manifest := filepath.Join(g0, "index.json"), filepath.Join(g1, "index.json")
	// replace puts the generation of the index in from in place of g0,
	// and with entry its manifest entry in g1's.
	replace := func(from string, entry bool) {
		t.Helper()
		restore(t, g0, snapshot(t, from))
		if !entry {
			return
		}
		own := generationsOf(manifestJSON(t, from))[0]
		editManifest(t, g1, func(m map[string]any) {
			gen := generationsOf(m)[0]
			for k, v := range own {
				if k != "dir" {
					gen[k] = v
				}
			}
		})
	}
	for _, c := range []struct {
		name  string
		setup func()
		idx   string // the index audited
		want  string
	}{
		{"generation of containment 0.9, entry and fingerprint copied", func() { replace(other["0.9"], true) }, g1,
			g1Manifest + ": index: corrupt: generation 0 (" + g0 + "): its settings are not the manifest's config (containment: config 0.8, generation 0.9)"},
		{"generation without containment, entry and fingerprint copied", func() { replace(other["none"], true) }, g1,
			g1Manifest + ": index: corrupt: generation 0 (" + g0 + "): its settings are not the manifest's config (containment: config 0.8, generation 0)"},
		{"generation of containment 0.9", func() { replace(other["0.9"], false) }, g1,
			"index " + g1 + " needs generation " + g0 + " built with its settings, but " + g0Manifest + " has others (containment: index 0.8, generation 0.9)"},
		{"generation without containment", func() { replace(other["none"], false) }, g1,
			"index " + g1 + " needs generation " + g0 + " built with its settings, but " + g0Manifest + " has others (containment: index 0.8, generation 0)"},
		{"config edited to 0.9", func() {
			editManifest(t, g0, func(m map[string]any) { m["config"].(map[string]any)["containment"] = 0.9 })
		}, g0, g0Manifest + ": index: corrupt: generation 0 (): its settings are not the manifest's config (containment: config 0.9, generation 0.8)"},
		{"config without containment", func() {
			editManifest(t, g0, func(m map[string]any) {
				delete(m["config"].(map[string]any), "containment")
				delete(m["config"].(map[string]any), "containment_min_size")
			})
		}, g0, g0Manifest + ": index: corrupt: generation 0 (): its settings are not the manifest's config (containment: config 0, generation 0.8)"},
		{"chain's config edited to 0.9", func() {
			editManifest(t, g1, func(m map[string]any) { m["config"].(map[string]any)["containment"] = 0.9 })
		}, g1, g1Manifest + ": index: corrupt: generation 0 (" + g0 + "): its settings are not the manifest's config (containment: config 0.9, generation 0.8)"},
		{"a listed generation's config edited to 0.9", func() {
			editManifest(t, g0, func(m map[string]any) { m["config"].(map[string]any)["containment"] = 0.9 })
		}, g1, "index " + g1 + " needs generation " + g0 + " (" + g0Manifest + ": index: corrupt: generation 0 (): its settings are not the manifest's config (containment: config 0.9, generation 0.8)"},
	} {
		c.setup()
		refusedAudit(t, c.name, dir, c.idx, batch, c.want)
		compact := filepath.Join(dir, "compact")
		if code, stderr := neardup(t, "", "index", "compact", "--index", c.idx, "--output", compact); code != 1 || !strings.Contains(stderr, c.want) {
			t.Errorf("%s: index compact: exit %d, stderr %q; want 1 and %q", c.name, code, stderr, c.want)
		} else if _, err := os.Stat(compact); err == nil {
			t.Errorf("%s: index compact made %s", c.name, compact)
		}
		restore(t, g0, orig0)
		restore(t, g1, orig1)
	}
	if code, stderr := neardup(t, "", "audit", "--quiet", "--index", g1, "--input", batch, "--output", filepath.Join(dir, "a2")); code != 0 {
		t.Errorf("audit of the chain restored: exit %d: %s", code, stderr)
	}
}

// TestIndexForeignFiles (issue 54): a shard or key file of an index
// replaced, by a copy or by a hard link, with the file of the same name
// and size of another index (its input the same records, two of them
// swapped) is refused where the audit opens it: exit 1, one line naming
// the file, nothing written; index compact refuses it too. The audit
// reads the whole index (its batch is the index's input) and still reads
// a fraction of it.
func TestIndexForeignFiles(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	a, b := filepath.Join(dir, "a", "in.jsonl"), filepath.Join(dir, "b", "in.jsonl")
	copyFile(t, sampleFile(t, "sample-0.jsonl"), a)
	data, err := os.ReadFile(a)
	if err != nil {
		t.Fatal(err)
	}
	lines := strings.SplitAfter(string(data), "\n")
	lines[200], lines[300] = lines[300], lines[200]
	copyBytes(t, b, strings.Join(lines, ""))
	idxA, idxB := filepath.Join(dir, "a", "idx"), filepath.Join(dir, "b", "idx")
	for in, idx := range map[string]string{a: idxA, b: idxB} {
		if code, stderr := neardup(t, "", "run", "--quiet", "--input", in, "--output", idx+"-run", "--index-out", idx); code != 0 {
			t.Fatalf("run: exit %d: %s", code, stderr)
		}
	}
	mA, mB := readManifest(t, idxA), readManifest(t, idxB)
	var names []string
	for i, sh := range mA.Shards {
		names = append(names, sh.Name)
		if o := mB.Shards[i]; o.Bytes != sh.Bytes || o.CRC32C == sh.CRC32C {
			t.Fatalf("shard %s of the other index: %d bytes, CRC-32C %08x; want %d bytes and another CRC-32C", sh.Name, o.Bytes, o.CRC32C, sh.Bytes)
		}
	}
	for i, k := range mA.Generations[0].Keys {
		names = append(names, k.Name)
		if o := mB.Generations[0].Keys[i]; o.Bytes != k.Bytes || o.CRC32C == k.CRC32C {
			t.Fatalf("key file %s of the other index: %d bytes, CRC-32C %08x; want %d bytes and another CRC-32C", k.Name, o.Bytes, o.CRC32C, k.Bytes)
		}
	}
	orig := snapshot(t, idxA)
	for _, name := range names {
		for _, how := range []string{"copy", "hard link"} {
			path := filepath.Join(idxA, name)
			if err := os.Remove(path); err != nil {
				t.Fatal(err)
			}
			if how == "copy" {
				copyFile(t, filepath.Join(idxB, name), path)
			} else if err := os.Link(filepath.Join(idxB, name), path); err != nil {
				t.Fatal(err)
			}
			what := name + " replaced by another index's (" + how + ")"
			refusedAudit(t, what, dir, idxA, a, path+": index: not the file the manifest lists")
			// A compaction reads every shard whole, and no key file: it
			// writes those of the shards.
			compact := filepath.Join(dir, "compact")
			code, stderr := neardup(t, "", "index", "compact", "--index", idxA, "--output", compact)
			if strings.HasPrefix(name, "keys-") {
				if code != 0 {
					t.Errorf("%s: index compact: exit %d: %s", what, code, stderr)
				}
			} else if code != 1 || !strings.Contains(stderr, path+": index: not the file the manifest lists") {
				t.Errorf("%s: index compact: exit %d, stderr %q; want 1 naming the file", what, code, stderr)
			} else if _, err := os.Stat(compact); err == nil {
				t.Errorf("%s: index compact made %s", what, compact)
			}
			os.RemoveAll(compact)
			restore(t, idxA, orig)
		}
	}
	out := filepath.Join(dir, "restored")
	if code, stderr := neardup(t, "", "audit", "--quiet", "--index", idxA, "--input", a, "--output", out); code != 0 {
		t.Fatalf("audit of the index restored: exit %d: %s", code, stderr)
	}
}

// downgradeToV3 rewrites the indexes in dirs, a chain (each lists those
// before it), as version 3 wrote them: shards of version 5 and key files
// of version 3, without footers, each recorded with the CRC-32C of all
// its bytes, in manifests of version 3 (no generation version, settings
// or fingerprint).
func downgradeToV3(t *testing.T, dirs ...string) {
	t.Helper()
	castagnoli := crc32.MakeTable(crc32.Castagnoli)
	type file struct {
		bytes int64
		crc   uint32
	}
	files := map[string]file{} // by path
	for _, dir := range dirs {
		m := readManifest(t, dir)
		own := m.Generations[len(m.Generations)-1]
		var paths []string
		for _, sh := range own.Shards {
			paths = append(paths, filepath.Join(dir, sh.Name))
		}
		for _, k := range own.Keys {
			paths = append(paths, filepath.Join(dir, k.Name))
		}
		for _, path := range paths {
			b, err := os.ReadFile(path)
			if err != nil {
				t.Fatal(err)
			}
			b = b[:len(b)-4] // the footer
			if strings.HasPrefix(filepath.Base(path), "keys-") {
				binary.LittleEndian.PutUint32(b[8:], 3)
				binary.LittleEndian.PutUint32(b[20:], crc32.Checksum(b[:20], castagnoli))
			} else {
				binary.LittleEndian.PutUint32(b[8:], 5)
				n, k := binary.Uvarint(b[12:])
				h := 12 + k + int(n)
				binary.LittleEndian.PutUint32(b[h:], crc32.Checksum(b[:h], castagnoli))
			}
			if err := os.WriteFile(path, b, 0o644); err != nil {
				t.Fatal(err)
			}
			files[path] = file{int64(len(b)), crc32.Checksum(b, castagnoli)}
		}
	}
	for _, dir := range dirs {
		editManifest(t, dir, func(m map[string]any) {
			m["version"] = 3
			for _, gen := range generationsOf(m) {
				gdir := gen["dir"].(string)
				if gdir == "" {
					gdir = dir
				}
				for _, list := range []string{"shards", "keys"} {
					for _, e := range gen[list].([]any) {
						e := e.(map[string]any)
						f, ok := files[filepath.Join(gdir, e["name"].(string))]
						if !ok {
							t.Fatalf("%s: no file %s of %s downgraded", dir, e["name"], gdir)
						}
						e["bytes"], e["crc32c"] = f.bytes, f.crc
					}
				}
				delete(gen, "version")
				delete(gen, "config")
				delete(gen, "fingerprint")
			}
		})
	}
}

// auditFiles is what an audit wrote to out but its summary and report,
// which hold times and the bytes read.
func auditFiles(t *testing.T, out string) map[string]string {
	t.Helper()
	files := snapshot(t, out)
	delete(files, "audit-summary.json")
	delete(files, "report.html")
	return files
}

// TestIndexVersion3: an index of version 3 (no fingerprints; files without
// footers, which only the sizes and, where read, the blocks' and buckets'
// checksums check) still audits, with the outputs of the index it was,
// and compacts into an index of this version with those outputs; one of
// its generations rebuilt in place is refused as in version 5.
func TestIndexVersion3(t *testing.T) {
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
	audit := func(idx, out string) map[string]string {
		t.Helper()
		if code, stderr := neardup(t, "", "audit", "--quiet", "--index", idx, "--input", input, "--output", out); code != 0 {
			t.Fatalf("audit of %s: exit %d: %s", idx, code, stderr)
		}
		return auditFiles(t, out)
	}
	want := audit(g1, filepath.Join(dir, "v5"))
	downgradeToV3(t, g0, g1)
	if m := readManifest(t, g1); m.Version != 3 || m.Generations[0].Version != 3 || m.Shards[0].Footer {
		t.Fatalf("downgraded manifest: version %d, generation version %d, footers %v", m.Version, m.Generations[0].Version, m.Shards[0].Footer)
	}
	if got := audit(g1, filepath.Join(dir, "v3")); !sameSnapshot(got, want) {
		t.Errorf("audit of the index of version 3 wrote %q, unlike that of version 5 %q", keys(got), keys(want))
	}
	compact := filepath.Join(dir, "compact")
	if code, stderr := neardup(t, "", "index", "compact", "--index", g1, "--output", compact); code != 0 {
		t.Fatalf("index compact of the index of version 3: exit %d: %s", code, stderr)
	}
	if m := readManifest(t, compact); m.Version != index.Version || m.Generations[0].Version != index.Version || !m.Shards[0].Footer {
		t.Errorf("compaction of version 3: version %d, generation version %d, footers %v", m.Version, m.Generations[0].Version, m.Shards[0].Footer)
	}
	if got := audit(compact, filepath.Join(dir, "compacted")); !sameSnapshot(got, want) {
		t.Errorf("audit of the compaction of version 3 wrote %q, unlike the index's %q", keys(got), keys(want))
	}
	// The next index of one of version 3 is of version 5 and lists the
	// old generations with their version; it audits.
	g2 := filepath.Join(dir, "g2")
	if code, stderr := neardup(t, "", "audit", "--quiet", "--index", g1, "--input", batch, "--output", filepath.Join(dir, "a2"), "--update-index", g2); code != 0 {
		t.Fatalf("audit --update-index of the index of version 3: exit %d: %s", code, stderr)
	}
	m2 := readManifest(t, g2)
	var versions []int
	for _, gen := range m2.Generations {
		versions = append(versions, gen.Version)
	}
	if m2.Version != index.Version || !slices.Equal(versions, []int{3, 3, index.Version}) || m2.Shards[0].Footer || !m2.Shards[len(m2.Shards)-1].Footer {
		t.Errorf("next index of version 3: version %d, generations of versions %v, footers %v and %v", m2.Version, versions, m2.Shards[0].Footer, m2.Shards[len(m2.Shards)-1].Footer)
	}
	audit(g2, filepath.Join(dir, "v3next"))

	// g0 rebuilt in place from its input with one id changed (same
	// length): g1 refuses it.
	m1 := readManifest(t, g1)
	b, err := os.ReadFile(input)
	if err != nil {
		t.Fatal(err)
	}
	copyBytes(t, input, strings.Replace(string(b), `"id": "d000007"`, `"id": "x000007"`, 1))
	if code, stderr := neardup(t, "", "run", "--quiet", "--input", input, "--output", filepath.Join(dir, "run0b"), "--index-out", g0, "--overwrite"); code != 0 {
		t.Fatalf("rebuild: exit %d: %s", code, stderr)
	}
	refusedAudit(t, "a generation of version 3 rebuilt in place", dir, g1, batch, "index "+g1+" needs generation "+g0+" with fingerprint "+
		m1.Generations[0].Fingerprint+", but "+filepath.Join(g0, index.ManifestName)+" gives it "+readManifest(t, g0).Generations[0].Fingerprint+
		": the generation was rebuilt or replaced since")
}
