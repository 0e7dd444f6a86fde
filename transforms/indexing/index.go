package indexing

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"slices"

	"github.com/apache/beam/sdks/v2/go/pkg/beam"
	"github.com/apache/beam/sdks/v2/go/pkg/beam/io/filesystem"
	"github.com/apache/beam/sdks/v2/go/pkg/beam/register"

	"github.com/neardup/neardup/transforms/format/index"
	"github.com/neardup/neardup/transforms/format/wire"
	"github.com/neardup/neardup/transforms/job"
	"github.com/neardup/neardup/transforms/jobfiles"
	"github.com/neardup/neardup/transforms/jobfiles/filelist"
	"github.com/neardup/neardup/transforms/jobfiles/recshards"
	"github.com/neardup/neardup/transforms/jobstate"
	"github.com/neardup/neardup/transforms/match/blocking"
	"github.com/neardup/neardup/transforms/objects"
	"github.com/neardup/neardup/transforms/write"
)

func init() {
	register.DoFn6x1[context.Context, int64, func(*string) bool, func(*[]byte) bool, func(int64, []byte), func(int64, []byte), error](&writeIndexFn{})
	register.DoFn4x1[context.Context, int64, func(*[]byte) bool, func(string, int64), error](&writeManifestFn{})
	register.DoFn3x1[context.Context, []byte, func(int64, string), error](&readIndexShardsFn{})
}

// WriteIndex writes the signature index of the documents a job keeps to
// o.Dir as its one generation: one shard per input file, the key
// files, then index.json.
//
// In: files, documents removed (line lists keyed by file index). Out: an
// empty stats collection, complete once the index is written: the summary
// takes it, so that the work directory (where the key entries are
// spilled) is removed only then.
func WriteIndex(s beam.Scope, o Options, files filelist.Files, removes beam.PCollection) beam.PCollection {
	s = s.Scope("WriteIndex")
	return writeGeneration(s, o, "", files, removes)
}

// UpdateIndex writes the index that follows an audit of the index in from
// to o.Dir: a manifest that lists the generations of the old index
// (by their directories, nothing copied) and one new generation in
// o.Dir, the shards and key files of the new documents kept.
//
// In: the new files, the new documents removed (line lists keyed by file
// index). Out: as WriteIndex.
func UpdateIndex(s beam.Scope, o Options, from string, files filelist.Files, removes beam.PCollection) beam.PCollection {
	s = s.Scope("UpdateIndex")
	return writeGeneration(s, o, from, files, removes)
}

// writeGeneration writes the shards of files (their documents kept), the
// key files of those documents and the manifest: the generations of the
// index in from (none if "") and the new one.
func writeGeneration(s beam.Scope, o Options, from string, files filelist.Files, removes beam.PCollection) beam.PCollection {
	outs := files.PerFile(s, 2, &writeIndexFn{Dir: o.Dir, Bits: o.KeyBits, Tables: o.Tables}, removes)
	keyMetas := writeKeyFiles(s, o, outs[1])
	return writeManifest(s, manifestOf{Dir: o.Dir, Config: o.Config, From: from, Bits: o.KeyBits}, beam.Flatten(s, outs[0], keyMetas))
}

// IndexShards returns the shards of the index in dir as (shard number,
// name), read from its manifest at run time, in n branches by number mod n.
func IndexShards(s beam.Scope, dir string, n int) []beam.PCollection {
	n = max(n, 1)
	branches := make([]beam.PCollection, n)
	for b := range n {
		branches[b] = beam.ParDo(s, &readIndexShardsFn{Dir: dir, N: n, I: b}, beam.Impulse(s))
	}
	return branches
}

// readIndexShardsFn emits the shards of the index in Dir whose number
// belongs to branch I of N (number mod N).
//
// In: an impulse. Out: (shard number, name).
type readIndexShardsFn struct {
	Dir  string
	N, I int
}

func (fn *readIndexShardsFn) ProcessElement(ctx context.Context, _ []byte, emit func(int64, string)) error {
	m, err := ReadManifest(ctx, fn.Dir)
	if err != nil {
		return err
	}
	for n, sh := range m.Shards {
		if n%fn.N == fn.I {
			emit(int64(n), sh.Name)
		}
	}
	return nil
}

func writeManifest(s beam.Scope, mo manifestOf, metas beam.PCollection) beam.PCollection {
	one := beam.GroupByKey(s, beam.ParDo(s, write.ToOneKey, metas))
	return beam.ParDo(s, &writeManifestFn{M: mo}, one)
}

// writeIndexFn writes the index shard of one input file: every document of
// the file that is kept (neither rejected nor removed) with its exact key,
// SimHash, MinHash sketch and band keys, copied from the file's pre-shard
// (see preShardName).
//
// In: (file index, its path, chunks of uvarint line numbers removed). Out:
// Dir/index-<file>.bin and its description (shardMeta JSON keyed by
// shard number), the key entries of its documents (keyed by partition, see
// keyRouter).
type writeIndexFn struct {
	Dir    string
	Bits   int             // partition bits of the key files
	Tables blocking.Design // SimHash tables; the zero Design: none

	tables *blocking.Tables
}

func (fn *writeIndexFn) Setup() (err error) {
	fn.tables, err = job.NewTables(fn.Tables)
	return err
}

func (fn *writeIndexFn) ProcessElement(ctx context.Context, file int64, paths func(*string) bool, removeChunks func(*[]byte) bool,
	emit, emitKeys func(int64, []byte)) error {
	defer jobstate.Busy(ctx, "WriteIndex", jobstate.Begin())
	var path string
	if !paths(&path) {
		return fmt.Errorf("index: no path for file %d", file)
	}
	remove, err := wire.ReadLineSet(removeChunks)
	if err != nil {
		return fmt.Errorf("index: removal list for %s: %w", path, err)
	}
	pres, err := listPreShards(ctx, fn.Dir, int(file))
	if err != nil {
		return fmt.Errorf("index: signatures of %s: %w", path, err)
	}
	n := int(file)
	var meta index.Shard
	err = jobfiles.WriteAtomically(ctx, fn.Dir, index.ShardName(n), func(w io.Writer) error {
		iw := index.NewWriter(w, path)
		kr := newKeyRouter(fn.Bits, fn.tables, n, emitKeys)
		for _, pre := range pres { // in segment order, so in line order
			if err := copyKept(ctx, pre, path, remove, iw, kr); err != nil {
				return err
			}
		}
		kr.flush()
		var err error
		meta, err = iw.Close()
		return err
	})
	if err != nil {
		return err
	}
	meta.Name, meta.Source = index.ShardName(n), path
	return emitMeta(n, meta, emit)
}

// manifestOf says what manifest writeManifestFn writes.
type manifestOf struct {
	Dir    string       // where, and the directory of the new generation
	Config index.Config // the index's settings
	From   string       // the index whose generations come first; "": none
	Bits   int          // the new generation's partition bits
}

// writeManifestFn writes index.json once every shard and key file is
// written.
//
// In: (key, shardMeta JSON of every shard and key file). Out:
// Dir/index.json, and no stats (see WriteIndex). It fails if the shard
// numbers are not exactly 0..n-1.
type writeManifestFn struct {
	M manifestOf
}

func (fn *writeManifestFn) ProcessElement(ctx context.Context, _ int64, metas func(*[]byte) bool, _ func(string, int64)) error {
	defer jobstate.Busy(ctx, "WriteManifest", jobstate.Begin())
	gen, err := newGeneration(metas, fn.M.Bits)
	if err != nil {
		return err
	}
	var gens []index.Generation
	if fn.M.From != "" {
		old, err := ReadManifest(ctx, fn.M.From)
		if err != nil {
			return err
		}
		for _, g := range old.Generations {
			g.Dir = g.Path // the old generations stay where they are
			gens = append(gens, g)
		}
	}
	man, err := index.NewManifest(fn.M.Config, append(gens, gen)).Marshal()
	if err != nil {
		return err
	}
	err = jobfiles.WriteAtomically(ctx, fn.M.Dir, index.ManifestName, func(w io.Writer) error {
		_, err := w.Write(man)
		return err
	})
	if err != nil {
		return err
	}
	return removePreShards(ctx, fn.M.Dir)
}

// newGeneration returns the generation (in the manifest's directory) of the
// shards and key files of metas (shardMeta JSON).
func newGeneration(metas func(*[]byte) bool, bits int) (index.Generation, error) {
	var all []shardMeta
	gen := index.Generation{PartitionBits: bits, Keys: []index.KeyFile{}}
	var b []byte
	for metas(&b) {
		var m shardMeta
		if err := json.Unmarshal(b, &m); err != nil {
			return gen, fmt.Errorf("index manifest: %w", err)
		}
		if m.Key != nil {
			gen.Keys = append(gen.Keys, *m.Key)
		} else {
			all = append(all, m)
		}
	}
	slices.SortFunc(all, func(a, b shardMeta) int { return a.N - b.N })
	slices.SortFunc(gen.Keys, func(a, b index.KeyFile) int { return a.Partition - b.Partition })
	gen.Shards = make([]index.Shard, len(all))
	for i, m := range all {
		if m.N != i {
			return gen, fmt.Errorf("index manifest: shard %d missing or repeated (got %d)", i, m.N)
		}
		gen.Shards[i] = m.Shard
	}
	return gen, nil
}

// shardMeta is what a shard or key file writer tells the manifest
// writer: shard N, or the key file Key.
type shardMeta struct {
	N     int            `json:"n"`
	Shard index.Shard    `json:"shard"`
	Key   *index.KeyFile `json:"key,omitempty"`
}

func emitMeta(n int, s index.Shard, emit func(int64, []byte)) error {
	b, err := json.Marshal(shardMeta{N: n, Shard: s})
	if err != nil {
		return err
	}
	emit(int64(n), b)
	return nil
}

// The signature pass writes every document it signs (all but the rejects
// and the exact duplicates left out) to a pre-shard, IndexOut/.sig-NNNNN.bin
// (NNNNN: the input file index), in the index shard format; writeIndexFn
// then copies the kept ones into the final shard, so that an index costs no
// second signing pass and signatures are not shuffled. The manifest writer
// removes the pre-shards.

// listPreShards returns the paths of the pre-shards of input file index
// file in dir, in segment order; a file without a signed document has none.
func listPreShards(ctx context.Context, dir string, file int) ([]string, error) {
	fsys, err := filesystem.New(ctx, objects.JoinPath(dir, "x"))
	if err != nil {
		return nil, err
	}
	defer fsys.Close()
	names, err := fsys.List(ctx, objects.JoinPath(dir, fmt.Sprintf(".sig-%05d-*.bin", file)))
	slices.Sort(names)
	return names, err
}

// copyKept adds the records of the pre-shard at pre, of input path, whose
// lines remove does not hold, to iw and their keys to kr.
func copyKept(ctx context.Context, pre, path string, remove wire.LineSet, iw *index.Writer, kr *keyRouter) error {
	rd, rc, err := recshards.Open(ctx, pre)
	if err != nil {
		return err
	}
	defer rc.Close()
	if rd.Source() != path {
		return fmt.Errorf("%s holds the signatures of %s, not %s", pre, rd.Source(), path)
	}
	return rd.Each(func(r *index.Record) error {
		if remove.Has(r.Line) {
			return nil
		}
		kr.add(r)
		return iw.Add(r)
	})
}
