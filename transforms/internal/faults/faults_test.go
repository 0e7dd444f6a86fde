package faults

import (
	"errors"
	"testing"
)

func TestFailOnce(t *testing.T) {
	defer FailOnce("")
	for _, tc := range []struct {
		fail, stage, key string
		wantErr, hooked  bool
	}{
		{"", "Read", "a", false, false}, // off: nothing is recorded
		{"Read", "Read", "a", true, true},
		{"Read", "Read", "b", true, true},
		{"Write", "Read", "a", false, true}, // another stage: called, never fails
	} {
		FailOnce(tc.fail)
		err := Inject(tc.stage, tc.key)
		if (err != nil) != tc.wantErr || (err != nil && !errors.Is(err, ErrInjected)) {
			t.Errorf("FailOnce(%q): Inject(%q, %q) = %v, want an error: %v", tc.fail, tc.stage, tc.key, err, tc.wantErr)
		}
		if err := Inject(tc.stage, tc.key); err != nil {
			t.Errorf("FailOnce(%q): Inject(%q, %q) again = %v, want nil (once per key)", tc.fail, tc.stage, tc.key, err)
		}
		if got := Hooked(tc.stage); got != tc.hooked {
			t.Errorf("FailOnce(%q): Hooked(%q) = %v, want %v", tc.fail, tc.stage, got, tc.hooked)
		}
	}
}

func TestHook(t *testing.T) {
	var keys []string
	Hook("Signatures", func(k string) { keys = append(keys, k) })
	defer Hook("", nil)
	_ = Inject("Signatures", 7)
	_ = Inject("Read", 8)
	if len(keys) != 1 || keys[0] != "7" {
		t.Errorf("hook of Signatures called with %v, want [7]", keys)
	}
}
