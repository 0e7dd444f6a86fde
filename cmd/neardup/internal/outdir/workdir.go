package outdir

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"time"
)

// workMarker is the file every work directory of neardup holds, so that a
// later run can tell it from other directories and remove it once its run
// is gone (SweepWorkDirs).
const (
	workMarker    = ".neardup-work"
	workDirPrefix = "neardup-work-"
)

// CompactDirPrefix begins the name of the directory of an index
// compaction's key entries (MakeWorkDirIn, SweepWorkDirsOf).
const CompactDirPrefix = "compact-"

// MakeWorkDir creates a work directory in the temporary directory, with
// its marker.
func MakeWorkDir() (string, error) { return MakeWorkDirIn(os.TempDir(), workDirPrefix) }

// MakeWorkDirIn creates a work directory in tmp named prefix and a random
// suffix, with its marker.
func MakeWorkDirIn(tmp, prefix string) (string, error) {
	dir, err := os.MkdirTemp(tmp, prefix)
	if err != nil {
		return "", err
	}
	host, _ := os.Hostname()
	marker := fmt.Sprintf("neardup work directory, removed when its run ends\npid %d\nhost %s\n%s", os.Getpid(), host, procLine())
	if err := os.WriteFile(filepath.Join(dir, workMarker), []byte(marker), 0o644); err != nil {
		os.RemoveAll(dir)
		return "", err
	}
	return dir, nil
}

// staleWorkAge is how old a work directory must be for SweepWorkDirs.
const staleWorkAge = 24 * time.Hour

// SweepWorkDirs removes the work directories that runs killed before they
// could clean up left in tmp: neardup-work-* directories holding the marker,
// whose run is of this host and gone (see processAlive): at once when the
// marker records the process's identity (boot and start time), which tells
// a gone process for sure, else once older than staleWorkAge. A directory
// of another host's run (tmp shared, or the host renamed) is left: whether
// that run is alive cannot be told.
func SweepWorkDirs(tmp string, now time.Time) { SweepWorkDirsOf(tmp, workDirPrefix, now) }

// SweepWorkDirsOf is SweepWorkDirs of the work directories named prefix
// and a suffix (MakeWorkDirIn).
func SweepWorkDirsOf(tmp, prefix string, now time.Time) {
	dirs, _ := filepath.Glob(filepath.Join(tmp, prefix+"*"))
	host, _ := os.Hostname()
	for _, dir := range dirs {
		marker := filepath.Join(dir, workMarker)
		b, err := os.ReadFile(marker)
		if err != nil || !strings.HasPrefix(string(b), "neardup work directory") {
			continue // not ours, or not a directory
		}
		id := parseProc(b)
		fi, err := os.Stat(dir)
		mi, merr := os.Stat(marker)
		if err != nil || merr != nil || id == "" && (now.Sub(fi.ModTime()) < staleWorkAge || now.Sub(mi.ModTime()) < staleWorkAge) {
			continue
		}
		if pid, h, ok := parseLock(b); !ok || h != host || processAlive(pid, id) {
			continue // a long run still going, or a run of another host, which cannot be checked
		}
		os.RemoveAll(dir)
	}
}
