package outdir

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"syscall"
)

// A process is told apart from a later one given its PID by its
// identity: the boot it runs in and its start time in clock ticks since
// then (field 22 of /proc/PID/stat), "BOOT_ID TICKS". Lock files and work
// directory markers record the identity of their process on a "proc" line.

// procLine is the "proc" line of this process's lock files and markers,
// "" where /proc does not say.
func procLine() string {
	if id := identity(os.Getpid()); id != "" {
		return "proc " + id + "\n"
	}
	return ""
}

// bootID is this boot's id, "" if unknown.
var bootID = sync.OnceValue(func() string {
	b, err := os.ReadFile("/proc/sys/kernel/random/boot_id")
	if err != nil {
		return ""
	}
	return strings.TrimSpace(string(b))
})

// identity returns the identity of process pid, "" if it cannot be read
// (no /proc, or no such process).
func identity(pid int) string {
	b, err := os.ReadFile(fmt.Sprintf("/proc/%d/stat", pid))
	boot := bootID()
	if err != nil || boot == "" {
		return ""
	}
	// The command name (field 2) is in parentheses and may hold spaces:
	// the fields after its last ')' start at field 3.
	s := string(b)
	fields := strings.Fields(s[strings.LastIndexByte(s, ')')+1:])
	if len(fields) < 20 {
		return ""
	}
	return boot + " " + fields[19]
}

// parseProc returns the identity on the "proc" line of a lock file or
// marker, "" if it has none.
func parseProc(b []byte) string {
	for _, line := range strings.Split(string(b), "\n") {
		if v, ok := strings.CutPrefix(line, "proc "); ok {
			return v
		}
	}
	return ""
}

// processAlive reports whether the process that wrote a lock file or
// marker on this host, pid with identity id ("" if it recorded none),
// still runs. It is gone if no process pid exists, or if process pid has
// another identity (the PID was reused). Without a recorded identity, a
// process pid that runs another program than neardup (its executable
// named otherwise) is not it; one that cannot be checked (another user's,
// no /proc) is taken as alive.
func processAlive(pid int, id string) bool {
	if err := syscall.Kill(pid, 0); err != nil && !errors.Is(err, syscall.EPERM) {
		return false
	}
	if id != "" {
		now := identity(pid)
		return now == "" || now == id
	}
	exe, err := os.Readlink(fmt.Sprintf("/proc/%d/exe", pid))
	if err != nil {
		return true
	}
	return isNeardup(exe)
}

// isNeardup reports whether the executable exe is neardup's: this
// process's own, or one whose name starts with "neardup".
func isNeardup(exe string) bool {
	exe = strings.TrimSuffix(exe, " (deleted)")
	if self, err := os.Executable(); err == nil && self == exe {
		return true
	}
	return strings.HasPrefix(filepath.Base(exe), "neardup")
}
