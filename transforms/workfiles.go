package transforms

import (
	"context"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"slices"
	"strconv"
	"strings"
	"syscall"

	"github.com/neardup/neardup/transforms/format/index"
	"github.com/neardup/neardup/transforms/format/output"
	"github.com/neardup/neardup/transforms/format/wire"
)

// Info shards carry the document infos (id, length, SimHash, MinHash
// sketch) from the signature pass to verification without a shuffle.
//
// The infos are a third of the bytes the signature pass produces, and a
// shuffle would hold them in the runner until the second verification
// join, twice over since two joins read them: on Prism that cost more than
// a quarter of a 1.4M-document run. Instead the signature pass writes the
// infos of each input file to one shard in Config.Work (in the index's
// shard format: checksummed blocks, records in line order), and the
// verification joins, keyed by input file, read the shard of their file.
// Config.Work must therefore be readable and writable by every worker: a
// local directory on one machine, a bucket (gs://...) on a cluster.

// WorkDirName is the work directory pipeline.Build uses, inside the output
// directory, when Config.Work is not set.
const WorkDirName = ".tmp-work"

// InputsManifest is the file manifest of a job's inputs in its work
// directory (see files.go), and CheckManifest an audit's manifest of the
// files its exact checks read: the new files and the indexed documents'
// sources.
const (
	InputsManifest = "inputs.tsv"
	CheckManifest  = "check-inputs.tsv"
)

// infoShardName is the name of input file index file's info shard.
func infoShardName(file int) string { return fmt.Sprintf("info-%05d.bin", file) }

// IsWorkFile reports whether name is a file the job writes in its work
// directory: an info shard, a spill file of block entries, the first pass's
// reading of an input (see input.go), or the temporary name of one being
// written.
func IsWorkFile(name string) bool {
	if rest, ok := strings.CutPrefix(name, ".tmp-"); ok {
		name = rest[:max(strings.LastIndexByte(rest, '-'), 0)]
	}
	if name == InputsManifest || name == CheckManifest || isSpillName(name) {
		return true
	}
	for _, kind := range []struct {
		prefix, suffix string
		name           func(int) string
	}{{"info-", ".bin", infoShardName}, {"seen-", ".json", seenName}} {
		digits, ok := strings.CutPrefix(name, kind.prefix)
		digits, ok2 := strings.CutSuffix(digits, kind.suffix)
		if n, err := strconv.Atoi(digits); ok && ok2 && err == nil && n >= 0 && name == kind.name(n) {
			return true
		}
	}
	return false
}

// infoRecord is the record of in in its file's info shard.
func infoRecord(in *wire.Info) index.Record {
	return index.Record{Line: wire.Line(in.Doc), ID: in.ID, Len: in.Len, SimHash: in.SimHash, Sketch: in.Sketch}
}

// infoTable is the content of one info shard: infos in line order.
type infoTable struct {
	file  int
	infos []wire.Info
}

// find returns the info of document d, or nil if the shard has none.
func (t *infoTable) find(d wire.Doc) *wire.Info {
	if wire.File(d) != t.file {
		return nil
	}
	i, ok := slices.BinarySearchFunc(t.infos, d, func(in wire.Info, d wire.Doc) int { return cmpU64(in.Doc, d) })
	if !ok {
		return nil
	}
	return &t.infos[i]
}

// writeInfoShard writes the infos of input file index file (path) in shard
// to the file's info shard in dir (Config.Work). Unlike a spool copy, the
// job cannot go on without it: a shard that cannot be written is an error
// that names the directory and about the space the shard needs.
func writeInfoShard(ctx context.Context, dir string, file int, path string, shard *recordShard) error {
	err := shard.write(ctx, dir, infoShardName(file), path)
	if err == nil {
		return nil
	}
	var pe *fs.PathError
	if errors.As(err, &pe) {
		err = pe.Err // its path is the shard's temporary name
	}
	hint := ""
	if errors.Is(err, syscall.ENOSPC) || errors.Is(err, syscall.EDQUOT) {
		hint = "; set TMPDIR to a larger disk"
	}
	return fmt.Errorf("writing info shard %s in %s: %w (needs about %s%s)", infoShardName(file), dir, err, aboutBytes(shard.size()), hint)
}

// size estimates the bytes of the shard of the records (a little more).
func (s *recordShard) size() int64 {
	var n int64
	for i := range s.recs {
		r := &s.recs[i]
		n += 40 + int64(len(r.ID)+len(r.Sketch)+8*len(r.Bands))
	}
	return n
}

// aboutBytes formats n bytes, rounded up to a kB or MB.
func aboutBytes(n int64) string {
	if n < 1<<20 {
		return fmt.Sprintf("%d kB", (n+1<<10-1)>>10)
	}
	return fmt.Sprintf("%d MB", (n+1<<20-1)>>20)
}

// readInfoShard reads the info shard of input file index file from
// cfg.Work.
func readInfoShard(ctx context.Context, cfg Config, file int) (*infoTable, error) {
	path := output.JoinPath(cfg.Work, infoShardName(file))
	rd, rc, err := openShard(ctx, path)
	if err != nil {
		return nil, fmt.Errorf("info shard of input file %d: %w", file, err)
	}
	defer rc.Close()
	t := &infoTable{file: file}
	err = rd.Each(func(r *index.Record) error {
		t.infos = append(t.infos, wire.Info{Doc: wire.DocNum(file, r.Line), ID: r.ID, Len: r.Len,
			SimHash: r.SimHash, Sketch: slices.Clone(r.Sketch)})
		return nil
	})
	if err != nil {
		return nil, fmt.Errorf("info shard %s: %w", path, err)
	}
	if !slices.IsSortedFunc(t.infos, func(a, b wire.Info) int { return cmpU64(a.Doc, b.Doc) }) {
		return nil, fmt.Errorf("info shard %s: %w: records out of line order", path, index.ErrCorrupt)
	}
	return t, nil
}

// removeInfoShards removes the info shards, the spill files of block
// entries and the first pass's readings
// of the inputs (and leftovers of their temporary names) from cfg.Work, and the directory itself when it is local
// and left empty.
func removeInfoShards(ctx context.Context, cfg Config) error {
	if cfg.Work == "" {
		return nil
	}
	if err := removeMatching(ctx, cfg.Work, "info-*.bin", ".tmp-info-*", spillPattern, "seen-*.json", ".tmp-seen-*", InputsManifest, CheckManifest, ".tmp-"+InputsManifest+"-*", ".tmp-"+CheckManifest+"-*"); err != nil {
		return fmt.Errorf("work directory: %w", err)
	}
	if !strings.Contains(cfg.Work, "://") {
		_ = os.Remove(cfg.Work) // only if empty; a command's own work directory is its to remove
	}
	return nil
}
