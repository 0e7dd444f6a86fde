package main

import (
	"os"
	"runtime"
	"strings"
	"syscall"
)

// reexecWithMadvFree runs the command again, in the same process, with
// GODEBUG=madvdontneed=0 on Linux, unless GODEBUG already sets madvdontneed
// (GODEBUG=madvdontneed=1 opts out).
//
// The Go runtime gives freed memory back to Linux with MADV_DONTNEED by
// default, so memory it uses again must be faulted in and zeroed afresh.
// A local run keeps a runner in the process that allocates and frees large
// buffers for every stage, under the run's soft memory limit. With
// MADV_FREE the kernel takes the pages back only when it needs them: fewer
// page faults and less system time, at the cost of a higher peak RSS,
// which counts freed pages not yet taken back (docs/ARCHITECTURE.md). The
// setting is read only at start-up, hence the exec.
func reexecWithMadvFree() {
	if runtime.GOOS != "linux" || strings.Contains(os.Getenv("GODEBUG"), "madvdontneed=") {
		return
	}
	exe, err := os.Executable()
	if err != nil {
		return
	}
	godebug := "madvdontneed=0"
	var env []string
	for _, kv := range os.Environ() {
		if v, ok := strings.CutPrefix(kv, "GODEBUG="); ok {
			if v != "" {
				godebug = v + "," + godebug
			}
			continue
		}
		env = append(env, kv)
	}
	// On success Exec does not return; on failure the run goes on as is.
	_ = syscall.Exec(exe, os.Args, append(env, "GODEBUG="+godebug))
}
