package workfiles

import (
	"context"
	"io"
	"maps"
	"strings"
	"testing"
)

// TestWritten: the bytes written through Writer and Write count under
// their kind, an output's ("") under none, and TakeUnsent hands out each
// byte once.
func TestWritten(t *testing.T) {
	ResetWritten()
	t.Cleanup(ResetWritten)
	if _, err := io.WriteString(Writer(KindSpool, io.Discard), "12345"); err != nil {
		t.Fatal(err)
	}
	dir := t.TempDir()
	write := func(kind string, text string) {
		t.Helper()
		err := Write(context.Background(), dir, "f-"+kind, kind, func(w io.Writer) error {
			_, err := io.Copy(w, strings.NewReader(text))
			return err
		}, false)
		if err != nil {
			t.Fatal(err)
		}
	}
	write(KindSeen, "abc")
	write("", "an output")
	want := map[string]int64{KindSpool: 5, KindSeen: 3}
	if got := Written(); !maps.Equal(got, want) {
		t.Errorf("Written() = %v, want %v", got, want)
	}
	if got := TakeUnsent(); !maps.Equal(got, want) {
		t.Errorf("TakeUnsent() = %v, want %v", got, want)
	}
	write(KindSeen, "de")
	if got, want := TakeUnsent(), map[string]int64{KindSeen: 2}; !maps.Equal(got, want) {
		t.Errorf("TakeUnsent() after one more file = %v, want %v", got, want)
	}
	if got := TakeUnsent(); got != nil {
		t.Errorf("TakeUnsent() with nothing new = %v, want nil", got)
	}
	if got, want := Written()[KindSeen], int64(5); got != want {
		t.Errorf("Written()[seen] = %d, want %d", got, want)
	}
}
