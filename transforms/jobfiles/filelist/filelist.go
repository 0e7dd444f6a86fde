// Package filelist is the job's input file list as Beam collections: in,
// the files' paths by index, written to a file manifest (WriteManifest) that
// the stages read at run time, not carried in the job graph; out, the
// files as (index, path) in branches (Files, New), and the stages that
// apply a DoFn per file (Files.PerFile, ByFile). In an audit, files from
// IndexFileBase on are the index shards' sources (IsIndexed).
package filelist

import (
	"context"
	"slices"

	"github.com/apache/beam/sdks/v2/go/pkg/beam"
	"github.com/apache/beam/sdks/v2/go/pkg/beam/register"

	"github.com/neardup/neardup/transforms/format/wire"
	"github.com/neardup/neardup/transforms/internal/rounds"
	"github.com/neardup/neardup/transforms/internal/workfiles"
)

// Ref names one input file and its index in the sorted input list.
type Ref = workfiles.FileRef

func init() {
	register.DoFn3x1[context.Context, []byte, func(int64, string), error](&readManifestFn{})
	register.Function2x0(noSeen)
	register.Emitter1[[]byte]()
	register.Emitter2[int64, []byte]()
	register.Emitter2[int64, string]()
	register.Emitter2[string, int64]()
	register.Iter1[string]()
	register.Iter1[[]byte]()
}

// WriteManifest writes refs as the file manifest name in dir (any Beam
// filesystem) and returns its path.
func WriteManifest(ctx context.Context, dir, name string, refs []Ref) (string, error) {
	return workfiles.WriteManifest(ctx, dir, name, refs)
}

// readManifestFn emits the files of the manifest Path whose index belongs
// to branch I of N (index mod N).
//
// In: an impulse. Out: (file index, path).
type readManifestFn struct {
	Path string
	N, I int
}

func (fn *readManifestFn) ProcessElement(ctx context.Context, _ []byte, emit func(int64, string)) error {
	return workfiles.EachManifestLine(ctx, fn.Path, func(i int, p string) {
		if i%fn.N == fn.I {
			emit(int64(i), p)
		}
	})
}

// SeenCol returns f.Seen, or an empty collection of its type when it is unset.
func (f Files) SeenCol(s beam.Scope) beam.PCollection {
	if f.Seen.IsValid() {
		return f.Seen
	}
	return beam.ParDo(s, noSeen, beam.CreateList(s, [][]byte{}))
}

func noSeen([]byte, func(int64, []byte)) {}

// Files is the input file list as (index, path), read from a file manifest
// at run time and split into branches by index mod the number of branches.
// A stage that reads files runs once per branch, so that a runner that
// gives each stage a single bundle (Prism) still reads several files at
// once; on a cluster the branches are merely more transforms. Outputs do
// not depend on the split.
type Files struct {
	Manifest string // the file manifest's path
	Branches []beam.PCollection
	// Seen is what the first pass read of each file: Read's inputs (file
	// index, summary.InputFile JSON), which the summary lists. Unset (a test
	// of one stage), the summary lists no inputs.
	Seen beam.PCollection
}

// New creates the file collections of the manifest at path, in n
// branches; each branch reads the manifest on its own, so that a runner
// runs the branches as separate stages.
func New(s beam.Scope, manifest string, n int) Files {
	s = s.Scope("Files")
	f := Files{Manifest: manifest}
	for b := range max(n, 1) {
		f.Branches = append(f.Branches, beam.ParDo(s, &readManifestFn{Path: manifest, N: max(n, 1), I: b}, beam.Impulse(s)))
	}
	return f
}

// PerFile applies dofn, which has nOut outputs, to each branch: to the
// branch's files alone, or with cols (collections keyed by file index,
// split the same way) joined to them by CoGroupByKey. It returns each output
// flattened over the branches.
func (f Files) PerFile(s beam.Scope, nOut int, dofn any, cols ...beam.PCollection) []beam.PCollection {
	return rounds.FlattenEach(s, f.perBranch(s, nOut, dofn, cols...))
}

// perBranch is PerFile without the flatten: output i of branch b is outs[i][b].
func (f Files) perBranch(s beam.Scope, nOut int, dofn any, cols ...beam.PCollection) [][]beam.PCollection {
	outs := make([][]beam.PCollection, nOut)
	n := len(f.Branches)
	if len(cols) > 0 && f.Seen.IsValid() {
		// A stage joined to the first pass's outputs may read the input
		// files: it waits for their seen-NNNNN.json (see input.ReadSeen).
		cols = slices.Concat([]beam.PCollection{beam.Flatten(s, cols[0], beam.ParDo(s, WaitFor, f.Seen))}, cols[1:])
	}
	for b, files := range f.Branches {
		in := files
		if len(cols) > 0 {
			joined := []beam.PCollection{files}
			for _, c := range cols {
				if n > 1 {
					c = beam.ParDo(s, &rounds.Branch{N: n, I: b}, c)
				}
				joined = append(joined, c)
			}
			in = beam.CoGroupByKey(s, joined...)
		}
		for i, o := range beam.ParDoN(s, dofn, in) {
			outs[i] = append(outs[i], o)
		}
	}
	return outs
}

// ByFile applies dofn to col (keyed by file index) grouped by file with one
// plain GroupByKey, whose values a runner may stream to the DoFn; dofn is
// called only for files that have values. Such DoFns find the paths they
// need in the file manifest (workfiles.FilePaths), and work on a file on another
// goroutine while the next file arrives (see docpool.AheadEmits), so a runner that
// gives the stage one bundle (Prism) still uses every core, without the
// copies of col that PerFile's branches would cost.
func ByFile(s beam.Scope, dofn any, col beam.PCollection) []beam.PCollection {
	return beam.ParDoN(s, dofn, beam.GroupByKey(s, col))
}

// WaitFor emits nothing. Flattened into the input of a grouped stage, it
// makes the stage wait until the collection it reads (Files.Seen) is
// complete: every seen-NNNNN.json is then written.
func WaitFor(int64, []byte, func(int64, []byte)) {}

// IndexFileBase is the file index of the first index shard in an audit's
// document numbers: indexed document d of shard k is wire.DocNum(
// IndexFileBase+k, its record index in its source). New documents have file
// indexes below it, so in every pair (A < B) of a new and an indexed
// document A is the new one.
const IndexFileBase = 1 << 23

// IsIndexed reports whether document number d is an indexed document.
func IsIndexed(d wire.Doc) bool { return wire.File(d) >= IndexFileBase }
