package transforms

import (
	"context"
	"encoding/binary"
	"encoding/json"
	"fmt"
	"io"
	"slices"
	"time"

	"github.com/apache/beam/sdks/v2/go/pkg/beam/io/filesystem"
	"github.com/apache/beam/sdks/v2/go/pkg/beam/register"

	"github.com/neardup/neardup/transforms/blocking"
	"github.com/neardup/neardup/transforms/index"
	"github.com/neardup/neardup/transforms/normalize"
	"github.com/neardup/neardup/transforms/signature"
	"github.com/neardup/neardup/transforms/verify"
	"github.com/neardup/neardup/transforms/wire"
)

func init() {
	register.DoFn5x1[context.Context, int, func(*string) bool, func(*[]byte) bool, func(int, []byte), error](&WriteIndexFn{})
	register.DoFn3x1[context.Context, int, func(*[]byte) bool, error](&WriteManifestFn{})
	register.DoFn4x1[context.Context, int, string, func(int, []byte), error](&CopyShardFn{})
}

// IndexFileBase is the file index of the first index shard in an audit's
// document numbers: indexed document d of shard k is wire.DocNum(
// IndexFileBase+k, its record index in its source). New documents have file
// indexes below it, so in every pair (A < B) of a new and an indexed
// document A is the new one.
const IndexFileBase = 1 << 23

// IsIndexed reports whether document number d is an indexed document.
func IsIndexed(d wire.Doc) bool { return wire.File(d) >= IndexFileBase }

// IndexConfig is the part of c an index records and an audit must share.
func (c Config) IndexConfig() index.Config {
	return index.Config{
		Tokens: c.Tokens, Dictionary: c.Dictionary, Shingle: c.Shingle, Perms: c.Perms, MinHash: c.MinHash,
		Seed: c.Seed, MaxTokens: c.MaxTokens, Method: c.Method, Threshold: c.Threshold, Hamming: c.Hamming,
		Bands: c.Bands, Rows: c.Rows, SimBlocks: c.SimBlocks,
		Format: c.Format, IDField: c.IDField, TextField: c.TextField, MaxDocBytes: c.MaxDocBytes,
	}
}

// WithIndexConfig returns c with the settings of ic.
func (c Config) WithIndexConfig(ic index.Config) Config {
	c.Tokens, c.Dictionary, c.Shingle, c.Perms, c.MinHash = ic.Tokens, ic.Dictionary, ic.Shingle, ic.Perms, ic.MinHash
	c.Seed, c.MaxTokens, c.Method, c.Threshold, c.Hamming = ic.Seed, ic.MaxTokens, ic.Method, ic.Threshold, ic.Hamming
	c.Bands, c.Rows, c.SimBlocks = ic.Bands, ic.Rows, ic.SimBlocks
	c.Format, c.IDField, c.TextField, c.MaxDocBytes = ic.Format, ic.IDField, ic.TextField, ic.MaxDocBytes
	return c
}

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

// WriteIndexFn writes the index shard of one input file: every document of
// the file that is kept (neither rejected nor in the removal list) with its
// exact key, SimHash, MinHash sketch and band keys. It reads and signs the
// file again, like the exact check, instead of shuffling signatures.
//
// In: (file index, its path, chunks of uvarint line numbers removed). Out:
// Dir/index-<Offset+file>.bin and its description (shardMeta JSON keyed by
// shard number).
type WriteIndexFn struct {
	Cfg    Config
	Dir    string
	Offset int // shard number of file index 0

	bands blocking.Bands
}

func (fn *WriteIndexFn) Setup() error {
	fn.bands = blocking.Bands{B: fn.Cfg.Bands, R: fn.Cfg.Rows}
	_, err := exactSigner(fn.Cfg) // fail early; loads gse's dictionary in word mode
	return err
}

func (fn *WriteIndexFn) ProcessElement(ctx context.Context, file int, paths func(*string) bool, removeChunks func(*[]byte) bool, emit func(int, []byte)) error {
	defer busy(ctx, "WriteIndex", time.Now())
	var path string
	if !paths(&path) {
		return fmt.Errorf("index: no path for file %d", file)
	}
	remove, err := lineSet(removeChunks)
	if err != nil {
		return fmt.Errorf("index: removal list for %s: %w", path, err)
	}
	opt := fn.Cfg.recordOptions()
	opt.Only = func(i int64) bool { return !remove[i] }
	minhashKeys := fn.Cfg.verifyConfig().Method != verify.SimHash
	newWorker := func() (func(*docItem, *index.Record), error) {
		signer, err := exactSigner(fn.Cfg)
		if err != nil {
			return nil, err
		}
		var sig signature.Signature
		return func(d *docItem, r *index.Record) {
			text := normalize.Text(d.Text)
			signer.Sign(text, &sig)
			*r = index.Record{Line: d.Index, ID: d.ID, Len: int64(d.RawLen), Exact: normalize.Key(text), SimHash: sig.SimHash}
			if sig.Shingles == 0 {
				return
			}
			r.Sketch = verify.LowBits(nil, sig.MinHash)
			if minhashKeys {
				r.Bands = fn.bands.AppendKeys(nil, sig.MinHash)
			}
		}, nil
	}
	var recs []index.Record
	err = mapDocs(fn.Cfg.reader(ctx, file, path, opt), fn.Cfg.Workers, newWorker, func(r *index.Record) {
		recs = append(recs, *r)
	}, nil)
	if err != nil {
		return fmt.Errorf("index: reading %s: %w", path, err)
	}
	slices.SortFunc(recs, func(a, b index.Record) int { return cmpU64(uint64(a.Line), uint64(b.Line)) })
	n := fn.Offset + file
	var meta index.Shard
	err = writeAtomically(ctx, fn.Dir, index.ShardName(n), func(w io.Writer) error {
		iw := index.NewWriter(w, path)
		for i := range recs {
			if err := iw.Add(&recs[i]); err != nil {
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

// lineSet decodes chunks of uvarint line numbers.
func lineSet(chunks func(*[]byte) bool) (map[int64]bool, error) {
	set := make(map[int64]bool)
	var chunk []byte
	for chunks(&chunk) {
		for c := chunk; len(c) > 0; {
			line, n := binary.Uvarint(c)
			if n <= 0 {
				return nil, wire.ErrCorrupt
			}
			set[int64(line)] = true
			c = c[n:]
		}
	}
	return set, nil
}

// CopyShardFn copies a shard of an old index unchanged into a new one.
//
// In: (shard number, name). Out: the copy in To and its description, taken
// from the old manifest (Shards).
type CopyShardFn struct {
	From, To string
	Shards   []index.Shard
}

func (fn *CopyShardFn) ProcessElement(ctx context.Context, n int, name string, emit func(int, []byte)) error {
	defer busy(ctx, "CopyIndex", time.Now())
	if n < 0 || n >= len(fn.Shards) {
		return fmt.Errorf("index copy: no shard %d", n)
	}
	src := JoinPath(fn.From, name)
	fsys, err := filesystem.New(ctx, src)
	if err != nil {
		return fmt.Errorf("index copy: %s: %w", src, err)
	}
	defer fsys.Close()
	rc, err := fsys.OpenRead(ctx, src)
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
	if copied != fn.Shards[n].Bytes {
		return fmt.Errorf("index copy: %s has %d bytes, the manifest says %d", src, copied, fn.Shards[n].Bytes)
	}
	return emitMeta(n, fn.Shards[n], emit)
}

// WriteManifestFn writes index.json once every shard is written.
//
// In: (key, shardMeta JSON of every shard). Out: Dir/index.json. It fails if
// the shard numbers are not exactly 0..n-1.
type WriteManifestFn struct {
	Dir    string
	Config index.Config
}

func (fn *WriteManifestFn) ProcessElement(ctx context.Context, _ int, metas func(*[]byte) bool) error {
	defer busy(ctx, "WriteManifest", time.Now())
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
	return writeAtomically(ctx, fn.Dir, index.ManifestName, func(w io.Writer) error {
		_, err := w.Write(man)
		return err
	})
}

// ReadManifest reads and checks DIR/index.json through Beam's filesystems.
func ReadManifest(ctx context.Context, dir string) (*index.Manifest, error) {
	path := JoinPath(dir, index.ManifestName)
	fsys, err := filesystem.New(ctx, path)
	if err != nil {
		return nil, fmt.Errorf("index %s: %w", dir, err)
	}
	defer fsys.Close()
	rc, err := fsys.OpenRead(ctx, path)
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
