package index

import (
	"encoding/binary"
	"fmt"
	"hash/crc32"
	"io"
	"slices"

	"github.com/neardup/neardup/transforms/format/wire"
)

// The kinds of keys of a key file, in the order of its sections.
const (
	KindExact = iota // exact-duplicate key, 64 bits
	KindBand         // MinHash band key, its low wire.KeyBits bits
	KindSim          // SimHash table key, its low wire.KeyBits bits, with the fingerprint
	// KindContain is a containment key (ensemble.Levels), its low
	// wire.KeyBits bits, with ContainFP of the document's size and the
	// key's band id; a key file has its section only when it has such
	// keys (an index built with --containment).
	KindContain
	Kinds
)

// fixedKinds is the number of sections every key file has.
const fixedKinds = KindContain

// ContainFP is the KeyEntry.FP of a KindContain entry: the document's
// number of distinct shingles and the key's band id.
func ContainFP(size int64, band uint8) uint64 { return uint64(size)<<8 | uint64(band) }

// ContainOf splits a KindContain entry's FP into size and band id.
func ContainOf(fp uint64) (size int64, band uint8) { return int64(fp >> 8), uint8(fp) }

// KeysPerDoc is about how many key entries a document has in a key file
// without containment keys: its exact key, band keys and SimHash table
// keys (docs/BENCHMARKS.md has SCALE's count); a generation's partitions
// are sized by it.
const KeysPerDoc = 25

// MaxPartitionBits bounds a generation's PartitionBits.
const MaxPartitionBits = 16

// bucketTarget is the number of entries a bucket of a key file holds on
// average (fewer where the bucket bits reach their limit).
const bucketTarget = 16

// maxBucketBits bounds a section's bucket bits.
const maxBucketBits = 26

// maxBucketBytes bounds a bucket's bytes: a larger one is corruption.
const maxBucketBytes = 64 << 20

var keyMagic = []byte("NDUPKEY\n")

// keyHeaderLen is the size of a key file's header: magic, uint32 version,
// uint32 partition, uint32 partition bits, uint32 CRC-32C.
const keyHeaderLen = 24

// keyFooterVersion is the first key file version with a footer.
const keyFooterVersion = 4

// KeyFileName is the file name of the key file of partition p.
func KeyFileName(p int) string { return fmt.Sprintf("keys-%05d.bin", p) }

// KeyWidth is the number of bits of a key of kind.
func KeyWidth(kind int) int {
	if kind == KindExact {
		return 64
	}
	return wire.KeyBits
}

// KeyPartition is the partition of key (of kind) among 1<<bits: its top
// bits.
func KeyPartition(kind int, key uint64, bits int) int {
	return int(key >> (KeyWidth(kind) - bits))
}

// bucketOf is the bucket of key among the 1<<b of its partition: the b
// bits below the partition bits.
func bucketOf(kind int, key uint64, pbits, b int) int {
	return int(key << (64 - KeyWidth(kind) + pbits) >> (64 - b))
}

// bucketBase is the smallest key of bucket of partition part.
func bucketBase(kind, part, bucket, pbits, b int) uint64 {
	w := KeyWidth(kind)
	return uint64(part)<<(w-pbits) | uint64(bucket)<<(w-pbits-b)
}

// bucketBits is the bucket bits of a section of n entries.
func bucketBits(kind, n, pbits int) int {
	b := 0
	for n > bucketTarget<<b && b < maxBucketBits && pbits+b < KeyWidth(kind) {
		b++
	}
	return b
}

// A KeyEntry is one key of an indexed document.
type KeyEntry struct {
	Key   uint64
	Shard uint32 // the document's shard within its generation
	Ord   uint32 // the document's record number within the shard
	FP    uint64 // KindSim: the document's SimHash; KindContain: ContainFP; otherwise 0
}

func cmpEntry(a, b KeyEntry) int {
	switch {
	case a.Key != b.Key:
		return cmpU(a.Key, b.Key)
	case a.Shard != b.Shard:
		return cmpU(uint64(a.Shard), uint64(b.Shard))
	case a.Ord != b.Ord:
		return cmpU(uint64(a.Ord), uint64(b.Ord))
	}
	return cmpU(a.FP, b.FP)
}

func cmpU(a, b uint64) int {
	if a < b {
		return -1
	}
	if a > b {
		return 1
	}
	return 0
}

// A Section is where the keys of one kind are in a key file: buckets of
// entries from Start, then the directory at Dir, 1<<Bits + 1 entries.
type Section struct {
	Entries int64 `json:"entries"`
	Bits    int   `json:"bucket_bits"`
	Start   int64 `json:"start"`
	Dir     int64 `json:"dir"`
}

// dirBytes is the size of the section's directory.
func (s Section) dirBytes() int64 { return dirEntry * (int64(1)<<s.Bits + 1) }

// KeyFile describes a key file in the manifest.
type KeyFile struct {
	Name      string              `json:"name"`
	Partition int                 `json:"partition"`
	Bytes     int64               `json:"bytes"`
	CRC32C    uint32              `json:"crc32c"`
	Sections  [fixedKinds]Section `json:"sections"`
	// Contain is the KindContain section, after the others; nil when
	// the file has no containment keys.
	Contain *Section `json:"contain,omitempty"`

	// Footer: the file ends with its CRC-32C (a generation of version 5
	// or later): a reader refuses one without (ErrForeign).
	Footer bool `json:"-"`
}

// Section returns the section of kind; the zero Section when the file
// has none.
func (k KeyFile) Section(kind int) Section {
	if kind < fixedKinds {
		return k.Sections[kind]
	}
	if kind == KindContain && k.Contain != nil {
		return *k.Contain
	}
	return Section{}
}

// check checks the sections of k, a file of a generation of pbits
// partition bits, against its size.
func (k KeyFile) check(pbits int) error {
	pos := int64(keyHeaderLen)
	for kind := range Kinds {
		s := k.Section(kind)
		if kind == KindContain && k.Contain == nil {
			break
		}
		if s.Entries < 0 || s.Bits < 0 || s.Bits > maxBucketBits || pbits+s.Bits > KeyWidth(kind) || s.Start != pos || s.Dir < s.Start {
			return fmt.Errorf("section %d out of range", kind)
		}
		pos = s.Dir + s.dirBytes()
	}
	if k.Footer {
		pos += footerLen
	}
	if pos != k.Bytes {
		return fmt.Errorf("sections end at %d, the file has %d bytes", pos, k.Bytes)
	}
	return nil
}

// WriteKeyFile writes the key file of partition part (of 1<<pbits) of
// entries (by kind; sorted here) to w and returns its description. The
// KindContain section is written only when it has entries. The file ends
// with its footer: the CRC-32C of the bytes before it, the description's.
func WriteKeyFile(w io.Writer, part, pbits int, entries *[Kinds][]KeyEntry) (KeyFile, error) {
	kw := &countWriter{w: w}
	h := append([]byte(nil), keyMagic...)
	h = binary.LittleEndian.AppendUint32(h, KeyVersion)
	h = binary.LittleEndian.AppendUint32(h, uint32(part))
	h = binary.LittleEndian.AppendUint32(h, uint32(pbits))
	h = binary.LittleEndian.AppendUint32(h, crc32.Checksum(h, castagnoli))
	kw.write(h)
	f := KeyFile{Name: KeyFileName(part), Partition: part}
	for kind := range Kinds {
		es := entries[kind]
		slices.SortFunc(es, cmpEntry)
		for _, e := range es {
			if KeyPartition(kind, e.Key, pbits) != part || KeyWidth(kind) < 64 && e.Key>>KeyWidth(kind) != 0 {
				return f, fmt.Errorf("index: key %x of kind %d is not of partition %d", e.Key, kind, part)
			}
		}
		switch {
		case kind < fixedKinds:
			f.Sections[kind] = writeSection(kw, kind, part, pbits, es)
		case len(es) > 0:
			s := writeSection(kw, kind, part, pbits, es)
			f.Contain = &s
		}
	}
	crc := kw.crc
	kw.write(binary.LittleEndian.AppendUint32(nil, crc))
	f.Bytes, f.CRC32C, f.Footer = kw.n, crc, true
	return f, kw.err
}

// writeSection writes the buckets and the directory of the entries es
// (sorted) of kind.
func writeSection(kw *countWriter, kind, part, pbits int, es []KeyEntry) Section {
	s := Section{Entries: int64(len(es)), Bits: bucketBits(kind, len(es), pbits), Start: kw.n}
	nb := 1 << s.Bits
	dir := make([]byte, 0, s.dirBytes())
	var buf []byte
	for b := range nb {
		buf = buf[:0]
		prev := bucketBase(kind, part, b, pbits, s.Bits)
		for len(es) > 0 && bucketOf(kind, es[0].Key, pbits, s.Bits) == b {
			e := es[0]
			es = es[1:]
			buf = binary.AppendUvarint(buf, e.Key-prev)
			buf = binary.AppendUvarint(buf, uint64(e.Shard))
			buf = binary.AppendUvarint(buf, uint64(e.Ord))
			switch kind {
			case KindSim:
				buf = binary.LittleEndian.AppendUint64(buf, e.FP)
			case KindContain:
				buf = binary.AppendUvarint(buf, e.FP)
			}
			prev = e.Key
		}
		dir = binary.LittleEndian.AppendUint64(dir, uint64(kw.n))
		dir = binary.LittleEndian.AppendUint32(dir, crc32.Update(uint32(b), castagnoli, buf))
		kw.write(buf)
	}
	s.Dir = kw.n
	dir = binary.LittleEndian.AppendUint64(dir, uint64(kw.n))
	dir = binary.LittleEndian.AppendUint32(dir, uint32(nb))
	kw.write(dir)
	return s
}

// countWriter writes, counts and checksums.
type countWriter struct {
	w   io.Writer
	n   int64
	crc uint32
	err error
}

func (c *countWriter) write(b []byte) {
	if c.err != nil {
		return
	}
	_, c.err = c.w.Write(b)
	c.n += int64(len(b))
	c.crc = crc32.Update(c.crc, castagnoli, b)
}

// KeyFileAt looks keys up in one key file by ranged reads.
type KeyFileAt struct {
	rangedFile // Read counts the bytes read from the file
	f          KeyFile
	pbits      int
	checked    bool // the header
}

// NewKeyFileAt returns the lookups of the key file f, of a generation
// with pbits partition bits, in ra; name names it in errors.
func NewKeyFileAt(ra io.ReaderAt, name string, f KeyFile, pbits int) *KeyFileAt {
	return &KeyFileAt{rangedFile: rangedFile{ra: ra, kind: "index key file", name: name, size: f.Bytes}, f: f, pbits: pbits}
}

// header reads and checks the header and, from version 4, the footer: a
// file whose footer is not the CRC-32C the manifest records, or one
// without a footer where the manifest says it has one, is ErrForeign, so
// that no entry of another file is read for it.
func (k *KeyFileAt) header() error {
	if k.checked {
		return nil
	}
	h, err := k.read(0, keyHeaderLen, "header")
	if err != nil {
		return err
	}
	switch {
	case string(h[:len(keyMagic)]) != string(keyMagic):
		return k.corrupt("not a key file (bad magic %q)", h[:len(keyMagic)])
	case crc32.Checksum(h[:20], castagnoli) != binary.LittleEndian.Uint32(h[20:]):
		return k.corrupt("header checksum mismatch")
	case binary.LittleEndian.Uint32(h[8:]) < 3 || binary.LittleEndian.Uint32(h[8:]) > KeyVersion:
		return fmt.Errorf("index key file %s: %w %d", k.name, ErrVersion, binary.LittleEndian.Uint32(h[8:]))
	case int(binary.LittleEndian.Uint32(h[12:])) != k.f.Partition || int(binary.LittleEndian.Uint32(h[16:])) != k.pbits:
		return k.corrupt("partition %d of %d bits, the manifest says %d of %d", binary.LittleEndian.Uint32(h[12:]),
			binary.LittleEndian.Uint32(h[16:]), k.f.Partition, k.pbits)
	}
	if v := binary.LittleEndian.Uint32(h[8:]); v < keyFooterVersion {
		if k.f.Footer {
			return fmt.Errorf("index key file %s: %w (a key file of version %d, without the footer the files of its generation have)", k.name, ErrForeign, v)
		}
	} else {
		f, err := k.read(k.f.Bytes-footerLen, footerLen, "footer")
		if err != nil {
			return err
		}
		if err := checkFooter(k.kind, k.name, f, k.f.CRC32C); err != nil {
			return err
		}
	}
	k.checked = true
	return nil
}

// Lookup calls fn with every entry of kind whose key is in keys (sorted,
// distinct, all of the file's partition), and the index in keys of its
// key, in key order. It reads the directory entries and the bucket of
// each key's bucket, or, when the keys fall in more than half of the
// section's buckets, the whole section at once.
func (k *KeyFileAt) Lookup(kind int, keys []uint64, fn func(i int, e *KeyEntry) error) error {
	s := k.f.Section(kind)
	if len(keys) == 0 || s.Entries == 0 {
		return nil
	}
	if err := k.header(); err != nil {
		return err
	}
	distinct, last := 0, -1
	for _, key := range keys {
		if b := bucketOf(kind, key, k.pbits, s.Bits); b != last {
			distinct, last = distinct+1, b
		}
	}
	if 2*distinct > 1<<s.Bits {
		return k.scan(kind, keys, fn)
	}
	for i := 0; i < len(keys); {
		b := bucketOf(kind, keys[i], k.pbits, s.Bits)
		j := i + 1
		for j < len(keys) && bucketOf(kind, keys[j], k.pbits, s.Bits) == b {
			j++
		}
		d, err := k.read(s.Dir+dirEntry*int64(b), 2*dirEntry, "directory")
		if err != nil {
			return err
		}
		off0, off1 := int64(binary.LittleEndian.Uint64(d)), int64(binary.LittleEndian.Uint64(d[dirEntry:]))
		sum := binary.LittleEndian.Uint32(d[8:])
		if off0 < s.Start || off1 < off0 || off1 > s.Dir || off1-off0 > maxBucketBytes {
			return k.corrupt("directory entry %d of section %d is damaged", b, kind)
		}
		data, err := k.read(off0, off1-off0, "bucket")
		if err != nil {
			return err
		}
		if err := k.match(kind, b, data, sum, keys[i:j], i, fn); err != nil {
			return err
		}
		i = j
	}
	return nil
}

// scan reads the whole section of kind and matches keys against it.
func (k *KeyFileAt) scan(kind int, keys []uint64, fn func(i int, e *KeyEntry) error) error {
	s := k.f.Section(kind)
	all, err := k.read(s.Start, s.Dir-s.Start+s.dirBytes(), "section")
	if err != nil {
		return err
	}
	dir := all[s.Dir-s.Start:]
	i := 0
	for b := range 1 << s.Bits {
		off0, off1 := int64(binary.LittleEndian.Uint64(dir[dirEntry*b:])), int64(binary.LittleEndian.Uint64(dir[dirEntry*(b+1):]))
		if off0 < s.Start || off1 < off0 || off1 > s.Dir {
			return k.corrupt("directory entry %d of section %d is damaged", b, kind)
		}
		j := i
		for j < len(keys) && bucketOf(kind, keys[j], k.pbits, s.Bits) == b {
			j++
		}
		sum := binary.LittleEndian.Uint32(dir[dirEntry*b+8:])
		if err := k.match(kind, b, all[off0-s.Start:off1-s.Start], sum, keys[i:j], i, fn); err != nil {
			return err
		}
		i = j
	}
	if i != len(keys) {
		return fmt.Errorf("index key file %s: lookup keys not sorted or not of partition %d", k.name, k.f.Partition)
	}
	return nil
}

// match checks bucket b's bytes data against its checksum sum, decodes
// it and calls fn with its entries whose key is in keys (sorted; the
// first is keys index i0).
func (k *KeyFileAt) match(kind, b int, data []byte, sum uint32, keys []uint64, i0 int, fn func(i int, e *KeyEntry) error) error {
	if crc32.Update(uint32(b), castagnoli, data) != sum {
		return k.corrupt("bucket %d of section %d: checksum mismatch", b, kind)
	}
	if len(keys) == 0 {
		return nil
	}
	s := k.f.Section(kind)
	prev := bucketBase(kind, k.f.Partition, b, k.pbits, s.Bits)
	i := 0
	var e KeyEntry
	for len(data) > 0 {
		var ok bool
		if data, ok = decodeEntry(data, kind, prev, &e); !ok || bucketOf(kind, e.Key, k.pbits, s.Bits) != b ||
			KeyPartition(kind, e.Key, k.pbits) != k.f.Partition {
			return k.corrupt("bucket %d of section %d does not decode", b, kind)
		}
		prev = e.Key
		for i < len(keys) && keys[i] < e.Key {
			i++
		}
		if i == len(keys) {
			return nil
		}
		if keys[i] == e.Key {
			if err := fn(i0+i, &e); err != nil {
				return err
			}
		}
	}
	return nil
}

// decodeEntry decodes an entry of kind after the key prev.
func decodeEntry(b []byte, kind int, prev uint64, e *KeyEntry) ([]byte, bool) {
	var v [3]uint64
	for j := range v {
		x, n := binary.Uvarint(b)
		if n <= 0 {
			return nil, false
		}
		v[j], b = x, b[n:]
	}
	if v[0] > ^prev || v[1] > 1<<32-1 || v[2] > 1<<32-1 {
		return nil, false
	}
	e.Key, e.Shard, e.Ord, e.FP = prev+v[0], uint32(v[1]), uint32(v[2]), 0
	switch kind {
	case KindSim:
		if len(b) < 8 {
			return nil, false
		}
		e.FP, b = binary.LittleEndian.Uint64(b), b[8:]
	case KindContain:
		fp, n := binary.Uvarint(b)
		if n <= 0 {
			return nil, false
		}
		e.FP, b = fp, b[n:]
	}
	return b, true
}
