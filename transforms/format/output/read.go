package output

import (
	"bufio"
	"encoding/json"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"slices"
	"strings"

	"github.com/neardup/neardup/transforms/format/record"
)

// Line is the type of one line of a per-input-file output of kind pairs,
// clusters, rejects or audit.
type Line interface {
	PairLine | ClusterLine | RejectLine | AuditLine
}

// shardExts are the endings after ".jsonl" of the output shards a reader
// takes: plain, or compressed with --compress (Open decompresses them).
var shardExts = []string{"", ".gz", ".zst"}

// Shards lists the output shards of kind in the local directory dir
// (kind-NNNNN.jsonl, compressed or not), in name order.
func Shards(dir, kind string) ([]string, error) {
	files, err := filepath.Glob(filepath.Join(dir, kind+"-*.jsonl*"))
	if err != nil {
		return nil, err
	}
	files = slices.DeleteFunc(files, func(f string) bool {
		_, ext, _ := strings.Cut(filepath.Base(f), ".jsonl")
		return !slices.Contains(shardExts, ext)
	})
	slices.Sort(files)
	return files, nil
}

// Open opens the local output file at path, decompressed (gzip or zstd, by
// name or content: record.Decompress).
func Open(path string) (io.ReadCloser, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, err
	}
	r, err := record.Decompress(path, f)
	if err != nil {
		f.Close()
		return nil, err
	}
	return struct {
		io.Reader
		io.Closer
	}{r, f}, nil
}

// Each decodes every line of the output shards of kind in dir (Shards), in
// order, into a fresh T and calls fn with it, until fn returns false.
func Each[T Line](dir, kind string, fn func(*T) bool) error {
	files, err := Shards(dir, kind)
	if err != nil {
		return err
	}
	for _, path := range files {
		more, err := EachIn(path, fn)
		if err != nil || !more {
			return err
		}
	}
	return nil
}

// EachIn decodes every line of the output file at path, in order, into a
// fresh T and calls fn with it, until fn returns false (more is then false).
// A line that does not decode is an error that names the file and the
// record's number.
func EachIn[T Line](path string, fn func(*T) bool) (more bool, err error) {
	f, err := Open(path)
	if err != nil {
		return false, err
	}
	defer f.Close()
	dec := json.NewDecoder(bufio.NewReaderSize(f, 1<<16))
	for n := 1; ; n++ {
		var v T
		err := dec.Decode(&v)
		if err == io.EOF {
			return true, nil
		}
		if err != nil {
			return false, fmt.Errorf("%s: record %d: %w", path, n, err)
		}
		if !fn(&v) {
			return false, nil
		}
	}
}
