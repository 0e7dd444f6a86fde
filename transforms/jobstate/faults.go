package jobstate

import "github.com/neardup/neardup/transforms/internal/faults"

// The test hooks of fault injection (package internal/faults): the stages
// "Read", "Signatures" and "Write" call them. Only runners that run the
// DoFns in the test's process (Prism, the direct runner) see them.

// ErrInjectedFault is wrapped by every error of an injected fault.
var ErrInjectedFault = faults.ErrInjected

// SetFailOnce makes the DoFns of stage fail once per key from now on ("":
// no fault) and forgets the keys that failed before.
func SetFailOnce(stage string) { faults.FailOnce(stage) }

// SetStageHook makes the DoFns of stage call fn with the key (as a string)
// wherever they could fail, from now on (nil fn: no call).
func SetStageHook(stage string, fn func(key string)) { faults.Hook(stage, fn) }

// FaultHooked reports whether a DoFn of stage has reached its hook since
// the last SetFailOnce: a stage without the hook never fails.
func FaultHooked(stage string) bool { return faults.Hooked(stage) }
