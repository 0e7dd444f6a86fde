// Package faults is the fault injection of the Beam layer's tests: what a
// failed bundle leaves behind.
package faults

import (
	"errors"
	"fmt"
	"sync"
	"sync/atomic"
)

// A DoFn that supports it calls Inject(stage, key) once per element (one
// line); when a test has named that stage with FailOnce, the call returns
// an error the first time this process sees each key, and nil on any later
// attempt, as a transient failure would. Only runners that run the DoFns in
// the test's process (Prism, the direct runner) see the setting; it is off
// unless a test turns it on.
//
// Stages with the hook: "Read" (readKeysFn, keyed by the input path, after
// it has emitted everything: a retry must not duplicate its outputs),
// "Signatures" (signFn, keyed by the input path, after it has emitted
// everything) and "Write" (in writeAtomically, keyed by the file name,
// between writing the temporary file and renaming it). The pipeline tests
// fail a run in each of them (pipeline/badinput_test.go).

// ErrInjected is wrapped by every error Inject returns.
var ErrInjected = errors.New("injected fault")

// stageHook is a callback that Hook installed.
type stageHook struct {
	stage string
	fn    func(key string)
}

// The hook, the stage to fail and the faults seen are the process's:
// process-wide by nature, a test sets them for every job it runs.
var (
	hook       atomic.Pointer[stageHook]
	failOnce   atomic.Pointer[string]
	faultSeen  sync.Map // stage + "\x00" + key: the keys that already failed
	faultAsked sync.Map // stage: stages whose DoFns called Inject
)

// SetFailOnce makes the DoFns of stage fail once per key from now on ("":
// no fault) and forgets the keys that failed before.
func FailOnce(stage string) {
	faultSeen.Clear()
	faultAsked.Clear()
	failOnce.Store(&stage)
}

// Hook makes the DoFns of stage call fn with the key (as a string)
// wherever they call Inject, from now on (nil fn: no call): a test
// changes an input file between two passes with it, say. Like FailOnce,
// only runners in the test's process see it.
func Hook(stage string, fn func(key string)) {
	if fn == nil {
		hook.Store(nil)
		return
	}
	hook.Store(&stageHook{stage: stage, fn: fn})
}

// Inject calls the hook of stage, if any (see Hook), and returns an error
// wrapping ErrInjected the first time it is called with key while FailOnce
// names stage, and nil otherwise.
func Inject(stage string, key any) error {
	if h := hook.Load(); h != nil && h.stage == stage {
		h.fn(fmt.Sprint(key))
	}
	p := failOnce.Load()
	if p == nil || *p == "" {
		return nil
	}
	faultAsked.Store(stage, true)
	if *p != stage {
		return nil
	}
	k := fmt.Sprint(key)
	if _, seen := faultSeen.LoadOrStore(stage+"\x00"+k, true); seen {
		return nil
	}
	return fmt.Errorf("%w in stage %s at key %s (transforms.SetFailOnce test hook)", ErrInjected, stage, k)
}

// Hooked reports whether a DoFn of stage has called Inject since the last
// FailOnce: a stage without the hook never fails.
func Hooked(stage string) bool {
	_, ok := faultAsked.Load(stage)
	return ok
}
