package main

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"

	"github.com/neardup/neardup/transforms"
	"github.com/neardup/neardup/transforms/format/index"
	"github.com/neardup/neardup/transforms/format/output"
)

// A dirKind is a kind of local directory the commands write into: which
// files in it are neardup's own, what --overwrite does with the rest, and
// how errors name it.
type dirKind struct {
	// flag names the directory in errors ("--output DIR"), and read errors
	// are wrapped with it; "" names the directory by its path and returns
	// read errors as they are (the caller adds its flag).
	flag string
	// replaces is what --overwrite replaces, for the error about a
	// non-empty directory.
	replaces string
	// owns reports whether a file name is one neardup writes there; those
	// files go with --overwrite.
	owns func(name string) bool
	// workDir is a subdirectory of a job's intermediate files that
	// --overwrite removes if it holds nothing else (see removeWorkDir); ""
	// for none.
	workDir string
	// foreign, if set, makes --overwrite refuse a directory holding any
	// entry neardup does not own there, which it calls "not <foreign>";
	// if "", --overwrite leaves such entries alone.
	foreign string
	// trimURL drops a trailing slash from a URL.
	trimURL bool
}

var (
	// outputDir is --output: --overwrite removes neardup's outputs and the
	// work directory of a failed job, and leaves anything else.
	outputDir = dirKind{flag: "--output", replaces: "neardup's files", owns: isOutputName, workDir: transforms.WorkDirName}
	// indexDir is an index directory (--index-out, --update-index):
	// --overwrite empties a directory that holds only an index's files.
	indexDir = dirKind{replaces: "an index, or what a failed run left,", owns: isIndexName, foreign: "part of an index", trimURL: true}
)

// prepare creates the local directory dir, or takes it as it is if empty,
// and returns its absolute path. A non-empty one is refused unless
// overwrite is set; then neardup's own files in it are removed (see
// dirKind). Remote (URL) directories are used as given.
func (k dirKind) prepare(dir string, overwrite bool) (string, error) {
	if strings.Contains(dir, "://") {
		if k.trimURL {
			dir = strings.TrimSuffix(dir, "/")
		}
		return dir, nil
	}
	abs, err := filepath.Abs(dir)
	if err != nil {
		return "", err
	}
	name := dir
	if k.flag != "" {
		name = k.flag + " " + dir
	}
	entries, err := os.ReadDir(abs)
	switch {
	case errors.Is(err, os.ErrNotExist):
		return abs, os.MkdirAll(abs, 0o755)
	case err != nil && k.flag != "":
		return "", fmt.Errorf("%s: %w", name, err)
	case err != nil:
		return "", err
	case len(entries) > 0 && !overwrite:
		return "", fmt.Errorf("%s is not empty (use --overwrite to replace %s in it)", name, k.replaces)
	}
	if k.foreign != "" { // check all before removing any
		for _, e := range entries {
			if e.IsDir() || !k.owns(e.Name()) {
				return "", fmt.Errorf("%s holds %s, which is not %s: not overwriting", dir, e.Name(), k.foreign)
			}
		}
	}
	// Remove only files neardup writes, so that shards of a previous,
	// larger run do not linger.
	for _, e := range entries {
		var err error
		path := filepath.Join(abs, e.Name())
		switch {
		case !e.IsDir() && k.owns(e.Name()):
			err = os.Remove(path)
		case e.IsDir() && k.workDir != "" && e.Name() == k.workDir:
			err = removeWorkDir(path)
		}
		if err != nil {
			return "", err
		}
	}
	return abs, nil
}

// removeWorkDir removes the work directory a failed job left in its output
// directory, if it holds only the job's intermediate files.
func removeWorkDir(dir string) error {
	entries, err := os.ReadDir(dir)
	if err != nil {
		return err
	}
	for _, e := range entries {
		if e.IsDir() || !transforms.IsWorkFile(e.Name()) {
			return fmt.Errorf("%s holds %s, which neardup did not write; remove it yourself", dir, e.Name())
		}
	}
	return os.RemoveAll(dir)
}

// isOutputName reports whether name is a file neardup writes into its output
// directory: <kind>-NNNNN.jsonl, summary.json, report.html, or the temporary
// name ".tmp-<one of those>-<random hex>" a failed write can leave.
func isOutputName(name string) bool { return orTemp(name, isFinalName) }

// isFinalName reports whether name is an output file's final name.
func isFinalName(name string) bool {
	switch name {
	case output.SummaryName, "report.html", output.AuditSummaryName:
		return true
	}
	for _, k := range []string{output.KindPairs, output.KindClusters, output.KindRejects, output.KindAudit} {
		if isNumbered(name, k+"-", ".jsonl") {
			return true
		}
	}
	for _, ext := range output.DedupExt {
		if isNumbered(name, output.KindDedup+"-", ext) {
			return true
		}
	}
	return false
}

// isIndexName reports whether name is a file an index directory holds:
// index.json, index-NNNNN.bin, the pre-shards .sig-NNNNN.bin of a run, or
// a temporary ".tmp-<one of those>-<hex>" a failed write can leave.
func isIndexName(name string) bool {
	return orTemp(name, func(n string) bool {
		return n == index.ManifestName || isNumbered(n, "index-", ".bin") || isNumbered(n, ".sig-", ".bin")
	})
}

// orTemp applies final to name, or to the final name inside a temporary
// name ".tmp-<final name>-<random hex>" that an interrupted write leaves.
func orTemp(name string, final func(string) bool) bool {
	if rest, ok := strings.CutPrefix(name, ".tmp-"); ok {
		i := strings.LastIndexByte(rest, '-')
		return i > 0 && isHex(rest[i+1:]) && final(rest[:i])
	}
	return final(name)
}

// isNumbered reports whether name is prefix, decimal digits, suffix.
func isNumbered(name, prefix, suffix string) bool {
	n, ok := strings.CutPrefix(name, prefix)
	if !ok {
		return false
	}
	n, ok = strings.CutSuffix(n, suffix)
	return ok && n != "" && strings.Trim(n, "0123456789") == ""
}

func isHex(s string) bool {
	return s != "" && strings.Trim(s, "0123456789abcdef") == ""
}
