package audit

import (
	"bytes"
	"context"
	"fmt"
	"io"
	"maps"
	"os"
	"slices"
	"strings"

	"github.com/apache/beam/sdks/v2/go/pkg/beam"
	"github.com/apache/beam/sdks/v2/go/pkg/beam/register"

	"github.com/neardup/neardup/transforms/format/index"
	"github.com/neardup/neardup/transforms/format/summary"
	"github.com/neardup/neardup/transforms/format/wire"
	"github.com/neardup/neardup/transforms/indexing"
	"github.com/neardup/neardup/transforms/internal/rounds"
	"github.com/neardup/neardup/transforms/internal/workfiles"
	"github.com/neardup/neardup/transforms/jobstate"
	"github.com/neardup/neardup/transforms/near"
	"github.com/neardup/neardup/transforms/objects"
)

func init() {
	register.DoFn4x1[context.Context, []byte, func(int), func(string, int64), error](&lookupTasksFn{})
	register.DoFn5x1[context.Context, int, func(*[]byte) bool, func(int64, []byte), func(string, int64), error](&lookupFn{})
	register.DoFn8x1[context.Context, int64, func(*[]byte) bool, func(*[]byte) bool, func(int64, []byte), func(int64, []byte), func(int64, []byte), func(string, int64), error](&fetchFn{})
}

// IndexLookup finds what of the index in o.Index meets the new batch by its
// keys: the batch's keys are looked up in the key files of every
// generation (lookupFn), and the records of the indexed documents found
// are read from their shards (fetchFn), each passed through the same
// per-record logic as IndexScan's, so that the outputs are IndexScan's.
// What it reads follows the batch, not the index (summary.StatIndexBytesRead).
//
// In: the batch's exact-key records and block entries. Out: as IndexScan.
func IndexLookup(s beam.Scope, o Options, keys, entries beam.PCollection) (exact, idxEntries, infos, st beam.PCollection) {
	s = s.Scope("IndexLookup")
	keySet := beam.Flatten(s,
		beam.ParDo(s, &exactKeysFn{}, keys),
		beam.ParDo(s, &blockKeysFn{Partitions: o.Near.Blocking.Partitions, Tables: o.Near.Blocking.Tables}, entries))
	tasks, docStats := beam.ParDo2(s, &lookupTasksFn{Dir: o.Index}, beam.Impulse(s))
	refs, lookStats := beam.ParDo2(s, &lookupFn{Dir: o.Index, Blocking: o.Near.Blocking}, beam.Reshuffle(s, tasks), beam.SideInput{Input: keySet})
	fetch := &fetchFn{Dir: o.Index, Blocking: o.Near.Blocking}
	outs := beam.ParDoN(s, fetch, beam.GroupByKey(s, refs), beam.SideInput{Input: keySet})
	all := rounds.FlattenEach(s, [][]beam.PCollection{{outs[0]}, {outs[1]}, {outs[2]}, {outs[3], docStats, lookStats}})
	return all[0], all[1], all[2], all[3]
}

// openRanged opens the file at path for ranged reads: a local file, a
// gs:// or s3:// object (each read one ranged request), or, on another
// Beam filesystem, the whole file read into memory.
func openRanged(ctx context.Context, path string) (io.ReaderAt, func() error, error) {
	switch {
	case !strings.Contains(path, "://"):
		f, err := os.Open(path)
		if err != nil {
			return nil, nil, err
		}
		return f, f.Close, nil
	case objects.Supported(path):
		o, err := objects.Open(ctx, path)
		if err != nil {
			return nil, nil, err
		}
		return o, func() error { return o.Changed() }, nil
	}
	rc, err := workfiles.Open(ctx, path)
	if err != nil {
		return nil, nil, err
	}
	defer rc.Close()
	b, err := io.ReadAll(rc)
	if err != nil {
		return nil, nil, err
	}
	return bytes.NewReader(b), func() error { return nil }, nil
}

// keyFileTask is one key file of an index: lookupFn's unit of work.
type keyFileTask struct {
	gen  int
	file index.KeyFile
}

// keyFileTasks lists the key files of every generation of m, in order.
func keyFileTasks(m *index.Manifest) []keyFileTask {
	var ts []keyFileTask
	for g, gen := range m.Generations {
		for _, k := range gen.Keys {
			ts = append(ts, keyFileTask{gen: g, file: k})
		}
	}
	return ts
}

// lookupTasksFn emits the key files of the index in Dir (their numbers in
// keyFileTasks) and the count of its documents.
//
// In: an impulse. Out: task numbers, the stat summary.StatIndexDocs.
type lookupTasksFn struct {
	Dir string
}

func (fn *lookupTasksFn) ProcessElement(ctx context.Context, _ []byte, emit func(int), emitStat func(string, int64)) error {
	m, err := indexing.OpenIndex(ctx, fn.Dir)
	if err != nil {
		return err
	}
	if m.Version == 2 {
		return fmt.Errorf("index %s is of version %d, without key files: convert it with `neardup index compact`", fn.Dir, m.Version)
	}
	for t := range keyFileTasks(m) {
		emit(t)
	}
	emitStat(summary.StatIndexDocs, m.Documents)
	return nil
}

// lookupFn looks the new batch's keys up in one key file and emits the
// indexed documents that meet the batch: an exact key or a MinHash band
// key the batch has, a SimHash table key the batch has with a fingerprint
// within Hamming bits, or a containment key the batch has with a size the
// size-ratio rule pairs (the tests of IndexScan's per-record logic, so
// that no document it would pass on is missed).
//
// In: task number (lookupTasksFn), side input: key set chunks. Out: (shard
// number in the index, record numbers as wire line lists), the bytes read.
type lookupFn struct {
	Dir      string
	Blocking near.BlockingConfig // Hamming, and the containment keys' configuration

	m            *index.Manifest
	tasks        []keyFileTask
	base         []int // number of each generation's first shard
	bk           batchKeys
	exact, block []uint64 // the batch's keys, sorted
	sim, contain []uint64
}

func (fn *lookupFn) Setup(ctx context.Context) (err error) {
	if fn.m, err = indexing.OpenIndex(ctx, fn.Dir); err != nil {
		return err
	}
	if err := fn.bk.setup(fn.Blocking); err != nil {
		return err
	}
	fn.tasks = keyFileTasks(fn.m)
	n := 0
	for _, gen := range fn.m.Generations {
		fn.base = append(fn.base, n)
		n += len(gen.Shards)
	}
	return nil
}

func (fn *lookupFn) ProcessElement(ctx context.Context, t int, keys func(*[]byte) bool, emit func(int64, []byte), emitStat func(string, int64)) error {
	defer jobstate.Busy(ctx, "IndexLookup", jobstate.Begin())
	if fn.exact == nil {
		if err := fn.bk.load(keys); err != nil {
			return err
		}
		fn.exact, fn.block, fn.sim = slices.Sorted(maps.Keys(fn.bk.exact)), slices.Sorted(maps.Keys(fn.bk.block)), slices.Sorted(maps.Keys(fn.bk.sim))
		fn.contain = fn.bk.containKeys()
	}
	if t < 0 || t >= len(fn.tasks) {
		return fmt.Errorf("index lookup: no key file %d", t)
	}
	refs, read, err := fn.lookup(ctx, fn.tasks[t])
	if err != nil {
		return fmt.Errorf("index lookup: %w", err)
	}
	for _, n := range slices.Sorted(maps.Keys(refs)) {
		if n >= len(fn.m.Shards) {
			return fmt.Errorf("index lookup: key file %d refers to shard %d of %d", t, n, len(fn.m.Shards))
		}
		emit(int64(n), refs[n])
	}
	emitStat(summary.StatIndexBytesRead, read)
	return nil
}

// lookup looks the batch's keys up in the key file of task and returns the
// record numbers found by shard number, and the bytes read.
func (fn *lookupFn) lookup(ctx context.Context, task keyFileTask) (map[int][]byte, int64, error) {
	gen := fn.m.Generations[task.gen]
	path := objects.JoinPath(gen.Path, task.file.Name)
	ra, done, err := openRanged(ctx, path)
	if err != nil {
		return nil, 0, fmt.Errorf("%s: %w", path, err)
	}
	kf := index.NewKeyFileAt(ra, path, task.file, gen.PartitionBits)
	refs := map[int][]byte{}
	for kind, ks := range [index.Kinds][]uint64{fn.exact, fn.block, fn.sim, fn.contain} {
		ks = partitionKeys(kind, ks, task.file.Partition, gen.PartitionBits)
		err = kf.Lookup(kind, ks, func(i int, e *index.KeyEntry) error {
			if fn.bk.meets(kind, e) {
				n := fn.base[task.gen] + int(e.Shard)
				refs[n] = wire.AppendLineNum(refs[n], int64(e.Ord))
			}
			return nil
		})
		if err != nil {
			break
		}
	}
	if cerr := done(); err == nil {
		err = cerr
	}
	return refs, kf.Read, err
}

// meets reports whether key entry e of kind meets the batch beyond its
// key: a SimHash fingerprint within Hamming bits, a containment size the
// size-ratio rule pairs.
func (fn *batchKeys) meets(kind int, e *index.KeyEntry) bool {
	switch kind {
	case index.KindSim:
		return fn.near(e.Key, e.FP)
	case index.KindContain:
		return fn.levels != nil && fn.contains(e.Key, e.FP)
	}
	return true
}

// partitionKeys returns the keys of ks (sorted) of partition part among
// 1<<bits.
func partitionKeys(kind int, ks []uint64, part, bits int) []uint64 {
	lo, _ := slices.BinarySearchFunc(ks, part, func(k uint64, p int) int { return index.KeyPartition(kind, k, bits) - p })
	hi, _ := slices.BinarySearchFunc(ks, part+1, func(k uint64, p int) int { return index.KeyPartition(kind, k, bits) - p })
	return ks[lo:hi]
}

// fetchFn reads the records of one index shard that lookupFn found, by
// ranged reads of their blocks, and passes each through IndexScan's
// per-record logic (shardScan.record).
//
// In: (shard number, record number chunks), side input: key set
// chunks. Out: as indexScanFn, the bytes read.
type fetchFn struct {
	Dir      string
	Blocking near.BlockingConfig

	m  *index.Manifest
	bk batchKeys
}

func (fn *fetchFn) Setup(ctx context.Context) (err error) {
	if fn.m, err = indexing.OpenIndex(ctx, fn.Dir); err != nil {
		return err
	}
	return fn.bk.setup(fn.Blocking)
}

func (fn *fetchFn) ProcessElement(ctx context.Context, k int64, chunks func(*[]byte) bool, keys func(*[]byte) bool,
	emitExact, emitEntry, emitInfo func(int64, []byte), emitStat func(string, int64)) error {
	defer jobstate.Busy(ctx, "IndexFetch", jobstate.Begin())
	n := int(k)
	if err := fn.bk.load(keys); err != nil {
		return err
	}
	if n < 0 || n >= len(fn.m.Shards) {
		return fmt.Errorf("index fetch: no shard %d", n)
	}
	ords, err := recordNumbers(chunks)
	if err != nil {
		return fmt.Errorf("index fetch: shard %d: %w", n, err)
	}
	path := indexing.ShardPath(fn.m, n)
	ra, done, err := openRanged(ctx, path)
	if err != nil {
		return fmt.Errorf("index fetch: %s: %w", path, err)
	}
	sc := newShardScan(&fn.bk, n, emitExact, emitEntry, emitInfo)
	sa, err := index.NewShardAt(ra, path, fn.m.Shards[n])
	if err == nil {
		err = sa.Records(ords, func(_ int64, r *index.Record) error { return sc.record(r) })
	}
	if cerr := done(); err == nil {
		err = cerr
	}
	if err != nil {
		return err
	}
	sc.flush()
	sc.stats(false).Emit(emitStat)
	emitStat(summary.StatIndexBytesRead, sa.Read)
	return nil
}

// recordNumbers decodes the record number chunks, sorted and without
// repeats.
func recordNumbers(chunks func(*[]byte) bool) ([]int64, error) {
	set, err := wire.ReadLineSet(chunks)
	return set.Lines(), err
}
