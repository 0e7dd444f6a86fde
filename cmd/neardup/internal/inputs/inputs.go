// Package inputs lists a job's input files from what the command line
// names (globs, paths, directories) and checks the field options against
// their first records.
package inputs

import (
	"context"
	"fmt"
	"maps"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"syscall"

	"github.com/apache/beam/sdks/v2/go/pkg/beam/io/filesystem"

	"github.com/neardup/neardup/cmd/neardup/internal/outdir"
)

// Expand lists the paths matching comma-separated globs (a comma of
// a file name written \, see splitInputs), sorted and without repeats
// (local paths absolute, URLs as typed), and their total size. A local
// file reached by several paths (a symbolic link, a linked folder, a hard
// link: one device and inode) is one input, under the first of its paths
// in sorted order. A glob that matches nothing is an error, before any
// work starts. A glob without wildcards that names a local directory
// stands for the files in it (dirInput), or for itself when it has none.
// Every other path a glob matches
// is an input, a directory or an unreadable file too: the job reports each
// of those as one rejected record (not_a_file, unreadable) instead of
// skipping it silently.
func Expand(ctx context.Context, spec string) ([]string, int64, error) {
	sizes := map[string]int64{}
	ids := map[string]fileID{} // of the local regular files
	globs := splitInputs(spec)
	for _, glob := range globs {
		glob = strings.TrimSpace(glob)
		if glob == "" {
			continue
		}
		pattern, inDir, err := patternOf(glob)
		if err != nil {
			return nil, 0, fmt.Errorf("--input %q: %w", glob, err)
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
			if len(matched) == 0 { // the directory itself: a not_a_file reject
				matched = []string{unescapeGlob(strings.TrimSuffix(pattern, string(filepath.Separator)+"*"))}
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

// patternOf returns the pattern to list for glob: a local one made
// absolute (workers run in other directories), and for a glob without
// wildcards that names a local directory, the pattern of its files
// (inDir).
func patternOf(glob string) (pattern string, inDir bool, err error) {
	if strings.Contains(glob, "://") {
		return glob, false, nil
	}
	abs, err := filepath.Abs(glob)
	if err != nil {
		return "", false, err
	}
	if !hasGlobMeta(glob) {
		if fi, err := os.Stat(unescapeGlob(abs)); err == nil && fi.IsDir() {
			return filepath.Join(abs, "*"), true, nil
		}
	}
	return abs, false, nil
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

// Join is the --input spec of spec and the paths given as arguments,
// each path taken as it is (the shell expanded it): its glob characters and
// commas escaped.
func Join(spec string, paths []string) string {
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
