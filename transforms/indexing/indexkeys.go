package indexing

import (
	"context"
	"encoding/binary"
	"encoding/json"
	"fmt"
	"io"

	"github.com/apache/beam/sdks/v2/go/pkg/beam"
	"github.com/apache/beam/sdks/v2/go/pkg/beam/register"

	"github.com/neardup/neardup/transforms/format/index"
	"github.com/neardup/neardup/transforms/jobfiles"
	"github.com/neardup/neardup/transforms/jobfiles/spilled"
	"github.com/neardup/neardup/transforms/jobstate"
	"github.com/neardup/neardup/transforms/match/blocking"
)

func init() {
	register.DoFn4x1[context.Context, int64, func(*[]byte) bool, func(int64, []byte), error](&writeKeysFn{})
}

// writeKeyFiles groups the key entries of a generation's documents by
// partition (through spill files with o.Work.Spill, so that no stage holds
// more than a partition) and writes a key file of each partition.
//
// In: (partition, key entry chunks, see keyRouter). Out: the key files'
// descriptions (shardMeta JSON).
func writeKeyFiles(s beam.Scope, o Options, entries beam.PCollection) beam.PCollection {
	s = s.Scope("KeyFiles")
	return beam.ParDo(s, &writeKeysFn{Dir: o.Dir, Bits: o.KeyBits, Work: o.Work},
		spilled.Group(s, o.Work, "keys", entries))
}

// keyEntrySize is the size of a key entry in a chunk: kind byte, uint64
// key, uint32 shard, uint32 record number, uint64 fingerprint.
const keyEntrySize = 25

// keyChunkBytes is the size at which a keyRouter emits a partition's chunk.
const keyChunkBytes = 64 << 10

// keyRouter turns the records of one shard, in order, into key entries
// chunked by partition: every record's exact key, and for a record with
// shingles its MinHash band keys, SimHash table keys and containment keys
// (low wire.KeyBits bits, as an audit's scan compares them).
type keyRouter struct {
	bits   int
	tables *blocking.Tables
	shard  uint32
	ord    uint32
	chunks map[int][]byte
	emit   func(int64, []byte)
	tkeys  []uint64
}

func newKeyRouter(bits int, tables *blocking.Tables, shard int, emit func(int64, []byte)) *keyRouter {
	return &keyRouter{bits: bits, tables: tables, shard: uint32(shard), chunks: map[int][]byte{}, emit: emit}
}

// add routes the keys of the next record of the shard.
func (kr *keyRouter) add(r *index.Record) {
	kr.put(index.KindExact, r.Exact, 0)
	if len(r.Sketch) > 0 {
		for _, k := range r.Bands {
			kr.put(index.KindBand, k&KeyMask, 0)
		}
		if kr.tables != nil {
			kr.tkeys = kr.tables.AppendKeys(kr.tkeys[:0], r.SimHash)
			for _, k := range kr.tkeys {
				kr.put(index.KindSim, k&KeyMask, r.SimHash)
			}
		}
		for band, k := range r.Contain {
			kr.put(index.KindContain, k&KeyMask, index.ContainFP(r.Shingles, uint8(band)))
		}
	}
	kr.ord++
}

func (kr *keyRouter) put(kind int, key, fp uint64) {
	p := index.KeyPartition(kind, key, kr.bits)
	c := kr.chunks[p]
	c = append(c, byte(kind))
	c = binary.LittleEndian.AppendUint64(c, key)
	c = binary.LittleEndian.AppendUint32(c, kr.shard)
	c = binary.LittleEndian.AppendUint32(c, kr.ord)
	c = binary.LittleEndian.AppendUint64(c, fp)
	if len(c) >= keyChunkBytes {
		kr.emit(int64(p), c)
		c = nil
	}
	kr.chunks[p] = c
}

// flush emits the partitions' last chunks.
func (kr *keyRouter) flush() {
	for p, c := range kr.chunks {
		if len(c) > 0 {
			kr.emit(int64(p), c)
		}
		delete(kr.chunks, p)
	}
}

// writeKeysFn writes the key file of one partition of a generation.
//
// In: (partition, key entry chunks). Out: Dir/keys-<partition>.bin and its
// description (shardMeta JSON).
type writeKeysFn struct {
	Dir  string
	Bits int
	Work jobfiles.WorkDir

	spilled spilled.In
}

func (fn *writeKeysFn) ProcessElement(ctx context.Context, k int64, chunks func(*[]byte) bool, emit func(int64, []byte)) error {
	part := int(k)
	defer jobstate.Busy(ctx, "WriteKeys", jobstate.Begin())
	var es [index.Kinds][]index.KeyEntry
	err := fn.spilled.Each(fn.Work, part, chunks, func(c []byte) error {
		return decodeKeyEntries(c, &es)
	})
	if err != nil {
		return fmt.Errorf("index: partition %d: %w", part, err)
	}
	var f index.KeyFile
	err = jobfiles.WriteAtomically(ctx, fn.Dir, index.KeyFileName(part), func(w io.Writer) error {
		f, err = index.WriteKeyFile(w, part, fn.Bits, &es)
		return err
	})
	if err != nil {
		return err
	}
	return emitKeyMeta(f, emit)
}

// decodeKeyEntries appends the key entries of chunk c (keyRouter's) to es
// by kind.
func decodeKeyEntries(c []byte, es *[index.Kinds][]index.KeyEntry) error {
	if len(c)%keyEntrySize != 0 {
		return fmt.Errorf("key entries: a chunk of %d bytes", len(c))
	}
	for ; len(c) > 0; c = c[keyEntrySize:] {
		kind := int(c[0])
		if kind >= index.Kinds {
			return fmt.Errorf("key entries: kind %d", kind)
		}
		es[kind] = append(es[kind], index.KeyEntry{Key: binary.LittleEndian.Uint64(c[1:]),
			Shard: binary.LittleEndian.Uint32(c[9:]), Ord: binary.LittleEndian.Uint32(c[13:]), FP: binary.LittleEndian.Uint64(c[17:])})
	}
	return nil
}

func emitKeyMeta(f index.KeyFile, emit func(int64, []byte)) error {
	b, err := json.Marshal(shardMeta{N: -1, Key: &f})
	if err != nil {
		return err
	}
	emit(int64(f.Partition), b)
	return nil
}
