package outdir

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"github.com/apache/beam/sdks/v2/go/pkg/beam/io/filesystem"

	"github.com/neardup/neardup/transforms/objects"
)

// lockName is the lock file a run holds in each local directory it writes
// (see Dir).
const lockName = ".neardup.lock"

// isLockName reports whether name is a lock file, or one being broken.
func isLockName(name string) bool {
	return name == lockName || strings.HasPrefix(name, lockName+".broken-")
}

// A dirLock is a lock file this process created.
type dirLock struct {
	path    string
	content []byte
}

// lockDir creates dir's lock file with O_EXCL, holding this process's PID,
// host name and identity (see procLine). If another run holds it, lockDir
// fails at once, naming the holder. The lock of a process of this host
// that is gone (see processAlive: its PID may be another program's now) is
// stale:
// breakStale (--overwrite) breaks it; otherwise the error says so. name
// names dir in errors.
func lockDir(dir, name string, breakStale bool) (*dirLock, error) {
	host, _ := os.Hostname()
	l := &dirLock{path: filepath.Join(dir, lockName),
		content: fmt.Appendf(nil, "pid %d\nhost %s\nstarted %s\n%s", os.Getpid(), host, time.Now().UTC().Format(time.RFC3339), procLine())}
	for attempt := 0; ; attempt++ {
		f, err := os.OpenFile(l.path, os.O_WRONLY|os.O_CREATE|os.O_EXCL, 0o644)
		if err == nil {
			_, err = f.Write(l.content)
			if cerr := f.Close(); err == nil {
				err = cerr
			}
			if err != nil {
				os.Remove(l.path)
				return nil, fmt.Errorf("%s: writing the lock file: %w", name, err)
			}
			return l, nil
		}
		if !errors.Is(err, fs.ErrExist) {
			return nil, fmt.Errorf("%s: %w", name, err)
		}
		held, err := os.ReadFile(l.path)
		if errors.Is(err, fs.ErrNotExist) && attempt < 3 {
			continue // released meanwhile
		}
		if err != nil {
			return nil, fmt.Errorf("%s: reading the lock file: %w", name, err)
		}
		pid, holder, ok := parseLock(held)
		switch {
		case !ok:
			return nil, fmt.Errorf("%s is locked by %s, which neardup cannot read: if no neardup writes there, remove it", name, l.path)
		case holder != host || processAlive(pid, parseProc(held)):
			return nil, fmt.Errorf("%s is in use by another neardup run (pid %d on %s; lock file %s)", name, pid, holder, l.path)
		case !breakStale:
			return nil, fmt.Errorf("%s holds the lock of neardup pid %d, which is gone (use --overwrite to break it; lock file %s)", name, pid, l.path)
		case attempt >= 3:
			return nil, fmt.Errorf("%s: cannot break the stale lock %s", name, l.path)
		}
		if err := breakLock(l.path, held); err != nil {
			return nil, fmt.Errorf("%s: %w", name, err)
		}
	}
}

// breakLock removes the stale lock file at path, which held stale. It
// first moves it aside, so that of two runs breaking it at once only one
// does, and puts it back if it was not the stale lock any more.
func breakLock(path string, stale []byte) error {
	aside := path + ".broken-" + randomHex()
	if err := os.Rename(path, aside); err != nil {
		if errors.Is(err, fs.ErrNotExist) {
			return nil // another run broke it first
		}
		return err
	}
	b, err := os.ReadFile(aside)
	if err == nil && !bytes.Equal(b, stale) {
		_ = os.Link(aside, path) // another run's fresh lock: back where it was
		os.Remove(aside)
		return nil
	}
	return os.Remove(aside)
}

// parseLock reads the PID and host of a lock file.
func parseLock(b []byte) (pid int, host string, ok bool) {
	for _, line := range strings.Split(string(b), "\n") {
		k, v, _ := strings.Cut(line, " ")
		switch k {
		case "pid":
			pid, _ = strconv.Atoi(v)
		case "host":
			host = v
		}
	}
	return pid, host, pid > 0 && host != ""
}

// release removes the lock file if it is still this process's.
func (l *dirLock) release() {
	if b, err := os.ReadFile(l.path); err == nil && bytes.Equal(b, l.content) {
		os.Remove(l.path)
	}
}

// urlLockPrefix starts the name of the lock object a run holds in a
// directory on a remote filesystem: .neardup.lock.<run id> (see lockURL).
const urlLockPrefix = lockName + "."

// isURLLockName reports whether name is a lock object of lockURL.
func isURLLockName(name string) bool {
	id, ok := strings.CutPrefix(name, urlLockPrefix)
	return ok && isHex(id)
}

// lockTimes are the intervals of a URL lock: its holder rewrites it every
// renew, and a lock not rewritten for stale is of a run that is gone.
type lockTimes struct{ renew, stale time.Duration }

// urlLockTimes are lockURL's intervals: a lock is renewed every minute
// and stale after ten minutes without renewal, which leaves a run nine
// missed renewals (a slow or failing store, a suspended laptop) before
// another run may break its lock.
var urlLockTimes = lockTimes{renew: time.Minute, stale: 10 * time.Minute}

// A urlLock is the lock object a run holds in a directory on a remote
// filesystem (gs://, s3://; see lockURL).
type urlLock struct {
	fsys  filesystem.Interface
	rm    filesystem.Remover
	path  string // the lock object
	id    string // the run's id, the end of path
	name  string // how errors name the directory
	info  lockInfo
	times lockTimes

	mu      sync.Mutex
	renewed time.Time // the last successful renewal
	lost    error     // why the lock is no longer this run's

	ctx      context.Context // of the renewals, cancelled by release
	cancel   context.CancelFunc
	done     chan struct{} // closed when renewLoop returns
	renewing atomic.Bool   // renewLoop was started
	released sync.Once
}

// lockInfo is what a lock object holds.
type lockInfo struct {
	run, host, proc  string // proc: the process's identity (see procLine)
	pid              int
	started, renewed time.Time
}

func (i lockInfo) marshal() []byte {
	b := fmt.Appendf(nil, "neardup lock\nrun %s\npid %d\nhost %s\nstarted %s\nrenewed %s\n",
		i.run, i.pid, i.host, i.started.UTC().Format(time.RFC3339Nano), i.renewed.UTC().Format(time.RFC3339Nano))
	if i.proc != "" {
		b = fmt.Appendf(b, "proc %s\n", i.proc)
	}
	return b
}

// parseLockInfo reads a lock object; ok is false if it is not one.
func parseLockInfo(b []byte) (i lockInfo, ok bool) {
	i.pid, i.host, ok = parseLock(b)
	i.proc = parseProc(b)
	for _, line := range strings.Split(string(b), "\n") {
		k, v, _ := strings.Cut(line, " ")
		switch k {
		case "run":
			i.run = v
		case "started":
			i.started, _ = time.Parse(time.RFC3339Nano, v)
		case "renewed":
			i.renewed, _ = time.Parse(time.RFC3339Nano, v)
		}
	}
	return i, ok && !i.renewed.IsZero()
}

// stale reports whether the lock i is of a run that is gone, seen from
// host at now: not renewed for times.stale, or, on its own host, its
// process gone and a renewal missed (two runs on hosts of one name, in
// containers say, do not break each other's lock at once).
func (i lockInfo) stale(host string, now time.Time, times lockTimes) bool {
	age := now.Sub(i.renewed)
	return age > times.stale || i.host == host && age > 2*times.renew && !processAlive(i.pid, i.proc)
}

// lockURL takes the directory dir on a remote filesystem (gs://, s3://)
// for a run. Object stores have no exclusive create through Beam's
// filesystems, so each run writes a lock object of its own,
// dir/.neardup.lock.<run id> (run id, PID, host, start and renewal times),
// and then lists dir/.neardup.lock.*: if another run's lock is there, it
// removes its own and fails at once, naming the holder; otherwise it holds
// dir until release. Of two runs that start at once, each lists after its
// own write has completed, so at least one sees the other's lock: both
// may back off (both fail, cleanly), never both hold. This relies on the
// store listing strongly consistently: an object whose write has returned
// is in every listing begun afterwards, as GCS and S3 (since December
// 2020) guarantee; a store listing eventually consistently would let two
// runs hold it (lockURL refuses a store that does not list its own lock
// right after writing it, but cannot tell more).
//
// The holder rewrites its lock every times.renew. Another run's lock is
// stale when it has not been renewed for times.stale (the runs' clocks
// must agree within a few minutes), or, on this host, when its process is
// gone and it has missed a renewal: then breakStale (--overwrite) removes
// it and the run holds dir; without it the error says so. A lock that is
// renewed is never broken. A run that could not renew its lock for half of
// times.stale, or whose lock went, gives it up: check, before it commits,
// fails. held, if not nil, gets the lock as soon as it exists, before its
// object is written, so that the caller can release it from then on.
func lockURL(ctx context.Context, dir, name string, breakStale bool, times lockTimes, held func(*urlLock)) (*urlLock, error) {
	fsys, err := filesystem.New(ctx, dir+"/x")
	if err != nil {
		return nil, fmt.Errorf("%s: %w", name, err)
	}
	rm, ok := fsys.(filesystem.Remover)
	if !ok {
		fsys.Close()
		return nil, fmt.Errorf("%s: the filesystem cannot remove files, so neardup cannot lock the directory", name)
	}
	host, _ := os.Hostname()
	now := time.Now()
	l := &urlLock{fsys: fsys, rm: rm, id: randomHex(), name: name, times: times, renewed: now}
	l.path = objects.JoinPath(dir, urlLockPrefix+l.id)
	l.info = lockInfo{run: l.id, pid: os.Getpid(), host: host, proc: identity(os.Getpid()), started: now, renewed: now}
	l.ctx, l.cancel = context.WithCancel(context.Background())
	l.done = make(chan struct{})
	// From here on the caller may release the lock (Dir.Abort), also
	// before lockURL returns.
	if held != nil {
		held(l)
	}
	if err := l.write(ctx, l.info); err != nil {
		l.release()
		return nil, fmt.Errorf("%s: writing the lock object %s: %w", name, l.path, err)
	}
	if err := l.others(ctx, breakStale); err != nil {
		l.release()
		return nil, err
	}
	l.renewing.Store(true)
	go l.renewLoop()
	return l, nil
}

// others lists the lock objects in the directory and fails if one of
// another run is there, unless it is stale and breakStale: then it
// removes it.
func (l *urlLock) others(ctx context.Context, breakStale bool) error {
	dir := l.path[:strings.LastIndexByte(l.path, '/')]
	listed, err := l.fsys.List(ctx, dir+"/"+urlLockPrefix+"*")
	if err != nil {
		return fmt.Errorf("%s: listing the locks: %w", l.name, err)
	}
	if !slices.Contains(listed, l.path) {
		return fmt.Errorf("%s: the lock object %s is not listed after it was written: the filesystem does not list consistently, so neardup cannot lock the directory", l.name, l.path)
	}
	host := l.info.host
	var stale []string
	var staleInfo lockInfo
	for _, p := range listed {
		if p == l.path || !isURLLockName(p[strings.LastIndexByte(p, '/')+1:]) {
			continue
		}
		b, err := readObject(ctx, l.fsys, p)
		if err != nil {
			return fmt.Errorf("%s is in use by another neardup run, or was until now (lock object %s: %v)", l.name, p, err)
		}
		i, ok := parseLockInfo(b)
		switch {
		case !ok:
			return fmt.Errorf("%s is locked by %s, which neardup cannot read: if no neardup writes there, remove it", l.name, p)
		case !i.stale(host, time.Now(), l.times) && i.host == host && !processAlive(i.pid, i.proc):
			return fmt.Errorf("%s holds the lock of neardup pid %d of this host, which is gone, but renewed it %s ago: --overwrite breaks it from %s on (lock object %s)",
				l.name, i.pid, time.Since(i.renewed).Round(time.Second), i.renewed.Add(2*l.times.renew).Local().Format(time.TimeOnly), p)
		case !i.stale(host, time.Now(), l.times):
			return fmt.Errorf("%s is in use by another neardup run (pid %d on %s, started %s, renewed %s ago; lock object %s)",
				l.name, i.pid, i.host, i.started.UTC().Format(time.RFC3339), time.Since(i.renewed).Round(time.Second), p)
		}
		if len(stale) == 0 {
			staleInfo = i
		}
		stale = append(stale, p)
	}
	if len(stale) > 0 && !breakStale {
		return fmt.Errorf("%s holds the lock of neardup pid %d on %s, not renewed for %s: that run is gone (use --overwrite to break it; lock object %s)",
			l.name, staleInfo.pid, staleInfo.host, time.Since(staleInfo.renewed).Round(time.Second), stale[0])
	}
	for _, p := range stale {
		if err := l.rm.Remove(ctx, p); err != nil {
			return fmt.Errorf("%s: breaking the stale lock %s: %w", l.name, p, err)
		}
	}
	return nil
}

// write writes the lock object holding i.
func (l *urlLock) write(ctx context.Context, i lockInfo) error {
	w, err := l.fsys.OpenWrite(ctx, l.path)
	if err != nil {
		return err
	}
	_, err = w.Write(i.marshal())
	if cerr := w.Close(); err == nil {
		err = cerr
	}
	return err
}

// readObject reads the object at path.
func readObject(ctx context.Context, fsys filesystem.Interface, path string) ([]byte, error) {
	r, err := fsys.OpenRead(ctx, path)
	if err != nil {
		return nil, err
	}
	defer r.Close()
	return io.ReadAll(io.LimitReader(r, 1<<16))
}

// renewLoop renews the lock every times.renew until release.
func (l *urlLock) renewLoop() {
	defer close(l.done)
	tick := time.NewTicker(l.times.renew)
	defer tick.Stop()
	for {
		select {
		case <-l.ctx.Done():
			return
		case <-tick.C:
			if l.renew() != nil {
				return
			}
		}
	}
}

// renew rewrites the lock object with the time now, if it is still there.
// It returns the error that makes the lock lost: the object is gone, or
// no renewal has succeeded for half of times.stale (others break it after
// times.stale; the half is the margin for the clocks and for a run that
// breaks it between this renewal's listing and its write); a failed
// renewal short of that is tried again at the next tick.
func (l *urlLock) renew() error {
	ctx, cancel := context.WithTimeout(l.ctx, l.times.renew)
	defer cancel()
	listed, err := l.fsys.List(ctx, l.path)
	now := time.Now()
	if l.ctx.Err() != nil {
		return l.ctx.Err() // released meanwhile
	}
	if err == nil && !slices.Contains(listed, l.path) {
		err = errLockBroken
	} else if err == nil {
		i := l.info
		i.renewed = now
		err = l.write(ctx, i)
	}
	l.mu.Lock()
	defer l.mu.Unlock()
	switch gap := now.Sub(l.renewed); {
	case errors.Is(err, errLockBroken):
		l.lost = fmt.Errorf("the lock object %s was removed while this run held it (by a run that found it stale?): not committing", l.path)
	case gap > l.times.stale/2:
		// Even if this renewal wrote the object, another run may have
		// broken it between the listing and the write.
		l.lost = fmt.Errorf("the lock object %s was not renewed for %s (%v), so another run may have broken it: not committing", l.path, gap.Round(time.Second), err)
	case err == nil:
		l.renewed = now
		return nil
	default:
		return nil // tried again at the next tick
	}
	return l.lost
}

var errLockBroken = errors.New("lock object gone")

// check reports whether the run still holds the lock, before it commits:
// renewals kept it, and the lock object is still there. Its errors do not
// name the directory: the caller's do.
func (l *urlLock) check(ctx context.Context) error {
	l.mu.Lock()
	lost := l.lost
	l.mu.Unlock()
	if lost != nil {
		return lost
	}
	listed, err := l.fsys.List(ctx, l.path)
	if err != nil {
		return fmt.Errorf("checking the lock object %s: %w", l.path, err)
	}
	if !slices.Contains(listed, l.path) {
		return fmt.Errorf("the lock object %s was removed while this run held it (by a run that found it stale?): not committing", l.path)
	}
	return nil
}

// remove removes the lock object, which no other run writes.
func (l *urlLock) remove() {
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	_ = l.rm.Remove(ctx, l.path)
}

// release stops the renewals (cancelling one under way) and removes the
// lock object. It may be called more than once.
func (l *urlLock) release() {
	l.released.Do(func() {
		l.cancel()
		if l.renewing.Load() {
			<-l.done
		}
		l.remove()
		l.fsys.Close()
	})
}
