// Package diskroom lets the files a job can do without (the spool of
// decompressed inputs) give their disk space up to the files it needs
// (document shards, info shards, spill files, outputs): a needed write
// that fails for lack of space has the optional files dropped and is
// retried once, so that a job that fits on a disk without its optional
// files runs there with them too.
//
// The registry is the process's: a full disk is full for every job on it,
// so a write that fails for lack of space drops the optional files of
// every job in the process, which costs those jobs time, never data.
package diskroom

import (
	"errors"
	"io"
	"sync"
	"syscall"
)

// optional is the process's registry of optional files (see the package
// doc): process-wide by nature.
var optional struct {
	sync.Mutex
	next int
	free map[int]func() bool
}

// Optional registers free, which deletes optional files (and stops making
// more) and reports whether it freed any space. The returned function
// unregisters it.
func Optional(free func() bool) (unregister func()) {
	optional.Lock()
	defer optional.Unlock()
	if optional.free == nil {
		optional.free = map[int]func() bool{}
	}
	id := optional.next
	optional.next++
	optional.free[id] = free
	return func() {
		optional.Lock()
		defer optional.Unlock()
		delete(optional.free, id)
	}
}

// Yield calls every registered free function and reports whether any of
// them freed space.
func Yield() bool {
	optional.Lock()
	frees := make([]func() bool, 0, len(optional.free))
	for _, f := range optional.free {
		frees = append(frees, f)
	}
	optional.Unlock()
	freed := false
	for _, f := range frees {
		if f() {
			freed = true
		}
	}
	return freed
}

// NoSpace reports whether err is a write that failed for lack of space: a
// full disk (ENOSPC) or an exhausted quota (EDQUOT).
func NoSpace(err error) bool {
	return errors.Is(err, syscall.ENOSPC) || errors.Is(err, syscall.EDQUOT)
}

// Writer returns a writer to w, a file the job needs: a Write that fails
// for lack of space (NoSpace) has the optional files dropped (Yield) and,
// if that freed space, writes the rest of its bytes once more.
func Writer(w io.Writer) io.Writer { return needed{w} }

type needed struct{ w io.Writer }

func (n needed) Write(p []byte) (int, error) {
	k, err := n.w.Write(p)
	if err == nil || !NoSpace(err) || !Yield() {
		return k, err
	}
	k2, err := n.w.Write(p[k:])
	return k + k2, err
}
