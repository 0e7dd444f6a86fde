package outdir

import (
	"errors"
	"fmt"
	"io/fs"
	"path/filepath"
	"strings"
)

// A Path is a directory a command names: Name says which ("--output",
// "the old index --index"), Path is as the user gave it.
type Path struct {
	Name, Path string
	// Written is whether the command writes into it (--output,
	// --index-out, --update-index), not only reads it (--index).
	Written bool
}

// CheckOverlap checks that no directory of dirs is another or inside
// another, comparing absolute paths with symbolic links resolved (of the
// part of each path that exists) and URLs without a trailing slash. The
// error names both directories. Directories that are "" are left out.
func CheckOverlap(dirs []Path) error {
	for i, a := range dirs {
		for _, b := range dirs[:i] {
			if a.Path == "" || b.Path == "" {
				continue
			}
			if rel := relation(Resolve(a.Path), Resolve(b.Path)); rel != "" {
				return fmt.Errorf("%s %s overlaps %s %s (%s): each must be a directory of its own, outside the others", a.Name, a.Path, b.Name, b.Path, rel)
			}
		}
	}
	return nil
}

// CheckGenerations checks that no directory of dirs that the command
// writes (Written) is, is inside or holds a generation of the index idx
// (a directory the command reads): gens are the generations' directories
// its manifest lists. A command must not write into, replace or remove a
// generation an index it reads needs. It compares as CheckOverlap does,
// symbolic links resolved; the error names both directories.
func CheckGenerations(dirs []Path, idx Path, gens []string) error {
	for _, d := range dirs {
		if !d.Written || d.Path == "" {
			continue
		}
		dir := Resolve(d.Path)
		for _, g := range gens {
			if rel := relation(dir, Resolve(g)); rel != "" {
				return fmt.Errorf("%s %s overlaps %s, a generation of the index %s %s (%s): a command must not write into a generation of an index it reads",
					d.Name, d.Path, g, idx.Name, idx.Path, rel)
			}
		}
	}
	return nil
}

// CheckInputs checks that no input (a path as expandInputs lists it) is
// one of dirs or holds one (an input directory), and that none is inside
// a directory the command writes an index into (see Index), which holds
// only an index's files. An input inside the output directory is allowed:
// --overwrite refuses to replace it (see Dir.Open).
func CheckInputs(dirs []Path, inputs []string) error {
	resolved := make([]string, len(inputs))
	for i, in := range inputs {
		resolved[i] = Resolve(in)
	}
	for _, d := range dirs {
		if d.Path == "" {
			continue
		}
		dir := Resolve(d.Path)
		for i, in := range inputs {
			switch rel := relation(resolved[i], dir); {
			case rel == "the same directory" || rel == "holds it":
				return fmt.Errorf("--input %s overlaps %s %s (%s): an input must be outside the directories the command writes", in, d.Name, d.Path, rel)
			case rel == "inside it" && d.Written && d.Name != "--output":
				return fmt.Errorf("--input %s is inside %s %s, which holds only an index's files: an input must be outside it", in, d.Name, d.Path)
			}
		}
	}
	return nil
}

// relation says how path a lies to path b: "the same directory", "inside
// it", "holds it", or "" if apart.
func relation(a, b string) string {
	sep := "/"
	if !strings.Contains(a, "://") {
		sep = string(filepath.Separator)
	}
	switch {
	case a == b:
		return "the same directory"
	case strings.HasPrefix(a, strings.TrimSuffix(b, sep)+sep):
		return "inside it"
	case strings.HasPrefix(b, strings.TrimSuffix(a, sep)+sep):
		return "holds it"
	}
	return ""
}

// Resolve returns a local path absolute, cleaned, with the symbolic links
// of its longest existing part resolved; a URL without a trailing slash.
func Resolve(p string) string {
	if strings.Contains(p, "://") {
		return strings.TrimSuffix(p, "/")
	}
	abs, err := filepath.Abs(p)
	if err != nil {
		return filepath.Clean(p)
	}
	var rest []string
	for dir := abs; ; dir = filepath.Dir(dir) {
		r, err := filepath.EvalSymlinks(dir)
		if err == nil {
			return filepath.Join(append([]string{r}, rest...)...)
		}
		if !errors.Is(err, fs.ErrNotExist) || dir == filepath.Dir(dir) {
			return abs
		}
		rest = append([]string{filepath.Base(dir)}, rest...)
	}
}
