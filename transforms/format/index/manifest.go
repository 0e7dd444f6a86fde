package index

import (
	"crypto/sha256"
	"encoding/binary"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"path"
	"slices"
	"strings"
)

// Shard describes one document shard in the manifest.
type Shard struct {
	Name    string `json:"name"`
	Source  string `json:"source"` // the input file whose kept documents it holds
	Records int64  `json:"records"`
	Bytes   int64  `json:"bytes"`
	CRC32C  uint32 `json:"crc32c"` // of the whole shard file
	// SourceBytes and SourceMtime are the size and the modification time
	// (RFC 3339, UTC; local files only) of Source when it was indexed. An
	// audit re-reads indexed documents from Source only if it still has
	// them. Indexes written before they were recorded lack them.
	SourceBytes int64  `json:"source_bytes,omitempty"`
	SourceMtime string `json:"source_mtime,omitempty"`

	// Gen is the number of the generation that holds the shard (in
	// Manifest.Shards, the flattened list).
	Gen int `json:"-"`
	// Footer: the shard ends with its CRC-32C (a generation of version 5
	// or later): a reader refuses one without (ErrForeign).
	Footer bool `json:"-"`
}

// A Generation is the immutable files one job wrote in one directory:
// the document shards of the documents it kept and their key runs.
type Generation struct {
	// Dir is the generation's directory: "" for the directory of the
	// manifest itself, otherwise an absolute path or a URL.
	Dir string `json:"dir"`
	// Version is the version of the manifest the generation's job wrote:
	// from 5, its files end with their CRC-32C (Shard.Footer). Config is
	// the settings it was built with, the manifest's own (Manifest.Config)
	// in an index that opens. Manifests before version 5 record neither:
	// ParseManifest sets them to the manifest's.
	Version   int    `json:"version"`
	Config    Config `json:"config"`
	Documents int64  `json:"documents"`
	// PartitionBits: the key runs partition the keys by their top
	// PartitionBits bits (of 64 for exact keys, wire.KeyBits for the
	// others).
	PartitionBits int       `json:"partition_bits"`
	Shards        []Shard   `json:"shards"`
	Keys          []KeyFile `json:"keys"` // by partition; a partition without keys has none
	// Fingerprint identifies the generation's files and settings
	// (ComputeFingerprint). The manifest a generation's job wrote records
	// it, and so does every manifest that lists the generation since; an
	// index opens only if they agree (indexing.OpenIndex). Manifests of
	// version 3 lack it, those of version 4 record one of the files alone:
	// ParseManifest checks that one and computes this one from the lists.
	Fingerprint string `json:"fingerprint,omitempty"`

	// Path is Dir resolved against the manifest's directory (set by the
	// reader of the manifest; "" until then).
	Path string `json:"-"`
}

// Manifest is index.json.
type Manifest struct {
	Format      string       `json:"format"`
	Version     int          `json:"version"`
	Config      Config       `json:"config"`
	Documents   int64        `json:"documents"`
	Generations []Generation `json:"generations"`

	// Shards is every generation's shards in order: an indexed document of
	// Shards[n] is numbered in an audit as the document of shard n (see
	// filelist.IndexFileBase), whatever generation holds it.
	Shards []Shard `json:"-"`
}

// NewManifest returns the manifest of the generations gens (in order),
// with their fingerprints. A generation without a version is one this
// job wrote: it gets Version and the settings cfg.
func NewManifest(cfg Config, gens []Generation) Manifest {
	m := Manifest{Format: FormatName, Version: Version, Config: cfg, Generations: gens}
	for g := range m.Generations {
		if gen := &m.Generations[g]; gen.Version == 0 {
			gen.Version, gen.Config = Version, cfg
		}
	}
	m.flatten()
	for g := range m.Generations {
		m.Generations[g].Fingerprint = m.Generations[g].ComputeFingerprint()
	}
	return m
}

// ComputeFingerprint returns the fingerprint of the generation's files and
// settings: the first 16 bytes, in hex, of the SHA-256 of its version, its
// config (as compact JSON), its partition bits and, for each shard, its
// name, record count, size and CRC-32C, and for each key file, its name,
// partition, size, CRC-32C and sections (see docs/INDEX_FORMAT.md). The
// CRC-32C of a file is that of all its bytes before its footer (all its
// bytes before version 5), computed as it is written, so that the
// fingerprint changes with any file's contents without reading the
// files; it holds no path or time.
func (gen *Generation) ComputeFingerprint() string {
	cfg, err := json.Marshal(gen.Config)
	if err != nil { // a Config always marshals
		panic(err)
	}
	b := []byte("neardup-generation-5\n")
	b = binary.AppendUvarint(b, uint64(gen.Version))
	b = binary.AppendUvarint(b, uint64(len(cfg)))
	b = append(b, cfg...)
	return gen.fingerprint(b)
}

// fingerprintV4 is the fingerprint a version 4 manifest records: that of
// the files alone.
func (gen *Generation) fingerprintV4() string { return gen.fingerprint([]byte("neardup-generation\n")) }

// fingerprint returns the fingerprint of b followed by the generation's
// lists.
func (gen *Generation) fingerprint(b []byte) string {
	b = binary.AppendUvarint(b, uint64(gen.PartitionBits))
	b = binary.AppendUvarint(b, uint64(len(gen.Shards)))
	for _, s := range gen.Shards {
		b = binary.AppendUvarint(b, uint64(len(s.Name)))
		b = append(b, s.Name...)
		b = binary.AppendUvarint(b, uint64(s.Records))
		b = binary.AppendUvarint(b, uint64(s.Bytes))
		b = binary.LittleEndian.AppendUint32(b, s.CRC32C)
	}
	b = binary.AppendUvarint(b, uint64(len(gen.Keys)))
	for _, k := range gen.Keys {
		b = binary.AppendUvarint(b, uint64(len(k.Name)))
		b = append(b, k.Name...)
		b = binary.AppendUvarint(b, uint64(k.Partition))
		b = binary.AppendUvarint(b, uint64(k.Bytes))
		b = binary.LittleEndian.AppendUint32(b, k.CRC32C)
		secs := k.Sections[:]
		if k.Contain != nil {
			secs = append(slices.Clone(secs), *k.Contain)
		}
		for _, sec := range secs {
			b = binary.AppendUvarint(b, uint64(sec.Entries))
			b = binary.AppendUvarint(b, uint64(sec.Bits))
			b = binary.AppendUvarint(b, uint64(sec.Start))
			b = binary.AppendUvarint(b, uint64(sec.Dir))
		}
	}
	sum := sha256.Sum256(b)
	return hex.EncodeToString(sum[:16])
}

// flatten sets Shards, the generations' documents and Documents, and
// the files' Footer.
func (m *Manifest) flatten() {
	m.Shards, m.Documents = nil, 0
	for g := range m.Generations {
		gen := &m.Generations[g]
		gen.Documents = 0
		footer := gen.Version >= 5
		for i := range gen.Keys {
			gen.Keys[i].Footer = footer
		}
		for i := range gen.Shards {
			gen.Shards[i].Footer = footer
			s := gen.Shards[i]
			s.Gen = g
			gen.Documents += s.Records
			m.Shards = append(m.Shards, s)
		}
		m.Documents += gen.Documents
	}
}

// Marshal encodes m as indented JSON.
func (m Manifest) Marshal() ([]byte, error) {
	b, err := json.MarshalIndent(m, "", "  ")
	return append(b, '\n'), err
}

// manifestV2 is index.json of version 2: one directory of shards.
type manifestV2 struct {
	Format    string  `json:"format"`
	Version   int     `json:"version"`
	Config    Config  `json:"config"`
	Documents int64   `json:"documents"`
	Shards    []Shard `json:"shards"`
}

// ParseManifest decodes and checks index.json read from where: its counts
// (the manifest's, each generation's, the exact keys of each generation's
// key files), that each generation's settings are the config, that no
// generation is listed twice, and each generation's fingerprint against
// its version, settings and lists. The generations of a version 3 or 4
// manifest get its version and settings and fingerprints computed from
// them (a version 4 manifest's fingerprints, of the files alone, are
// checked first). A version 2 manifest reads as one generation without
// key runs, with Version 2: only a compaction reads it (CompactCommand).
func ParseManifest(b []byte, where string) (*Manifest, error) {
	// The format and version come first, so that a manifest of another
	// version fails with ErrVersion whatever else it holds.
	var head struct {
		Format  string `json:"format"`
		Version *int   `json:"version"`
	}
	if err := json.Unmarshal(b, &head); err != nil {
		return nil, fmt.Errorf("%s: %w: not a JSON manifest: %v", where, ErrCorrupt, err)
	}
	if head.Format != FormatName {
		return nil, fmt.Errorf("%s: %w: format %q, want %q", where, ErrCorrupt, head.Format, FormatName)
	}
	if head.Version == nil {
		return nil, fmt.Errorf("%s: %w: no version field", where, ErrCorrupt)
	}
	if *head.Version < 2 || *head.Version > Version {
		return nil, fmt.Errorf("%s: %w %d (this neardup reads versions 2 to %d; rebuild the index with `neardup run --index-out`)",
			where, ErrVersion, *head.Version, Version)
	}
	dec := json.NewDecoder(strings.NewReader(string(b)))
	dec.DisallowUnknownFields()
	var m Manifest
	if *head.Version == 2 {
		var m2 manifestV2
		if err := dec.Decode(&m2); err != nil {
			return nil, fmt.Errorf("%s: %w: %v", where, ErrCorrupt, err)
		}
		m = Manifest{Format: m2.Format, Version: 2, Config: m2.Config, Documents: m2.Documents,
			Generations: []Generation{{Shards: m2.Shards, PartitionBits: -1}}}
	} else if err := dec.Decode(&m); err != nil {
		return nil, fmt.Errorf("%s: %w: %v", where, ErrCorrupt, err)
	}
	docs := m.Documents
	if err := m.check(); err != nil {
		return nil, fmt.Errorf("%s: %w: %v", where, ErrCorrupt, err)
	}
	if docs != m.Documents {
		return nil, fmt.Errorf("%s: %w: documents %d, but the shards hold %d", where, ErrCorrupt, docs, m.Documents)
	}
	return &m, nil
}

// OwnGeneration returns the fingerprint of the generation in the
// directory of the manifest b read from where (the generation whose dir
// is "") and the manifest's settings: as recorded, in a manifest of this
// version, without decoding the generations' lists (a generation's
// settings other than the config are an error, as in ParseManifest);
// through ParseManifest in one of an earlier version.
func OwnGeneration(b []byte, where string) (string, Config, error) {
	var light struct {
		Format      string `json:"format"`
		Version     int    `json:"version"`
		Config      Config `json:"config"`
		Generations []struct {
			Dir         string `json:"dir"`
			Config      Config `json:"config"`
			Fingerprint string `json:"fingerprint"`
		} `json:"generations"`
	}
	if err := json.Unmarshal(b, &light); err != nil || light.Format != FormatName || light.Version != Version {
		m, err := ParseManifest(b, where)
		if err != nil {
			return "", Config{}, err
		}
		for _, gen := range m.Generations {
			if gen.Dir == "" {
				return gen.Fingerprint, m.Config, nil
			}
		}
		return "", Config{}, fmt.Errorf("%s: %w: no generation in its own directory", where, ErrCorrupt)
	}
	for g, gen := range light.Generations {
		if gen.Dir != "" {
			continue
		}
		if err := settingsDiffer(light.Config, gen.Config); err != nil {
			return "", Config{}, fmt.Errorf("%s: %w: generation %d (): %v", where, ErrCorrupt, g, err)
		}
		return gen.Fingerprint, light.Config, nil
	}
	return "", Config{}, fmt.Errorf("%s: %w: no generation in its own directory", where, ErrCorrupt)
}

// settingsDiffer is an error naming the settings of a generation, gen,
// that differ from its manifest's config, cfg; nil if none.
func settingsDiffer(cfg, gen Config) error {
	if d := cfg.DiffNamed(gen, "config", "generation"); len(d) > 0 {
		return fmt.Errorf("its settings are not the manifest's config (%s): the config was edited, or the generation is of another index", strings.Join(d, "; "))
	}
	return nil
}

// check checks the generations of a decoded manifest and flattens it.
// The generations of a manifest before version 5 get its version and
// settings, and fingerprints of this version.
func (m *Manifest) check() error {
	own := 0
	dirs := map[string]int{}     // by the directory's cleaned path
	contents := map[string]int{} // by fingerprint, generations with documents
	for g := range m.Generations {
		gen := &m.Generations[g]
		switch {
		case m.Version < 5 && (gen.Version != 0 || gen.Config != Config{}):
			return fmt.Errorf("generation %d (%s): a version or config in a version %d manifest", g, gen.Dir, m.Version)
		case m.Version < 5:
			gen.Version, gen.Config = m.Version, m.Config
		case gen.Version < 3 || gen.Version > m.Version:
			return fmt.Errorf("generation %d (%s): version %d out of [3, %d]", g, gen.Dir, gen.Version, m.Version)
		}
		if err := settingsDiffer(m.Config, gen.Config); err != nil {
			return fmt.Errorf("generation %d (%s): %v", g, gen.Dir, err)
		}
		if gen.Dir == "" {
			own++
		} else if !strings.HasPrefix(gen.Dir, "/") && !strings.Contains(gen.Dir, "://") {
			return fmt.Errorf("generation %d: directory %q is neither absolute nor a URL", g, gen.Dir)
		} else if d, ok := dirs[CleanDir(gen.Dir)]; ok {
			return fmt.Errorf("generation %s is listed twice (generations %d and %d)", gen.Dir, d, g)
		} else {
			dirs[CleanDir(gen.Dir)] = g
		}
		if err := gen.check(m.Version); err != nil {
			return fmt.Errorf("generation %d (%s): %v", g, gen.Dir, err)
		}
	}
	if own > 1 {
		return fmt.Errorf("%d generations in the manifest's own directory", own)
	}
	docs := make([]int64, len(m.Generations))
	for g := range m.Generations {
		docs[g] = m.Generations[g].Documents
	}
	m.flatten()
	for g := range m.Generations {
		gen := &m.Generations[g]
		if m.Version == 2 {
			continue
		}
		if docs[g] != gen.Documents {
			return fmt.Errorf("generation %d (%s): documents %d, but its shards hold %d", g, gen.Dir, docs[g], gen.Documents)
		}
		var exact int64
		for _, k := range gen.Keys {
			exact += k.Sections[KindExact].Entries
		}
		if exact != gen.Documents {
			return fmt.Errorf("generation %d (%s): its key files hold %d exact keys for %d documents (one each)", g, gen.Dir, exact, gen.Documents)
		}
		fp := gen.ComputeFingerprint()
		switch {
		case m.Version == 3 && gen.Fingerprint != "":
			return fmt.Errorf("generation %d (%s): a fingerprint in a version 3 manifest", g, gen.Dir)
		case m.Version == 4 && gen.Fingerprint != gen.fingerprintV4():
			return fmt.Errorf("generation %d (%s): fingerprint %q, but its lists of files give %s", g, gen.Dir, gen.Fingerprint, gen.fingerprintV4())
		case m.Version >= 5 && gen.Fingerprint != fp:
			return fmt.Errorf("generation %d (%s): fingerprint %q, but its version, settings and lists of files give %s", g, gen.Dir, gen.Fingerprint, fp)
		}
		gen.Fingerprint = fp
		if gen.Documents > 0 {
			if d, ok := contents[fp]; ok {
				return fmt.Errorf("generations %d (%s) and %d (%s) are the same files (fingerprint %s): a generation listed twice",
					d, m.Generations[d].Dir, g, gen.Dir, fp)
			}
			contents[fp] = g
		}
	}
	return nil
}

// CleanDir is a generation's directory, a path or a URL, without a
// trailing slash and, for a path, cleaned: two names of a directory that
// CleanDir makes the same name one directory.
func CleanDir(dir string) string {
	if strings.Contains(dir, "://") {
		return strings.TrimSuffix(dir, "/")
	}
	return path.Clean(dir)
}

// check checks the generation's lists, of a manifest of version.
func (gen *Generation) check(version int) error {
	for i, s := range gen.Shards {
		if s.Name != ShardName(i) {
			return fmt.Errorf("shard %d is named %q, want %q", i, s.Name, ShardName(i))
		}
		if s.Records < 0 || s.Bytes <= 0 {
			return fmt.Errorf("shard %s has %d records in %d bytes", s.Name, s.Records, s.Bytes)
		}
	}
	if version == 2 {
		return nil
	}
	if gen.PartitionBits < 0 || gen.PartitionBits > MaxPartitionBits {
		return fmt.Errorf("partition bits %d out of [0, %d]", gen.PartitionBits, MaxPartitionBits)
	}
	last := -1
	for i := range gen.Keys {
		k := &gen.Keys[i]
		k.Footer = gen.Version >= 5
		if k.Partition <= last || k.Partition >= 1<<gen.PartitionBits || k.Name != KeyFileName(k.Partition) {
			return fmt.Errorf("key file %q of partition %d out of order or range", k.Name, k.Partition)
		}
		last = k.Partition
		if err := k.check(gen.PartitionBits); err != nil {
			return fmt.Errorf("key file %s: %v", k.Name, err)
		}
	}
	return nil
}
