package main

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"time"

	"github.com/apache/beam/sdks/v2/go/pkg/beam/io/filesystem"

	"github.com/neardup/neardup/transforms/format/index"
	"github.com/neardup/neardup/transforms/format/summary"
	"github.com/neardup/neardup/transforms/indexing"
	"github.com/neardup/neardup/transforms/objects"
)

// recordSources adds to the manifest of the index the job wrote in dir the
// size and modification time of the sources of shards from offset on (the
// shards of this job's input files; those before are an old index's, with
// what it recorded). inputs, when the job reported them, give the size the
// job read: if a file has another size now, that one is recorded, so that
// an audit will not trust the file.
func recordSources(ctx context.Context, dir string, offset int, files []string, inputs []summary.InputFile) error {
	m, err := indexing.ReadManifest(ctx, dir)
	if err != nil {
		return err
	}
	read := map[string]int64{}
	for _, in := range inputs {
		if in.Bytes > 0 {
			read[in.Path] = in.Bytes
		}
	}
	var shards []*index.Shard // as m.Shards, in the generations
	for g := range m.Generations {
		for i := range m.Generations[g].Shards {
			shards = append(shards, &m.Generations[g].Shards[i])
		}
	}
	for n := offset; n < len(shards); n++ {
		sh := shards[n]
		size, mtime, err := sourceStat(ctx, sh.Source)
		if err != nil {
			return fmt.Errorf("index source %s: %w", sh.Source, err)
		}
		if b, ok := read[sh.Source]; ok && b != size {
			size = b
		}
		sh.SourceBytes = size
		if !mtime.IsZero() {
			sh.SourceMtime = mtime.UTC().Format(time.RFC3339Nano)
		}
	}
	b, err := m.Marshal()
	if err != nil {
		return err
	}
	return writeAny(ctx, objects.JoinPath(dir, index.ManifestName), b)
}

// sourceStat returns the size of a source file and, for a local one, its
// modification time.
func sourceStat(ctx context.Context, path string) (int64, time.Time, error) {
	if !strings.Contains(path, "://") {
		fi, err := os.Stat(path)
		if err != nil {
			return 0, time.Time{}, err
		}
		if !fi.Mode().IsRegular() {
			return 0, time.Time{}, fmt.Errorf("not a regular file")
		}
		return fi.Size(), fi.ModTime(), nil
	}
	fsys, err := filesystem.New(ctx, path)
	if err != nil {
		return 0, time.Time{}, err
	}
	defer fsys.Close()
	n, err := fsys.Size(ctx, path)
	return n, time.Time{}, err
}

// unusableSource returns the first index source from which an audit
// cannot re-read indexed documents, and why; "", "" if there is none. A
// source must be where the index says, with the size (and, for a local
// file, the modification time) it had when it was indexed; a relative path
// (indexes of older versions) is not trusted, since it names another file
// from another directory.
func unusableSource(ctx context.Context, m *index.Manifest) (source, why string) {
	for _, sh := range m.Shards {
		local := !strings.Contains(sh.Source, "://")
		if local && !filepath.IsAbs(sh.Source) {
			return sh.Source, "is a relative path, which the index does not say where it starts"
		}
		size, mtime, err := sourceStat(ctx, sh.Source)
		switch {
		case err != nil:
			return sh.Source, "is not readable"
		case sh.SourceBytes > 0 && size != sh.SourceBytes:
			return sh.Source, fmt.Sprintf("has %d bytes, the index recorded %d", size, sh.SourceBytes)
		case sh.SourceMtime != "" && local && mtime.UTC().Format(time.RFC3339Nano) != sh.SourceMtime:
			return sh.Source, fmt.Sprintf("was modified at %s, after it was indexed (%s)", mtime.UTC().Format(time.RFC3339Nano), sh.SourceMtime)
		}
	}
	return "", ""
}
