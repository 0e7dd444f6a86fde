// Package wire defines the compact records neardup shuffles between pipeline
// stages and packs many of them into one byte chunk per shuffled element.
//
// The runner's shuffle is the expensive part of the pipeline: Prism keeps
// every shuffled element in memory and pays per element and per byte. So
// stages exchange dense document numbers and uint64 keys, never text, and a
// DoFn batches thousands of records into a chunk ([]byte) keyed by a small
// partition number. Records are fixed-width little-endian, or length-prefixed
// where they carry a string. Each record type has an Append function and a
// Decode function that walks a chunk.
package wire

import (
	"encoding/binary"
	"errors"
	"fmt"
	"math"
	"math/bits"
	"slices"

	"github.com/neardup/neardup/transforms/format/rank"
	"github.com/neardup/neardup/transforms/mix"
)

// A Doc number identifies an input record: the input file's index in the
// sorted file list (high 24 bits) and the record's line index in that file
// (low 40 bits). It is dense per file, stable across runs and runners, and
// orders documents by (file, line).
type Doc = uint64

// DocNum returns the document number of record line in file.
func DocNum(file int, line int64) Doc { return uint64(file)<<40 | uint64(line) }

// File returns the file index of document number d.
func File(d Doc) int { return int(d >> 40) }

// Line returns the record index of document number d within its file.
func Line(d Doc) int64 { return int64(d & (1<<40 - 1)) }

// MaxFiles and MaxLines bound what a document number can hold.
const (
	MaxFiles = 1 << 24
	MaxLines = 1 << 40
)

// Partition maps a 64-bit value to one of n partitions.
func Partition(x uint64, n int) int {
	hi, _ := bits.Mul64(mix.Fmix64(x), uint64(n))
	return int(hi)
}

// ErrCorrupt reports a chunk that does not decode.
var ErrCorrupt = errors.New("wire: corrupt chunk")

// Entry is one (block key, document) pair of the blocking shuffle.
type Entry struct {
	Key uint64
	Doc Doc
}

// SimEntry is one (SimHash table key, document, fingerprint) entry: the
// fingerprint lets the bucket drop pairs farther apart than k bits before
// they cost a join. Table is the index of the key's table; the shuffle
// carries it instead of the key, which TableKeys derives from Table and FP.
type SimEntry struct {
	Key   uint64
	Doc   Doc
	FP    uint64
	Table int
}

// TableKeys derives a SimHash table key from the table's index and the
// fingerprint (blocking.Tables implements it).
type TableKeys interface {
	Len() int // number of tables
	Key(table int, fp uint64) uint64
}

// KeyBits is how many low bits of a MinHash band key the shuffle carries.
// Keys are uniform 64-bit hashes, and an entry's partition (Partition of
// the whole key) is independent of its low bits, so two different keys meet
// in one group with probability 2^-40/P for P partitions. The n keys of a
// job give about n^2/(2P) * 2^-40 chance collisions: about one for the
// 2*10^7 band keys of a 1.4M-document job with 256 partitions, about
// 3*10^4 for 10^9 documents with 4096. Each only adds a candidate pair that
// verification rejects.
const KeyBits = 40

// Entry chunks are packed: all entries of a chunk come from one input file,
// whose index heads the chunk (uvarint); an entry is the key's low 40 bits
// (5 bytes, little-endian), the difference between its line and the line of
// the entry before it in the chunk (zigzag varint; the first entry's is its
// line). A SimEntry is the line difference, its table index (uvarint) and
// the fingerprint (8 bytes), but no key: the key is a function of the two. A
// signature pass appends in line order, so the difference takes a byte or
// two: about 6 and 11 bytes an entry instead of 16 and 24.

// AppendEntry appends e to chunk, starting the chunk with e's file index
// when it is empty. prev holds the document of the chunk's last entry: the
// caller keeps one per chunk, and AppendEntry sets it to line 0 of e's file
// when it starts a chunk. It panics if the chunk's entries (prev) are of
// another file.
func AppendEntry(chunk []byte, e Entry, prev *Doc) []byte {
	chunk = appendEntryHead(chunk, e.Key, e.Doc, prev)
	return appendLine(chunk, e.Doc, prev)
}

// AppendSimEntry appends e to chunk like AppendEntry, with e.Table in
// place of e.Key.
func AppendSimEntry(chunk []byte, e SimEntry, prev *Doc) []byte {
	chunk = appendFile(chunk, e.Doc, prev)
	chunk = appendLine(chunk, e.Doc, prev)
	chunk = binary.AppendUvarint(chunk, uint64(e.Table))
	return binary.LittleEndian.AppendUint64(chunk, e.FP)
}

// appendFile starts an empty chunk with doc's file index and checks that a
// chunk that is not empty belongs to that file. The check reads prev, not
// the chunk's head: a signature pass appends to thousands of chunks in
// turn, and reading each one's head again costs a cache miss an entry.
func appendFile(chunk []byte, doc Doc, prev *Doc) []byte {
	if len(chunk) == 0 {
		chunk = binary.AppendUvarint(chunk, uint64(File(doc)))
		*prev = DocNum(File(doc), 0)
	} else if File(*prev) != File(doc) {
		panic(fmt.Sprintf("wire: entry of file %d appended to a chunk of file %d", File(doc), File(*prev)))
	}
	return chunk
}

func appendEntryHead(chunk []byte, key uint64, doc Doc, prev *Doc) []byte {
	chunk = appendFile(chunk, doc, prev)
	var k [8]byte
	binary.LittleEndian.PutUint64(k[:], key)
	return append(chunk, k[:KeyBits/8]...)
}

func appendLine(chunk []byte, doc Doc, prev *Doc) []byte {
	chunk = binary.AppendVarint(chunk, Line(doc)-Line(*prev))
	*prev = doc
	return chunk
}

// decodeChunk appends the entries of a packed entry chunk to dst, each
// decoded by entry from the rest of the chunk, with the chunk's file and the
// line of the entry before. On error dst is returned as it was.
func decodeChunk[E any](dst []E, chunk []byte, entry func(c []byte, file int, line *int64) (E, []byte, error)) ([]E, error) {
	if len(chunk) == 0 {
		return dst, nil
	}
	file, n := binary.Uvarint(chunk)
	if n <= 0 || file >= MaxFiles {
		return dst, fmt.Errorf("%w: entry chunk header", ErrCorrupt)
	}
	n0 := len(dst)
	var line int64
	for c := chunk[n:]; len(c) > 0; {
		e, rest, err := entry(c, int(file), &line)
		if err != nil {
			return dst[:n0], err
		}
		dst, c = append(dst, e), rest
	}
	return dst, nil
}

// nextLine decodes the line difference at the start of chunk into *line.
func nextLine(chunk []byte, line *int64) ([]byte, error) {
	delta, n := binary.Varint(chunk)
	*line += delta
	if n <= 0 || *line < 0 || *line >= MaxLines {
		return nil, fmt.Errorf("%w: entry line", ErrCorrupt)
	}
	return chunk[n:], nil
}

// AppendEntries decodes every Entry of chunk and appends it to dst; keys
// keep their low KeyBits bits. On error dst is returned as it was.
func AppendEntries(dst []Entry, chunk []byte) ([]Entry, error) {
	return decodeChunk(dst, chunk, func(c []byte, file int, line *int64) (Entry, []byte, error) {
		if len(c) < KeyBits/8 {
			return Entry{}, nil, fmt.Errorf("%w: short entry", ErrCorrupt)
		}
		var k [8]byte
		copy(k[:], c[:KeyBits/8])
		c, err := nextLine(c[KeyBits/8:], line)
		return Entry{Key: binary.LittleEndian.Uint64(k[:]), Doc: DocNum(file, *line)}, c, err
	})
}

// AppendSimEntries decodes every SimEntry of chunk and appends it to dst,
// with the key that tables derives from its table and fingerprint (all 64
// bits). A table index outside tables is corrupt. On error dst is returned
// as it was.
func AppendSimEntries(dst []SimEntry, chunk []byte, tables TableKeys) ([]SimEntry, error) {
	ntables := uint64(tables.Len())
	return decodeChunk(dst, chunk, func(c []byte, file int, line *int64) (SimEntry, []byte, error) {
		c, err := nextLine(c, line)
		if err != nil {
			return SimEntry{}, nil, err
		}
		table, n := binary.Uvarint(c)
		if n <= 0 || table >= ntables || len(c)-n < 8 {
			return SimEntry{}, nil, fmt.Errorf("%w: SimHash entry table or fingerprint", ErrCorrupt)
		}
		fp := binary.LittleEndian.Uint64(c[n:])
		return SimEntry{Key: tables.Key(int(table), fp), Doc: DocNum(file, *line), FP: fp, Table: int(table)}, c[n+8:], nil
	})
}

// Pair is a candidate pair of documents, A < B.
type Pair struct{ A, B Doc }

// PairSize is the encoded size of a Pair.
const PairSize = 16

// AppendPair appends p to chunk.
func AppendPair(chunk []byte, p Pair) []byte {
	chunk = binary.LittleEndian.AppendUint64(chunk, p.A)
	return binary.LittleEndian.AppendUint64(chunk, p.B)
}

// DecodePair decodes the Pair AppendPair wrote at the start of b, which
// holds at least PairSize bytes.
func DecodePair(b []byte) Pair {
	return Pair{A: binary.LittleEndian.Uint64(b), B: binary.LittleEndian.Uint64(b[8:])}
}

// AppendPairs decodes every Pair of chunk and appends it to dst.
func AppendPairs(dst []Pair, chunk []byte) ([]Pair, error) {
	if len(chunk)%PairSize != 0 {
		return dst, fmt.Errorf("%w: pair chunk of %d bytes", ErrCorrupt, len(chunk))
	}
	for i := 0; i < len(chunk); i += PairSize {
		dst = append(dst, Pair{
			A: binary.LittleEndian.Uint64(chunk[i:]),
			B: binary.LittleEndian.Uint64(chunk[i+8:]),
		})
	}
	return dst, nil
}

// Candidate-pair chunks are packed: a pair is the difference between its
// first document and the first document of the pair before it in the chunk
// (zigzag varint; the first pair's is its document), then its second
// document's file and line (uvarints). Pairs appended in order of their
// first document take about 5 bytes instead of PairSize.

// AppendCandidate appends p to a candidate-pair chunk. prev is the first
// document of the pair appended before; the caller keeps one per chunk, and
// AppendCandidate resets it when it starts a chunk.
func AppendCandidate(chunk []byte, p Pair, prev *Doc) []byte {
	if len(chunk) == 0 {
		*prev = 0
	}
	chunk = binary.AppendVarint(chunk, int64(p.A-*prev))
	*prev = p.A
	chunk = binary.AppendUvarint(chunk, uint64(File(p.B)))
	return binary.AppendUvarint(chunk, uint64(Line(p.B)))
}

// AppendCandidates decodes every pair of a candidate-pair chunk and appends
// it to dst. On error dst is returned as it was.
func AppendCandidates(dst []Pair, chunk []byte) ([]Pair, error) {
	n := len(dst)
	var a Doc
	for len(chunk) > 0 {
		delta, k1 := binary.Varint(chunk)
		if k1 <= 0 {
			return dst[:n], fmt.Errorf("%w: candidate pair", ErrCorrupt)
		}
		chunk = chunk[k1:]
		file, k2 := binary.Uvarint(chunk)
		if k2 <= 0 || file >= MaxFiles {
			return dst[:n], fmt.Errorf("%w: candidate pair file", ErrCorrupt)
		}
		chunk = chunk[k2:]
		line, k3 := binary.Uvarint(chunk)
		if k3 <= 0 || line >= MaxLines {
			return dst[:n], fmt.Errorf("%w: candidate pair line", ErrCorrupt)
		}
		chunk = chunk[k3:]
		a += Doc(delta)
		dst = append(dst, Pair{A: a, B: DocNum(int(file), int64(line))})
	}
	return dst, nil
}

// Info is what later stages need to know of a document without its text:
// its number, id, length (its text's bytes, record.Doc.Len: what --keep
// longest compares), rank (what --keep field:NAME compares: package rank),
// exact-duplicate key, SimHash and a b-bit MinHash sketch (the low 8 bits
// of each MinHash value), enough to verify a candidate pair and to name it
// in the outputs.
type Info struct {
	Doc     Doc
	ID      string
	Len     int64
	Exact   uint64
	SimHash uint64
	Sketch  []uint8
	// Shingles is the number of distinct shingles, which containment
	// compares; 0 when the job does not count them (no --containment).
	Shingles int64
	// Rank is the document's key under --keep field:NAME; the zero Key
	// under the other orders, and for an index's document.
	Rank rank.Key
}

// AppendInfo appends in to chunk: its document number (8 bytes), its body
// (AppendInfoBody), its shingle count (uvarint) and its rank (appendRank).
func AppendInfo(chunk []byte, in *Info) []byte {
	chunk = binary.LittleEndian.AppendUint64(chunk, in.Doc)
	chunk = AppendInfoBody(chunk, in)
	chunk = binary.AppendUvarint(chunk, uint64(in.Shingles))
	return appendRank(chunk, in.Rank)
}

// AppendRank appends k to chunk as every record here holds a rank: a byte
// 0 for the zero Key, else 1 and its two words (8 bytes each).
func AppendRank(chunk []byte, k rank.Key) []byte { return appendRank(chunk, k) }

// DecodeRank decodes the rank (AppendRank) at the start of chunk into k
// and returns the rest.
func DecodeRank(chunk []byte, k *rank.Key) ([]byte, error) { return decodeRank(chunk, k) }

func appendRank(chunk []byte, k rank.Key) []byte {
	if k.IsZero() {
		return append(chunk, 0)
	}
	chunk = append(chunk, 1)
	chunk = binary.LittleEndian.AppendUint64(chunk, k.Hi)
	return binary.LittleEndian.AppendUint64(chunk, k.Lo)
}

func decodeRank(chunk []byte, k *rank.Key) ([]byte, error) {
	switch {
	case len(chunk) >= 1 && chunk[0] == 0:
		*k = rank.Key{}
		return chunk[1:], nil
	case len(chunk) >= 17 && chunk[0] == 1:
		*k = rank.Key{Hi: binary.LittleEndian.Uint64(chunk[1:]), Lo: binary.LittleEndian.Uint64(chunk[9:])}
		return chunk[17:], nil
	}
	return nil, fmt.Errorf("%w: rank", ErrCorrupt)
}

// AppendInfoBody appends everything of in but its document number and
// shingle count: the id
// (uvarint length and bytes), the length (uvarint), the exact-duplicate key
// and the SimHash (8 bytes each) and the sketch (uvarint length and bytes).
// An index record (package index) is its line and this body.
func AppendInfoBody(chunk []byte, in *Info) []byte {
	chunk = binary.AppendUvarint(chunk, uint64(len(in.ID)))
	chunk = append(chunk, in.ID...)
	chunk = binary.AppendUvarint(chunk, uint64(in.Len))
	chunk = binary.LittleEndian.AppendUint64(chunk, in.Exact)
	chunk = binary.LittleEndian.AppendUint64(chunk, in.SimHash)
	chunk = binary.AppendUvarint(chunk, uint64(len(in.Sketch)))
	return append(chunk, in.Sketch...)
}

// DecodeInfo decodes the Info at the start of chunk into in (reusing
// in.Sketch) and returns the rest of the chunk.
func DecodeInfo(chunk []byte, in *Info) ([]byte, error) {
	if len(chunk) < 8 {
		return nil, fmt.Errorf("%w: short info", ErrCorrupt)
	}
	in.Doc = binary.LittleEndian.Uint64(chunk)
	chunk, err := DecodeInfoBody(chunk[8:], in)
	if err != nil {
		return nil, err
	}
	n, k := binary.Uvarint(chunk)
	if k <= 0 {
		return nil, fmt.Errorf("%w: info shingle count", ErrCorrupt)
	}
	in.Shingles = int64(n)
	return decodeRank(chunk[k:], &in.Rank)
}

// DecodeInfoBody decodes the body of an Info (AppendInfoBody) at the start
// of chunk into in, all but in.Doc and in.Shingles (reusing in.Sketch), and
// returns the rest of the chunk.
func DecodeInfoBody(chunk []byte, in *Info) ([]byte, error) {
	n, k := binary.Uvarint(chunk)
	if k <= 0 || uint64(len(chunk)-k) < n {
		return nil, fmt.Errorf("%w: info id", ErrCorrupt)
	}
	in.ID = string(chunk[k : k+int(n)])
	chunk = chunk[k+int(n):]
	l, k := binary.Uvarint(chunk)
	if k <= 0 || len(chunk)-k < 16 {
		return nil, fmt.Errorf("%w: info length", ErrCorrupt)
	}
	in.Len = int64(l)
	chunk = chunk[k:]
	in.Exact = binary.LittleEndian.Uint64(chunk)
	in.SimHash = binary.LittleEndian.Uint64(chunk[8:])
	chunk = chunk[16:]
	m, k := binary.Uvarint(chunk)
	if k <= 0 || uint64(len(chunk)-k) < m {
		return nil, fmt.Errorf("%w: info sketch", ErrCorrupt)
	}
	chunk = chunk[k:]
	in.Sketch = append(in.Sketch[:0], chunk[:m]...)
	return chunk[m:], nil
}

// Match is a verified pair with what the outputs report of it.
type Match struct {
	A, B       Doc
	IDA, IDB   string
	LenA, LenB int64
	// RankA, RankB: the documents' Info.Rank.
	RankA, RankB rank.Key
	Jaccard      float32 // estimated or exact Jaccard; 1 for exact duplicates
	Hamming      uint8   // SimHash Hamming distance
	Method       Method
	// Inside is the document contained in the other, for Method
	// Containment (NoSide otherwise), and Containment its containment:
	// the share of its distinct shingles the other has, estimated or exact.
	Inside      Side
	Containment float32
	// Estimated: Jaccard and Containment are the MinHash estimates
	// (verify.Check); false when they were computed from the shingle sets
	// (verify.Config.Exact), or for an exact duplicate (Jaccard 1).
	Estimated bool
}

// estimatedBit marks Match.Estimated in the byte of Match.Inside.
const estimatedBit = 0x80

// Side names one document of a Match.
type Side uint8

const (
	NoSide Side = iota
	SideA
	SideB
)

// Method says how a match was established.
type Method uint8

const (
	Exact       Method = iota // identical normalized text
	MinHash                   // Jaccard from MinHash or exact shingle sets >= threshold
	SimHash                   // SimHash Hamming distance <= k
	Containment               // the smaller document's shingles mostly in the larger's (--containment)
)

func (m Method) String() string {
	switch m {
	case Exact:
		return "exact"
	case MinHash:
		return "minhash"
	case SimHash:
		return "simhash"
	case Containment:
		return "containment"
	}
	return fmt.Sprintf("Method(%d)", uint8(m))
}

// AppendMatch appends m to chunk: its documents, ids, lengths, Jaccard,
// Hamming, Method, Inside (with estimatedBit set if Estimated),
// Containment and ranks.
func AppendMatch(chunk []byte, m *Match) []byte {
	chunk = binary.LittleEndian.AppendUint64(chunk, m.A)
	chunk = binary.LittleEndian.AppendUint64(chunk, m.B)
	chunk = appendString(chunk, m.IDA)
	chunk = appendString(chunk, m.IDB)
	chunk = binary.AppendUvarint(chunk, uint64(m.LenA))
	chunk = binary.AppendUvarint(chunk, uint64(m.LenB))
	chunk = binary.LittleEndian.AppendUint32(chunk, math.Float32bits(m.Jaccard))
	inside := byte(m.Inside)
	if m.Estimated {
		inside |= estimatedBit
	}
	chunk = append(chunk, m.Hamming, byte(m.Method), inside)
	chunk = binary.LittleEndian.AppendUint32(chunk, math.Float32bits(m.Containment))
	return appendRank(appendRank(chunk, m.RankA), m.RankB)
}

// EachMatch calls fn with every Match of chunk, decoded, and its record's
// bytes in chunk (to pass a match on without coding it again); fn must not
// keep m. It stops at fn's first error.
func EachMatch(chunk []byte, fn func(m *Match, rec []byte) error) error {
	var m Match
	for c := chunk; len(c) > 0; {
		start := c
		var err error
		if c, err = DecodeMatch(c, &m); err != nil {
			return err
		}
		if err := fn(&m, start[:len(start)-len(c)]); err != nil {
			return err
		}
	}
	return nil
}

// DecodeMatch decodes the Match at the start of chunk and returns the rest.
func DecodeMatch(chunk []byte, m *Match) ([]byte, error) {
	var err error
	if len(chunk) < 16 {
		return nil, fmt.Errorf("%w: short match", ErrCorrupt)
	}
	m.A = binary.LittleEndian.Uint64(chunk)
	m.B = binary.LittleEndian.Uint64(chunk[8:])
	chunk = chunk[16:]
	if m.IDA, chunk, err = decodeString(chunk); err != nil {
		return nil, err
	}
	if m.IDB, chunk, err = decodeString(chunk); err != nil {
		return nil, err
	}
	la, k := binary.Uvarint(chunk)
	if k <= 0 {
		return nil, fmt.Errorf("%w: match length", ErrCorrupt)
	}
	chunk = chunk[k:]
	lb, k := binary.Uvarint(chunk)
	if k <= 0 || len(chunk)-k < 11 {
		return nil, fmt.Errorf("%w: match length", ErrCorrupt)
	}
	chunk = chunk[k:]
	m.LenA, m.LenB = int64(la), int64(lb)
	m.Jaccard = math.Float32frombits(binary.LittleEndian.Uint32(chunk))
	m.Hamming, m.Method, m.Inside = chunk[4], Method(chunk[5]), Side(chunk[6]&^estimatedBit)
	m.Estimated = chunk[6]&estimatedBit != 0
	m.Containment = math.Float32frombits(binary.LittleEndian.Uint32(chunk[7:]))
	if chunk, err = decodeRank(chunk[11:], &m.RankA); err != nil {
		return nil, err
	}
	return decodeRank(chunk, &m.RankB)
}

func appendString(chunk []byte, s string) []byte {
	chunk = binary.AppendUvarint(chunk, uint64(len(s)))
	return append(chunk, s...)
}

func decodeString(chunk []byte) (string, []byte, error) {
	n, k := binary.Uvarint(chunk)
	if k <= 0 || uint64(len(chunk)-k) < n {
		return "", nil, fmt.Errorf("%w: string", ErrCorrupt)
	}
	return string(chunk[k : k+int(n)]), chunk[k+int(n):], nil
}

// An OutLine is one output line with the key it is sorted by within its shard.
type OutLine struct {
	K1, K2 uint64
	Text   []byte // without the trailing newline
}

// AppendLine appends an OutLine to chunk.
func AppendLine(chunk []byte, k1, k2 uint64, text []byte) []byte {
	chunk = binary.LittleEndian.AppendUint64(chunk, k1)
	chunk = binary.LittleEndian.AppendUint64(chunk, k2)
	chunk = binary.AppendUvarint(chunk, uint64(len(text)))
	return append(chunk, text...)
}

// AppendLines decodes every OutLine of chunk and appends it to dst; the texts
// share chunk's memory.
func AppendLines(dst []OutLine, chunk []byte) ([]OutLine, error) {
	for len(chunk) > 0 {
		if len(chunk) < 16 {
			return dst, fmt.Errorf("%w: short line", ErrCorrupt)
		}
		l := OutLine{K1: binary.LittleEndian.Uint64(chunk), K2: binary.LittleEndian.Uint64(chunk[8:])}
		n, k := binary.Uvarint(chunk[16:])
		if k <= 0 || uint64(len(chunk)-16-k) < n {
			return dst, fmt.Errorf("%w: line text", ErrCorrupt)
		}
		l.Text = chunk[16+k : 16+k+int(n)]
		chunk = chunk[16+k+int(n):]
		dst = append(dst, l)
	}
	return dst, nil
}

// Batcher packs records into chunks per partition. A DoFn appends records
// with Add during a bundle and emits full chunks as it goes; Flush emits the
// rest at the end of the bundle.
type Batcher struct {
	max    int
	dense  [][]byte        // the chunks of keys in [0, denseKeys), by key
	sparse map[int]*[]byte // the chunks of other keys
}

// denseKeys bounds the keys whose chunks a Batcher finds by index rather
// than in a map: partitions and file indexes. A DoFn scatters records over
// a few thousand partitions, one record to each in turn, where a map lookup
// and store per record cost more than the record and their cache misses
// grow with the partitions.
const denseKeys = 1 << 16

// DefaultChunkBytes keeps shuffled elements at 32 KiB: large enough that the
// runner's per-element cost vanishes, small enough to stay clear of its
// large-allocation path (larger chunks ran slower on Prism:
// docs/BENCHMARKS.md). 32 KiB is
// also Go's largest small allocation size class: Prism copies every element
// it keeps (partition and length prefix, then the chunk) into a buffer of
// its own, and one a few bytes larger is rounded up to 40 KiB.
const DefaultChunkBytes = 32 << 10

// ChunkHeadroom is what a default Batcher leaves of DefaultChunkBytes for the
// element's key and length prefix.
const ChunkHeadroom = 64

// NewBatcher returns a Batcher whose chunks stay within max bytes, or within
// DefaultChunkBytes - ChunkHeadroom if max <= 0.
func NewBatcher(max int) *Batcher {
	if max <= 0 {
		max = DefaultChunkBytes - ChunkHeadroom
	}
	return &Batcher{max: max}
}

// chunk returns the chunk of key part.
func (b *Batcher) chunk(part int) *[]byte {
	if uint(part) < denseKeys {
		if part >= len(b.dense) {
			b.dense = append(b.dense, make([][]byte, part+1-len(b.dense))...)
		}
		return &b.dense[part]
	}
	c := b.sparse[part]
	if c == nil {
		if b.sparse == nil {
			b.sparse = make(map[int]*[]byte)
		}
		c = new([]byte)
		b.sparse[part] = c
	}
	return c
}

// Add appends one record to partition part's chunk with appendRec, and calls
// emit with the chunk when another record of the same size would take it
// past the Batcher's max bytes. A chunk thus stays within max unless its
// records grow, or a single record is larger.
func (b *Batcher) Add(part int, appendRec func([]byte) []byte, emit func(int64, []byte)) {
	c := b.chunk(part)
	n := len(*c)
	buf := appendRec(*c)
	if len(buf)+(len(buf)-n) > b.max {
		emit(int64(part), buf)
		// The emitted chunk is the runner's now. A partition that filled
		// one is likely to fill the next: its buffer is made at full size
		// once, not grown by appends that copy it and leave garbage.
		buf = make([]byte, 0, b.max)
	}
	*c = buf
}

// Flush emits every non-empty chunk in partition order and empties the
// Batcher.
func (b *Batcher) Flush(emit func(int64, []byte)) {
	var parts []int
	for p, c := range b.sparse {
		if len(*c) > 0 {
			parts = append(parts, p)
		}
	}
	slices.Sort(parts)
	neg, _ := slices.BinarySearch(parts, 0)
	for _, p := range parts[:neg] {
		emit(int64(p), *b.sparse[p])
	}
	for p, c := range b.dense {
		if len(c) > 0 {
			emit(int64(p), c)
		}
	}
	clear(b.dense)
	for _, p := range parts[neg:] {
		emit(int64(p), *b.sparse[p])
	}
	clear(b.sparse)
}

// Member is a clustered document with what cluster lines report of it, and
// the smallest document of its component (Root) once that is known.
type Member struct {
	Root, Doc Doc
	ID        string
	Len       int64
	Rank      rank.Key
}

// AppendMember appends m to chunk.
func AppendMember(chunk []byte, m *Member) []byte {
	chunk = binary.LittleEndian.AppendUint64(chunk, m.Root)
	chunk = binary.LittleEndian.AppendUint64(chunk, m.Doc)
	chunk = appendString(chunk, m.ID)
	chunk = binary.AppendUvarint(chunk, uint64(m.Len))
	return appendRank(chunk, m.Rank)
}

// DecodeMember decodes the Member at the start of chunk and returns the rest.
func DecodeMember(chunk []byte, m *Member) ([]byte, error) {
	if len(chunk) < 16 {
		return nil, fmt.Errorf("%w: short member", ErrCorrupt)
	}
	m.Root = binary.LittleEndian.Uint64(chunk)
	m.Doc = binary.LittleEndian.Uint64(chunk[8:])
	var err error
	if m.ID, chunk, err = decodeString(chunk[16:]); err != nil {
		return nil, err
	}
	n, k := binary.Uvarint(chunk)
	if k <= 0 {
		return nil, fmt.Errorf("%w: member length", ErrCorrupt)
	}
	m.Len = int64(n)
	return decodeRank(chunk[k:], &m.Rank)
}
