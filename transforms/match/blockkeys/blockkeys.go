// Package blockkeys derives from one document's signature what the
// signature pass shuffles and keeps: the block keys candidates are proposed
// from (MinHash LSH band keys and SimHash pigeonhole table keys, see package
// blocking), the info verification compares (see package verify), and the
// exact-duplicate key of the document's index record; it owns the keys of
// the blocking shuffle (KeySpace) and batches block entries into its
// chunks (package wire).
package blockkeys

import (
	"fmt"
	"math"

	"github.com/neardup/neardup/transforms/format/wire"
	"github.com/neardup/neardup/transforms/match/blocking"
	"github.com/neardup/neardup/transforms/match/ensemble"
	"github.com/neardup/neardup/transforms/match/verify"
	"github.com/neardup/neardup/transforms/sketch/signature"
	"github.com/neardup/neardup/transforms/text/normalize"
)

// Keyer derives a document's keys under one job's blocking design.
type Keyer struct {
	Bands  blocking.Bands   // MinHash bands; unused when NoBands
	Tables *blocking.Tables // SimHash tables; nil: no table keys
	// NoBands leaves out the band keys (the simhash method).
	NoBands bool
	// Index also fills Doc.Exact, for the document's index record.
	Index bool
	// Levels, if not nil, gives the containment keys (Contain).
	Levels *ensemble.Levels
}

// Doc is what the signature pass derives from one document.
type Doc struct {
	// Empty: the document has no shingle, so no keys, and an info with
	// neither SimHash nor sketch; it can match nothing but its exact
	// duplicates.
	Empty, Truncated bool
	Info             wire.Info
	Bands, Tables    []uint64
	// Contain holds the containment keys (Keyer.Levels), none for a
	// document below the minimum size (Small).
	Contain []ensemble.Key
	Small   bool
	// Exact is the exact-duplicate key of the document's index record
	// (index.NewRecord), with Keyer.Index.
	Exact uint64
}

// Derive fills d for document doc (its id, length (record.Doc.Len) and
// normalized text)
// from its signature sig. It reuses the slices of d: what d held before
// is overwritten.
func (k *Keyer) Derive(d *Doc, doc wire.Doc, id string, length int, text string, sig *signature.Signature) {
	d.Truncated, d.Empty = sig.Truncated, sig.Shingles == 0
	d.Info = wire.Info{Doc: doc, ID: id, Len: int64(length), Sketch: d.Info.Sketch[:0]}
	d.Bands, d.Tables, d.Contain, d.Small = d.Bands[:0], d.Tables[:0], d.Contain[:0], false
	if k.Index {
		d.Exact = normalize.Key(text)
	}
	if d.Empty {
		return
	}
	d.Info.SimHash, d.Info.Sketch = sig.SimHash, verify.LowBits(d.Info.Sketch, sig.MinHash)
	if !k.NoBands {
		d.Bands = k.Bands.AppendKeys(d.Bands, sig.MinHash)
	}
	if k.Tables != nil {
		d.Tables = k.Tables.AppendKeys(d.Tables, sig.SimHash)
	}
}

// DeriveContain fills d's shingle count (distinct, the signer's Distinct)
// and containment keys, after Derive, with Keyer.Levels; without it, or
// for a document without shingles, it does nothing.
func (k *Keyer) DeriveContain(d *Doc, sig *signature.Signature, distinct int) {
	if k.Levels == nil || d.Empty {
		return
	}
	d.Info.Shingles = int64(distinct)
	d.Contain = k.Levels.AppendKeys(d.Contain, sig.MinHash, distinct)
	d.Small = len(d.Contain) == 0
}

// KeySpace is the keys of the blocking shuffle over P partitions: band
// entries (wire.Entry) under [0, P), SimHash table entries (wire.SimEntry,
// whose chunks carry the fingerprint too) under [P, 2P), containment entries
// (wire.SizedEntry) under [2P, 3P), each by partition of the block key
// (wire.Partition), and the signature pass's stats (wire stat records)
// under 3P.
type KeySpace struct{ P int }

// Kind is what the chunks under a key of a KeySpace hold.
type Kind int

const (
	NoKind         Kind = iota - 1 // a key outside the KeySpace
	BandEntries                    // wire.Entry, under [0, P)
	TableEntries                   // wire.SimEntry, under [P, 2P)
	ContainEntries                 // wire.SizedEntry, under [2P, 3P)
	StatRecords                    // wire stat records, under 3P
)

// Key returns the key of the entries of kind (BandEntries, TableEntries or
// ContainEntries) with block key k.
func (ks KeySpace) Key(kind Kind, k uint64) int { return int(kind)*ks.P + wire.Partition(k, ks.P) }

// StatsKey returns the key of the stat records: the one after the entries'.
func (ks KeySpace) StatsKey() int { return 3 * ks.P }

// Kind returns the kind of the chunks under key, NoKind for a key outside
// [0, 3P].
func (ks KeySpace) Kind(key int) Kind {
	if key < 0 || key > 3*ks.P {
		return NoKind
	}
	return Kind(key / ks.P)
}

// Outside is the error of chunks under key, outside ks.
func (ks KeySpace) Outside(key int) error {
	return fmt.Errorf("blocking shuffle: chunks under key %d, outside [0, %d]", key, ks.StatsKey())
}

// Range returns the keys [lo, hi) of kind.
func (ks KeySpace) Range(kind Kind) (lo, hi int) {
	lo = int(kind) * ks.P
	if kind == StatRecords {
		return lo, lo + 1
	}
	return lo, lo + ks.P
}

// Sender batches block entries into chunks keyed by their KeySpace's
// keys.
type Sender struct {
	keys KeySpace
	b    *wire.Batcher
	prev []wire.Doc // document of the last entry per key, see wire.AppendEntry
	emit func(int64, []byte)
}

// NewSender returns a Sender over the entry keys of ks that emits full
// chunks to emit.
func NewSender(ks KeySpace, emit func(key int64, chunk []byte)) *Sender {
	return &Sender{keys: ks, b: wire.NewBatcher(0), prev: make([]wire.Doc, ks.StatsKey()), emit: emit}
}

// Band adds the band entry (key, doc).
func (s *Sender) Band(key uint64, doc wire.Doc) {
	e := wire.Entry{Key: key, Doc: doc}
	p := s.keys.Key(BandEntries, key)
	s.b.Add(p, func(c []byte) []byte { return wire.AppendEntry(c, e, &s.prev[p]) }, s.emit)
}

// Table adds the entry of doc, whose SimHash is fp, in SimHash table
// table under key.
func (s *Sender) Table(table int, key uint64, doc wire.Doc, fp uint64) {
	e := wire.SimEntry{Key: key, Doc: doc, FP: fp, Table: table}
	p := s.keys.Key(TableEntries, key)
	s.b.Add(p, func(c []byte) []byte { return wire.AppendSimEntry(c, e, &s.prev[p]) }, s.emit)
}

// Contained adds the containment entry of doc, of size distinct
// shingles, under key.
func (s *Sender) Contained(key ensemble.Key, doc wire.Doc, size int64) {
	e := wire.SizedEntry{Key: key.Hash, Doc: doc, Size: uint32(min(size, math.MaxUint32)), Band: key.Band}
	p := s.keys.Key(ContainEntries, key.Hash)
	s.b.Add(p, func(c []byte) []byte { return wire.AppendSizedEntry(c, e, &s.prev[p]) }, s.emit)
}

// Send adds every block entry of d (not Empty).
func (s *Sender) Send(d *Doc) {
	for _, k := range d.Bands {
		s.Band(k, d.Info.Doc)
	}
	for i, k := range d.Tables {
		s.Table(i, k, d.Info.Doc, d.Info.SimHash)
	}
	for _, k := range d.Contain {
		s.Contained(k, d.Info.Doc, d.Info.Shingles)
	}
}

// Flush emits the chunks not yet emitted.
func (s *Sender) Flush() { s.b.Flush(s.emit) }
