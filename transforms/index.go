package transforms

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
	"github.com/neardup/neardup/transforms/format/output"
	"github.com/neardup/neardup/transforms/format/wire"
	"github.com/neardup/neardup/transforms/internal/workfiles"
)

func init() {
	register.DoFn5x1[context.Context, int, func(*string) bool, func(*[]byte) bool, func(int, []byte), error](&writeIndexFn{})
	register.DoFn3x1[context.Context, int, func(*[]byte) bool, error](&writeManifestFn{})
	register.DoFn4x1[context.Context, int, string, func(int, []byte), error](&copyShardFn{})
	register.DoFn3x1[context.Context, []byte, func(int, string), error](&readIndexShardsFn{})
}

// WriteIndex writes the signature index of the documents a job keeps to
// cfg.IndexOut: one shard per input file, then index.json.
//
// In: files, documents removed (line lists keyed by file index).
func WriteIndex(s beam.Scope, cfg Config, files Files, removes beam.PCollection) {
	s = s.Scope("WriteIndex")
	metas := files.perFile(s, 1, &writeIndexFn{Dir: cfg.IndexOut}, removes)[0]
	writeManifest(s, cfg.IndexOut, cfg.IndexConfig(), metas)
}

// UpdateIndex writes the index that follows an audit of index old (its
// directory from and manifest shards) to cfg.IndexOut: the old shards,
// copied, then shards of the new documents kept, then index.json.
//
// In: the new files, the new documents removed (line lists keyed by file
// index).
func UpdateIndex(s beam.Scope, cfg Config, from string, oldShards int, files Files, removes beam.PCollection) {
	s = s.Scope("UpdateIndex")
	copied := beam.ParDo(s, &copyShardFn{From: from, To: cfg.IndexOut}, indexShards(s, from, 1)[0])
	written := files.perFile(s, 1, &writeIndexFn{Dir: cfg.IndexOut, Offset: oldShards}, removes)[0]
	writeManifest(s, cfg.IndexOut, cfg.IndexConfig(), beam.Flatten(s, copied, written))
}

// indexShards returns the shards of the index in dir as (shard number,
// name), read from its manifest at run time, in n branches by number mod n.
func indexShards(s beam.Scope, dir string, n int) []beam.PCollection {
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

func (fn *readIndexShardsFn) ProcessElement(ctx context.Context, _ []byte, emit func(int, string)) error {
	m, err := ReadManifest(ctx, fn.Dir)
	if err != nil {
		return err
	}
	for n, sh := range m.Shards {
		if n%fn.N == fn.I {
			emit(n, sh.Name)
		}
	}
	return nil
}

func writeManifest(s beam.Scope, dir string, ic index.Config, metas beam.PCollection) {
	one := beam.GroupByKey(s, beam.ParDo(s, toOneKey, metas))
	beam.ParDo0(s, &writeManifestFn{Dir: dir, Config: ic}, one)
}

// writeIndexFn writes the index shard of one input file: every document of
// the file that is kept (neither rejected nor removed) with its exact key,
// SimHash, MinHash sketch and band keys, copied from the file's pre-shard
// (see preShardName).
//
// In: (file index, its path, chunks of uvarint line numbers removed). Out:
// Dir/index-<Offset+file>.bin and its description (shardMeta JSON keyed by
// shard number).
type writeIndexFn struct {
	Dir    string
	Offset int // shard number of file index 0
}

func (fn *writeIndexFn) ProcessElement(ctx context.Context, file int, paths func(*string) bool, removeChunks func(*[]byte) bool, emit func(int, []byte)) error {
	defer busy(ctx, "WriteIndex", begin())
	var path string
	if !paths(&path) {
		return fmt.Errorf("index: no path for file %d", file)
	}
	remove, err := wire.ReadLineSet(removeChunks)
	if err != nil {
		return fmt.Errorf("index: removal list for %s: %w", path, err)
	}
	pres, err := listPreShards(ctx, fn.Dir, file)
	if err != nil {
		return fmt.Errorf("index: signatures of %s: %w", path, err)
	}
	n := fn.Offset + file
	var meta index.Shard
	err = writeAtomically(ctx, fn.Dir, index.ShardName(n), func(w io.Writer) error {
		iw := index.NewWriter(w, path)
		for _, pre := range pres { // in segment order, so in line order
			if err := copyKept(ctx, pre, path, remove, iw); err != nil {
				return err
			}
		}
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

// copyShardFn copies a shard of an old index unchanged into a new one.
//
// In: (shard number, name). Out: the copy in To and its description, taken
// from the old manifest.
type copyShardFn struct {
	From, To string

	shards []index.Shard // of the manifest in From
}

func (fn *copyShardFn) Setup(ctx context.Context) error {
	m, err := ReadManifest(ctx, fn.From)
	if err != nil {
		return err
	}
	fn.shards = m.Shards
	return nil
}

func (fn *copyShardFn) ProcessElement(ctx context.Context, n int, name string, emit func(int, []byte)) error {
	defer busy(ctx, "CopyIndex", begin())
	if n < 0 || n >= len(fn.shards) {
		return fmt.Errorf("index copy: no shard %d", n)
	}
	src := output.JoinPath(fn.From, name)
	rc, err := workfiles.Open(ctx, src)
	if err != nil {
		return fmt.Errorf("index copy: %s: %w", src, err)
	}
	defer rc.Close()
	var copied int64
	err = writeAtomically(ctx, fn.To, name, func(w io.Writer) error {
		copied, err = io.Copy(w, rc)
		return err
	})
	if err != nil {
		return err
	}
	if copied != fn.shards[n].Bytes {
		return fmt.Errorf("index copy: %s has %d bytes, the manifest says %d", src, copied, fn.shards[n].Bytes)
	}
	return emitMeta(n, fn.shards[n], emit)
}

// writeManifestFn writes index.json once every shard is written.
//
// In: (key, shardMeta JSON of every shard). Out: Dir/index.json. It fails if
// the shard numbers are not exactly 0..n-1.
type writeManifestFn struct {
	Dir    string
	Config index.Config
}

func (fn *writeManifestFn) ProcessElement(ctx context.Context, _ int, metas func(*[]byte) bool) error {
	defer busy(ctx, "WriteManifest", begin())
	var all []shardMeta
	var b []byte
	for metas(&b) {
		var m shardMeta
		if err := json.Unmarshal(b, &m); err != nil {
			return fmt.Errorf("index manifest: %w", err)
		}
		all = append(all, m)
	}
	slices.SortFunc(all, func(a, b shardMeta) int { return a.N - b.N })
	shards := make([]index.Shard, len(all))
	for i, m := range all {
		if m.N != i {
			return fmt.Errorf("index manifest: shard %d missing or repeated (got %d)", i, m.N)
		}
		shards[i] = m.Shard
	}
	man, err := index.NewManifest(fn.Config, shards).Marshal()
	if err != nil {
		return err
	}
	err = writeAtomically(ctx, fn.Dir, index.ManifestName, func(w io.Writer) error {
		_, err := w.Write(man)
		return err
	})
	if err != nil {
		return err
	}
	return removePreShards(ctx, fn.Dir)
}

// IndexFileBase is the file index of the first index shard in an audit's
// document numbers: indexed document d of shard k is wire.DocNum(
// IndexFileBase+k, its record index in its source). New documents have file
// indexes below it, so in every pair (A < B) of a new and an indexed
// document A is the new one.
const IndexFileBase = 1 << 23

// isIndexed reports whether document number d is an indexed document.
func isIndexed(d wire.Doc) bool { return wire.File(d) >= IndexFileBase }

// shardMeta is what a shard writer tells the manifest writer.
type shardMeta struct {
	N     int         `json:"n"`
	Shard index.Shard `json:"shard"`
}

func emitMeta(n int, s index.Shard, emit func(int, []byte)) error {
	b, err := json.Marshal(shardMeta{N: n, Shard: s})
	if err != nil {
		return err
	}
	emit(n, b)
	return nil
}

// The signature pass writes every document it signs (all but the rejects
// and the exact duplicates left out) to a pre-shard, IndexOut/.sig-NNNNN.bin
// (NNNNN: the input file index), in the index shard format; writeIndexFn
// then copies the kept ones into the final shard, so that an index costs no
// second signing pass and signatures are not shuffled. The manifest writer
// removes the pre-shards.

// preShardName is the name of the pre-shard of segment index (within the
// file) of input file index file: names sort by file, then segment.
func preShardName(file, index int) string { return fmt.Sprintf(".sig-%05d-%06d.bin", file, index) }

// listPreShards returns the paths of the pre-shards of input file index
// file in dir, in segment order; a file without a signed document has none.
func listPreShards(ctx context.Context, dir string, file int) ([]string, error) {
	fsys, err := filesystem.New(ctx, output.JoinPath(dir, "x"))
	if err != nil {
		return nil, err
	}
	defer fsys.Close()
	names, err := fsys.List(ctx, output.JoinPath(dir, fmt.Sprintf(".sig-%05d-*.bin", file)))
	slices.Sort(names)
	return names, err
}

// copyKept adds the records of the pre-shard at pre, of input path, whose
// lines remove does not hold, to iw.
func copyKept(ctx context.Context, pre, path string, remove wire.LineSet, iw *index.Writer) error {
	rd, rc, err := openShard(ctx, pre)
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
		return iw.Add(r)
	})
}

// newPreShard returns a pre-shard to fill, or nil when the job writes no
// index (indexOut "").
func newPreShard(indexOut string) *recordShard {
	if indexOut == "" {
		return nil
	}
	return &recordShard{}
}

// A recordShard collects the records of one input file for a shard in the
// index format: a pre-shard (above) or an info shard (workfiles.go). A nil
// *recordShard collects and writes nothing.
type recordShard struct{ recs []index.Record }

// add appends a copy of r.
func (s *recordShard) add(r *index.Record) {
	if s == nil {
		return
	}
	rec := *r
	rec.Sketch, rec.Bands = slices.Clone(r.Sketch), slices.Clone(r.Bands)
	s.recs = append(s.recs, rec)
}

// write writes the records, in line order, to dir/name as the shard of the
// input file source, atomically.
func (s *recordShard) write(ctx context.Context, dir, name, source string) error {
	if s == nil {
		return nil
	}
	if dir == "" {
		return fmt.Errorf("writing %s of %s: no directory", name, source)
	}
	slices.SortFunc(s.recs, func(a, b index.Record) int { return cmpU64(uint64(a.Line), uint64(b.Line)) })
	return writeAtomically(ctx, dir, name, func(w io.Writer) error {
		iw := index.NewWriter(w, source)
		for i := range s.recs {
			if err := iw.Add(&s.recs[i]); err != nil {
				return err
			}
		}
		_, err := iw.Close()
		return err
	})
}

// openShard opens the shard in the index format at path; close c when done.
func openShard(ctx context.Context, path string) (rd *index.Reader, c io.Closer, err error) {
	rc, err := workfiles.Open(ctx, path)
	if err != nil {
		return nil, nil, err
	}
	if rd, err = index.NewReader(rc, path); err != nil {
		rc.Close()
		return nil, nil, err
	}
	return rd, rc, nil
}

// removePreShards removes the pre-shards (and leftovers of their temporary
// names) in dir.
func removePreShards(ctx context.Context, dir string) error {
	if err := removeMatching(ctx, dir, ".sig-*.bin", ".tmp-.sig-*"); err != nil {
		return fmt.Errorf("index: %w", err)
	}
	return nil
}

// removeMatching removes the files of dir that match any of globs, on dir's
// Beam filesystem; nothing if that filesystem cannot remove files.
func removeMatching(ctx context.Context, dir string, globs ...string) error {
	fsys, err := filesystem.New(ctx, output.JoinPath(dir, "x"))
	if err != nil {
		return err
	}
	defer fsys.Close()
	rm, ok := fsys.(filesystem.Remover)
	if !ok {
		return nil
	}
	for _, glob := range globs {
		names, err := fsys.List(ctx, output.JoinPath(dir, glob))
		if err != nil {
			return fmt.Errorf("listing %s: %w", dir, err)
		}
		for _, name := range names {
			if err := rm.Remove(ctx, name); err != nil {
				return fmt.Errorf("removing %s: %w", name, err)
			}
		}
	}
	return nil
}

// ReadManifest reads and checks DIR/index.json through Beam's filesystems.
func ReadManifest(ctx context.Context, dir string) (*index.Manifest, error) {
	path := output.JoinPath(dir, index.ManifestName)
	rc, err := workfiles.Open(ctx, path)
	if err != nil {
		return nil, fmt.Errorf("index %s: no manifest: %w", dir, err)
	}
	defer rc.Close()
	b, err := io.ReadAll(io.LimitReader(rc, 256<<20))
	if err != nil {
		return nil, fmt.Errorf("index %s: reading %s: %w", dir, path, err)
	}
	return index.ParseManifest(b, path)
}
