package diskroom

import (
	"bytes"
	"errors"
	"fmt"
	"io/fs"
	"syscall"
	"testing"
)

// disk is a writer on a disk with room for room bytes; what it gets
// past that fails with ENOSPC, as a file's Write does.
type disk struct {
	bytes.Buffer
	room int
}

func (d *disk) Write(p []byte) (int, error) {
	n := min(len(p), d.room-d.Len())
	d.Buffer.Write(p[:n])
	if n < len(p) {
		return n, &fs.PathError{Op: "write", Path: "shard", Err: syscall.ENOSPC}
	}
	return n, nil
}

func TestWriter(t *testing.T) {
	for _, tc := range []struct {
		name        string
		room, freed int // the disk's room, and what the optional files give up
		other       error
		want        string // what reaches the disk
		wantErr     error
	}{
		{name: "fits", room: 10, want: "0123456789"},
		{name: "fits once the optional files are dropped", room: 4, freed: 6, want: "0123456789"},
		{name: "does not fit even then", room: 4, freed: 2, want: "012345", wantErr: syscall.ENOSPC},
		{name: "no optional files", room: 4, want: "0123", wantErr: syscall.ENOSPC},
		{name: "another error is not retried", room: 10, freed: 6, other: syscall.EIO, wantErr: syscall.EIO},
	} {
		t.Run(tc.name, func(t *testing.T) {
			d := &disk{room: tc.room}
			calls := 0
			unregister := Optional(func() bool {
				calls++
				d.room += tc.freed
				freed := tc.freed > 0
				tc.freed = 0
				return freed
			})
			defer unregister()
			var w = Writer(d)
			if tc.other != nil {
				w = Writer(failing{tc.other})
			}
			n, err := w.Write([]byte("0123456789"))
			if !errors.Is(err, tc.wantErr) || (tc.wantErr == nil) != (err == nil) {
				t.Errorf("Write: %v, want %v", err, tc.wantErr)
			}
			if tc.other == nil && (d.String() != tc.want || n != len(tc.want)) {
				t.Errorf("Write wrote %q (%d), want %q", d.String(), n, tc.want)
			}
			if tc.other != nil && calls != 0 {
				t.Errorf("%v dropped the optional files", tc.other)
			}
		})
	}
}

type failing struct{ err error }

func (f failing) Write([]byte) (int, error) { return 0, f.err }

func ExampleWriter() {
	d := &disk{room: 4}
	spool := 6 // bytes of optional files on the disk
	defer Optional(func() bool {
		freed := spool > 0
		d.room, spool = d.room+spool, 0
		return freed
	})()
	_, err := Writer(d).Write([]byte("document shard"))
	fmt.Println(err, d.Len())
	// Output: write shard: no space left on device 10
}
