// Package recshards writes and reads the shards in the index format
// (package index: checksummed blocks, records in line order) that the
// signature pass writes of each input file: in, a signed document's record
// (Shard.AddDoc) or its info (InfoWriter.Add); out, the pre-shards that
// indexing.WriteIndex sorts into the index (PreShardName) and the info
// shards that verification reads by segment (ReadInfoShard, InfoTable).
// Open opens any shard in the index format.
package recshards

import (
	"cmp"
	"context"
	"fmt"
	"io"
	"slices"

	"github.com/neardup/neardup/transforms/format/index"
	"github.com/neardup/neardup/transforms/internal/workfiles"
	"github.com/neardup/neardup/transforms/match/blockkeys"
)

// PreShardName is the name of the pre-shard of segment index (within the
// file) of input file index file: names sort by file, then segment.
func PreShardName(file, index int) string { return fmt.Sprintf(".sig-%05d-%06d.bin", file, index) }

// NewPreShard returns a pre-shard to fill, or nil when the job writes no
// index (indexOut "").
func NewPreShard(indexOut string) *Shard {
	if indexOut == "" {
		return nil
	}
	return &Shard{kind: workfiles.KindSigShards}
}

// A Shard collects the records of one input file for a shard in the
// index format: a pre-shard (above) or an info shard (InfoWriter). A nil
// *Shard collects and writes nothing.
type Shard struct {
	recs []index.Record
	kind string   // the kind of work file it is written as (workfiles.Count)
	keys []uint64 // AddDoc's scratch
}

// add appends a copy of r.
func (s *Shard) add(r *index.Record) {
	if s == nil {
		return
	}
	rec := *r
	rec.Sketch, rec.Bands, rec.Contain = slices.Clone(r.Sketch), slices.Clone(r.Bands), slices.Clone(r.Contain)
	s.recs = append(s.recs, rec)
}

// Write writes the records, in line order, to dir/name as the shard of the
// input file source, atomically.
func (s *Shard) Write(ctx context.Context, dir, name, source string) error {
	if s == nil {
		return nil
	}
	if dir == "" {
		return fmt.Errorf("writing %s of %s: no directory", name, source)
	}
	slices.SortFunc(s.recs, func(a, b index.Record) int { return cmp.Compare(uint64(a.Line), uint64(b.Line)) })
	return workfiles.Write(ctx, dir, name, s.kind, func(w io.Writer) error {
		newWriter := index.NewWriter
		if s.kind == workfiles.KindInfoShards {
			newWriter = index.NewRankedWriter
		}
		iw := newWriter(w, source)
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
func (pre *Shard) AddDoc(d *blockkeys.Doc) {
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

// Open opens the shard in the index format at path; close c when done.
func Open(ctx context.Context, path string) (rd *index.Reader, c io.Closer, err error) {
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

// size estimates the bytes of the shard of the records (a little more).
func (s *Shard) size() int64 {
	var n int64
	for i := range s.recs {
		r := &s.recs[i]
		n += 40 + int64(len(r.ID)+len(r.Sketch)+8*len(r.Bands))
	}
	return n
}
