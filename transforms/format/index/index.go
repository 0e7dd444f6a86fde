// Package index defines neardup's signature index: what `neardup run
// --index-out DIR` writes and `neardup audit --index DIR` reads, so that new
// documents are checked against every document a previous run kept without
// reading that run's input again.
//
// An index is a directory of:
//
//	index.json         the manifest (Manifest): format name, version, the
//	                   configuration the signatures and block keys were
//	                   computed with, and for each shard its name, the input
//	                   file it describes, its record count, size and CRC-32C
//	index-NNNNN.bin    one shard per input file of the run (NNNNN: the
//	                   shard's number in the manifest)
//
// A shard is a header, blocks of records, a trailer, the block directory
// and a footer, little-endian:
//
//	header   "NDUPIDX\n", uint32 version, uvarint length + source path,
//	         uint32 CRC-32C (Castagnoli) of the header bytes before it
//	block    uint32 payload length (> 0), uint32 CRC-32C of the payload,
//	         payload: records back to back
//	trailer  uint32 0, uint64 record count, uint32 CRC-32C of the count
//	footer   uint32 CRC-32C of all the bytes before it: the CRC-32C the
//	         manifest records, so that a reader that opens the file
//	         tells it from another index's by 4 bytes (shard version 6)
//
// A record (Record) is one kept document: its record index in the source
// file, then the fields of its wire.Info in wire's encoding (id, length:
// its text's bytes, record.Doc.Len, exact-duplicate key, SimHash, b-bit
// MinHash sketch), then its MinHash LSH band keys (the SimHash table keys
// are recomputed from the SimHash).
//
// The package knows nothing of Beam: it reads and writes shards on any
// io.Reader and io.Writer, and the job's stages give it Beam's files.
package index

import (
	"bufio"
	"encoding/binary"
	"errors"
	"fmt"
	"hash/crc32"
	"io"
	"strings"

	"github.com/neardup/neardup/transforms/format/rank"
	"github.com/neardup/neardup/transforms/format/wire"
)

// FormatName and Version identify the layout of the manifest. Version
// changes whenever a reader of the previous version could not read a new
// index correctly, or a value changes meaning. Version 5: each generation
// records its version and settings, which its fingerprint covers, and its
// files end with their CRC-32C (shards of version 6, key files of
// version 4); version 4: each generation records its fingerprint; version
// 3: generations and key files; version 2: a record's length is its
// text's bytes in every format (version 1: a JSONL or TSV record's line).
const (
	FormatName = "neardup-index"
	Version    = 5
)

// KeyVersion is the version of the key files' layout, in their header:
// version 4 is version 3 with the footer.
const KeyVersion = 4

// ShardVersion is the version a Writer writes in a shard's header. A
// Reader reads shards of versions 2 (no block directory, blocks of about
// 256 KiB), 3 (BlockRecords records a block, then the block directory),
// 4 (version 3 with each record's shingle count, Record.Shingles), 5
// (version 4 with each record's containment keys, Record.Contain) and 6
// (version 5 with the footer).
const ShardVersion = 6

// RankedShardVersion is version 6 with each record's rank (Record.Rank,
// wire.AppendRank) at its end: the info shards a job passes from its
// signature pass to verification (package recshards) are of this version
// (NewRankedWriter); an index's shards never are.
const RankedShardVersion = 7

// footerVersion is the first shard version with a footer.
const footerVersion = 6

// footerLen is the size of a shard's or key file's footer: uint32
// CRC-32C of the bytes before it.
const footerLen = 4

// BlockRecords is the number of records of every block of a version 3
// shard but the last, so that record k of a shard is in block
// k/BlockRecords, found through the block directory with one ranged read.
const BlockRecords = 4

// dirEntry is the size of a block directory entry: uint64 offset and
// uint32 CRC-32C of those 8 bytes seeded with the entry's number.
const dirEntry = 12

// trailerLen is the size of a shard's trailer.
const trailerLen = 16

// ManifestName is the manifest's file name in the index directory.
const ManifestName = "index.json"

// ShardName is the file name of shard n.
func ShardName(n int) string { return fmt.Sprintf("index-%05d.bin", n) }

var magic = []byte("NDUPIDX\n")

// Errors. Every error of this package wraps one of them. ErrForeign is a
// file whose footer is not that of the file its manifest lists: a file
// of another index or generation, or one rewritten since.
var (
	ErrVersion  = errors.New("index: unsupported version")
	ErrCorrupt  = errors.New("index: corrupt")
	ErrMismatch = errors.New("index: configuration differs")
	ErrForeign  = errors.New("index: not the file the manifest lists")
)

var castagnoli = crc32.MakeTable(crc32.Castagnoli)

// maxBlock bounds a block's payload: a larger length is corruption.
const maxBlock = 64 << 20

// Config is everything that decides the signatures, block keys and
// verification of indexed documents, and how their sources are parsed. An
// audit must run with the same values (Diff).
type Config struct {
	Tokens      string  `json:"tokens"`
	Dictionary  string  `json:"dictionary"`
	Shingle     int     `json:"shingle"`
	Perms       int     `json:"perms"`
	MinHash     string  `json:"minhash"`
	Seed        uint64  `json:"seed"`
	MaxTokens   int     `json:"max_tokens"`
	Method      string  `json:"method"`
	Threshold   float64 `json:"threshold"`
	Hamming     int     `json:"hamming"`
	Bands       int     `json:"bands"`
	Rows        int     `json:"rows"`
	SimBlocks   int     `json:"simhash_blocks"`
	Format      string  `json:"format"`
	IDField     string  `json:"id_field"`
	TextField   string  `json:"text_field"`
	MaxDocBytes int     `json:"max_doc_bytes"`
	// Containment and ContainMinSize are those of --containment: an index
	// built with it holds its documents' containment keys.
	Containment    float64 `json:"containment,omitempty"`
	ContainMinSize int     `json:"containment_min_size,omitempty"`
	// FoldScript: the documents' texts were folded to one script when
	// normalized (normalize.Form), so their keys are those of folded
	// texts. An index written before it was recorded did not fold.
	FoldScript bool `json:"fold_script"`
}

// Diff lists the settings in which b differs from a (the index's), as
// "name: index A, now B"; nil if none.
func (a Config) Diff(b Config) []string { return a.DiffNamed(b, "index", "now") }

// DiffNamed lists the settings in which b differs from a, as "name: an A,
// bn B"; nil if none. Settings that decide nothing with the others' values
// (the dictionary but with word tokens, the containment minimum size
// without containment) are not compared.
func (a Config) DiffNamed(b Config, an, bn string) []string {
	var out []string
	add := func(name string, x, y any) {
		if fmt.Sprint(x) != fmt.Sprint(y) {
			out = append(out, fmt.Sprintf("%s: %s %v, %s %v", name, an, x, bn, y))
		}
	}
	add("tokens", a.Tokens, b.Tokens)
	if a.Tokens == "word" || b.Tokens == "word" {
		add("dictionary", a.Dictionary, b.Dictionary)
	}
	add("shingle", a.Shingle, b.Shingle)
	add("perms", a.Perms, b.Perms)
	add("minhash", a.MinHash, b.MinHash)
	add("seed", a.Seed, b.Seed)
	add("max_tokens", a.MaxTokens, b.MaxTokens)
	add("method", a.Method, b.Method)
	add("threshold", a.Threshold, b.Threshold)
	add("hamming", a.Hamming, b.Hamming)
	add("bands", a.Bands, b.Bands)
	add("rows", a.Rows, b.Rows)
	add("simhash_blocks", a.SimBlocks, b.SimBlocks)
	add("format", a.Format, b.Format)
	add("id_field", a.IDField, b.IDField)
	add("text_field", a.TextField, b.TextField)
	add("max_doc_bytes", a.MaxDocBytes, b.MaxDocBytes)
	add("fold_script", a.FoldScript, b.FoldScript)
	add("containment", a.Containment, b.Containment)
	if a.Containment > 0 && b.Containment > 0 {
		add("containment_min_size", a.ContainMinSize, b.ContainMinSize)
	}
	return out
}

// Check returns an ErrMismatch error naming every difference of b from a.
func (a Config) Check(b Config) error {
	if d := a.Diff(b); len(d) > 0 {
		return fmt.Errorf("%w: %s", ErrMismatch, strings.Join(d, "; "))
	}
	return nil
}

// Record is one indexed document.
type Record struct {
	Line    int64  // record index in the source file (as wire.Line)
	ID      string // document id
	Len     int64  // the document's length: its text's bytes (record.Doc.Len)
	Exact   uint64 // exact-duplicate key (hash of the normalized text)
	SimHash uint64
	Sketch  []uint8  // low 8 bits of each MinHash value; empty: no shingles
	Bands   []uint64 // MinHash LSH band keys (full 64 bits)
	// Shingles is the number of distinct shingles (wire.Info.Shingles):
	// 0 in shards before version 4 and in jobs that do not count them.
	Shingles int64
	// Contain holds the containment keys (ensemble.Levels) by band id:
	// none in shards before version 5, in jobs without --containment and
	// for a document below its minimum size.
	Contain []uint64
	// Rank is the document's wire.Info.Rank, in shards of
	// RankedShardVersion only.
	Rank rank.Key
}

// NewRecord returns the index record of the document of in, whose
// exact-duplicate key is exact and MinHash band keys bands. The record
// shares in's sketch and bands.
func NewRecord(in *wire.Info, exact uint64, bands []uint64) Record {
	return Record{Line: wire.Line(in.Doc), ID: in.ID, Len: in.Len, Exact: exact, SimHash: in.SimHash, Sketch: in.Sketch, Bands: bands, Shingles: in.Shingles}
}

// AppendRecord appends r's encoding to b: its line (uvarint), the body of
// the wire.Info of the same document (wire.AppendInfoBody: id, length,
// exact-duplicate key, SimHash, sketch), its band keys (uvarint count,
// 8 bytes each) and its shingle count (uvarint): the record of a version
// 4 shard; a version 5 record (contain) ends with its containment keys
// (uvarint count, 8 bytes each).
func AppendRecord(b []byte, r *Record, contain bool) []byte {
	b = binary.AppendUvarint(b, uint64(r.Line))
	in := wire.Info{ID: r.ID, Len: r.Len, Exact: r.Exact, SimHash: r.SimHash, Sketch: r.Sketch}
	b = wire.AppendInfoBody(b, &in)
	b = binary.AppendUvarint(b, uint64(len(r.Bands)))
	for _, k := range r.Bands {
		b = binary.LittleEndian.AppendUint64(b, k)
	}
	b = binary.AppendUvarint(b, uint64(r.Shingles))
	if !contain {
		return b
	}
	b = binary.AppendUvarint(b, uint64(len(r.Contain)))
	for _, k := range r.Contain {
		b = binary.LittleEndian.AppendUint64(b, k)
	}
	return b
}

// errRecord is a record that does not decode.
var errRecord = errors.New("bad record")

// DecodeRecord decodes the record of a version ShardVersion shard at the
// start of b into r (reusing its slices) and returns the rest of b.
func DecodeRecord(b []byte, r *Record) ([]byte, error) { return decodeRecord(b, r, ShardVersion) }

// decodeRecord decodes a record of a shard of the given version: before
// version 4, records end with their band keys and Shingles is 0.
func decodeRecord(b []byte, r *Record, version uint32) ([]byte, error) {
	line, k := binary.Uvarint(b)
	if k <= 0 {
		return nil, errRecord
	}
	in := wire.Info{Sketch: r.Sketch}
	b, err := wire.DecodeInfoBody(b[k:], &in)
	if err != nil {
		return nil, errRecord
	}
	r.Line, r.ID, r.Len, r.Exact, r.SimHash, r.Sketch = int64(line), in.ID, in.Len, in.Exact, in.SimHash, in.Sketch
	n, k := binary.Uvarint(b)
	if k <= 0 || uint64(len(b)-k)/8 < n {
		return nil, errRecord
	}
	b = b[k:]
	r.Bands = r.Bands[:0]
	for i := uint64(0); i < n; i++ {
		r.Bands = append(r.Bands, binary.LittleEndian.Uint64(b[8*i:]))
	}
	b, r.Shingles = b[8*n:], 0
	if version < 4 {
		return b, nil
	}
	sh, k := binary.Uvarint(b)
	if k <= 0 {
		return nil, errRecord
	}
	r.Shingles, b = int64(sh), b[k:]
	r.Contain = r.Contain[:0]
	if version < 5 {
		return b, nil
	}
	n, k = binary.Uvarint(b)
	if k <= 0 || uint64(len(b)-k)/8 < n {
		return nil, errRecord
	}
	b = b[k:]
	for i := uint64(0); i < n; i++ {
		r.Contain = append(r.Contain, binary.LittleEndian.Uint64(b[8*i:]))
	}
	b, r.Rank = b[8*n:], rank.Key{}
	if version < RankedShardVersion {
		return b, nil
	}
	if b, err = wire.DecodeRank(b, &r.Rank); err != nil {
		return nil, errRecord
	}
	return b, nil
}

// Writer writes one shard.
type Writer struct {
	version uint32
	w       io.Writer
	crc     uint32 // of everything written
	bytes   int64
	records int64
	block   []byte
	inBlock int     // records in block
	offsets []int64 // of each block written
	err     error
}

// NewWriter starts a shard of the kept documents of source on w, of
// version ShardVersion.
func NewWriter(w io.Writer, source string) *Writer { return newWriter(w, source, ShardVersion) }

// NewRankedWriter starts a shard of version RankedShardVersion, whose
// records hold their ranks, on w.
func NewRankedWriter(w io.Writer, source string) *Writer {
	return newWriter(w, source, RankedShardVersion)
}

func newWriter(w io.Writer, source string, version uint32) *Writer {
	wr := &Writer{w: w, version: version}
	h := append([]byte(nil), magic...)
	h = binary.LittleEndian.AppendUint32(h, version)
	h = binary.AppendUvarint(h, uint64(len(source)))
	h = append(h, source...)
	h = binary.LittleEndian.AppendUint32(h, crc32.Checksum(h, castagnoli))
	wr.write(h)
	return wr
}

func (w *Writer) write(b []byte) {
	if w.err != nil {
		return
	}
	_, w.err = w.w.Write(b)
	w.crc = crc32.Update(w.crc, castagnoli, b)
	w.bytes += int64(len(b))
}

// Add appends a record.
func (w *Writer) Add(r *Record) error {
	w.block = AppendRecord(w.block, r, true)
	if w.version >= RankedShardVersion {
		w.block = wire.AppendRank(w.block, r.Rank)
	}
	w.records++
	if w.inBlock++; w.inBlock == BlockRecords {
		w.flush()
	}
	return w.err
}

func (w *Writer) flush() {
	if len(w.block) == 0 {
		return
	}
	if len(w.block) > maxBlock && w.err == nil {
		w.err = fmt.Errorf("index: a block of %d records holds %d bytes (at most %d)", w.inBlock, len(w.block), maxBlock)
	}
	w.offsets = append(w.offsets, w.bytes)
	w.inBlock = 0
	var h [8]byte
	binary.LittleEndian.PutUint32(h[:], uint32(len(w.block)))
	binary.LittleEndian.PutUint32(h[4:], crc32.Checksum(w.block, castagnoli))
	w.write(h[:])
	w.write(w.block)
	w.block = w.block[:0]
}

// Close writes the last block, the trailer, the block directory and the
// footer, and returns the shard's description (Name is left to the
// caller): its CRC-32C is that of the bytes before the footer, which the
// footer holds.
func (w *Writer) Close() (Shard, error) {
	w.flush()
	end := w.bytes
	t := make([]byte, 4, 16)
	t = binary.LittleEndian.AppendUint64(t, uint64(w.records))
	t = binary.LittleEndian.AppendUint32(t, crc32.Checksum(t[4:12], castagnoli))
	w.write(t)
	d := make([]byte, 0, dirEntry*(len(w.offsets)+1))
	for i, off := range append(w.offsets, end) {
		d = appendDirEntry(d, i, off)
	}
	w.write(d)
	crc := w.crc
	w.write(binary.LittleEndian.AppendUint32(nil, crc))
	return Shard{Records: w.records, Bytes: w.bytes, CRC32C: crc}, w.err
}

// checkFooter checks the footer b of a file whose manifest entry records
// crc: ErrForeign naming the file (of kind) if it holds another.
func checkFooter(kind, name string, b []byte, crc uint32) error {
	if got := binary.LittleEndian.Uint32(b); got != crc {
		return fmt.Errorf("%s %s: %w (its footer gives CRC-32C %08x, the manifest %08x): a file of another index or generation, or one rewritten since",
			kind, name, ErrForeign, got, crc)
	}
	return nil
}

// appendDirEntry appends entry i of a directory, which holds off.
func appendDirEntry(b []byte, i int, off int64) []byte {
	b = binary.LittleEndian.AppendUint64(b, uint64(off))
	return binary.LittleEndian.AppendUint32(b, crc32.Update(uint32(i), castagnoli, b[len(b)-8:]))
}

// dirOffset decodes directory entry i from b, or reports a damaged one.
func dirOffset(b []byte, i int) (int64, bool) {
	if crc32.Update(uint32(i), castagnoli, b[:8]) != binary.LittleEndian.Uint32(b[8:12]) {
		return 0, false
	}
	return int64(binary.LittleEndian.Uint64(b)), true
}

// numBlocks is the number of blocks of a version 3 shard of n records.
func numBlocks(n int64) int64 { return (n + BlockRecords - 1) / BlockRecords }

// Reader reads one shard, checking every checksum.
type Reader struct {
	r       *bufio.Reader
	name    string
	source  string
	version uint32
	block   []byte
	rest    []byte
	records int64
	crc     uint32
	bytes   int64
	done    bool
	pos     int64   // of the next byte to decode
	offsets []int64 // of each block read (version 3)
	inBlock int     // records decoded of the current block
}

// crcReader feeds the reader's whole-file checksum.
type crcReader struct {
	r   io.Reader
	crc *uint32
	n   *int64
}

func (c crcReader) Read(p []byte) (int, error) {
	n, err := c.r.Read(p)
	*c.crc = crc32.Update(*c.crc, castagnoli, p[:n])
	*c.n += int64(n)
	return n, err
}

func (rd *Reader) corrupt(format string, args ...any) error {
	return fmt.Errorf("index shard %s: %w: %s", rd.name, ErrCorrupt, fmt.Sprintf(format, args...))
}

// full reads len(b) bytes; a short read is a truncated shard.
func (rd *Reader) full(b []byte, what string) error {
	if _, err := io.ReadFull(rd.r, b); err != nil {
		if errors.Is(err, io.EOF) || errors.Is(err, io.ErrUnexpectedEOF) {
			return rd.corrupt("truncated in the %s after %d records", what, rd.records)
		}
		return fmt.Errorf("index shard %s: reading the %s: %w", rd.name, what, err)
	}
	rd.pos += int64(len(b))
	return nil
}

// NewReader reads the header of the shard on r; name names it in errors.
func NewReader(r io.Reader, name string) (*Reader, error) {
	rd := &Reader{name: name}
	rd.r = bufio.NewReaderSize(crcReader{r, &rd.crc, &rd.bytes}, 1<<20)
	head := make([]byte, len(magic)+4)
	if err := rd.full(head, "header"); err != nil {
		return nil, err
	}
	if string(head[:len(magic)]) != string(magic) {
		return nil, rd.corrupt("not an index shard (bad magic %q)", head[:len(magic)])
	}
	if v := binary.LittleEndian.Uint32(head[len(magic):]); v < 2 || v > RankedShardVersion {
		return nil, fmt.Errorf("index shard %s: %w %d (this neardup reads versions 2 to %d; rebuild the index with `neardup run --index-out`)", name, ErrVersion, v, RankedShardVersion)
	}
	rd.version = binary.LittleEndian.Uint32(head[len(magic):])
	n, err := binary.ReadUvarint(rd.r)
	if err != nil || n > 1<<16 {
		return nil, rd.corrupt("bad source length in the header")
	}
	rd.pos += int64(len(binary.AppendUvarint(nil, n)))
	src := make([]byte, n)
	if err := rd.full(src, "header"); err != nil {
		return nil, err
	}
	var sum [4]byte
	if err := rd.full(sum[:], "header"); err != nil {
		return nil, err
	}
	h := binary.AppendUvarint(head, n)
	h = append(h, src...)
	if crc32.Checksum(h, castagnoli) != binary.LittleEndian.Uint32(sum[:]) {
		return nil, rd.corrupt("header checksum mismatch")
	}
	rd.source = string(src)
	return rd, nil
}

// Source is the input file the shard describes.
func (rd *Reader) Source() string { return rd.source }

// Next decodes the next record into r. It returns false at the end of the
// shard, after checking the trailer; the error says what is wrong with a
// damaged shard.
func (rd *Reader) Next(r *Record) (bool, error) {
	for len(rd.rest) == 0 {
		if rd.done {
			return false, nil
		}
		start := rd.pos
		var h [8]byte
		if err := rd.full(h[:4], "block header"); err != nil {
			return false, err
		}
		n := binary.LittleEndian.Uint32(h[:])
		if n == 0 {
			return false, rd.trailer(start)
		}
		if rd.version >= 3 && len(rd.offsets) > 0 && rd.inBlock != BlockRecords {
			return false, rd.corrupt("block %d holds %d records, not %d", len(rd.offsets)-1, rd.inBlock, BlockRecords)
		}
		if n > maxBlock {
			return false, rd.corrupt("block of %d bytes after %d records", n, rd.records)
		}
		if err := rd.full(h[4:], "block header"); err != nil {
			return false, err
		}
		if cap(rd.block) < int(n) {
			rd.block = make([]byte, n)
		}
		rd.block = rd.block[:n]
		if err := rd.full(rd.block, "block"); err != nil {
			return false, err
		}
		if crc32.Checksum(rd.block, castagnoli) != binary.LittleEndian.Uint32(h[4:]) {
			return false, rd.corrupt("block checksum mismatch after %d records", rd.records)
		}
		rd.rest = rd.block
		rd.offsets = append(rd.offsets, start)
		rd.inBlock = 0
	}
	var err error
	if rd.rest, err = decodeRecord(rd.rest, r, rd.version); err != nil {
		return false, rd.corrupt("record %d does not decode", rd.records)
	}
	rd.records++
	rd.inBlock++
	return true, nil
}

// Each calls fn with every remaining record of the shard, in order, until
// fn fails or the shard ends. The record is reused from one call to the
// next: fn must copy what it keeps.
func (rd *Reader) Each(fn func(r *Record) error) error {
	var r Record
	for {
		ok, err := rd.Next(&r)
		if err != nil || !ok {
			return err
		}
		if err := fn(&r); err != nil {
			return err
		}
	}
}

// trailer reads the trailer, at offset end, and the block directory of
// a version 3 shard.
func (rd *Reader) trailer(end int64) error {
	var t [12]byte
	if err := rd.full(t[:], "trailer"); err != nil {
		return err
	}
	if crc32.Checksum(t[:8], castagnoli) != binary.LittleEndian.Uint32(t[8:]) {
		return rd.corrupt("trailer checksum mismatch")
	}
	if n := int64(binary.LittleEndian.Uint64(t[:])); n != rd.records {
		return rd.corrupt("trailer counts %d records, the blocks hold %d", n, rd.records)
	}
	if rd.version >= 3 {
		if err := rd.directory(end); err != nil {
			return err
		}
	}
	var footer [footerLen]byte
	if rd.version >= footerVersion {
		if err := rd.full(footer[:], "footer"); err != nil {
			return err
		}
	}
	if _, err := rd.r.ReadByte(); err != io.EOF {
		return rd.corrupt("data after the trailer")
	}
	if rd.version >= footerVersion {
		// rd.crc is now of every byte, the footer's too: it is that of
		// the bytes before the footer followed by the footer if and only
		// if the footer holds the CRC-32C of the bytes before it.
		crc := binary.LittleEndian.Uint32(footer[:])
		if crc32.Update(crc, castagnoli, footer[:]) != rd.crc {
			return rd.corrupt("footer checksum mismatch")
		}
		rd.crc = crc // what the manifest records
	}
	rd.done = true
	return nil
}

// directory reads the block directory and checks it against the offsets
// of the blocks read (end: the trailer's).
func (rd *Reader) directory(end int64) error {
	if rd.records > 0 && rd.inBlock == 0 || int64(len(rd.offsets)) != numBlocks(rd.records) {
		return rd.corrupt("%d blocks for %d records", len(rd.offsets), rd.records)
	}
	var e [dirEntry]byte
	for i, want := range append(rd.offsets, end) {
		if err := rd.full(e[:], "block directory"); err != nil {
			return err
		}
		if off, ok := dirOffset(e[:], i); !ok || off != want {
			return rd.corrupt("block directory entry %d is damaged", i)
		}
	}
	return nil
}

// Check compares what was read (call after Next returned false) with the
// manifest's description of the shard.
func (rd *Reader) Check(s Shard) error {
	switch {
	case s.Footer && rd.version < footerVersion:
		return fmt.Errorf("index shard %s: %w (a shard of version %d, without the footer the files of its generation have)", rd.name, ErrForeign, rd.version)
	case rd.records != s.Records:
		return rd.corrupt("%d records, the manifest says %d", rd.records, s.Records)
	case rd.bytes != s.Bytes:
		return rd.corrupt("%d bytes, the manifest says %d", rd.bytes, s.Bytes)
	case rd.crc != s.CRC32C:
		return fmt.Errorf("index shard %s: %w (its CRC-32C is %08x, the manifest's %08x): a file of another index or generation, or one rewritten since",
			rd.name, ErrForeign, rd.crc, s.CRC32C)
	case rd.source != s.Source:
		return rd.corrupt("source %q, the manifest says %q", rd.source, s.Source)
	}
	return nil
}
