package main

import (
	"bytes"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"time"
)

// lockName is the lock file a run holds in each local directory it writes
// (see target).
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

// lockDir creates dir's lock file with O_EXCL, holding this process's PID
// and host name. If another run holds it, lockDir fails at once, naming the
// holder. The lock of a process of this host that is gone is stale:
// breakStale (--overwrite) breaks it; otherwise the error says so. name
// names dir in errors.
func lockDir(dir, name string, breakStale bool) (*dirLock, error) {
	host, _ := os.Hostname()
	l := &dirLock{path: filepath.Join(dir, lockName),
		content: fmt.Appendf(nil, "pid %d\nhost %s\nstarted %s\n", os.Getpid(), host, time.Now().UTC().Format(time.RFC3339))}
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
		case holder != host || processAlive(pid):
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

// processAlive reports whether process pid exists on this host.
func processAlive(pid int) bool {
	err := syscall.Kill(pid, 0)
	return err == nil || errors.Is(err, syscall.EPERM)
}

// release removes the lock file if it is still this process's.
func (l *dirLock) release() {
	if b, err := os.ReadFile(l.path); err == nil && bytes.Equal(b, l.content) {
		os.Remove(l.path)
	}
}
