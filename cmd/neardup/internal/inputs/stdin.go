package inputs

import (
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"
	"syscall"
)

// StdinName is the input that stands for standard input, and the name its
// records and rejects carry.
const StdinName = "-"

// NamesStdin reports whether the --input spec names standard input: one of
// its comma-separated inputs is StdinName.
func NamesStdin(spec string) bool {
	for _, in := range splitInputs(spec) {
		if strings.TrimSpace(in) == StdinName {
			return true
		}
	}
	return false
}

// CopyStdin copies in, standard input, to a file named "stdin" in dir and
// returns the --input spec with StdinName replaced by that file's path,
// and the path. The copy is as it was read (compressed or not: the job
// detects gzip and zstd from its bytes). Standard input that is a terminal
// is refused: nothing would end it.
func CopyStdin(spec string, in *os.File, dir string) (string, string, error) {
	if fi, err := in.Stat(); err == nil && fi.Mode()&os.ModeCharDevice != 0 {
		return "", "", errors.New(`--input -: standard input is a terminal; pipe or redirect the records into it (neardup run - < data.jsonl)`)
	}
	path := filepath.Join(dir, "stdin")
	f, err := os.OpenFile(path, os.O_WRONLY|os.O_CREATE|os.O_EXCL, 0o600)
	if err != nil {
		return "", "", fmt.Errorf("--input -: %w", err)
	}
	n, err := io.Copy(f, in)
	if cerr := f.Close(); err == nil {
		err = cerr
	}
	if err != nil {
		if errors.Is(err, syscall.ENOSPC) || errors.Is(err, syscall.EDQUOT) {
			return "", "", fmt.Errorf("--input -: copying standard input to %s: no room after %d bytes (set TMPDIR to a larger disk)", path, n)
		}
		return "", "", fmt.Errorf("--input -: copying standard input to %s: %w", path, err)
	}
	globs := splitInputs(spec)
	for i, g := range globs {
		if strings.TrimSpace(g) == StdinName {
			globs[i] = escapeGlob(path)
		} else {
			globs[i] = strings.ReplaceAll(g, ",", `\,`)
		}
	}
	return strings.Join(globs, ","), path, nil
}
