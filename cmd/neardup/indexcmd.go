package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"time"

	"github.com/neardup/neardup/cmd/neardup/internal/outdir"
	"github.com/neardup/neardup/transforms/format/index"
	"github.com/neardup/neardup/transforms/indexing"
)

const indexUsage = `usage: neardup index compact --index DIR --output NEW_DIR [--tmp DIR] [--overwrite]

Compact writes to NEW_DIR a one-generation index holding the documents of
the index in DIR: its shards in the same order (so that audits number and
match the indexed documents as before) and the key files of them all. The
generations DIR lists (its own and those of the indexes it was updated
from) can be removed afterwards; DIR itself is not modified. It also
converts an index of version 2, which an audit no longer reads.

NEW_DIR must be absent or empty, or with --overwrite hold only an index's
files. As for run and audit, the compaction is written into a staging
directory inside NEW_DIR and moved into place, index.json last, only
once it is complete: a compaction that fails or is interrupted leaves
NEW_DIR as it was, and --tmp holds nothing of it.

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
	to := fs.String("output", "", "the directory of the compacted index (absent or empty unless --overwrite)")
	tmp := fs.String("tmp", os.TempDir(), "a local directory for the key entries on their way to the key files")
	overwrite := fs.Bool("overwrite", false, "write into a directory holding an index, or what a failed run left, replacing it once\nthe compaction succeeds, and break the lock a killed run left")
	if err := parseFlags(fs, args[1:], func() { fmt.Print(indexUsage); printGrouped(os.Stdout, fs, nil) }); err != nil {
		return err
	}
	if *from == "" || *to == "" || fs.NArg() > 0 {
		return usagef("--index and --output are required, and nothing else (see 'neardup help index')")
	}
	tmpName := "--tmp " + *tmp // how errors name it
	if !flagSet(fs)["tmp"] {
		tmpName = "the temporary directory " + *tmp
		if _, ok := os.LookupEnv("TMPDIR"); ok {
			tmpName = "TMPDIR " + *tmp
		}
	}
	return compact(absPath(*from), absPath(*to), *to, *tmp, tmpName, *overwrite)
}

// compact writes the compaction of the index src to the directory dst
// (given as the user gave it) through the run's exit path: dst is taken
// and staged as run and audit take theirs (openDir), the key entries go
// to a directory of its own in tmp (named tmpName in errors), and a
// signal, a failure or a closed standard output leaves neither.
func compact(src, dst, given, tmp, tmpName string, overwrite bool) error {
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	jobDone := make(chan struct{})
	handleSignals(cancel, jobDone)
	defer close(jobDone)
	if err := checkCompactOutput(ctx, src, dst); err != nil {
		return err
	}
	if err := checkTmp(tmp, tmpName); err != nil {
		return err
	}
	out, abort, err := openDir(outdir.Index, dst, overwrite, nil)
	if err != nil {
		return fmt.Errorf("--output: %w", err)
	}
	defer abort()
	setInterruptOutput(given, out.Committed)
	// The key entries' directory goes when the command ends, however it
	// ends but SIGKILL, and a later compaction removes it then, as run
	// removes its work directories (outdir.SweepWorkDirs).
	outdir.SweepWorkDirsOf(tmp, outdir.CompactDirPrefix, time.Now())
	var parts string
	removeParts, err := makeAtExit(func() (func(), error) {
		var err error
		parts, err = outdir.MakeWorkDirIn(tmp, outdir.CompactDirPrefix)
		return func() { os.RemoveAll(parts) }, err
	})
	if err != nil {
		return fmt.Errorf("%s: %w", tmpName, err)
	}
	defer removeParts()
	m, err := indexing.CompactIndex(ctx, src, out.Stage(), parts)
	if err != nil {
		return err
	}
	if err := out.Commit(ctx, index.ManifestName); err != nil {
		return fmt.Errorf("--output: %w", err)
	}
	fmt.Printf("neardup index compact: %d documents in %d shards and %d key files in %s\n",
		m.Documents, len(m.Shards), len(m.Generations[0].Keys), out.Path())
	return nil
}

// checkTmp checks that tmp, named tmpName in the error, is a directory:
// a usage error (exit 2) if it is missing or not a directory.
func checkTmp(tmp, tmpName string) error {
	fi, err := os.Stat(tmp)
	switch {
	case errors.Is(err, fs.ErrNotExist):
		return usagef("%s does not exist", tmpName)
	case err != nil:
		return fmt.Errorf("%s: %w", tmpName, err)
	case !fi.IsDir():
		return usagef("%s is not a directory", tmpName)
	}
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

// checkCompactOutput opens the index (indexing.OpenIndex) and refuses
// an output directory that overlaps the index or one of its generations.
func checkCompactOutput(ctx context.Context, src, dst string) error {
	m, err := indexing.OpenIndex(ctx, src)
	if err != nil {
		return err
	}
	if err := outdir.CheckGenerations([]outdir.Path{{Name: "--output", Path: dst, Written: true}}, outdir.Path{Name: "--index", Path: src}, generationPaths(m)); err != nil {
		return usageError{err}
	}
	return nil
}
