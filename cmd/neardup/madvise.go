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
// A local run keeps a runner (Prism) that allocates and frees large buffers
// for every stage in the process; under the run's soft memory limit that
// churn cost 3.9M page faults and ~23 s of system time at 1.4M documents.
// With MADV_FREE the kernel takes the pages back only when it needs them:
// 1.5M faults, ~15 s system time, the run 5-6 s (about 11%) faster, while
// peak RSS, which counts freed pages not yet taken back, went from 5.3 to
// 6.0-6.4 GB. The setting is read only at start-up, hence the exec.
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
