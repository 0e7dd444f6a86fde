package transforms

import (
	"reflect"

	"github.com/apache/beam/sdks/v2/go/pkg/beam"
	"github.com/apache/beam/sdks/v2/go/pkg/beam/register"
)

// FileRef names one input file and its index in the sorted input list.
type FileRef struct {
	Index int
	Path  string
}

func init() {
	beam.RegisterType(reflect.TypeFor[FileRef]())
	register.Function1x2(fileKV)
	register.Function2x0(noSeen)
	register.Emitter1[[]byte]()
	register.Emitter2[int, []byte]()
	register.Emitter2[string, int64]()
	register.Iter1[string]()
	register.Iter1[[]byte]()
}

func fileKV(f FileRef) (int, string) { return f.Index, f.Path }

// seen returns f.Seen, or an empty collection of its type when it is unset.
func (f Files) seen(s beam.Scope) beam.PCollection {
	if f.Seen.IsValid() {
		return f.Seen
	}
	return beam.ParDo(s, noSeen, beam.CreateList(s, [][]byte{}))
}

func noSeen([]byte, func(int, []byte)) {}

// Files is the input file list as (index, path), whole and split into
// branches by index mod the number of branches. A stage that reads files
// runs once per branch, so that a runner that gives each stage a single
// bundle (Prism) still reads several files at once; on a cluster the
// branches are merely more transforms. Outputs do not depend on the split.
type Files struct {
	All      beam.PCollection
	Branches []beam.PCollection
	Paths    map[int]string // by file index
	// Seen is what the first pass read of each file: Read's inputs (file
	// index, output.InputFile JSON), which the summary lists. Unset (a test
	// of one stage), the summary lists no inputs.
	Seen beam.PCollection
}

// NewFiles creates the file collections for files (file i has index i), in
// n branches.
func NewFiles(s beam.Scope, files []string, n int) Files {
	refs := make([]FileRef, len(files))
	for i, path := range files {
		refs[i] = FileRef{Index: i, Path: path}
	}
	return NewFileRefs(s, refs, n)
}

// NewFileRefs is NewFiles for files with given indexes.
func NewFileRefs(s beam.Scope, refs []FileRef, n int) Files {
	n = max(1, min(n, len(refs)))
	f := Files{Paths: map[int]string{}}
	split := make([][]FileRef, n)
	for _, r := range refs {
		split[r.Index%n] = append(split[r.Index%n], r)
		f.Paths[r.Index] = r.Path
	}
	f.All = beam.ParDo(s, fileKV, beam.CreateList(s, refs))
	for b := range split {
		f.Branches = append(f.Branches, beam.ParDo(s, fileKV, beam.CreateList(s, split[b])))
	}
	return f
}

// perFile applies dofn, which has nOut outputs, to each branch: to the
// branch's files alone, or with cols (collections keyed by file index,
// split the same way) joined to them by CoGroupByKey. It returns each output
// flattened over the branches.
func (f Files) perFile(s beam.Scope, nOut int, dofn any, cols ...beam.PCollection) []beam.PCollection {
	return flattenEach(s, f.perBranch(s, nOut, dofn, cols...))
}

// flattenEach flattens each list of outs.
func flattenEach(s beam.Scope, outs [][]beam.PCollection) []beam.PCollection {
	flat := make([]beam.PCollection, len(outs))
	for i := range outs {
		flat[i] = beam.Flatten(s, outs[i]...)
	}
	return flat
}

// perBranch is perFile without the flatten: output i of branch b is outs[i][b].
func (f Files) perBranch(s beam.Scope, nOut int, dofn any, cols ...beam.PCollection) [][]beam.PCollection {
	outs := make([][]beam.PCollection, nOut)
	n := len(f.Branches)
	for b, files := range f.Branches {
		in := files
		if len(cols) > 0 {
			joined := []beam.PCollection{files}
			for _, c := range cols {
				if n > 1 {
					c = beam.ParDo(s, &branchFn{N: n, I: b}, c)
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

// byFile applies dofn to col (keyed by file index) grouped by file with one
// plain GroupByKey, whose values a runner may stream to the DoFn; dofn is
// called only for files that have values. Such DoFns find the paths they
// need in Files.Paths, and work on a file on another goroutine while the
// next file arrives (see aheadEmits), so a runner that gives the stage one
// bundle (Prism) still uses every core, without the copies of col that
// perFile's branches would cost.
func byFile(s beam.Scope, dofn any, col beam.PCollection) []beam.PCollection {
	return beam.ParDoN(s, dofn, beam.GroupByKey(s, col))
}
