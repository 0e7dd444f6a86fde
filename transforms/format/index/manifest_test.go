package index

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"strings"
	"testing"
)

// testGeneration returns a generation of one shard per count of records
// and the key file of partition 0 of them all: one exact key and two band
// keys a document.
func testGeneration(t testing.TB, records ...int64) Generation {
	t.Helper()
	gen := Generation{Keys: []KeyFile{}}
	var es [Kinds][]KeyEntry
	for i, n := range records {
		gen.Shards = append(gen.Shards, Shard{Name: ShardName(i), Source: fmt.Sprintf("/in/f%d.jsonl", i), Records: n, Bytes: 40 + 10*n, CRC32C: uint32(1000*i) + uint32(n)})
		for r := range n {
			k := uint64(i)<<32 | uint64(r)
			es[KindExact] = append(es[KindExact], KeyEntry{Key: k * 0x9e3779b97f4a7c15, Shard: uint32(i), Ord: uint32(r)})
			for b := range uint64(2) {
				es[KindBand] = append(es[KindBand], KeyEntry{Key: (k*0x2545f4914f6cdd1d + b) >> 24, Shard: uint32(i), Ord: uint32(r)})
			}
		}
	}
	if len(es[KindExact]) > 0 {
		k, err := WriteKeyFile(&bytes.Buffer{}, 0, 0, &es)
		if err != nil {
			t.Fatal(err)
		}
		gen.Keys = append(gen.Keys, k)
	}
	return gen
}

// testChain is the manifest of an index of two generations: /idx/g0 and
// its own.
func testChain(t testing.TB) Manifest {
	cfg := Config{Tokens: "char", Shingle: 5, Perms: 128, MinHash: "classic", Method: "both", Threshold: 0.8, Hamming: 3, Bands: 16, Rows: 8, SimBlocks: 5, Format: "jsonl", IDField: "id", TextField: "text"}
	g0, g1 := testGeneration(t, 3, 4), testGeneration(t, 2)
	g0.Dir = "/idx/g0"
	g1.Shards[0].CRC32C = 77 // another file than g0's first
	return NewManifest(cfg, []Generation{g0, g1})
}

// downgrade makes m a manifest of version v (3 or 4) of the same files
// as that version wrote them: generations without version or settings,
// key files without footers, fingerprints of the files alone (version 4)
// or none (version 3).
func downgrade(m *Manifest, v int) {
	m.Version = v
	for g := range m.Generations {
		gen := &m.Generations[g]
		gen.Version, gen.Config = 0, Config{}
		for k := range gen.Keys {
			gen.Keys[k].Bytes -= footerLen
		}
		gen.Fingerprint = ""
		if v == 4 {
			gen.Fingerprint = gen.fingerprintV4()
		}
	}
}

// TestManifestDamage: a manifest whose generations, settings, counts or
// fingerprints do not hold together is refused with an error naming what
// does not hold; one of version 3 (no fingerprints) or 4 (fingerprints of
// the files alone) reads with the fingerprints of its version, settings
// and lists.
func TestManifestDamage(t *testing.T) {
	good := testChain(t)
	for _, gen := range good.Generations {
		if len(gen.Fingerprint) != 32 || gen.Fingerprint != gen.ComputeFingerprint() {
			t.Fatalf("NewManifest: fingerprint %q, want the 32 hex digits of %q", gen.Fingerprint, gen.ComputeFingerprint())
		}
	}
	if good.Generations[0].Fingerprint == good.Generations[1].Fingerprint {
		t.Fatal("two generations of other files have one fingerprint")
	}
	if b, err := good.Marshal(); err != nil {
		t.Fatal(err)
	} else if _, err := ParseManifest(b, "x/index.json"); err != nil {
		t.Fatalf("the manifest as written: %v", err)
	}
	// refresh recomputes the fingerprints after a damage: the manifest is
	// then consistent but for what the damage did.
	refresh := func(m *Manifest) {
		for g := range m.Generations {
			m.Generations[g].Fingerprint = m.Generations[g].ComputeFingerprint()
		}
	}
	cases := []struct {
		name   string
		damage func(m *Manifest)
		msg    string
	}{
		{"generation listed twice", func(m *Manifest) {
			m.Generations = append(m.Generations[:1], m.Generations...)
		}, "generation /idx/g0 is listed twice (generations 0 and 1)"},
		{"generation listed twice by another name", func(m *Manifest) {
			m.Generations = append(m.Generations[:1], m.Generations...)
			m.Generations[1].Dir = "/idx/g0/"
		}, "generation /idx/g0/ is listed twice (generations 0 and 1)"},
		{"generation copied and listed twice", func(m *Manifest) {
			m.Generations = append(m.Generations[:1], m.Generations...)
			m.Generations[1].Dir = "/idx/copy-of-g0"
		}, "generations 0 (/idx/g0) and 1 (/idx/copy-of-g0) are the same files (fingerprint " + good.Generations[0].Fingerprint + "): a generation listed twice"},
		{"key files emptied", func(m *Manifest) {
			m.Generations[1].Keys = []KeyFile{}
		}, "generation 1 (): its key files hold 0 exact keys for 2 documents (one each)"},
		{"key files emptied, fingerprint recomputed", func(m *Manifest) {
			m.Generations[0].Keys = []KeyFile{}
			refresh(m)
		}, "generation 0 (/idx/g0): its key files hold 0 exact keys for 7 documents (one each)"},
		{"exact keys of another count", func(m *Manifest) {
			m.Generations[0].Keys[0].Sections[KindExact].Entries = 6
			refresh(m)
		}, "generation 0 (/idx/g0): its key files hold 6 exact keys for 7 documents (one each)"},
		{"generation documents disagree", func(m *Manifest) {
			m.Generations[0].Documents = 8
		}, "generation 0 (/idx/g0): documents 8, but its shards hold 7"},
		{"shard records disagree with the keys", func(m *Manifest) {
			m.Generations[0].Shards[1].Records = 5
			m.Generations[0].Documents = 8
			m.Documents = 10
			refresh(m)
		}, "generation 0 (/idx/g0): its key files hold 7 exact keys for 8 documents (one each)"},
		{"manifest documents disagree", func(m *Manifest) {
			m.Documents = 10
		}, "documents 10, but the shards hold 9"},
		{"shard checksum changed", func(m *Manifest) {
			m.Generations[0].Shards[0].CRC32C++
		}, `generation 0 (/idx/g0): fingerprint "` + good.Generations[0].Fingerprint + `", but its version, settings and lists of files give `},
		{"key file checksum changed", func(m *Manifest) {
			m.Generations[1].Keys[0].CRC32C++
		}, `generation 1 (): fingerprint "` + good.Generations[1].Fingerprint + `", but its version, settings and lists of files give `},
		{"fingerprint changed", func(m *Manifest) {
			m.Generations[1].Fingerprint = strings.Repeat("0", 32)
		}, `generation 1 (): fingerprint "00000000000000000000000000000000", but its version, settings and lists of files give ` + good.Generations[1].Fingerprint},
		{"no fingerprint", func(m *Manifest) {
			m.Generations[0].Fingerprint = ""
		}, `generation 0 (/idx/g0): fingerprint "", but its version, settings and lists of files give ` + good.Generations[0].Fingerprint},
		{"fingerprint in version 3", func(m *Manifest) {
			downgrade(m, 3)
			m.Generations[0].Fingerprint = good.Generations[0].Fingerprint
		}, "generation 0 (/idx/g0): a fingerprint in a version 3 manifest"},
		{"version 4 fingerprint changed", func(m *Manifest) {
			downgrade(m, 4)
			m.Generations[1].Fingerprint = good.Generations[1].Fingerprint
		}, `generation 1 (): fingerprint "` + good.Generations[1].Fingerprint + `", but its lists of files give `},
		{"generation settings in version 4", func(m *Manifest) {
			m.Version = 4
		}, "generation 0 (/idx/g0): a version or config in a version 4 manifest"},
		{"generation of version 2", func(m *Manifest) {
			m.Generations[0].Version = 2
			refresh(m)
		}, "generation 0 (/idx/g0): version 2 out of [3, 5]"},
		{"generation of a newer version", func(m *Manifest) {
			m.Generations[1].Version = Version + 1
			refresh(m)
		}, fmt.Sprintf("generation 1 (): version %d out of [3, 5]", Version+1)},
		// A generation of another index, built with other settings, its
		// entry and fingerprint copied along.
		{"generation of other settings", func(m *Manifest) {
			m.Generations[0].Config.Containment, m.Generations[0].Config.ContainMinSize = 0.8, 10
			refresh(m)
		}, "generation 0 (/idx/g0): its settings are not the manifest's config (containment: config 0, generation 0.8): the config was edited, or the generation is of another index"},
		{"config edited", func(m *Manifest) {
			m.Config.Threshold = 0.9
		}, "generation 0 (/idx/g0): its settings are not the manifest's config (threshold: config 0.9, generation 0.8)"},
		{"config and the generations' settings edited", func(m *Manifest) {
			m.Config.Shingle = 4
			for g := range m.Generations {
				m.Generations[g].Config.Shingle = 4
			}
		}, `generation 0 (/idx/g0): fingerprint "` + good.Generations[0].Fingerprint + `", but its version, settings and lists of files give `},
		{"generation without settings", func(m *Manifest) {
			m.Generations[1].Config = Config{}
		}, "generation 1 (): its settings are not the manifest's config (tokens: config char, generation ; shingle: config 5, generation 0; "},
		{"key file without its footer", func(m *Manifest) {
			m.Generations[1].Keys[0].Bytes -= footerLen
			refresh(m)
		}, "generation 1 (): key file keys-00000.bin: sections end at "},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			m := testChain(t)
			c.damage(&m)
			b, err := json.Marshal(m)
			if err != nil {
				t.Fatal(err)
			}
			_, err = ParseManifest(b, "x/index.json")
			if !errors.Is(err, ErrCorrupt) || !strings.Contains(err.Error(), c.msg) || !strings.HasPrefix(err.Error(), "x/index.json: ") || strings.Contains(err.Error(), "\n") {
				t.Fatalf("got %v, want one line naming x/index.json and %q", err, c.msg)
			}
		})
	}

	// Versions 3 and 4: the generations get the manifest's version and
	// settings, and the fingerprints of them and their lists; their files
	// have no footers.
	for _, v := range []int{3, 4} {
		old := testChain(t)
		downgrade(&old, v)
		b, err := json.Marshal(old)
		if err != nil {
			t.Fatal(err)
		}
		m, err := ParseManifest(b, "x/index.json")
		if err != nil {
			t.Fatalf("version %d: %v", v, err)
		}
		for g, gen := range m.Generations {
			want := old.Generations[g]
			want.Version, want.Config = v, good.Config
			if gen.Version != v || gen.Config != good.Config || gen.Fingerprint != want.ComputeFingerprint() || gen.Fingerprint == good.Generations[g].Fingerprint {
				t.Errorf("version %d: generation %d: version %d, config %+v, fingerprint %q; want %d, the manifest's, %q", v, g, gen.Version, gen.Config, gen.Fingerprint, v, want.ComputeFingerprint())
			}
			if gen.Shards[0].Footer || gen.Keys[0].Footer || m.Shards[0].Footer {
				t.Errorf("version %d: generation %d: files with footers", v, g)
			}
		}
	}
	m, _ := ParseManifest(must(good.Marshal()), "x/index.json")
	if !m.Shards[0].Footer || !m.Generations[1].Keys[0].Footer {
		t.Error("version 5: files without footers")
	}
}

func must[T any](v T, err error) T {
	if err != nil {
		panic(err)
	}
	return v
}

// TestFingerprint: the fingerprint follows the version, the settings and
// every value of the files' lists it covers, and none it does not (the
// sources' sizes and times, which a command records after the files are
// written).
func TestFingerprint(t *testing.T) {
	base := testGeneration(t, 3, 4)
	fp := base.ComputeFingerprint()
	changes := map[string]func(g *Generation){
		"version":         func(g *Generation) { g.Version++ },
		"containment":     func(g *Generation) { g.Config.Containment = 0.8 },
		"shingle":         func(g *Generation) { g.Config.Shingle = 4 },
		"partition bits":  func(g *Generation) { g.PartitionBits++ },
		"shard name":      func(g *Generation) { g.Shards[1].Name = ShardName(2) },
		"shard records":   func(g *Generation) { g.Shards[0].Records++ },
		"shard bytes":     func(g *Generation) { g.Shards[0].Bytes++ },
		"shard CRC-32C":   func(g *Generation) { g.Shards[1].CRC32C ^= 1 << 31 },
		"a shard less":    func(g *Generation) { g.Shards = g.Shards[:1] },
		"key name":        func(g *Generation) { g.Keys[0].Name = KeyFileName(1) },
		"key partition":   func(g *Generation) { g.Keys[0].Partition++ },
		"key bytes":       func(g *Generation) { g.Keys[0].Bytes++ },
		"key CRC-32C":     func(g *Generation) { g.Keys[0].CRC32C++ },
		"section entries": func(g *Generation) { g.Keys[0].Sections[KindSim].Entries++ },
		"section bits":    func(g *Generation) { g.Keys[0].Sections[KindBand].Bits++ },
		"section start":   func(g *Generation) { g.Keys[0].Sections[KindBand].Start++ },
		"section dir":     func(g *Generation) { g.Keys[0].Sections[KindExact].Dir++ },
		"no key file":     func(g *Generation) { g.Keys = nil },
	}
	for name, change := range changes {
		g := testGeneration(t, 3, 4)
		change(&g)
		if g.ComputeFingerprint() == fp {
			t.Errorf("%s: the fingerprint did not change", name)
		}
	}
	g := testGeneration(t, 3, 4)
	g.Dir, g.Path, g.Documents, g.Fingerprint = "/elsewhere", "/x", 99, "f"
	g.Shards[0].Source, g.Shards[0].SourceBytes, g.Shards[0].SourceMtime = "/moved.jsonl", 12, "2026-11-29T00:00:00Z"
	if g.ComputeFingerprint() != fp {
		t.Error("the fingerprint follows the directory, the sources or the counts derived")
	}
}

// FuzzManifest: ParseManifest returns a manifest or an error, never
// panics, and a manifest it returns holds together: its counts add up,
// no directory or fingerprint repeats, and it writes back to a manifest
// that parses the same.
func FuzzManifest(f *testing.F) {
	good := testChain(f)
	b, err := good.Marshal()
	if err != nil {
		f.Fatal(err)
	}
	f.Add(b)
	for _, v := range []int{3, 4} {
		old := testChain(f)
		downgrade(&old, v)
		b, _ := json.Marshal(old)
		f.Add(b)
	}
	f.Add([]byte(`{"format":"neardup-index","version":2,"config":{},"documents":1,"shards":[{"name":"index-00000.bin","records":1,"bytes":9}]}`))
	f.Add([]byte(`{"format":"neardup-index","version":4,"generations":[{"dir":"/a"},{"dir":"/a/"}]}`))
	f.Fuzz(func(t *testing.T, b []byte) {
		m, err := ParseManifest(b, "x")
		if err != nil {
			if !errors.Is(err, ErrCorrupt) && !errors.Is(err, ErrVersion) {
				t.Fatalf("error not of ErrCorrupt or ErrVersion: %v", err)
			}
			return
		}
		var docs int64
		for _, gen := range m.Generations {
			docs += gen.Documents
		}
		if docs != m.Documents {
			t.Fatalf("documents %d, generations hold %d", m.Documents, docs)
		}
		if m.Version == 2 {
			return
		}
		dirs, fps := map[string]bool{}, map[string]bool{}
		for _, gen := range m.Generations {
			if gen.Dir != "" && dirs[CleanDir(gen.Dir)] || gen.Documents > 0 && fps[gen.Fingerprint] {
				t.Fatalf("generation %q listed twice", gen.Dir)
			}
			dirs[CleanDir(gen.Dir)] = true
			if gen.Documents > 0 {
				fps[gen.Fingerprint] = true
			}
			if gen.Fingerprint != gen.ComputeFingerprint() {
				t.Fatalf("generation %q: fingerprint %q, lists give %q", gen.Dir, gen.Fingerprint, gen.ComputeFingerprint())
			}
			var exact int64
			for _, k := range gen.Keys {
				exact += k.Sections[KindExact].Entries
			}
			if exact != gen.Documents {
				t.Fatalf("generation %q: %d exact keys for %d documents", gen.Dir, exact, gen.Documents)
			}
		}
		out := NewManifest(m.Config, m.Generations)
		b2, err := out.Marshal()
		if err != nil {
			t.Fatal(err)
		}
		m2, err := ParseManifest(b2, "x")
		if err != nil {
			t.Fatalf("a manifest written back does not parse: %v", err)
		}
		if m2.Documents != m.Documents || len(m2.Shards) != len(m.Shards) {
			t.Fatalf("written back: %d documents in %d shards, want %d in %d", m2.Documents, len(m2.Shards), m.Documents, len(m.Shards))
		}
	})
}

// TestOwnGeneration: the fingerprint of a manifest's own generation and
// the manifest's settings, as recorded (version 5, even if its lists say
// otherwise: the listing manifest checked those) or computed (versions 3
// and 4); an error without one, or with an own generation of other
// settings.
func TestOwnGeneration(t *testing.T) {
	m := testChain(t)
	want := m.Generations[1].Fingerprint
	b, _ := json.Marshal(m)
	if got, cfg, err := OwnGeneration(b, "x"); err != nil || got != want || cfg != m.Config {
		t.Errorf("version 5: %q, %+v, %v; want %q and the config", got, cfg, err, want)
	}
	m.Generations[1].Fingerprint = "recorded"
	b, _ = json.Marshal(m)
	if got, _, err := OwnGeneration(b, "x"); err != nil || got != "recorded" {
		t.Errorf("version 5, as recorded: %q, %v; want %q", got, err, "recorded")
	}
	m = testChain(t)
	m.Config.Containment = 0.9
	b, _ = json.Marshal(m)
	if _, _, err := OwnGeneration(b, "x"); !errors.Is(err, ErrCorrupt) || !strings.Contains(err.Error(), "x: index: corrupt: generation 1 (): its settings are not the manifest's config (containment: config 0.9, generation 0)") {
		t.Errorf("config edited: %v", err)
	}
	for _, v := range []int{3, 4} {
		m = testChain(t)
		downgrade(&m, v)
		gen := m.Generations[1]
		gen.Version, gen.Config = v, m.Config
		b, _ = json.Marshal(m)
		if got, cfg, err := OwnGeneration(b, "x"); err != nil || got != gen.ComputeFingerprint() || cfg != m.Config {
			t.Errorf("version %d: %q, %+v, %v; want %q and the config", v, got, cfg, err, gen.ComputeFingerprint())
		}
	}
	m = testChain(t)
	m.Generations = m.Generations[:1]
	m.Documents = m.Generations[0].Documents
	b, _ = json.Marshal(m)
	if got, _, err := OwnGeneration(b, "x"); err == nil || !strings.Contains(err.Error(), "x: index: corrupt: no generation in its own directory") {
		t.Errorf("no own generation: %q, %v", got, err)
	}
	if _, _, err := OwnGeneration([]byte(`{"format":"neardup-index","version":1}`), "x"); !errors.Is(err, ErrVersion) {
		t.Errorf("version 1: %v, want ErrVersion", err)
	}
}
