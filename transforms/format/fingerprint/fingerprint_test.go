package fingerprint

import (
	"bytes"
	"errors"
	"hash/crc32"
	"io"
	"strings"
	"testing"
	"testing/iotest"
	"time"
)

// TestReader: the count and CRC-32C cover the whole stream however much of
// it the consumer read, and equal those of a plain CRC of the bytes.
func TestReader(t *testing.T) {
	data := bytes.Repeat([]byte("some stored bytes\n"), 10000)
	want := crc32.Checksum(data, crc32.MakeTable(crc32.Castagnoli))
	for _, consume := range []int{0, 1, 4096, len(data)} {
		r := NewReader(iotest.HalfReader(bytes.NewReader(data)))
		if _, err := io.ReadFull(r, make([]byte, consume)); err != nil {
			t.Fatal(err)
		}
		if n, crc, err := r.Finish(); n != int64(len(data)) || crc != want || err != nil {
			t.Errorf("consumed %d: Finish = %d, %08x, %v; want %d, %08x, nil", consume, n, crc, err, len(data), want)
		}
	}
	// A read error ends the file.
	boom := errors.New("boom")
	r := NewReader(io.MultiReader(bytes.NewReader(data[:100]), iotest.ErrReader(boom)))
	if n, crc, err := r.Finish(); n != 100 || crc != crc32.Checksum(data[:100], table) || err != boom {
		t.Errorf("after a read error: %d, %08x, %v", n, crc, err)
	}
}

func TestStringParse(t *testing.T) {
	for _, f := range []Fingerprint{
		{Size: 1234, ModTime: time.Date(2025, 6, 1, 12, 0, 0, 123456789, time.UTC), Read: 1234, CRC: 0xdeadbeef},
		{Size: -1, Read: 0, CRC: 0},
	} {
		s := f.String()
		g, err := Parse(s)
		if err != nil || g.Size != f.Size || !g.ModTime.Equal(f.ModTime) || g.Read != f.Read || g.CRC != f.CRC {
			t.Errorf("Parse(%q) = %+v, %v; want %+v", s, g, err, f)
		}
	}
	for _, bad := range []string{"", "size=1 mtime=- read=1", "size=x mtime=- read=1 crc32c=0", "size=1 mtime=yesterday read=1 crc32c=0",
		"size=1 mtime=- read=1 crc32c=123456789", "read=1 size=1 mtime=- crc32c=0"} {
		if _, err := Parse(bad); err == nil {
			t.Errorf("Parse(%q) succeeded", bad)
		}
	}
}

// TestChecks: a file whose size, modification time or content differs
// from the first pass's reading is changed, with a message naming it and
// both readings; what one side does not know is not compared.
func TestChecks(t *testing.T) {
	mtime := time.Date(2025, 6, 1, 12, 0, 0, 0, time.UTC)
	f := Fingerprint{Size: 1200, ModTime: mtime, Read: 1200, CRC: 0xabcd}
	if err := f.CheckStat("x.jsonl", 1200, mtime); err != nil {
		t.Errorf("same stat: %v", err)
	}
	if err := f.CheckStat("x.jsonl", -1, time.Time{}); err != nil {
		t.Errorf("unknown stat: %v", err)
	}
	for _, now := range []struct {
		size  int64
		mtime time.Time
	}{{1234, mtime}, {1200, mtime.Add(time.Nanosecond)}, {0, time.Time{}}} {
		err := f.CheckStat("data/x.jsonl", now.size, now.mtime)
		if !errors.Is(err, ErrChanged) || !strings.Contains(err.Error(), "input data/x.jsonl changed during the run") {
			t.Errorf("stat %d %v: %v, want a change of data/x.jsonl", now.size, now.mtime, err)
		}
	}
	if err := f.CheckRead("x.jsonl", 1200, 0xabcd); err != nil {
		t.Errorf("same read: %v", err)
	}
	err := f.CheckRead("data/x.jsonl", 1234, 0x1)
	want := "input data/x.jsonl changed during the run (read 1234 bytes with CRC-32C 0x00000001, " +
		"the first pass read 1200 bytes with 0x0000abcd): rerun when it is stable"
	if err == nil || err.Error() != want || !errors.Is(err, ErrChanged) {
		t.Errorf("CheckRead = %v, want %q", err, want)
	}
	if err := f.CheckRead("x.jsonl", 1200, 0xabce); err == nil {
		t.Error("same length, other content: no change")
	}
}
