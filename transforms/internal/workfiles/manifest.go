package workfiles

import (
	"bufio"
	"context"
	"fmt"
	"io"
	"strconv"
	"strings"

	"github.com/neardup/neardup/transforms/objects"
)

// A file manifest lists a job's input files, one "index<TAB>path" line per
// file; a path holding a line break, or starting with a double quote, is
// written as a Go string literal (strconv.Quote). The input file list travels as data, not in the job graph: the
// manifest is written to the work directory before the job starts, and the
// stages read it at run time. The graph, and the request that submits it to
// a runner, is then the same size for ten files and a million.

// FileRef names one input file and its index in the sorted input list.
type FileRef struct {
	Index int
	Path  string
}

// WriteManifest writes refs as the file manifest name in dir (any Beam
// filesystem) and returns its path.
func WriteManifest(ctx context.Context, dir, name string, refs []FileRef) (string, error) {
	err := Write(ctx, dir, name, KindManifest, func(w io.Writer) error {
		for _, r := range refs {
			if _, err := fmt.Fprintf(w, "%d\t%s\n", r.Index, manifestPath(r.Path)); err != nil {
				return err
			}
		}
		return nil
	}, false) // written before the job: no fault injection
	return objects.JoinPath(dir, name), err
}

// manifestPath is path as a manifest line holds it: quoted if it holds a
// line break or starts with a double quote, as it is otherwise.
func manifestPath(path string) string {
	if strings.ContainsAny(path, "\n\r") || strings.HasPrefix(path, `"`) {
		return strconv.Quote(path)
	}
	return path
}

// EachManifestLine calls fn with every file of the manifest at path.
func EachManifestLine(ctx context.Context, path string, fn func(index int, path string)) error {
	rc, err := Open(ctx, path)
	if err != nil {
		return fmt.Errorf("file manifest: %w", err)
	}
	defer rc.Close()
	sc := bufio.NewScanner(rc)
	sc.Buffer(nil, 1<<20)
	for n := 1; sc.Scan(); n++ {
		idx, p, ok := strings.Cut(sc.Text(), "\t")
		i, err := strconv.Atoi(idx)
		if ok && err == nil && strings.HasPrefix(p, `"`) {
			p, err = strconv.Unquote(p)
		}
		if !ok || err != nil || i < 0 {
			return fmt.Errorf("file manifest %s, line %d: want index<TAB>path", path, n)
		}
		fn(i, p)
	}
	if err := sc.Err(); err != nil {
		return fmt.Errorf("file manifest %s: %w", path, err)
	}
	return nil
}

// FilePaths returns the paths of the manifest at path by file index.
func FilePaths(ctx context.Context, path string) (map[int]string, error) {
	paths := map[int]string{}
	err := EachManifestLine(ctx, path, func(i int, p string) { paths[i] = p })
	return paths, err
}
