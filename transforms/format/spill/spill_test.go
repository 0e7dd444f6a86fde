package spill

import (
	"bufio"
	"bytes"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"testing"
)

// write creates a spill file in dir with the chunks of adds (partition,
// content), in order.
func write(t testing.TB, dir, name string, adds []add) string {
	t.Helper()
	path := filepath.Join(dir, name)
	w, err := create(path)
	if err != nil {
		t.Fatal(err)
	}
	for _, a := range adds {
		if err := w.Add(a.part, []byte(a.s)); err != nil {
			t.Fatal(err)
		}
	}
	if err := w.Close(); err != nil {
		t.Fatal(err)
	}
	return path
}

type add struct {
	part int
	s    string
}

// collect reads every chunk of part in files, file by file.
func collect(t *testing.T, files []*File, part int) []string {
	t.Helper()
	var got []string
	for _, f := range files {
		if _, err := f.Each(part, nil, func(c []byte) error { got = append(got, string(c)); return nil }); err != nil {
			t.Fatal(err)
		}
	}
	return got
}

// openAll opens the spill files at paths, closed when t ends.
func openAll(t testing.TB, paths []string) []*File {
	t.Helper()
	var files []*File
	for _, p := range paths {
		f, err := Open(p)
		if err != nil {
			t.Fatal(err)
		}
		t.Cleanup(func() { f.Close() })
		files = append(files, f)
	}
	return files
}

func TestRoundTrip(t *testing.T) {
	for _, tc := range []struct {
		name  string
		files [][]add
		want  map[int][]string // partition -> chunks in file, then written order
	}{
		{"empty file", [][]add{nil}, map[int][]string{0: nil, 7: nil}},
		{"one file", [][]add{{{3, "a"}, {1, "b"}, {3, "c"}, {0, ""}, {1, "d"}}},
			map[int][]string{0: {""}, 1: {"b", "d"}, 2: nil, 3: {"a", "c"}}},
		{"two files", [][]add{{{5, "x1"}, {2, "y1"}}, {{2, "y2"}, {5, "x2"}, {9, "z"}}},
			map[int][]string{2: {"y1", "y2"}, 5: {"x1", "x2"}, 9: {"z"}, 4: nil}},
		{"large partition number and chunk", [][]add{{{1 << 20, string(bytes.Repeat([]byte{7}, 100_000))}}},
			map[int][]string{1 << 20: {string(bytes.Repeat([]byte{7}, 100_000))}}},
		// Segment keys of file 139 and beyond pass 2^31 (file << 24).
		{"keys past 32 bits", [][]add{{{139 << 24, "a"}, {1<<62 + 5, "b"}, {139 << 24, "c"}}},
			map[int][]string{139 << 24: {"a", "c"}, 1<<62 + 5: {"b"}}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			dir := t.TempDir()
			var paths []string
			for i, adds := range tc.files {
				paths = append(paths, write(t, dir, fmt.Sprint(i), adds))
			}
			files := openAll(t, paths)
			for part, want := range tc.want {
				if got := collect(t, files, part); !slices.Equal(got, want) {
					t.Errorf("partition %d: got %q, want %q", part, got, want)
				}
			}
		})
	}
}

func TestDamaged(t *testing.T) {
	dir := t.TempDir()
	good := write(t, dir, "good", []add{{0, "hello"}, {1, "world"}})
	data, err := os.ReadFile(good)
	if err != nil {
		t.Fatal(err)
	}
	for _, tc := range []struct {
		name   string
		damage func([]byte) []byte
		atOpen bool // else when partition 1 is read
	}{
		{"truncated by one byte", func(b []byte) []byte { return b[:len(b)-1] }, true},
		{"no index", func(b []byte) []byte { return b[:10] }, true},
		{"empty", func([]byte) []byte { return nil }, true},
		{"chunk byte flipped", func(b []byte) []byte { b[6] ^= 1; return b }, false},
		{"index byte flipped", func(b []byte) []byte { b[10] ^= 1; return b }, true},
		{"index length too long", func(b []byte) []byte { b[len(b)-tailBytes] = 0xff; return b }, true},
	} {
		t.Run(tc.name, func(t *testing.T) {
			path := filepath.Join(dir, tc.name)
			if err := os.WriteFile(path, tc.damage(slices.Clone(data)), 0o644); err != nil {
				t.Fatal(err)
			}
			f, err := Open(path)
			if tc.atOpen {
				if !errors.Is(err, ErrCorrupt) {
					t.Fatalf("Open: got %v, want ErrCorrupt", err)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			defer f.Close()
			if _, err := f.Each(1, nil, func([]byte) error { return nil }); !errors.Is(err, ErrCorrupt) {
				t.Fatalf("Each: got %v, want ErrCorrupt", err)
			}
		})
	}
}

func TestWriterErrors(t *testing.T) {
	dir := t.TempDir()
	path := filepath.Join(dir, "x")
	if _, err := create(dir); err == nil {
		t.Error("Create of a directory: no error")
	}
	w, err := create(path)
	if err != nil {
		t.Fatal(err)
	}
	if err := w.Add(-1, []byte("a")); err == nil {
		t.Error("negative partition: no error")
	}
	if err := w.Add(0, []byte("b")); err == nil {
		t.Error("Add after an error: no error")
	}
	if err := w.Close(); err == nil {
		t.Error("Close after an error: no error")
	}
	if _, err := os.Stat(path); !os.IsNotExist(err) {
		t.Errorf("file left after a failed Close: %v", err)
	}
	if _, err := create(write(t, dir, "exists", nil)); err == nil {
		t.Error("Create over an existing file: no error")
	}
	w, err = create(filepath.Join(dir, "aborted"))
	if err != nil {
		t.Fatal(err)
	}
	w.Add(0, []byte("a"))
	w.Abort()
	if _, err := os.Stat(filepath.Join(dir, "aborted")); !os.IsNotExist(err) {
		t.Errorf("file left after Abort: %v", err)
	}
}

func TestFullDisk(t *testing.T) {
	if _, err := os.Stat("/dev/full"); err != nil {
		t.Skip("no /dev/full")
	}
	f, err := os.OpenFile("/dev/full", os.O_WRONLY, 0)
	if err != nil {
		t.Skip(err)
	}
	w := &Writer{path: "/dev/full", f: f}
	w.bw = bufioWriter(f, 16)
	for range 10 {
		w.Add(0, []byte("0123456789"))
	}
	if err := w.Close(); err == nil {
		t.Error("no error writing to a full disk")
	}
}

func ExampleFile_Each() {
	dir, _ := os.MkdirTemp("", "spill")
	defer os.RemoveAll(dir)
	var paths []string
	for i, words := range [][]string{{"apple", "banana"}, {"cherry", "avocado"}} {
		path := filepath.Join(dir, fmt.Sprint(i))
		w, _ := create(path)
		for _, word := range words {
			w.Add(int(word[0]-'a'), []byte(word)) // partition by first letter
		}
		w.Close()
		paths = append(paths, path)
	}
	for _, path := range paths { // partition 0 of every file
		f, _ := Open(path)
		f.Each(0, nil, func(c []byte) error { fmt.Println(string(c)); return nil })
		f.Close()
	}
	// Output:
	// apple
	// avocado
}

func BenchmarkReadPartition(b *testing.B) {
	dir := b.TempDir()
	chunk := bytes.Repeat([]byte("entry"), 32<<10/5)
	var adds []add
	for i := range 512 {
		adds = append(adds, add{i % 256, string(chunk)})
	}
	f := openAll(b, []string{write(b, dir, "a", adds)})[0]
	b.SetBytes(2 * int64(len(chunk)))
	var buf []byte
	var err error
	for i := 0; b.Loop(); i++ {
		if buf, err = f.Each(i%256, buf, func([]byte) error { return nil }); err != nil {
			b.Fatal(err)
		}
	}
}

func bufioWriter(f *os.File, n int) *bufio.Writer { return bufio.NewWriterSize(f, n) }

// create creates the file at path, which must not exist, and starts a
// Writer of it.
func create(path string) (*Writer, error) {
	f, err := os.OpenFile(path, os.O_WRONLY|os.O_CREATE|os.O_EXCL, 0o644)
	if err != nil {
		return nil, err
	}
	return NewWriter(path, f), nil
}
