// Package blockkeys derives from one document's signature what the
// signature pass shuffles and keeps: the block keys candidates are proposed
// from (MinHash LSH band keys and SimHash pigeonhole table keys, see package
// blocking), the info verification compares (see package verify), and the
// exact-duplicate key of the document's index record; and it batches block
// entries into the chunks of the blocking shuffle (package wire).
package blockkeys

import (
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

// Sender batches block entries into chunks keyed by partition of the key:
// band entries (wire.Entry) in partitions [0, P), SimHash table entries
// (wire.SimEntry, whose chunks carry the fingerprint too) in [P, 2P),
// containment entries (wire.SizedEntry) in [2P, 3P).
type Sender struct {
	parts int
	b     *wire.Batcher
	prev  []int64 // line of the last entry per partition, see wire.AppendEntry
	emit  func(int64, []byte)
}

// NewSender returns a Sender over P partitions that emits full chunks to
// emit.
func NewSender(P int, emit func(part int64, chunk []byte)) *Sender {
	return &Sender{parts: P, b: wire.NewBatcher(0), prev: make([]int64, 3*P), emit: emit}
}

// Band adds the band entry (key, doc).
func (s *Sender) Band(key uint64, doc wire.Doc) {
	e := wire.Entry{Key: key, Doc: doc}
	p := wire.Partition(key, s.parts)
	s.b.Add(p, func(c []byte) []byte { return wire.AppendEntry(c, e, &s.prev[p]) }, s.emit)
}

// Table adds the entry of doc, whose SimHash is fp, in SimHash table
// table under key.
func (s *Sender) Table(table int, key uint64, doc wire.Doc, fp uint64) {
	e := wire.SimEntry{Key: key, Doc: doc, FP: fp, Table: table}
	p := s.parts + wire.Partition(key, s.parts)
	s.b.Add(p, func(c []byte) []byte { return wire.AppendSimEntry(c, e, &s.prev[p]) }, s.emit)
}

// Contained adds the containment entry of doc, of size distinct
// shingles, under key.
func (s *Sender) Contained(key ensemble.Key, doc wire.Doc, size int64) {
	e := wire.SizedEntry{Key: key.Hash, Doc: doc, Size: uint32(min(size, math.MaxUint32)), Band: key.Band}
	p := 2*s.parts + wire.Partition(key.Hash, s.parts)
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
