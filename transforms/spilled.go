package transforms

import (
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"sync/atomic"

	"github.com/neardup/neardup/transforms/format/spill"
)

// Spilled shuffles (Config.Spill, one machine). A local runner keeps every
// element of a shuffle in memory until the stage after it has read all of
// it, whatever the rounds: a stage emits all of its rounds at once. The
// block entries alone were 2.86 of the 2.99 GB in use at the peak of a
// 13.9M-document run, and the half-join records 1.9 of 2.5 GB once the
// entries no longer were. So on one machine the large shuffles carry file
// names instead of chunks: each DoFn bundle (or signed file) that emits
// into one appends its chunks to a spill file of its own in Config.Work
// (package spill: the chunks, then an index of their keys) and, once the
// file is closed, emits (key, file name) once for each key it wrote. The
// runner groups those names by key as it grouped the chunks, and the DoFn
// that reads the group reads the key's chunks from the named files. What
// the job holds of a spilled shuffle is then the groups being worked on;
// the page cache holds the rest. The files go with the work directory.
//
// The graph is the same as without spilling, so the stages, their rounds
// and their outputs are too.

// spillPattern matches the names of spill files: spill-KIND-PID-N.bin.
const spillPattern = "spill-*.bin"

// isSpillName reports whether name is a spill file's.
func isSpillName(name string) bool {
	ok, _ := filepath.Match(spillPattern, name)
	return ok && !strings.ContainsAny(name, `/\`)
}

// spillSeq numbers the spill files of this process.
var spillSeq atomic.Int64

// spillOut is one DoFn bundle's side of a spilled shuffle: nil unless
// Config.Spill, and then a spill file of its own, opened at its first
// chunk.
type spillOut struct {
	dir, kind string
	name      string
	w         *spill.Writer
	keys      map[int]bool
	err       error
}

// spillTo returns the writing side of spilled shuffle kind (a file name
// prefix), or nil when c.Spill is off: a nil spillOut passes chunks on.
func (c Config) spillTo(kind string) *spillOut {
	if !c.Spill {
		return nil
	}
	return &spillOut{dir: c.Work, kind: kind}
}

// wrap returns what to emit chunks to: emit itself when o is nil, else o's
// spill file.
func (o *spillOut) wrap(emit func(int, []byte)) func(int, []byte) {
	if o == nil {
		return emit
	}
	return o.add
}

func (o *spillOut) add(key int, chunk []byte) {
	if o.err != nil {
		return
	}
	if o.w == nil {
		o.name = fmt.Sprintf("spill-%s-%d-%d.bin", o.kind, os.Getpid(), spillSeq.Add(1))
		if o.w, o.err = spill.Create(filepath.Join(o.dir, o.name)); o.err != nil {
			return
		}
		o.keys = map[int]bool{}
	}
	o.keys[key] = true
	o.err = o.w.Add(key, chunk)
}

// finish closes o's file and emits (key, file name) for each key it holds,
// in key order: what the runner shuffles instead of the chunks. Its error
// names the work directory and about the space needed. A nil o, or one
// given no chunk, emits nothing.
func (o *spillOut) finish(emit func(int, []byte)) error {
	if o == nil || (o.w == nil && o.err == nil) {
		return nil
	}
	err := o.err
	var size int64
	if o.w != nil {
		size = o.w.Size()
		if cerr := o.w.Close(); err == nil {
			err = cerr
		}
	}
	name, keys := o.name, o.keys
	o.w, o.keys, o.err = nil, nil, nil
	if err != nil {
		return workFileError(name, o.dir, err, size)
	}
	sorted := make([]int, 0, len(keys))
	for k := range keys {
		sorted = append(sorted, k)
	}
	slices.Sort(sorted)
	for _, k := range sorted {
		emit(k, []byte(name))
	}
	return nil
}

// finishSpilled ends a bundle of a DoFn that emits into the spilled
// shuffle o: after err, the bundle's error, it removes o's file; else it
// finishes it, emitting the file's names to emit.
func finishSpilled(err error, emit func(int, []byte), o *spillOut) error {
	if err != nil {
		o.abort()
		return err
	}
	return o.finish(emit)
}

// abort removes the file being written, after an error elsewhere.
func (o *spillOut) abort() {
	if o != nil && o.w != nil {
		o.w.Abort()
		o.w, o.keys = nil, nil
	}
}

// spillIn is a DoFn's reading side of spilled shuffles: the spill files it
// has opened, kept open for the bundle.
type spillIn struct {
	files map[string]*spill.File
	buf   []byte
}

// each calls do with every chunk of group key: the chunks of chunks, or
// with c.Spill the key's chunks in the spill files chunks names. A chunk
// is valid only during its call.
func (in *spillIn) each(c Config, key int, chunks func(*[]byte) bool, do func([]byte) error) error {
	next, failed := in.iter(c, key, chunks)
	var chunk []byte
	for next(&chunk) {
		if err := do(chunk); err != nil {
			return err
		}
	}
	return failed()
}

// collect returns copies of the chunks of group key (see each), which the
// caller may keep.
func (in *spillIn) collect(c Config, key int, chunks func(*[]byte) bool) ([][]byte, error) {
	var out [][]byte
	err := in.each(c, key, chunks, func(b []byte) error {
		out = append(out, slices.Clone(b))
		return nil
	})
	return out, err
}

// iter returns an iterator over the chunks of group key: chunks itself, or
// with c.Spill one that reads the key's chunks from the spill files chunks
// names, each valid until the next call. It stops at the first error,
// which failed then returns.
func (in *spillIn) iter(c Config, key int, chunks func(*[]byte) bool) (next func(*[]byte) bool, failed func() error) {
	if !c.Spill {
		return chunks, func() error { return nil }
	}
	var err error
	var r *spill.Reader
	var name []byte
	next = func(chunk *[]byte) bool {
		for err == nil {
			if r == nil {
				if !chunks(&name) {
					return false
				}
				var f *spill.File
				if f, err = in.open(c, string(name)); err != nil {
					return false
				}
				r = f.Reader(key)
			}
			var ok bool
			if in.buf, ok, err = r.Next(in.buf); ok {
				*chunk = in.buf
				return true
			}
			r = nil
		}
		return false
	}
	return next, func() error {
		if err != nil {
			return fmt.Errorf("spilled shuffle: %w", err)
		}
		return nil
	}
}

// open returns the spill file name in c.Work, opened once per bundle.
func (in *spillIn) open(c Config, name string) (*spill.File, error) {
	if f := in.files[name]; f != nil {
		return f, nil
	}
	if !isSpillName(name) {
		return nil, fmt.Errorf("%q is not a spill file name", name)
	}
	f, err := spill.Open(filepath.Join(c.Work, name))
	if err != nil {
		return nil, err
	}
	if in.files == nil {
		in.files = map[string]*spill.File{}
	}
	in.files[name] = f
	return f, nil
}

// iterOf is an iterator over chunks.
func iterOf(chunks [][]byte) func(*[]byte) bool {
	return func(c *[]byte) bool {
		if len(chunks) == 0 {
			return false
		}
		*c, chunks = chunks[0], chunks[1:]
		return true
	}
}

// close closes the files in has opened.
func (in *spillIn) close() {
	for _, f := range in.files {
		f.Close()
	}
	in.files = nil
}
