// Package spilled carries the shuffles of a job on one machine
// (jobfiles.WorkDir.Spill) as the names of spill files in the work
// directory: Group and Col on the job's side, Out and In in the DoFns.
package spilled

import (
	"crypto/rand"
	"encoding/hex"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"sync/atomic"

	"github.com/apache/beam/sdks/v2/go/pkg/beam"
	"github.com/apache/beam/sdks/v2/go/pkg/beam/register"

	"github.com/neardup/neardup/transforms/format/spill"
	"github.com/neardup/neardup/transforms/internal/workfiles"
	"github.com/neardup/neardup/transforms/jobfiles"
	"io"
)

func init() {
	register.DoFn3x0[int64, []byte, func(int64, []byte)](&spillFn{})
}

// Spilled shuffles (Config.Spill, one machine). A local runner keeps every
// element of a shuffle in memory until the stage after it has read all of
// it, whatever the rounds: a stage emits all of its rounds at once, and the
// block entries and the half-join records are most of the memory a large
// run holds. So on one machine the large shuffles carry file
// names instead of chunks: each DoFn bundle (or signed file) that emits
// into one appends its chunks to a spill file of its own in the work directory
// (package spill: the chunks, then an index of their keys) and, once the
// file is closed, emits (key, file name) once for each key it wrote. The
// runner groups those names by key as it grouped the chunks, and the DoFn
// that reads the group reads the key's chunks from the named files. What
// the job holds of a spilled shuffle is then the groups being worked on;
// the page cache holds the rest. The files go with the work directory.
//
// The smaller shuffles that grow with the input (the exact keys, the
// matches, Clusters' shuffles, the cluster and reject lines) are spilled by
// one more step before their GroupByKey (Group). Apart from those
// steps the graph is the same as without spilling, so the stages, their
// rounds and their outputs are too.

// Group is beam.GroupByKey of the (key, chunk) elements of cols,
// flattened; with w.Spill the chunks first go to spill files of kind
// (spillFn), so that the runner groups their names and the DoFn that reads
// a group reads it with an In. The smaller shuffles, whose producers emit
// their chunks as they go, are spilled this way: a runner that runs the
// producer and spillFn in one bundle (the direct runner, one bundle for
// the job) holds none of their chunks.
func Group(s beam.Scope, w jobfiles.WorkDir, kind string, cols ...beam.PCollection) beam.PCollection {
	return beam.GroupByKey(s, Col(s, w, kind, cols...))
}

// Col is cols flattened, and with w.Spill their chunks written to
// spill files of kind and replaced by the files' names: the input of a
// (Co)GroupByKey whose DoFn reads its groups with an In.
func Col(s beam.Scope, w jobfiles.WorkDir, kind string, cols ...beam.PCollection) beam.PCollection {
	col := cols[0]
	if len(cols) > 1 {
		col = beam.Flatten(s, cols...)
	}
	if w.Spill {
		col = beam.ParDo(s, &spillFn{Work: w, Kind: kind}, col)
	}
	return col
}

// spillFn writes the chunks of one bundle to a spill file of Kind and
// emits (key, file name) once per key at the end of the bundle.
type spillFn struct {
	Work jobfiles.WorkDir
	Kind string
	out  *Out
}

func (fn *spillFn) Setup() { fn.out = To(fn.Work, fn.Kind) }

// ProcessElement spills chunk; a write error fails the bundle in
// FinishBundle.
func (fn *spillFn) ProcessElement(key int64, chunk []byte, _ func(int64, []byte)) {
	fn.out.add(key, chunk)
}

func (fn *spillFn) FinishBundle(emit func(int64, []byte)) error {
	return fn.out.Finish(emit)
}

// seq numbers the spill files of this process.
var seq atomic.Int64

// tag tells this process's spill files from those of processes on other
// machines of a cluster that share the work directory, whose pids may be
// the same.
var tag = func() string {
	var b [4]byte
	_, _ = rand.Read(b[:])
	return hex.EncodeToString(b[:])
}()

// Name returns a new spill file name of kind, unique among the processes
// sharing a work directory: spill-KIND-PID-TAG-N.bin.
func Name(kind string) string {
	return fmt.Sprintf("spill-%s-%d-%s-%d.bin", kind, os.Getpid(), tag, seq.Add(1))
}

// Out is one DoFn bundle's side of a spilled shuffle: nil unless
// jobfiles.WorkDir.Spill, and then a spill file of its own, opened at its first
// chunk.
type Out struct {
	dir, kind string
	name      string
	w         *spill.Writer
	keys      map[int64]bool
	err       error
}

// To returns the writing side of spilled shuffle kind (a file name
// prefix), or nil when w.Spill is off: a nil Out passes chunks on.
func To(w jobfiles.WorkDir, kind string) *Out {
	if !w.Spill {
		return nil
	}
	return &Out{dir: w.Dir, kind: kind}
}

// Wrap returns what to emit chunks to: emit itself when o is nil, else o's
// spill file.
func (o *Out) Wrap(emit func(int64, []byte)) func(int64, []byte) {
	if o == nil {
		return emit
	}
	return o.add
}

func (o *Out) add(key int64, chunk []byte) {
	if o.err != nil {
		return
	}
	if o.w == nil {
		o.name = Name(o.kind)
		path := filepath.Join(o.dir, o.name)
		var f io.WriteCloser
		if f, o.err = workfiles.Create(path, workfiles.KindSpills); o.err != nil {
			return
		}
		o.w = spill.NewWriter(path, f)
		o.keys = map[int64]bool{}
	}
	o.keys[key] = true
	o.err = o.w.Add(int(key), chunk)
}

// Finish closes o's file and emits (key, file name) for each key it holds,
// in key order: what the runner shuffles instead of the chunks. Its error
// names the work directory and about the space needed. A nil o, or one
// given no chunk, emits nothing.
func (o *Out) Finish(emit func(int64, []byte)) error {
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
		return jobfiles.WorkFileError(name, o.dir, err, size)
	}
	sorted := make([]int64, 0, len(keys))
	for k := range keys {
		sorted = append(sorted, k)
	}
	slices.Sort(sorted)
	for _, k := range sorted {
		emit(k, []byte(name))
	}
	workfiles.CountNames(len(sorted) * len(name))
	return nil
}

// Finish ends a bundle of a DoFn that emits into the spilled
// shuffle o: after err, the bundle's error, it removes o's file; else it
// finishes it, emitting the file's names to emit.
func Finish(err error, emit func(int64, []byte), o *Out) error {
	if err != nil {
		o.abort()
		return err
	}
	return o.Finish(emit)
}

// abort removes the file being written, after an error elsewhere.
func (o *Out) abort() {
	if o != nil && o.w != nil {
		o.w.Abort()
		o.w, o.keys = nil, nil
	}
}

// In is a DoFn's reading side of spilled shuffles: the spill files it
// has opened, kept open for the bundle.
type In struct {
	files map[string]*spill.File
	buf   []byte
}

// Each calls do with every chunk of group key: the chunks of chunks, or
// with w.Spill the key's chunks in the spill files chunks names. A chunk
// is valid only during its call.
func (in *In) Each(w jobfiles.WorkDir, key int, chunks func(*[]byte) bool, do func([]byte) error) error {
	next, failed := in.Iter(w, key, chunks)
	var chunk []byte
	for next(&chunk) {
		if err := do(chunk); err != nil {
			return err
		}
	}
	return failed()
}

// Collect returns copies of the chunks of group key (see each), which the
// caller may keep.
func (in *In) Collect(w jobfiles.WorkDir, key int, chunks func(*[]byte) bool) ([][]byte, error) {
	var out [][]byte
	err := in.Each(w, key, chunks, func(b []byte) error {
		out = append(out, slices.Clone(b))
		return nil
	})
	return out, err
}

// Iter returns an iterator over the chunks of group key: chunks itself, or
// with w.Spill one that reads the key's chunks from the spill files chunks
// names, each valid until the next call. It stops at the first error,
// which failed then returns.
func (in *In) Iter(w jobfiles.WorkDir, key int, chunks func(*[]byte) bool) (next func(*[]byte) bool, failed func() error) {
	if !w.Spill {
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
				if f, err = in.open(w, string(name)); err != nil {
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

// open returns the spill file name in w.Dir, opened once per bundle.
func (in *In) open(w jobfiles.WorkDir, name string) (*spill.File, error) {
	if f := in.files[name]; f != nil {
		return f, nil
	}
	if !jobfiles.IsSpillName(name) {
		return nil, fmt.Errorf("%q is not a spill file name", name)
	}
	f, err := spill.Open(filepath.Join(w.Dir, name))
	if err != nil {
		return nil, err
	}
	if in.files == nil {
		in.files = map[string]*spill.File{}
	}
	in.files[name] = f
	return f, nil
}

// GroupReader is embedded in the DoFns that read groups of Group's
// shuffles: their spill files are opened once for the DoFn (each open
// reads the file's index, which lists every chunk of every key, so once
// per group would read it once per key) and closed at its Teardown (FinishBundle would have to take
// the DoFn's emitters).
type GroupReader struct{ In In }

func (g *GroupReader) Teardown() { g.In.Close() }

// IterOf is an iterator over chunks.
func IterOf(chunks [][]byte) func(*[]byte) bool {
	return func(c *[]byte) bool {
		if len(chunks) == 0 {
			return false
		}
		*c, chunks = chunks[0], chunks[1:]
		return true
	}
}

// Close closes the files in has opened.
func (in *In) Close() {
	for _, f := range in.files {
		f.Close()
	}
	in.files = nil
}
