package main

import (
	"context"
	"flag"
	"fmt"
	"os"
	"path/filepath"
	"strings"

	"github.com/neardup/neardup/cmd/neardup/internal/outdir"
	"github.com/neardup/neardup/transforms"
	"github.com/neardup/neardup/transforms/format/index"
	"github.com/neardup/neardup/transforms/format/output"
)

const indexUsage = `usage: neardup index compact --index DIR --output NEW_DIR [--tmp DIR]

Compact writes to NEW_DIR a one-generation index holding the documents of
the index in DIR: its shards in the same order (so that audits number and
match the indexed documents as before) and the key files of them all. The
generations DIR lists (its own and those of the indexes it was updated
from) can be removed afterwards; DIR itself is not modified. It also
converts an index of version 2, which an audit no longer reads.

NEW_DIR must be absent or empty; index.json is written last, so a
compaction that fails leaves no index there.

Example:

	neardup index compact --index idx/day30 --output idx/day30-compact
`

func indexMain(args []string) error {
	if len(args) == 0 || args[0] != "compact" {
		if len(args) > 0 && (args[0] == "-h" || args[0] == "--help") {
			fmt.Print(indexUsage)
			return errHelp
		}
		return usagef("want 'neardup index compact' (see 'neardup help index')")
	}
	fs := flag.NewFlagSet("index compact", flag.ContinueOnError)
	from := fs.String("index", "", "the index to compact (or convert from version 2)")
	to := fs.String("output", "", "the directory of the compacted index (absent or empty)")
	tmp := fs.String("tmp", os.TempDir(), "a local directory for the key entries on their way to the key files")
	if err := parseFlags(fs, args[1:], func() { fmt.Print(indexUsage); printGrouped(os.Stdout, fs, nil) }); err != nil {
		return err
	}
	if *from == "" || *to == "" || fs.NArg() > 0 {
		return usagef("--index and --output are required, and nothing else (see 'neardup help index')")
	}
	ctx := context.Background()
	src, dst := absPath(*from), absPath(*to)
	if err := checkCompactOutput(ctx, src, dst); err != nil {
		return err
	}
	m, err := transforms.CompactIndex(ctx, src, dst, *tmp)
	if err != nil {
		return err
	}
	fmt.Printf("neardup index compact: %d documents in %d shards and %d key files in %s\n",
		m.Documents, len(m.Shards), len(m.Generations[0].Keys), dst)
	return nil
}

// absPath is path made absolute, or the URL as given.
func absPath(path string) string {
	if strings.Contains(path, "://") {
		return path
	}
	if abs, err := filepath.Abs(path); err == nil {
		return abs
	}
	return path
}

// checkCompactOutput opens the index (transforms.OpenIndex) and refuses
// an output directory that overlaps the index or one of its generations,
// or that holds anything (a local directory) or an index manifest.
func checkCompactOutput(ctx context.Context, src, dst string) error {
	m, err := transforms.OpenIndex(ctx, src)
	if err != nil {
		return err
	}
	if err := outdir.CheckGenerations([]outdir.Path{{Name: "--output", Path: dst, Written: true}}, outdir.Path{Name: "--index", Path: src}, generationPaths(m)); err != nil {
		return usageError{err}
	}
	if !strings.Contains(dst, "://") {
		names, err := os.ReadDir(dst)
		if err != nil && !os.IsNotExist(err) {
			return err
		}
		if len(names) > 0 {
			return usagef("--output %s is not empty", dst)
		}
		return os.MkdirAll(dst, 0o755)
	}
	if _, err := transforms.ReadManifest(ctx, dst); err == nil {
		return usagef("--output %s already holds an index (%s)", dst, output.JoinPath(dst, index.ManifestName))
	}
	return nil
}
