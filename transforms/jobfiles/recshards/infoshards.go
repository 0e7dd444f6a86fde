package recshards

import (
	"cmp"
	"context"
	"fmt"
	"slices"

	"github.com/neardup/neardup/transforms/format/index"
	"github.com/neardup/neardup/transforms/format/wire"
	"github.com/neardup/neardup/transforms/internal/workfiles"
	"github.com/neardup/neardup/transforms/jobfiles"
	"github.com/neardup/neardup/transforms/objects"
)

// Info shards carry the document infos (id, length, rank, SimHash, MinHash
// sketch) from the signature pass to verification without a shuffle.
//
// The infos are a third of the bytes the signature pass produces, and a
// shuffle would hold them in the runner until the second verification
// join, twice over since two joins read them: on Prism that cost more than
// a quarter of a 1.4M-document run. Instead the signature pass writes the
// infos of each segment of an input file (jobfiles.WorkDir.SegmentBits)
// to one shard in the work directory (jobfiles.InfoShardName; in the
// index's shard format, of index.RankedShardVersion: checksummed blocks,
// records in line order), and
// the verification joins, keyed by segment, read the shard of their
// segment. A segment without a signed document has no shard, and no join
// asks for it: its documents have no block keys, so no candidate pair.
// The work directory must therefore be readable and writable by every
// worker: a local directory on one machine, a bucket (gs://...) on a
// cluster.

// infoRecord is the record of in in its file's info shard.
func infoRecord(in *wire.Info) index.Record {
	return index.Record{Line: wire.Line(in.Doc), ID: in.ID, Len: in.Len, SimHash: in.SimHash, Sketch: in.Sketch, Shingles: in.Shingles, Rank: in.Rank}
}

// sketchBlock is the size of the blocks ReadInfoShard copies sketches into.
const sketchBlock = 64 << 10

// InfoTable is the content of one info shard: infos in line order.
type InfoTable struct {
	Infos []wire.Info
	// at is, for each document number from the first info's on, 1 + the
	// index of its info, or 0 if it has none: Find is two loads, where a
	// binary search over the infos missed the cache at every step.
	at []int32
}

// Find returns the info of document d, or nil if the shard has none.
func (t *InfoTable) Find(d wire.Doc) *wire.Info {
	if len(t.Infos) == 0 || d < t.Infos[0].Doc || d-t.Infos[0].Doc >= uint64(len(t.at)) {
		return nil
	}
	if i := t.at[d-t.Infos[0].Doc]; i > 0 {
		return &t.Infos[i-1]
	}
	return nil
}

// index fills t.at from t.Infos, which are sorted and of one segment.
func (t *InfoTable) index() {
	if len(t.Infos) == 0 {
		return
	}
	first := t.Infos[0].Doc
	t.at = make([]int32, t.Infos[len(t.Infos)-1].Doc-first+1)
	for i := range t.Infos {
		t.at[t.Infos[i].Doc-first] = int32(i + 1)
	}
}

// writeInfoShard writes the infos in shard of segment index of input file
// index file (path) to the segment's info shard in dir (the work directory).
// Unlike a spool copy, the job cannot go on without it: a shard that cannot
// be written is an error that names the directory and about the space the
// shard needs.
func writeInfoShard(ctx context.Context, dir string, file, index int, path string, shard *Shard) error {
	err := shard.Write(ctx, dir, jobfiles.InfoShardName(file, index), path)
	if err == nil {
		return nil
	}
	return jobfiles.WorkFileError("info shard "+jobfiles.InfoShardName(file, index), dir, err, shard.size())
}

// ReadInfoShard reads the info shard of the segment with key seg from
// w.Dir. A missing shard is an error: a join reads only the segments of
// documents that have block keys, and so infos.
func ReadInfoShard(ctx context.Context, w jobfiles.WorkDir, seg int) (*InfoTable, error) {
	bits := w.SegmentBits
	file, n := wire.SegmentFile(seg, bits)
	path := objects.JoinPath(w.Dir, w.SegmentShardName(seg))
	rd, rc, err := Open(ctx, path)
	if err != nil {
		return nil, fmt.Errorf("info shard of input file %d, lines %d to %d: %w", file, int64(n)<<bits, int64(n+1)<<bits-1, err)
	}
	defer rc.Close()
	t := &InfoTable{}
	var block []byte // the sketches are copied into blocks, not one allocation each
	err = rd.Each(func(r *index.Record) error {
		var sketch []byte
		if len(r.Sketch) == 0 {
			sketch = slices.Clone(r.Sketch) // nil or empty as read
		} else {
			if cap(block)-len(block) < len(r.Sketch) {
				block = make([]byte, 0, max(sketchBlock, len(r.Sketch)))
			}
			n := len(block)
			block = append(block, r.Sketch...)
			sketch = block[n:len(block):len(block)]
		}
		t.Infos = append(t.Infos, wire.Info{Doc: wire.DocNum(file, r.Line), ID: r.ID, Len: r.Len,
			SimHash: r.SimHash, Sketch: sketch, Shingles: r.Shingles, Rank: r.Rank})
		return nil
	})
	if err != nil {
		return nil, fmt.Errorf("info shard %s: %w", path, err)
	}
	if !slices.IsSortedFunc(t.Infos, func(a, b wire.Info) int { return cmp.Compare(a.Doc, b.Doc) }) {
		return nil, fmt.Errorf("info shard %s: %w: records out of line order", path, index.ErrCorrupt)
	}
	if len(t.Infos) > 0 && (wire.Segment(t.Infos[0].Doc, bits) != seg || wire.Segment(t.Infos[len(t.Infos)-1].Doc, bits) != seg) {
		return nil, fmt.Errorf("info shard %s: %w: lines of another segment", path, index.ErrCorrupt)
	}
	t.index()
	return t, nil
}

// InfoWriter writes the infos of one input file, which the signature
// pass gets in line order (see docpool.Map), to the info shards of its
// segments: a segment's shard is written, on a goroutine of its own, when
// the first info of a later segment comes. The pass so holds the infos of
// at most two segments, the one it fills and the one being written,
// however long the file. A nil *InfoWriter writes nothing.
type InfoWriter struct {
	ctx        context.Context
	dir, path  string
	file, bits int

	index   int        // the segment (within the file) of cur
	cur     *Shard     // its infos so far
	writing chan error // the write in progress, if not nil
	spare   []index.Record
	err     error
	Most    int // the most infos held at once, cur and the one being written
}

// NewInfoWriter returns the info shard writer of input file index file
// (path) in w.
func NewInfoWriter(ctx context.Context, w jobfiles.WorkDir, file int, path string) *InfoWriter {
	return &InfoWriter{ctx: ctx, dir: w.Dir, path: path, file: file, bits: w.SegmentBits, cur: &Shard{kind: workfiles.KindInfoShards}}
}

// Add adds the info in, whose line must not be before the last one's.
func (s *InfoWriter) Add(in *wire.Info) {
	if s == nil || s.err != nil {
		return
	}
	seg := int(wire.Line(in.Doc) >> s.bits)
	if len(s.cur.recs) > 0 && seg != s.index {
		if seg < s.index {
			s.err = fmt.Errorf("info shards of %s: line %d after lines of segment %d: not in line order", s.path, wire.Line(in.Doc), s.index)
			return
		}
		s.flush()
	}
	s.index = seg
	rec := infoRecord(in)
	s.cur.add(&rec)
	s.Most = max(s.Most, len(s.cur.recs)+len(s.spare))
}

// flush starts writing the current segment's shard, once the one before
// is written.
func (s *InfoWriter) flush() {
	s.wait()
	if s.err != nil || len(s.cur.recs) == 0 {
		return
	}
	shard, seg := s.cur, s.index
	s.cur, s.spare = &Shard{recs: s.spare[:0], kind: workfiles.KindInfoShards}, shard.recs // spare: held until written
	done := make(chan error, 1)
	s.writing = done
	go func() { done <- writeInfoShard(s.ctx, s.dir, s.file, seg, s.path, shard) }()
}

// wait waits for the write in progress, if any.
func (s *InfoWriter) wait() {
	if s.writing != nil {
		if err := <-s.writing; err != nil && s.err == nil {
			s.err = err
		}
		s.writing = nil
	}
	s.spare = s.spare[:0]
}

// Close writes the last segment's shard, unless the pass failed with
// err, and returns err or else the first error of the writes.
func (s *InfoWriter) Close(err error) error {
	if s == nil {
		return err
	}
	if err == nil {
		s.flush()
	}
	s.wait()
	return cmp.Or(err, s.err)
}
