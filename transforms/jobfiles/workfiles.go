package jobfiles

import (
	"cmp"
	"context"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"syscall"
	"time"

	"github.com/neardup/neardup/transforms/format/index"
	"github.com/neardup/neardup/transforms/format/output"
	"github.com/neardup/neardup/transforms/format/wire"
	"github.com/neardup/neardup/transforms/internal/workfiles"
	"github.com/neardup/neardup/transforms/objects"
)

// Info shards carry the document infos (id, length, SimHash, MinHash
// sketch) from the signature pass to verification without a shuffle.
//
// The infos are a third of the bytes the signature pass produces, and a
// shuffle would hold them in the runner until the second verification
// join, twice over since two joins read them: on Prism that cost more than
// a quarter of a 1.4M-document run. Instead the signature pass writes the
// infos of each segment of an input file (Config.SegmentBits) to one shard
// in Config.Work (in the index's shard format: checksummed blocks, records
// in line order), and the verification joins, keyed by segment, read the
// shard of their segment. A segment without a signed document has no
// shard, and no join asks for it: its documents have no block keys, so no
// candidate pair.
// Config.Work must therefore be readable and writable by every worker: a
// local directory on one machine, a bucket (gs://...) on a cluster.

// StopWriters ends the writing of files by every job of this process, for
// good: from now on no goroutine of a job (a unit read ahead, a shard
// being written, a spill or spool file) creates, writes or renames a file,
// and those under way are waited for, up to timeout; it reports whether
// they ended. A command stopped by a signal calls it before it removes
// its directories (see workfiles.Stop).
func StopWriters(timeout time.Duration) bool { return workfiles.Stop(timeout) }

// WorkDir is a stage's handle on the job's work directory: what every
// DoFn that reads or writes work files holds, in place of the job's
// Config. Its methods make the work files: info shards (here), document
// shards (package docshards), spill files (spilled.To), spool copies (package spool)
// and the readers of the inputs that check them against the first pass's
// reading (package input).
type WorkDir struct {
	Dir         string // Config.Work: every worker must be able to read and write it
	SegmentBits int    // Config.SegmentBits or its default, never 0
	Spill       bool   // Config.Spill
	Spool       string // Config.Spool
	Workers     int    // Config.Workers: goroutines over a file's documents (0: GOMAXPROCS)
}

// Segment returns the key of the segment of document d (wire.Segment).
func (w WorkDir) Segment(d wire.Doc) int { return wire.Segment(d, w.SegmentBits) }

// WorkDirName is the work directory pipeline.Build uses, inside the output
// directory, when Config.Work is not set.
const WorkDirName = ".tmp-work"

// InputsManifest is the file manifest of a job's inputs in its work
// directory (see workfiles.WriteManifest), and CheckManifest an audit's
// manifest of the files its exact checks read: the new files and the
// indexed documents' sources.
const (
	InputsManifest = "inputs.tsv"
	CheckManifest  = "check-inputs.tsv"
)

// InfoShardName is the name of the info shard of segment index (within
// the file) of input file index file: names sort by file, then segment.
func InfoShardName(file, index int) string { return fmt.Sprintf("info-%05d-%06d.bin", file, index) }

// SegmentShardName is infoShardName of the segment with key seg.
func (w WorkDir) SegmentShardName(seg int) string {
	return InfoShardName(wire.SegmentFile(seg, w.SegmentBits))
}

// IsWorkFile reports whether name is a file the job writes in its work
// directory: an info shard, a document shard (see DocShardName), a spill
// file (see spilled.To), the first pass's
// reading of an input (SeenName), or the temporary name of one being
// written.
func IsWorkFile(name string) bool {
	if rest, ok := strings.CutPrefix(name, ".tmp-"); ok {
		name = rest[:max(strings.LastIndexByte(rest, '-'), 0)]
	}
	if name == InputsManifest || name == CheckManifest || IsSpillName(name) || IsDocShardName(name) || IsPartName(name) {
		return true
	}
	if rest, ok := strings.CutPrefix(name, "info-"); ok {
		f, seg, ok := strings.Cut(rest, "-")
		file, err := strconv.Atoi(f)
		index, err2 := strconv.Atoi(strings.TrimSuffix(seg, ".bin"))
		if ok && err == nil && err2 == nil && file >= 0 && index >= 0 && name == InfoShardName(file, index) {
			return true
		}
	}
	for _, kind := range []struct {
		prefix, suffix string
		name           func(int) string
	}{{"info-", ".bin", OldInfoShardName}, {"seen-", ".json", SeenName}} {
		digits, ok := strings.CutPrefix(name, kind.prefix)
		digits, ok2 := strings.CutSuffix(digits, kind.suffix)
		if n, err := strconv.Atoi(digits); ok && ok2 && err == nil && n >= 0 && name == kind.name(n) {
			return true
		}
	}
	return false
}

// DocShardName is the name of the document shard of segment index (within
// the file) of input file index file: names sort by file, then segment.
func DocShardName(file, index int) string { return fmt.Sprintf("docs-%05d-%06d.bin", file, index) }

// IsDocShardName reports whether name is a document shard's.
func IsDocShardName(name string) bool {
	rest, ok := strings.CutPrefix(name, "docs-")
	f, seg, ok2 := strings.Cut(rest, "-")
	file, err := strconv.Atoi(f)
	index, err2 := strconv.Atoi(strings.TrimSuffix(seg, ".bin"))
	return ok && ok2 && err == nil && err2 == nil && file >= 0 && index >= 0 && name == DocShardName(file, index)
}

// SeenName is the name of the first pass's InputFile of input file index
// file in the work directory.
func SeenName(file int) string { return fmt.Sprintf("seen-%05d.json", file) }

// SpillPattern matches the names of spill files: spill-KIND-PID-N.bin.
const SpillPattern = "spill-*.bin"

// IsSpillName reports whether name is a spill file's.
func IsSpillName(name string) bool {
	ok, _ := filepath.Match(SpillPattern, name)
	return ok && !strings.ContainsAny(name, `/\`)
}

// OldInfoShardName is the name of a whole file's info shard in neardup
// before segments: a failed run's work directory may still hold one.
func OldInfoShardName(file int) string { return fmt.Sprintf("info-%05d.bin", file) }

// infoRecord is the record of in in its file's info shard.
func infoRecord(in *wire.Info) index.Record {
	return index.Record{Line: wire.Line(in.Doc), ID: in.ID, Len: in.Len, SimHash: in.SimHash, Sketch: in.Sketch, Shingles: in.Shingles}
}

// sketchBlock is the size of the blocks readInfoShard copies sketches into.
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
func writeInfoShard(ctx context.Context, dir string, file, index int, path string, shard *RecordShard) error {
	err := shard.Write(ctx, dir, InfoShardName(file, index), path)
	if err == nil {
		return nil
	}
	return WorkFileError("info shard "+InfoShardName(file, index), dir, err, shard.size())
}

// WorkFileError is the error of writing what (a work file named in it) to
// the work directory dir, needing about size bytes: without the temporary
// path the error holds, and with a hint when the disk is full.
func WorkFileError(what, dir string, err error, size int64) error {
	var pe *fs.PathError
	if errors.As(err, &pe) {
		err = pe.Err // its path is a temporary name, or what's own
	}
	hint := ""
	if errors.Is(err, syscall.ENOSPC) || errors.Is(err, syscall.EDQUOT) {
		hint = "; set TMPDIR to a larger disk"
	}
	return fmt.Errorf("writing %s in %s: %w (needs about %s%s)", what, dir, err, AboutBytes(size), hint)
}

// size estimates the bytes of the shard of the records (a little more).
func (s *RecordShard) size() int64 {
	var n int64
	for i := range s.recs {
		r := &s.recs[i]
		n += 40 + int64(len(r.ID)+len(r.Sketch)+8*len(r.Bands))
	}
	return n
}

// AboutBytes formats n bytes, rounded up to a kB or MB.
func AboutBytes(n int64) string {
	if n < 1<<20 {
		return fmt.Sprintf("%d kB", (n+1<<10-1)>>10)
	}
	return fmt.Sprintf("%d MB", (n+1<<20-1)>>20)
}

// ReadInfoShard reads the info shard of the segment with key seg from
// w.Dir. A missing shard is an error: a join reads only the segments of
// documents that have block keys, and so infos.
func (w WorkDir) ReadInfoShard(ctx context.Context, seg int) (*InfoTable, error) {
	bits := w.SegmentBits
	file, n := wire.SegmentFile(seg, bits)
	path := objects.JoinPath(w.Dir, w.SegmentShardName(seg))
	rd, rc, err := OpenShard(ctx, path)
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
			SimHash: r.SimHash, Sketch: sketch, Shingles: r.Shingles})
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

// InfoSegments writes the infos of one input file, which the signature
// pass gets in line order (see docpool.Map), to the info shards of its
// segments: a segment's shard is written, on a goroutine of its own, when
// the first info of a later segment comes. The pass so holds the infos of
// at most two segments, the one it fills and the one being written,
// however long the file. A nil *infoSegments writes nothing.
type InfoSegments struct {
	ctx        context.Context
	dir, path  string
	file, bits int

	index   int          // the segment (within the file) of cur
	cur     *RecordShard // its infos so far
	writing chan error   // the write in progress, if not nil
	spare   []index.Record
	err     error
	Most    int // the most infos held at once, cur and the one being written
}

func (w WorkDir) NewInfoSegments(ctx context.Context, file int, path string) *InfoSegments {
	return &InfoSegments{ctx: ctx, dir: w.Dir, path: path, file: file, bits: w.SegmentBits, cur: &RecordShard{kind: workfiles.KindInfoShards}}
}

// Add adds the info in, whose line must not be before the last one's.
func (s *InfoSegments) Add(in *wire.Info) {
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
func (s *InfoSegments) flush() {
	s.wait()
	if s.err != nil || len(s.cur.recs) == 0 {
		return
	}
	shard, seg := s.cur, s.index
	s.cur, s.spare = &RecordShard{recs: s.spare[:0], kind: workfiles.KindInfoShards}, shard.recs // spare: held until written
	done := make(chan error, 1)
	s.writing = done
	go func() { done <- writeInfoShard(s.ctx, s.dir, s.file, seg, s.path, shard) }()
}

// wait waits for the write in progress, if any.
func (s *InfoSegments) wait() {
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
func (s *InfoSegments) Close(err error) error {
	if s == nil {
		return err
	}
	if err == nil {
		s.flush()
	}
	s.wait()
	return cmp.Or(err, s.err)
}

// RemoveAll removes the info shards, the document shards (see
// DocShardName), the spill files and the first
// pass's readings of the inputs (and leftovers of their temporary names)
// from w.Dir, and the directory itself when it is local and left empty.
func (w WorkDir) RemoveAll(ctx context.Context) error {
	if w.Dir == "" {
		return nil
	}
	if err := RemoveMatching(ctx, w.Dir, "info-*.bin", ".tmp-info-*", "docs-*.bin", ".tmp-docs-*", "part-*.jsonl", ".tmp-part-*", SpillPattern, "seen-*.json", ".tmp-seen-*", InputsManifest, CheckManifest, ".tmp-"+InputsManifest+"-*", ".tmp-"+CheckManifest+"-*"); err != nil {
		return fmt.Errorf("work directory: %w", err)
	}
	if !strings.Contains(w.Dir, "://") {
		_ = os.Remove(w.Dir) // only if empty; a command's own work directory is its to remove
	}
	return nil
}

// PartName is the name of the part of index (within the file) of input
// file index file's shard of kind.
func PartName(kind string, file, index int) string {
	return fmt.Sprintf("part-%s-%05d-%06d.jsonl", kind, file, index)
}

// IsPartName reports whether name is a part's.
func IsPartName(name string) bool {
	for _, kind := range []string{output.KindPairs, output.KindClusters, output.KindRejects} {
		var file, index int
		if _, err := fmt.Sscanf(name, "part-"+kind+"-%05d-%06d.jsonl", &file, &index); err == nil && name == PartName(kind, file, index) {
			return true
		}
	}
	return false
}

// WriteAtomically is workfiles.Write with the test hook of fault
// injection (stage "Write").
func WriteAtomically(ctx context.Context, dir, name string, write func(w io.Writer) error) error {
	return workfiles.Write(ctx, dir, name, "", write, true)
}
