package indexing

import (
	"bufio"
	"context"
	"fmt"
	"io"
	"os"
	"path/filepath"

	"github.com/neardup/neardup/transforms/format/index"
	"github.com/neardup/neardup/transforms/internal/diskroom"
	"github.com/neardup/neardup/transforms/internal/workfiles"
	"github.com/neardup/neardup/transforms/job"
	"github.com/neardup/neardup/transforms/jobfiles"
	"github.com/neardup/neardup/transforms/jobfiles/recshards"
	"github.com/neardup/neardup/transforms/match/ensemble"
)

// compactPartitionDocs is about the documents of a key file of a compacted
// index without containment keys: its entries (index.KeysPerDoc a
// document, 24 bytes each) are sorted in memory, some 40 MB.
const compactPartitionDocs = 1 << 16

// compactBits is the partition bits of the key files of a compacted index
// of docs documents with containKeys containment keys each: entries of
// about compactPartitionDocs documents without them to a key file.
func compactBits(docs int64, containKeys int) int {
	entries := docs * int64(index.KeysPerDoc+containKeys)
	bits := 0
	for entries>>bits > compactPartitionDocs*index.KeysPerDoc && bits < index.MaxPartitionBits {
		bits++
	}
	return bits
}

// CompactIndex writes to dir to a one-generation index of the documents of
// the index in from, shard for shard in the same order (so that an audit
// numbers and matches them as before), with the key files of them all: the
// generations of from can then be removed. It also converts an index of
// version 2. tmp is a local directory of the caller's for the key entries
// on their way to the key files (one file per partition, removed at the
// end), so that memory holds one partition. index.json is written last.
// A write that fails for lack of space says in which directory and about
// how much the compaction needs there.
func CompactIndex(ctx context.Context, from, to, tmp string) (*index.Manifest, error) {
	m, err := OpenIndex(ctx, from)
	if err != nil {
		return nil, err
	}
	cfg, err := job.DefaultConfig().WithIndexConfig(m.Config)
	if err != nil {
		return nil, fmt.Errorf("index %s: %w", from, err)
	}
	bits := compactBits(m.Documents, ensemble.KeysPerDoc(cfg.ContainOptions()))
	tables, err := job.NewTables(cfg.SimDesign())
	if err != nil {
		return nil, err
	}
	parts := newPartFiles(tmp, 1<<bits)
	defer parts.remove()
	outErr := func(err error) error { return compactSpaceError(to, err, compactOutputBytes(m)) }
	gen := index.Generation{PartitionBits: bits, Keys: []index.KeyFile{}}
	for n := range m.Shards {
		if err := ctx.Err(); err != nil {
			return nil, err
		}
		kr := newKeyRouter(bits, tables, n, func(p int64, c []byte) { parts.add(int(p), c) })
		sh, err := compactShard(ctx, m, n, to, kr)
		if err != nil {
			return nil, outErr(err)
		}
		kr.flush()
		parts.docs += m.Shards[n].Records
		if parts.err != nil {
			return nil, parts.spaceError(m.Documents)
		}
		gen.Shards = append(gen.Shards, sh)
	}
	for p := range 1 << bits {
		if err := ctx.Err(); err != nil {
			return nil, err
		}
		k, ok, err := parts.writeKeyFile(ctx, p, bits, to)
		if err != nil {
			if parts.err != nil {
				return nil, parts.spaceError(m.Documents)
			}
			return nil, outErr(err)
		}
		if ok {
			gen.Keys = append(gen.Keys, k)
		}
	}
	out := index.NewManifest(m.Config, []index.Generation{gen})
	b, err := out.Marshal()
	if err == nil {
		err = jobfiles.WriteAtomically(ctx, to, index.ManifestName, func(w io.Writer) error { _, err := w.Write(b); return err })
	}
	if err != nil {
		return nil, outErr(err)
	}
	return &out, nil
}

// compactOutputBytes is about the size of the compaction of m: its shards
// and key files as they are now.
func compactOutputBytes(m *index.Manifest) int64 {
	var n int64
	for _, sh := range m.Shards {
		n += sh.Bytes
	}
	for _, g := range m.Generations {
		for _, k := range g.Keys {
			n += k.Bytes
		}
	}
	return n
}

// compactSpaceError is err, of a write in dir, with the space needed there
// (about need bytes) when it failed for lack of space.
func compactSpaceError(dir string, err error, need int64) error {
	if !diskroom.NoSpace(err) {
		return err
	}
	return fmt.Errorf("%w (the compaction needs about %s in %s)", err, jobfiles.AboutBytes(need), dir)
}

// compactShard copies the records of shard n of m into shard n of the
// index in dir to, and their keys to kr.
func compactShard(ctx context.Context, m *index.Manifest, n int, to string, kr *keyRouter) (index.Shard, error) {
	old := m.Shards[n]
	path := ShardPath(m, n)
	rd, rc, err := recshards.Open(ctx, path)
	if err != nil {
		return old, fmt.Errorf("index compact: %s: %w", path, err)
	}
	defer rc.Close()
	var sh index.Shard
	err = jobfiles.WriteAtomically(ctx, to, index.ShardName(n), func(w io.Writer) error {
		iw := index.NewWriter(w, rd.Source())
		if err := rd.Each(func(r *index.Record) error { kr.add(r); return iw.Add(r) }); err != nil {
			return err
		}
		if err := rd.Check(old); err != nil {
			return err
		}
		var err error
		sh, err = iw.Close()
		return err
	})
	sh.Name, sh.Source, sh.SourceBytes, sh.SourceMtime = index.ShardName(n), old.Source, old.SourceBytes, old.SourceMtime
	return sh, err
}

// partFiles holds key entry chunks by partition in local files.
type partFiles struct {
	dir   string
	files []*os.File
	bufs  []*bufio.Writer
	bytes int64 // of the chunks added
	docs  int64 // of the shards whose chunks were added
	err   error
}

func newPartFiles(dir string, n int) *partFiles {
	return &partFiles{dir: dir, files: make([]*os.File, n), bufs: make([]*bufio.Writer, n)}
}

// add appends chunk to partition p's file (an error is kept for the end).
func (pf *partFiles) add(p int, chunk []byte) {
	if pf.err != nil {
		return
	}
	if pf.files[p] == nil {
		pf.err = workfiles.Do(func() (err error) {
			pf.files[p], err = os.Create(pf.name(p))
			return err
		})
		if pf.err != nil {
			return
		}
		pf.bufs[p] = bufio.NewWriterSize(workfiles.Writer(workfiles.KindIndexParts, pf.files[p]), 64<<10)
	}
	_, pf.err = pf.bufs[p].Write(chunk)
	pf.bytes += int64(len(chunk))
}

// name is the path of partition p's file.
func (pf *partFiles) name(p int) string { return filepath.Join(pf.dir, fmt.Sprintf("part-%05d", p)) }

// spaceError is the error of the partition files, which hold the key
// entries of docs documents of the index's total, with the space they
// need (their bytes so far, in proportion) if it was the lack of it.
func (pf *partFiles) spaceError(total int64) error {
	err := fmt.Errorf("writing the key entries in %s: %w", pf.dir, pf.err)
	if !diskroom.NoSpace(pf.err) {
		return err
	}
	need := pf.bytes
	if pf.docs > 0 && total > pf.docs {
		need = pf.bytes / pf.docs * total
	}
	return fmt.Errorf("%w (the compaction needs about %s there)", err, jobfiles.AboutBytes(max(need, 1)))
}

// writeKeyFile writes the key file of partition p from its entries, if it
// has any.
func (pf *partFiles) writeKeyFile(ctx context.Context, p, bits int, to string) (index.KeyFile, bool, error) {
	var k index.KeyFile
	if pf.err != nil || pf.files[p] == nil {
		return k, false, pf.err
	}
	if pf.err = pf.bufs[p].Flush(); pf.err != nil {
		return k, false, pf.err
	}
	b, err := os.ReadFile(pf.files[p].Name())
	if err != nil {
		return k, false, err
	}
	var es [index.Kinds][]index.KeyEntry
	if err := decodeKeyEntries(b, &es); err != nil {
		return k, false, fmt.Errorf("%s: %w", pf.files[p].Name(), err)
	}
	b = nil
	err = jobfiles.WriteAtomically(ctx, to, index.KeyFileName(p), func(w io.Writer) error {
		k, err = index.WriteKeyFile(w, p, bits, &es)
		return err
	})
	return k, err == nil, err
}

// remove closes and removes the files.
func (pf *partFiles) remove() {
	for _, f := range pf.files {
		if f != nil {
			f.Close()
			os.Remove(f.Name())
		}
	}
}
