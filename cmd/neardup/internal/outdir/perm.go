package outdir

import (
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
)

// InputPerm returns the permission bits every output may have when the
// outputs hold what files hold: the bits all local files share (a file
// readable by its owner only makes every output so). Files on remote
// filesystems, and files that cannot be stat'ed, restrict nothing.
func InputPerm(files []string) fs.FileMode {
	perm := fs.ModePerm
	for _, f := range files {
		if strings.Contains(f, "://") {
			continue
		}
		if st, err := os.Stat(f); err == nil {
			perm &= st.Mode().Perm()
		}
	}
	return perm
}

// Restrict takes from every file staged in a local directory the
// permission bits that perm lacks, so that no output is readable by more
// users than its inputs. A remote directory is left as it is.
func (t *Dir) Restrict(perm fs.FileMode) error {
	stage := t.Stage()
	if t.url || stage == "" || perm == fs.ModePerm {
		return nil
	}
	return filepath.WalkDir(stage, func(path string, d fs.DirEntry, err error) error {
		if err != nil || !d.Type().IsRegular() {
			return err
		}
		info, err := d.Info()
		if err != nil {
			return err
		}
		if mode := info.Mode().Perm(); mode&^perm != 0 {
			if err := os.Chmod(path, mode&perm); err != nil {
				return fmt.Errorf("restricting the permissions of %s: %w", path, err)
			}
		}
		return nil
	})
}
