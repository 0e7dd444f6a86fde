package main

import (
	"context"
	"flag"
	"fmt"
	"log/slog"
	"maps"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"syscall"

	"github.com/apache/beam/sdks/v2/go/pkg/beam"
	"github.com/apache/beam/sdks/v2/go/pkg/beam/io/filesystem"
	_ "github.com/apache/beam/sdks/v2/go/pkg/beam/io/filesystem/gcs"
	_ "github.com/apache/beam/sdks/v2/go/pkg/beam/io/filesystem/local"
	_ "github.com/apache/beam/sdks/v2/go/pkg/beam/io/filesystem/s3"
	"github.com/apache/beam/sdks/v2/go/pkg/beam/log"

	"github.com/neardup/neardup/cmd/neardup/internal/outdir"
	"github.com/neardup/neardup/cmd/neardup/internal/quietlog"
)

// Beam's side of the command: its initialization and log, the runner, and
// the inputs and directories named on any of its filesystems.

// initBeam initializes Beam. Unless verbose, the runner's log shows only
// warnings (not the GCS filesystem's about missing credentials), and not
// the errors of a failed job either: they repeat the failed bundle's plan,
// and the command prints the error itself, on one line (rootCause).
func initBeam(verbose bool) {
	if !verbose {
		log.LogLevel = "warn"
	}
	beam.Init()
	if !verbose {
		slog.SetDefault(slog.New(quietlog.Handler{Handler: slog.Default().Handler()}))
	}
}

// runnerName is the value of Beam's --runner flag, "direct" if unset (see
// setDefaultRunner).
func runnerName() string {
	if r := flag.Lookup("runner"); r != nil && r.Value.String() != "" {
		return r.Value.String()
	}
	return "direct"
}

// setDefaultRunner sets --runner to direct when the user gave none: on one
// machine the job runs on Beam's direct runner, in this process. Prism, the
// SDK's own default, keeps every shuffled byte of the job in memory; the
// direct runner only what a stage holds, and it is the faster
// (docs/BENCHMARKS.md). The outputs are byte for byte the same; --runner
// prism still picks Prism.
func setDefaultRunner() {
	if r := flag.Lookup("runner"); r != nil && r.Value.String() == "" {
		_ = r.Value.Set("direct")
	}
}

// localRunner reports whether the job runs in this process: the direct
// runner (the default) or Prism.
func localRunner() bool {
	r := runnerName()
	return r == "prism" || r == "direct"
}

// expandInputs lists the paths matching comma-separated globs (a comma of
// a file name written \, see splitInputs), sorted and without repeats
// (local paths absolute, URLs as typed), and their total size. A local
// file reached by several paths (a symbolic link, a linked folder, a hard
// link: one device and inode) is one input, under the first of its paths
// in sorted order. A glob that matches nothing is an error, before any
// work starts. Every path a glob matches is an input, a directory or an
// unreadable file too: the job reports each of those as one rejected
// record (not_a_file, unreadable) instead of skipping it silently.
func expandInputs(ctx context.Context, spec string) ([]string, int64, error) {
	sizes := map[string]int64{}
	ids := map[string]fileID{} // of the local regular files
	globs := splitInputs(spec)
	for _, glob := range globs {
		glob = strings.TrimSpace(glob)
		if glob == "" {
			continue
		}
		pattern := glob
		inDir := false // the glob names a directory: its files are the inputs
		if !strings.Contains(glob, "://") {
			// Workers run in other directories: send them absolute paths.
			abs, err := filepath.Abs(glob)
			if err != nil {
				return nil, 0, fmt.Errorf("--input %q: %w", glob, err)
			}
			pattern = abs
			if !hasGlobMeta(glob) {
				if fi, err := os.Stat(unescapeGlob(abs)); err == nil && fi.IsDir() {
					pattern, inDir = filepath.Join(abs, "*"), true
				}
			}
		}
		fs, err := filesystem.New(ctx, pattern)
		if err != nil {
			return nil, 0, fmt.Errorf("--input %q: %w", glob, err)
		}
		matched, err := fs.List(ctx, pattern)
		if err != nil {
			fs.Close()
			return nil, 0, fmt.Errorf("--input %q: %w", glob, err)
		}
		if inDir {
			matched = slices.DeleteFunc(matched, func(m string) bool { return !dirInput(m) })
			if len(matched) == 0 {
				fs.Close()
				return nil, 0, fmt.Errorf("--input %q is a directory without input files (files in it, not in its subdirectories, whose names start with neither . nor _)", glob)
			}
		}
		if len(matched) == 0 {
			fs.Close()
			if len(globs) > 1 {
				return nil, 0, fmt.Errorf("--input %q matches no file (commas separate inputs: write a comma in a file name as \\,)", glob)
			}
			return nil, 0, fmt.Errorf("--input %q matches no file", glob)
		}
		for _, m := range matched {
			sizes[m] = 0
			if !strings.Contains(m, "://") {
				// Not fs.Size, which opens the file: that blocks on a FIFO.
				if fi, err := os.Stat(m); err == nil && fi.Mode().IsRegular() {
					sizes[m] = fi.Size()
					if st, ok := fi.Sys().(*syscall.Stat_t); ok {
						ids[m] = fileID{uint64(st.Dev), st.Ino}
					}
				}
			} else if n, err := fs.Size(ctx, m); err == nil {
				sizes[m] = n
			}
		}
		fs.Close()
	}
	var files []string
	var total int64
	seen, seenID := map[string]bool{}, map[fileID]bool{}
	for _, m := range slices.Sorted(maps.Keys(sizes)) {
		real := outdir.Resolve(m)
		id, hasID := ids[m]
		if seen[real] || hasID && seenID[id] {
			continue
		}
		seen[real] = true
		if hasID {
			seenID[id] = true
		}
		files = append(files, m)
		total += sizes[m]
	}
	if len(files) == 0 {
		return nil, 0, fmt.Errorf("--input %q matches no file", spec)
	}
	return files, total, nil
}

// splitInputs splits the --input spec at its commas, but for a comma
// written \, which is a comma of the glob: a file name may hold one. Any
// other backslash is the glob's.
func splitInputs(spec string) []string {
	var globs []string
	var cur strings.Builder
	for i := 0; i < len(spec); i++ {
		switch {
		case spec[i] == '\\' && i+1 < len(spec) && spec[i+1] == ',':
			cur.WriteByte(',')
			i++
		case spec[i] == ',':
			globs = append(globs, cur.String())
			cur.Reset()
		default:
			cur.WriteByte(spec[i])
		}
	}
	return append(globs, cur.String())
}

// dirInput reports whether the file at path, in a directory given as
// --input, is one of its inputs: a regular file (a symbolic link to one
// included) whose name starts with neither "." nor "_" (a job's _SUCCESS
// marker, hidden files).
func dirInput(path string) bool {
	name := filepath.Base(path)
	if strings.HasPrefix(name, ".") || strings.HasPrefix(name, "_") {
		return false
	}
	fi, err := os.Stat(path)
	return err == nil && fi.Mode().IsRegular()
}

// joinInputs is the --input spec of spec and the paths given as arguments,
// each path taken as it is (the shell expanded it): its glob characters and
// commas escaped.
func joinInputs(spec string, paths []string) string {
	all := []string{}
	if spec != "" {
		all = append(all, spec)
	}
	for _, p := range paths {
		all = append(all, escapeGlob(p))
	}
	return strings.Join(all, ",")
}

// escapeGlob returns the glob that matches the path p alone: its glob
// characters (and a comma, which separates inputs) escaped with '\'.
func escapeGlob(p string) string {
	var b strings.Builder
	for _, r := range p {
		if strings.ContainsRune(`\*?[,`, r) {
			b.WriteByte('\\')
		}
		b.WriteRune(r)
	}
	return b.String()
}

// hasGlobMeta reports whether the glob has a character that is not matched
// as itself (one not escaped with '\').
func hasGlobMeta(glob string) bool {
	for i := 0; i < len(glob); i++ {
		switch glob[i] {
		case '\\':
			i++
		case '*', '?', '[':
			return true
		}
	}
	return false
}

// unescapeGlob returns the path a glob without meta characters matches.
func unescapeGlob(glob string) string {
	var b strings.Builder
	for i := 0; i < len(glob); i++ {
		if glob[i] == '\\' && i+1 < len(glob) {
			i++
		}
		b.WriteByte(glob[i])
	}
	return b.String()
}

// A fileID is a local file's device and inode: the paths of one file,
// hard links included, have the same.
type fileID struct{ dev, ino uint64 }

// localDir is dir if it is a local directory, else "".
func localDir(dir string) string {
	if strings.Contains(dir, "://") {
		return ""
	}
	return dir
}
