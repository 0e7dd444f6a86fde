package workfiles

import (
	"context"
	"errors"
	"io"
	"os"
	"path/filepath"
	"testing"
	"time"
)

// TestStop: Stop waits for the operation under way, and after it a Write
// creates nothing, not even its directory, and a gated writer writes
// nothing.
func TestStop(t *testing.T) {
	t.Cleanup(func() { gate.stopped.Store(false) })
	dir := t.TempDir()
	f, err := os.Create(filepath.Join(dir, "open"))
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	w := Writer("", f)
	inside, release := make(chan struct{}), make(chan struct{})
	go Do(func() error {
		close(inside)
		<-release
		return nil
	})
	<-inside
	if Stop(50 * time.Millisecond) {
		t.Error("Stop returned true while an operation was under way")
	}
	close(release)
	if !Stop(time.Second) {
		t.Error("Stop returned false once the operation had ended")
	}
	sub := filepath.Join(dir, "sub")
	err = Write(context.Background(), sub, "file", "", func(w io.Writer) error { _, err := w.Write([]byte("x")); return err }, false)
	if !errors.Is(err, ErrStopped) {
		t.Errorf("Write after Stop: %v, want ErrStopped", err)
	}
	if _, err := os.Lstat(sub); !os.IsNotExist(err) {
		t.Errorf("Write after Stop made %s (%v)", sub, err)
	}
	if _, err := w.Write([]byte("x")); !errors.Is(err, ErrStopped) {
		t.Errorf("a gated writer after Stop: %v, want ErrStopped", err)
	}
	if fi, _ := f.Stat(); fi.Size() != 0 {
		t.Errorf("a gated writer wrote %d bytes after Stop", fi.Size())
	}
}
