// Package outdir holds the directories a run writes into: the output and
// index directories, locked and staged until the run commits them, and
// the work directory of its intermediate files.
package outdir

import (
	"cmp"
	"context"
	"crypto/rand"
	"encoding/hex"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"time"

	"github.com/apache/beam/sdks/v2/go/pkg/beam/io/filesystem"

	"github.com/neardup/neardup/transforms/format/index"
	"github.com/neardup/neardup/transforms/format/output"
	"github.com/neardup/neardup/transforms/format/summary"
	"github.com/neardup/neardup/transforms/jobfiles"
	"github.com/neardup/neardup/transforms/objects"
)

// ErrNotEmpty is wrapped by the error of Open for a directory that holds
// files and may not be overwritten: a mistake on the command line.
var ErrNotEmpty = errors.New("not empty")

// A Kind is a kind of local directory the commands write into: which
// files in it are neardup's own, what --overwrite does with the rest, and
// how errors name it.
type Kind struct {
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
	// --overwrite removes if it holds nothing else (see checkWorkDir); ""
	// for none.
	workDir string
	// foreign, if set, makes --overwrite refuse a directory holding any
	// entry neardup does not own there, which it calls "not <foreign>";
	// if "", --overwrite leaves such entries alone.
	foreign string
	// trimURL drops a trailing slash from a URL.
	trimURL bool
	// final reports whether a file name is one a job's staging directory
	// holds when the job is done and that Commit moves into place.
	final func(name string) bool
}

var (
	// Output is --output: --overwrite removes neardup's outputs and the
	// work directory of a failed job, and leaves anything else.
	Output = Kind{flag: "--output", replaces: "neardup's files", owns: isOutputName, workDir: jobfiles.WorkDirName, final: isFinalName}
	// Index is an index directory (--index-out, --update-index):
	// --overwrite empties a directory that holds only an index's files.
	Index = Kind{replaces: "an index, or what a failed run left,", owns: isIndexName, foreign: "part of an index", trimURL: true, final: isIndexFinal}
)

// A Dir is a directory a run writes into (--output, --index-out,
// --update-index), held for the whole run:
//
//   - a local directory is locked with a lock file (see lockDir), created
//     with O_EXCL, so that a second run into it refuses at once;
//   - the job writes into a staging directory inside it, Stage, never into
//     the directory itself;
//   - Commit (CommitAll, for the output and the index together), once
//     every check has passed, moves what --overwrite replaces aside and the
//     final files of the stage in, the one named last (summary.json,
//     index.json) after all others, and removes the stage;
//   - Abort, on failure or interrupt, removes the stage, the lock, and the
//     directory if the run created it: the directory is as it was.
//
// A URL (gs://...) is locked with a lock object of the run's own (see
// lockURL), and staged and committed through Beam's filesystems.
type Dir struct {
	kind     Kind
	given    string // the directory as the user gave it
	dir      string // its absolute path, or the URL
	url      bool
	replaced []string // what Commit replaces (--overwrite): paths in dir
	hasLast  bool     // a URL stage holds its last file (commitURL found it)

	mu                 sync.Mutex // guards what Abort undoes, and the state
	stage              string     // the staging directory inside dir
	created            bool       // the run created dir
	lock               *dirLock   // nil for a URL
	urlLock            *urlLock   // nil for a local directory
	committed, aborted bool
	written            []string // the files committed, sorted
}

// stagePrefix starts the name of a staging directory.
const stagePrefix = ".tmp-run-"

// New returns the directory dir of kind k, not taken yet: Open takes it.
// Abort may be called from the start, also while Open runs (from a signal
// handler): it waits for the Open of a local directory under way and
// undoes it (an Open after Abort makes nothing), and undoes what the Open
// of a URL did so far.
func (k Kind) New(dir string) *Dir {
	return &Dir{kind: k, given: dir}
}

// Open takes the directory for a run: it creates and locks a local one,
// checks that it is empty or, with overwrite, what Commit will remove
// there (see Kind), and that none of those is one of inputs; then makes
// the staging directory. Nothing is removed yet. On error nothing is left.
func (t *Dir) Open(overwrite bool, inputs []string) error {
	if strings.Contains(t.given, "://") {
		t.url, t.dir = true, t.given
		if t.kind.trimURL {
			t.dir = strings.TrimSuffix(t.given, "/")
		}
		if err := t.openURL(overwrite, inputs); err != nil {
			t.Abort()
			return err
		}
		t.mu.Lock()
		t.stage = objects.JoinPath(t.dir, stagePrefix+t.urlLock.id)
		t.mu.Unlock()
		return nil
	}
	abs, err := filepath.Abs(t.given)
	if err != nil {
		return err
	}
	t.dir = abs
	// Abort waits until openLocal has returned, and once it has run
	// nothing is created: what openLocal made is always undone.
	t.mu.Lock()
	if t.aborted {
		t.mu.Unlock()
		return fmt.Errorf("%s: the run was stopped", t.name())
	}
	err = t.openLocal(overwrite, inputs)
	t.mu.Unlock()
	if err != nil {
		t.Abort()
		return err
	}
	return nil
}

// Path is the directory: its absolute path, or the URL.
func (t *Dir) Path() string { return t.dir }

// Stage is the staging directory the job writes into.
func (t *Dir) Stage() string {
	t.mu.Lock()
	defer t.mu.Unlock()
	return t.stage
}

// name is how errors name the directory: "--output DIR", or the path.
func (t *Dir) name() string {
	if t.kind.flag != "" {
		return t.kind.flag + " " + t.given
	}
	return t.given
}

// openLocal is Open for a local directory, with t.mu held.
func (t *Dir) openLocal(overwrite bool, inputs []string) error {
	if err := os.MkdirAll(filepath.Dir(t.dir), 0o755); err != nil {
		return t.wrap(err)
	}
	switch err := os.Mkdir(t.dir, 0o755); {
	case err == nil:
		t.created = true
	case !errors.Is(err, fs.ErrExist):
		return t.wrap(err)
	}
	entries, err := os.ReadDir(t.dir)
	if err != nil {
		return t.wrap(err)
	}
	lock, err := lockDir(t.dir, t.name(), overwrite)
	if err != nil {
		return err
	}
	t.lock = lock
	if entries, err = os.ReadDir(t.dir); err != nil { // again, now that no other run changes it
		return t.wrap(err)
	}
	entries = slices.DeleteFunc(entries, func(e fs.DirEntry) bool { return isLockName(e.Name()) })
	if len(entries) > 0 && !overwrite {
		return fmt.Errorf("%s is %w (use --overwrite to replace %s in it)", t.name(), ErrNotEmpty, t.kind.replaces)
	}
	if t.replaced, err = t.kind.replaceable(t.dir, entries); err != nil {
		return err
	}
	if err := checkNotInputs(t.replaced, inputs); err != nil {
		return err
	}
	stage, err := os.MkdirTemp(t.dir, stagePrefix)
	if err != nil {
		return t.wrap(err)
	}
	t.stage = stage
	return nil
}

// urlDepth is how deep below a directory on a remote filesystem openURL
// looks for objects: a staging directory's work files are the deepest a
// run writes (DIR/.tmp-run-X/.tmp-work/FILE).
const urlDepth = 3

// openURL is the emptiness check and --overwrite plan of openLocal for a
// directory on a remote filesystem (gs://, s3://), where a directory is the
// prefix of its objects' names: it locks dir (see lockURL), then lists the
// objects up to urlDepth levels below it, lock objects left out, and sorts
// them as replaceable sorts a local directory's entries.
func (t *Dir) openURL(overwrite bool, inputs []string) error {
	ctx := context.Background()
	fsys, err := filesystem.New(ctx, t.dir+"/x")
	if err != nil {
		return t.wrap(err)
	}
	defer fsys.Close()
	held := func(l *urlLock) {
		t.mu.Lock()
		t.urlLock = l
		t.mu.Unlock()
	}
	if _, err = lockURL(ctx, t.dir, t.name(), overwrite, urlLockTimes, held); err != nil {
		return err
	}
	var found []string
	glob := t.dir
	for range urlDepth {
		glob = objects.JoinPath(glob, "*")
		listed, err := fsys.List(ctx, glob)
		if err != nil {
			return t.wrap(fmt.Errorf("listing %s: %w", glob, err))
		}
		found = append(found, listed...)
	}
	prefix := strings.TrimSuffix(t.dir, "/") + "/"
	found = slices.DeleteFunc(found, func(p string) bool { return isURLLockName(strings.TrimPrefix(p, prefix)) })
	if len(found) == 0 {
		return nil
	}
	if !overwrite {
		return fmt.Errorf("%s is %w (use --overwrite to replace %s in it)", t.name(), ErrNotEmpty, t.kind.replaces)
	}
	if t.replaced, err = t.kind.replaceableURL(t.dir, found); err != nil {
		return err
	}
	for _, p := range t.replaced {
		if i := slices.Index(inputs, p); i >= 0 {
			return fmt.Errorf("--overwrite would remove %s, which is the input %s: not overwriting", p, inputs[i])
		}
	}
	return nil
}

// replaceableURL is replaceable for the objects below dir on a remote
// filesystem: it returns those --overwrite removes, each object of a
// staging or work directory included.
func (k Kind) replaceableURL(dir string, objects []string) ([]string, error) {
	var paths []string
	for _, obj := range objects {
		rel := strings.TrimPrefix(obj, dir+"/")
		parts := strings.Split(rel, "/")
		name := parts[len(parts)-1]
		var ok bool
		switch {
		case len(parts) == 1:
			ok = k.owns(name)
		case strings.HasPrefix(parts[0], stagePrefix):
			ok = len(parts) == 2 && (isOutputName(name) || isIndexName(name)) ||
				len(parts) == 3 && parts[1] == jobfiles.WorkDirName && jobfiles.IsWorkFile(name)
			if !ok {
				return nil, fmt.Errorf("%s holds %s, which neardup did not write; remove it yourself", dir, rel)
			}
		case k.workDir != "" && parts[0] == k.workDir:
			ok = len(parts) == 2 && jobfiles.IsWorkFile(name)
			if !ok {
				return nil, fmt.Errorf("%s holds %s, which neardup did not write; remove it yourself", dir, rel)
			}
		}
		switch {
		case ok:
			paths = append(paths, obj)
		case k.foreign != "":
			return nil, fmt.Errorf("%s holds %s, which is not %s: not overwriting", dir, rel, k.foreign)
		}
	}
	return paths, nil
}

// wrap names the directory in err, as the kind says.
func (t *Dir) wrap(err error) error {
	if t.kind.flag != "" {
		return fmt.Errorf("%s: %w", t.name(), err)
	}
	return err
}

// replaceable returns the paths in dir (holding entries) that --overwrite
// replaces: neardup's own files, the work directory of a failed job and
// the staging directories of runs that did not end. It fails, before
// anything is removed, if the kind refuses a foreign entry or such a
// directory holds something neardup did not write.
func (k Kind) replaceable(dir string, entries []fs.DirEntry) ([]string, error) {
	var paths []string
	for _, e := range entries {
		path := filepath.Join(dir, e.Name())
		switch {
		case !e.IsDir() && k.owns(e.Name()):
			paths = append(paths, path)
		case e.IsDir() && strings.HasPrefix(e.Name(), stagePrefix):
			if err := checkStageDir(path); err != nil {
				return nil, err
			}
			paths = append(paths, path)
		case e.IsDir() && k.workDir != "" && e.Name() == k.workDir:
			if err := checkWorkDir(path); err != nil {
				return nil, err
			}
			paths = append(paths, path)
		case k.foreign != "":
			return nil, fmt.Errorf("%s holds %s, which is not %s: not overwriting", dir, e.Name(), k.foreign)
		}
	}
	return paths, nil
}

// checkWorkDir checks that the work directory a failed job left in its
// output directory holds only the job's intermediate files.
func checkWorkDir(dir string) error {
	entries, err := os.ReadDir(dir)
	if err != nil {
		return err
	}
	for _, e := range entries {
		if e.IsDir() || !jobfiles.IsWorkFile(e.Name()) {
			return fmt.Errorf("%s holds %s, which neardup did not write; remove it yourself", dir, e.Name())
		}
	}
	return nil
}

// checkStageDir checks that the staging directory of a run that did not
// end holds only what a job writes there: outputs, index files, a work
// directory, and what its commit moved aside.
func checkStageDir(dir string) error {
	entries, err := os.ReadDir(dir)
	if err != nil {
		return err
	}
	for _, e := range entries {
		name := e.Name()
		switch {
		case !e.IsDir() && (isOutputName(name) || isIndexName(name)):
		case e.IsDir() && name == jobfiles.WorkDirName:
			if err := checkWorkDir(filepath.Join(dir, name)); err != nil {
				return err
			}
		case e.IsDir() && name == replacedDir:
			// What a commit cut off (SIGKILL) had moved aside: neardup's
			// files, checked when that run opened the directory.
		default:
			return fmt.Errorf("%s holds %s, which neardup did not write; remove it yourself", dir, name)
		}
	}
	return nil
}

// checkNotInputs refuses to remove any path that is, or holds, one of the
// inputs, comparing absolute paths with symbolic links resolved.
func checkNotInputs(paths, inputs []string) error {
	if len(paths) == 0 {
		return nil
	}
	resolve := func(p string) string {
		if r, err := filepath.EvalSymlinks(p); err == nil {
			return r
		}
		return filepath.Clean(p)
	}
	var ins []string
	for _, in := range inputs {
		if !strings.Contains(in, "://") {
			abs, err := filepath.Abs(in)
			if err == nil {
				ins = append(ins, resolve(abs))
			}
		}
	}
	for _, p := range paths {
		r := resolve(p)
		for i, in := range ins {
			if in == r || strings.HasPrefix(in, r+string(filepath.Separator)) {
				return fmt.Errorf("--overwrite would remove %s, which is the input %s: not overwriting", p, inputs[i])
			}
		}
	}
	return nil
}

// Commit commits the directory alone (see CommitAll), its file last
// moved in after all others.
func (t *Dir) Commit(ctx context.Context, last string) error {
	return CommitAll(ctx, Commit{Dir: t, Last: last})
}

// A Commit is a directory for CommitAll: its final file, Last, is moved
// in after all others; Flag, if set, starts its errors ("--index-out").
type Commit struct {
	Dir        *Dir
	Last, Flag string
}

// CommitAll puts the final files of the directories' staging directories
// in place as one step, the directories in order:
//
//   - it first checks every destination: each file it moves in must take
//     the place of nothing, or of a file --overwrite replaces there;
//   - it then moves aside, into the staging directory, what --overwrite
//     replaces (the last file before all others, so that no old last file
//     ever stands beside new files), and moves the final files in: every
//     directory's files but its last file, then the last files, in the
//     directories' order (index.json, then summary.json), so that no last
//     file is in place unless every other file of every directory is;
//   - if a move fails, it moves back what it moved, in every directory,
//     so that each is as it was, and returns the error;
//   - once all are moved, it removes the staging directories (with what
//     was moved aside) and releases the locks.
//
// A directory on a remote filesystem cannot be put back: its files are
// removed and moved as commitURL does, after the local checks, and a
// failed move leaves what was removed and moved so far, never its last
// file (see docs/BAD_INPUT.md). An abort (a signal) waits until CommitAll
// returns.
func CommitAll(ctx context.Context, commits ...Commit) error {
	for _, c := range commits {
		c.Dir.mu.Lock()
		defer c.Dir.mu.Unlock()
	}
	moves := make([]*localMoves, len(commits))
	for i, c := range commits {
		t := c.Dir
		var err error
		switch {
		case t.aborted:
			err = fmt.Errorf("%s: the run was stopped", t.name())
		case t.url:
			err = t.urlLock.check(ctx)
		default:
			moves[i], err = t.planMoves(c.Last)
		}
		if err != nil {
			return c.wrap(err)
		}
	}
	// Every directory's files but its last, then the last files, in
	// order: no last file is in place before all other files are.
	for _, lasts := range []bool{false, true} {
		for i, c := range commits {
			var err error
			switch {
			case c.Dir.url && !lasts:
				err = c.Dir.commitURL(ctx, c.Last)
			case c.Dir.url:
				err = c.Dir.commitURLLast(ctx, c.Last)
			case !lasts:
				err = moves[i].apply()
			default:
				err = moves[i].applyLast()
			}
			if err != nil {
				for _, m := range moves {
					if m != nil {
						m.undo()
					}
				}
				return c.wrap(err)
			}
		}
	}
	for _, c := range commits {
		c.Dir.committed = true
		c.Dir.removeStage()
		c.Dir.unlock()
	}
	return nil
}

func (c Commit) wrap(err error) error {
	if c.Flag != "" {
		return fmt.Errorf("%s: %w", c.Flag, err)
	}
	return err
}

// replacedDir is the directory in a staging directory that CommitAll moves
// what --overwrite replaces into, removed with it.
const replacedDir = ".replaced"

// localMoves are the renames that commit a local directory, and those
// done so far, to undo.
type localMoves struct {
	aside    string      // the directory replaced paths go to
	replaced []string    // paths that --overwrite replaces, the last file's first
	in       [][2]string // final files but the last: from the stage, to the directory
	last     [2]string   // the last file, if the stage has one
	done     [][2]string // renames done, in order
}

// planMoves lists the final files of the staging directory, last after
// all others, and checks that each can take its place in the directory:
// nothing is there, or a file that --overwrite replaces.
func (t *Dir) planMoves(last string) (*localMoves, error) {
	entries, err := os.ReadDir(t.stage)
	if err != nil {
		return nil, err
	}
	var names []string
	for _, e := range entries {
		if e.Type().IsRegular() && t.kind.final(e.Name()) && e.Name() != last {
			names = append(names, e.Name())
		}
	}
	_, err = os.Stat(filepath.Join(t.stage, last))
	hasLast := err == nil
	if hasLast {
		names = append(names, last)
	}
	m := &localMoves{aside: filepath.Join(t.stage, replacedDir), replaced: slices.Clone(t.replaced)}
	lastFirst(m.replaced, last)
	for _, n := range names {
		to := filepath.Join(t.dir, n)
		if fi, err := os.Lstat(to); err == nil && !slices.Contains(m.replaced, to) {
			return nil, fmt.Errorf("%s holds %s (%s), which is not neardup's to replace: nothing was moved into place", t.name(), n, fileKind(fi))
		}
		m.in = append(m.in, [2]string{filepath.Join(t.stage, n), to})
	}
	if hasLast {
		m.last, m.in = m.in[len(m.in)-1], m.in[:len(m.in)-1]
	}
	t.written = slices.Sorted(slices.Values(names))
	return m, nil
}

// Written returns the names of the files Commit put in the directory,
// sorted: nil before it did.
func (t *Dir) Written() []string {
	t.mu.Lock()
	defer t.mu.Unlock()
	if !t.committed {
		return nil
	}
	return t.written
}

// fileKind names the kind of file fi is, for errors.
func fileKind(fi fs.FileInfo) string {
	switch {
	case fi.IsDir():
		return "a directory"
	case fi.Mode()&fs.ModeSymlink != 0:
		return "a symbolic link"
	case fi.Mode().IsRegular():
		return "a file"
	}
	return "a special file"
}

// apply moves the replaced paths aside and the final files in.
func (m *localMoves) apply() error {
	if len(m.replaced) > 0 {
		if err := os.Mkdir(m.aside, 0o700); err != nil {
			return err
		}
	}
	for _, p := range m.replaced {
		if err := m.rename(p, filepath.Join(m.aside, filepath.Base(p))); err != nil {
			return err
		}
	}
	for _, mv := range m.in {
		if err := m.rename(mv[0], mv[1]); err != nil {
			return err
		}
	}
	return nil
}

// applyLast moves the last file in, if there is one.
func (m *localMoves) applyLast() error {
	if m.last[0] == "" {
		return nil
	}
	return m.rename(m.last[0], m.last[1])
}

func (m *localMoves) rename(from, to string) error {
	if err := os.Rename(from, to); err != nil {
		return err
	}
	m.done = append(m.done, [2]string{from, to})
	return nil
}

// undo moves back what apply moved, the last rename first.
func (m *localMoves) undo() {
	for i := len(m.done) - 1; i >= 0; i-- {
		_ = os.Rename(m.done[i][1], m.done[i][0])
	}
	m.done = nil
}

// lastFirst moves the paths (local or URLs) named last to the front, so
// that --overwrite removes the old last file before any other.
func lastFirst(paths []string, last string) {
	slices.SortStableFunc(paths, func(a, b string) int {
		return cmp.Compare(btoi(path.Base(a) != last), btoi(path.Base(b) != last))
	})
}

func btoi(b bool) int {
	if b {
		return 1
	}
	return 0
}

// commitURL moves the final files of a staging directory on a remote
// filesystem into place (CommitAll, which checked the lock) but the last:
// it removes what --overwrite replaces, the last file first, then renames
// (or copies and removes) each final file; commitURLLast moves the last.
func (t *Dir) commitURL(ctx context.Context, last string) error {
	fsys, err := filesystem.New(ctx, t.stage+"/x")
	if err != nil {
		return err
	}
	defer fsys.Close()
	if len(t.replaced) > 0 {
		lastFirst(t.replaced, last)
		rm, ok := fsys.(filesystem.Remover)
		if !ok {
			return fmt.Errorf("%s: the filesystem cannot remove files, so --overwrite cannot replace them", t.name())
		}
		for _, p := range t.replaced {
			if err := rm.Remove(ctx, p); err != nil {
				return fmt.Errorf("removing %s: %w", p, err)
			}
		}
	}
	listed, err := fsys.List(ctx, objects.JoinPath(t.stage, "*"))
	if err != nil {
		return fmt.Errorf("listing %s: %w", t.stage, err)
	}
	var names []string
	for _, p := range listed {
		n := p[strings.LastIndexByte(p, '/')+1:]
		if t.kind.final(n) && n != last {
			names = append(names, n)
		}
	}
	slices.Sort(names)
	t.hasLast = slices.ContainsFunc(listed, func(p string) bool { return strings.HasSuffix(p, "/"+last) })
	t.written = names
	if t.hasLast {
		t.written = slices.Sorted(slices.Values(append(slices.Clip(names), last)))
	}
	return t.moveURL(ctx, fsys, names)
}

// commitURLLast moves the last file of a staging directory on a remote
// filesystem into place, once commitURL has moved the others.
func (t *Dir) commitURLLast(ctx context.Context, last string) error {
	if !t.hasLast {
		return nil
	}
	fsys, err := filesystem.New(ctx, t.stage+"/x")
	if err != nil {
		return err
	}
	defer fsys.Close()
	return t.moveURL(ctx, fsys, []string{last})
}

// moveURL renames the files names of the staging directory into place.
func (t *Dir) moveURL(ctx context.Context, fsys filesystem.Interface, names []string) error {
	for _, n := range names {
		if err := filesystem.Rename(ctx, fsys, objects.JoinPath(t.stage, n), objects.JoinPath(t.dir, n)); err != nil {
			return fmt.Errorf("moving %s into %s: %w", n, t.dir, err)
		}
	}
	return nil
}

// Abort undoes what the run did to the directory, unless it was committed:
// it removes the staging directory, the lock, and the directory if the run
// created it and it is empty. It may be called more than once, and from
// a signal handler while the job still runs.
func (t *Dir) Abort() {
	if t == nil {
		return
	}
	t.mu.Lock()
	defer t.mu.Unlock()
	if !t.committed && !t.aborted {
		t.aborted = true
		t.removeStage()
	}
	t.unlock()
	if t.created && !t.committed {
		_ = os.Remove(t.dir) // only if empty
	}
}

// removeStage removes the staging directory. A job still running may
// create files in it as it is removed: it tries a few times.
func (t *Dir) removeStage() {
	if t.stage == "" {
		return
	}
	if t.url {
		removeURLDir(t.stage)
		return
	}
	RemoveAll(t.stage)
}

// Committed reports whether the outputs are in place.
func (t *Dir) Committed() bool {
	t.mu.Lock()
	defer t.mu.Unlock()
	return t.committed
}

// RemoveAll removes dir, again a few times if a job still running
// creates files in it meanwhile.
func RemoveAll(dir string) {
	gone := 0
	for i := 0; i < 10 && gone < 2; i++ {
		_ = os.RemoveAll(dir)
		if _, err := os.Lstat(dir); errors.Is(err, fs.ErrNotExist) {
			gone++ // and once more, after a writer that was opening a file
		} else {
			gone = 0
		}
		time.Sleep(10 * time.Millisecond)
	}
}

func (t *Dir) unlock() {
	if t.lock != nil {
		t.lock.release()
		t.lock = nil
	}
	if t.urlLock != nil {
		t.urlLock.release()
	}
}

// removeURLDir removes the files of a staging directory on a remote
// filesystem (and of the work directory in it), where it can.
func removeURLDir(dir string) {
	ctx := context.Background()
	fsys, err := filesystem.New(ctx, dir+"/x")
	if err != nil {
		return
	}
	defer fsys.Close()
	rm, ok := fsys.(filesystem.Remover)
	if !ok {
		return
	}
	for _, glob := range []string{"*", jobfiles.WorkDirName + "/*"} {
		names, _ := fsys.List(ctx, objects.JoinPath(dir, glob))
		for _, n := range names {
			_ = rm.Remove(ctx, n)
		}
	}
}

func randomHex() string {
	var b [8]byte
	_, _ = rand.Read(b[:])
	return hex.EncodeToString(b[:])
}

// isOutputName reports whether name is a file neardup writes into its output
// directory: <kind>-NNNNN.jsonl (or .jsonl.gz, .jsonl.zst), summary.json, report.html, or the temporary
// name ".tmp-<one of those>-<random hex>" a failed write can leave.
func isOutputName(name string) bool { return orTemp(name, isFinalName) }

// isFinalName reports whether name is an output file's final name.
func isFinalName(name string) bool {
	switch name {
	case summary.FileName, "report.html", summary.AuditFileName:
		return true
	}
	return output.OutputName(name)
}

// isIndexName reports whether name is a file an index directory holds:
// index.json, index-NNNNN.bin, keys-NNNNN.bin, the pre-shards .sig-NNNNN-SSSSSS.bin of a
// run (.sig-NNNNN.bin before segments), or
// a temporary ".tmp-<one of those>-<hex>" a failed write can leave.
func isIndexName(name string) bool {
	return orTemp(name, func(n string) bool {
		return isIndexFinal(n) || isPreShard(n)
	})
}

// isPreShard reports whether name is a pre-shard's: .sig-NNNNN-SSSSSS.bin,
// or .sig-NNNNN.bin as neardup named them before segments.
func isPreShard(name string) bool {
	n, ok := strings.CutPrefix(name, ".sig-")
	if !ok {
		return false
	}
	file, seg, two := strings.Cut(n, "-")
	if !two {
		return isNumbered(name, ".sig-", ".bin")
	}
	return file != "" && strings.Trim(file, "0123456789") == "" && isNumbered(seg, "", ".bin")
}

// isIndexFinal reports whether name is a file of a complete index.
func isIndexFinal(name string) bool {
	return name == index.ManifestName || isNumbered(name, "index-", ".bin") || isNumbered(name, "keys-", ".bin")
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
