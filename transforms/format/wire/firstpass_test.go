package wire

import "testing"

// TestFirstPassKey: a key of each kind comes back as its kind and key;
// a key of no kind is an error.
func TestFirstPassKey(t *testing.T) {
	for p := FirstExact; p < firstKinds; p++ {
		for _, k := range []int64{0, 1, 255, 1<<40 | 7, 1<<firstShift - 1} {
			got, gk, err := FirstPassKey(p.Key(k))
			if err != nil || got != p || gk != k {
				t.Errorf("kind %d key %d: got kind %d key %d, %v", p, k, got, gk, err)
			}
		}
	}
	for _, bad := range []int64{-1, int64(firstKinds) << firstShift} {
		if _, _, err := FirstPassKey(bad); err == nil {
			t.Errorf("key %#x: no error", bad)
		}
	}
}
