package jobfiles

import (
	"cmp"
	"context"
	"fmt"
	"io"
	"slices"

	"github.com/apache/beam/sdks/v2/go/pkg/beam/io/filesystem"

	"github.com/neardup/neardup/transforms/format/index"
	"github.com/neardup/neardup/transforms/internal/workfiles"
	"github.com/neardup/neardup/transforms/match/blockkeys"
	"github.com/neardup/neardup/transforms/objects"
)

// PreShardName is the name of the pre-shard of segment index (within the
// file) of input file index file: names sort by file, then segment.
func PreShardName(file, index int) string { return fmt.Sprintf(".sig-%05d-%06d.bin", file, index) }

// NewPreShard returns a pre-shard to fill, or nil when the job writes no
// index (indexOut "").
func NewPreShard(indexOut string) *RecordShard {
	if indexOut == "" {
		return nil
	}
	return &RecordShard{kind: workfiles.KindSigShards}
}

// A RecordShard collects the records of one input file for a shard in the
// index format: a pre-shard (above) or an info shard (workfiles.go). A nil
// *RecordShard collects and writes nothing.
type RecordShard struct {
	recs []index.Record
	kind string   // the kind of work file it is written as (workfiles.Count)
	keys []uint64 // AddDoc's scratch
}

// add appends a copy of r.
func (s *RecordShard) add(r *index.Record) {
	if s == nil {
		return
	}
	rec := *r
	rec.Sketch, rec.Bands, rec.Contain = slices.Clone(r.Sketch), slices.Clone(r.Bands), slices.Clone(r.Contain)
	s.recs = append(s.recs, rec)
}

// Write writes the records, in line order, to dir/name as the shard of the
// input file source, atomically.
func (s *RecordShard) Write(ctx context.Context, dir, name, source string) error {
	if s == nil {
		return nil
	}
	if dir == "" {
		return fmt.Errorf("writing %s of %s: no directory", name, source)
	}
	slices.SortFunc(s.recs, func(a, b index.Record) int { return cmp.Compare(uint64(a.Line), uint64(b.Line)) })
	return workfiles.Write(ctx, dir, name, s.kind, func(w io.Writer) error {
		iw := index.NewWriter(w, source)
		for i := range s.recs {
			if err := iw.Add(&s.recs[i]); err != nil {
				return err
			}
		}
		_, err := iw.Close()
		return err
	}, true)
}

// AddDoc adds the index record of a signed document to pre.
func (pre *RecordShard) AddDoc(d *blockkeys.Doc) {
	if pre == nil {
		return
	}
	rec := index.NewRecord(&d.Info, d.Exact, d.Bands)
	pre.keys = pre.keys[:0]
	for _, k := range d.Contain { // in band id order
		pre.keys = append(pre.keys, k.Hash)
	}
	rec.Contain = pre.keys
	pre.add(&rec)
}

// OpenShard opens the shard in the index format at path; close c when done.
func OpenShard(ctx context.Context, path string) (rd *index.Reader, c io.Closer, err error) {
	rc, err := workfiles.Open(ctx, path)
	if err != nil {
		return nil, nil, err
	}
	if rd, err = index.NewReader(rc, path); err != nil {
		rc.Close()
		return nil, nil, err
	}
	return rd, rc, nil
}

// RemoveMatching removes the files of dir that match any of globs, on dir's
// Beam filesystem; nothing if that filesystem cannot remove files.
func RemoveMatching(ctx context.Context, dir string, globs ...string) error {
	fsys, err := filesystem.New(ctx, objects.JoinPath(dir, "x"))
	if err != nil {
		return err
	}
	defer fsys.Close()
	rm, ok := fsys.(filesystem.Remover)
	if !ok {
		return nil
	}
	for _, glob := range globs {
		names, err := fsys.List(ctx, objects.JoinPath(dir, glob))
		if err != nil {
			return fmt.Errorf("listing %s: %w", dir, err)
		}
		for _, name := range names {
			if err := rm.Remove(ctx, name); err != nil {
				return fmt.Errorf("removing %s: %w", name, err)
			}
		}
	}
	return nil
}
