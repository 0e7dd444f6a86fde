package audit

import (
	"context"
	"fmt"

	"github.com/apache/beam/sdks/v2/go/pkg/beam"
	"github.com/apache/beam/sdks/v2/go/pkg/beam/register"

	"github.com/neardup/neardup/transforms/format/index"
	"github.com/neardup/neardup/transforms/format/summary"
	"github.com/neardup/neardup/transforms/format/wire"
	"github.com/neardup/neardup/transforms/indexing"
	"github.com/neardup/neardup/transforms/internal/rounds"
	"github.com/neardup/neardup/transforms/internal/tally"
	"github.com/neardup/neardup/transforms/job"
	"github.com/neardup/neardup/transforms/jobfiles/filelist"
	"github.com/neardup/neardup/transforms/jobfiles/recshards"
	"github.com/neardup/neardup/transforms/jobstate"
	"github.com/neardup/neardup/transforms/match/blocking"
	"github.com/neardup/neardup/transforms/match/blockkeys"
	"github.com/neardup/neardup/transforms/match/ensemble"
	"github.com/neardup/neardup/transforms/near"
)

func init() {
	register.DoFn3x1[int64, []byte, func([]byte), error](&blockKeysFn{})
	register.DoFn3x1[int64, []byte, func([]byte), error](&exactKeysFn{})
	register.DoFn8x1[context.Context, int64, string, func(*[]byte) bool, func(int64, []byte), func(int64, []byte), func(int64, []byte), func(string, int64), error](&indexScanFn{})
}

// IndexScan reads the index shards (in o.Index) and keeps what meets the new
// batch: the exact keys and block keys the batch has too, and the infos of
// the indexed documents with such block keys.
//
// In: the batch's exact-key records and block entries. Out: indexed
// exact-key records (partition of the key, chunk), indexed block entries
// (partition of the key, chunk), indexed infos (partition of the document,
// chunk), stats.
func IndexScan(s beam.Scope, o Options, keys, entries beam.PCollection) (exact, idxEntries, infos, st beam.PCollection) {
	s = s.Scope("IndexScan")
	keySet := beam.Flatten(s,
		beam.ParDo(s, &exactKeysFn{}, keys),
		beam.ParDo(s, &blockKeysFn{Partitions: o.Near.Blocking.Partitions, Tables: o.Near.Blocking.Tables}, entries))
	scan := &indexScanFn{Dir: o.Index, Blocking: o.Near.Blocking}
	var outs [4][]beam.PCollection
	for _, b := range indexing.IndexShards(s, o.Index, o.Branches) {
		for i, out := range beam.ParDoN(s, scan, b, beam.SideInput{Input: keySet}) {
			outs[i] = append(outs[i], out)
		}
	}
	all := rounds.FlattenEach(s, outs[:])
	return all[0], all[1], all[2], all[3]
}

// indexScanFn reads one index shard and passes on only what meets the new
// batch: the exact keys and MinHash band keys the batch has too, and the
// SimHash table keys the batch has with a fingerprint within Hamming bits
// (a semi-join against the batch's key set, a side input), so that what is
// shuffled follows the size of the batch, not of the index. (A SimHash table
// key holds only 64/simhash_blocks bits of a fingerprint: most indexed
// documents share one with some new document.)
//
// In: (shard number, shard name), side input: key set chunks. Out: exact-key
// records of indexed documents whose key the batch has (wire.Info chunks
// keyed by partition of the key, as readKeysFn), block entries whose key the
// batch has (partitioned as signFn's), the infos of the indexed documents
// with any such entry (keyed by partition of the document), and stats.
type indexScanFn struct {
	Dir      string              // the index
	Blocking near.BlockingConfig // Partitions, Hamming and Tables

	m  *index.Manifest // in Dir
	bk batchKeys
}

func (fn *indexScanFn) Setup(ctx context.Context) (err error) {
	if fn.m, err = indexing.OpenIndex(ctx, fn.Dir); err != nil {
		return err
	}
	return fn.bk.setup(fn.Blocking)
}

func (fn *indexScanFn) ProcessElement(ctx context.Context, k int64, name string, keys func(*[]byte) bool,
	emitExact, emitEntry, emitInfo func(int64, []byte), emitStat func(string, int64)) error {
	defer jobstate.Busy(ctx, "IndexScan", jobstate.Begin())
	n := int(k)
	if err := fn.bk.load(keys); err != nil {
		return err
	}
	if n < 0 || n >= len(fn.m.Shards) || fn.m.Shards[n].Name != name {
		return fmt.Errorf("index scan: shard %d (%s) is not in the manifest", n, name)
	}
	path := indexing.ShardPath(fn.m, n)
	rd, rc, err := recshards.Open(ctx, path)
	if err != nil {
		return fmt.Errorf("index scan: %s: %w", path, err)
	}
	defer rc.Close()
	sc := newShardScan(&fn.bk, n, emitExact, emitEntry, emitInfo)
	if err := rd.Each(sc.record); err != nil {
		return err
	}
	if err := rd.Check(fn.m.Shards[n]); err != nil {
		return err
	}
	sc.flush()
	sc.stats(true).Emit(emitStat)
	emitStat(summary.StatIndexBytesRead, fn.m.Shards[n].Bytes)
	return nil
}

// newShardScan returns the scan of the records of index shard n.
func newShardScan(bk *batchKeys, n int, emitExact, emitEntry, emitInfo func(int64, []byte)) *shardScan {
	return &shardScan{fn: bk, file: filelist.IndexFileBase + n, exacts: wire.NewBatcher(0), infos: wire.NewBatcher(0),
		entries: blockkeys.NewSender(blockkeys.KeySpace{P: bk.partitions}, emitEntry), emitExact: emitExact, emitInfo: emitInfo}
}

// flush emits what the scan holds.
func (sc *shardScan) flush() {
	sc.exacts.Flush(sc.emitExact)
	sc.entries.Flush()
	sc.infos.Flush(sc.emitInfo)
}

// shardScan is the scan of one index shard.
type shardScan struct {
	fn                  *batchKeys
	file                int // the shard's file index (IndexFileBase + its number)
	exacts, infos       *wire.Batcher
	entries             *blockkeys.Sender
	emitExact, emitInfo func(int64, []byte)
	tkeys               []uint64 // scratch

	docs, joined, nentries int64
}

// record passes on what of the indexed record r meets the batch.
func (sc *shardScan) record(r *index.Record) error {
	fn, P := sc.fn, sc.fn.partitions
	sc.docs++
	doc := wire.DocNum(sc.file, r.Line)
	if _, hit := fn.exact[r.Exact]; hit {
		in := wire.Info{Doc: doc, ID: r.ID, Len: r.Len, Exact: r.Exact}
		sc.exacts.Add(wire.Partition(r.Exact, P), func(c []byte) []byte { return wire.AppendInfo(c, &in) }, sc.emitExact)
	}
	if len(r.Sketch) == 0 {
		return nil // no shingles: matches nothing but its exact duplicates
	}
	hits := 0
	for _, k := range r.Bands {
		if _, hit := fn.block[k&indexing.KeyMask]; hit {
			hits++
			sc.entries.Band(k, doc)
		}
	}
	if fn.tables != nil {
		sc.tkeys = fn.tables.AppendKeys(sc.tkeys[:0], r.SimHash)
		for i, k := range sc.tkeys {
			if fn.near(k, r.SimHash) {
				hits++
				sc.entries.Table(i, k, doc, r.SimHash)
			}
		}
	}
	if fn.levels != nil {
		for band, k := range r.Contain {
			if fn.contains(k&indexing.KeyMask, index.ContainFP(r.Shingles, uint8(band))) {
				hits++
				sc.entries.Contained(ensemble.Key{Hash: k, Band: uint8(band)}, doc, r.Shingles)
			}
		}
	}
	if hits > 0 {
		sc.joined++
		sc.nentries += int64(hits)
		in := wire.Info{Doc: doc, ID: r.ID, Len: r.Len, Exact: r.Exact, SimHash: r.SimHash, Sketch: r.Sketch, Shingles: r.Shingles}
		sc.infos.Add(wire.Partition(doc, P), func(c []byte) []byte { return wire.AppendInfo(c, &in) }, sc.emitInfo)
	}
	return nil
}

// stats is what the scan of the shard counted; the documents read only
// if docs (a lookup counts the index's documents once, lookupTasksFn).
func (sc *shardScan) stats(docs bool) tally.Counts {
	c := tally.Counts{
		{Name: summary.StatIndexJoined, N: sc.joined},
		{Name: summary.StatIndexEntries, N: sc.nentries},
	}
	if docs {
		c = append(c, tally.Stat{Name: summary.StatIndexDocs, N: sc.docs})
	}
	return c
}

// blockKeysFn turns the new batch's block entries into key set chunks: the
// MinHash band keys, the SimHash table keys with the fingerprint of their
// document, and the containment keys with their document's size and band
// id (low wire.KeyBits bits of the keys, as the shuffle carries them).
//
// In: (key, chunk of the entries of its blockkeys.Kind under
// blockkeys.KeySpace{P: Partitions}). Out: a key set chunk.
type blockKeysFn struct {
	Partitions int             // of the block keys
	Tables     blocking.Design // SimHash tables; the zero Design: none

	tables *blocking.Tables
}

func (fn *blockKeysFn) Setup() (err error) {
	fn.tables, err = job.NewTables(fn.Tables)
	return err
}

func (fn *blockKeysFn) ProcessElement(k int64, chunk []byte, emit func([]byte)) error {
	part := int(k)
	var out []byte
	var err error
	switch ks := (blockkeys.KeySpace{P: fn.Partitions}); ks.Kind(part) {
	case blockkeys.BandEntries:
		out = wire.NewKeySet(wire.KeySetBlock)
		var es []wire.Entry
		if es, err = wire.AppendEntries(es, chunk); err == nil {
			for _, e := range es {
				out = wire.AppendKey(out, e.Key&indexing.KeyMask)
			}
		}
	case blockkeys.TableEntries:
		out = wire.NewKeySet(wire.KeySetSim)
		var es []wire.SimEntry
		if es, err = job.SimEntries(es, chunk, fn.tables); err == nil {
			for _, e := range es {
				out = wire.AppendKeyPair(out, e.Key&indexing.KeyMask, e.FP)
			}
		}
	case blockkeys.ContainEntries:
		out = wire.NewKeySet(wire.KeySetContain)
		var es []wire.SizedEntry
		if es, err = wire.AppendSizedEntries(es, chunk); err == nil {
			for _, e := range es {
				out = wire.AppendKeyPair(out, e.Key&indexing.KeyMask, index.ContainFP(int64(e.Size), e.Band))
			}
		}
	default:
		return ks.Outside(part)
	}
	if err != nil {
		return fmt.Errorf("key set: %w", err)
	}
	emit(out)
	return nil
}

// exactKeysFn turns the new batch's exact-key records into a key set chunk.
//
// In: (partition, wire.Info chunk with Exact set). Out: a key set chunk.
type exactKeysFn struct{}

func (fn *exactKeysFn) ProcessElement(_ int64, chunk []byte, emit func([]byte)) error {
	out := wire.NewKeySet(wire.KeySetExact)
	var in wire.Info
	for c := chunk; len(c) > 0; {
		var err error
		if c, err = wire.DecodeInfo(c, &in); err != nil {
			return fmt.Errorf("key set: %w", err)
		}
		out = wire.AppendKey(out, in.Exact)
	}
	emit(out)
	return nil
}
