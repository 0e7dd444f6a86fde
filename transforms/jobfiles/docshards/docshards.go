// Package docshards carries each segment's good documents, normalized,
// from the first pass to the passes that shingle them (signatures, exact
// checks), so that those passes work by segment, not by input file: a
// 1-file input signs on as many workers as it has segments, and no pass
// holds more than a segment of one file, however long the file. In: the
// first pass's documents of one input file, in line order (Writer); out:
// a segment's documents (SegmentDocs), or those the exact checks select
// (CheckDocs), as a docpool.Reader.
//
// The first pass writes the shard of a segment (jobfiles.WorkDir.SegmentBits
// lines of one file) to the work directory as it reads the segment,
// streaming; a shard (jobfiles.DocShardName) is a sequence of normalized
// records (wire.AppendNormHead: line index, length, id, normalized text) in
// line order, and the first pass tells the signature pass how many it holds
// (a segment marker, Writer.Finish), which the signature pass checks.
// Neither pass parses or normalizes a document again, and neither reads the
// input itself, so a file changed after the first pass changes nothing.
package docshards

import (
	"bufio"
	"cmp"
	"context"
	"errors"
	"fmt"
	"io"
	"io/fs"

	"github.com/neardup/neardup/transforms/format/rank"
	"github.com/neardup/neardup/transforms/format/record"
	"github.com/neardup/neardup/transforms/format/wire"
	"github.com/neardup/neardup/transforms/internal/docpool"
	"github.com/neardup/neardup/transforms/internal/workfiles"
	"github.com/neardup/neardup/transforms/jobfiles"
	"github.com/neardup/neardup/transforms/jobfiles/filelist"
	"github.com/neardup/neardup/transforms/jobfiles/input"
	"github.com/neardup/neardup/transforms/objects"
)

// Writer writes the document shards of one input file, whose documents
// the first pass gets in line order (see docpool.Map): each segment's
// shard is streamed to the work directory as its documents come, and
// closed when the first document of a later segment comes. A nil *Writer
// writes nothing.
type Writer struct {
	ctx        context.Context
	dir, path  string
	file, bits int

	index  int            // the segment (within the file) being written
	n      int64          // its documents so far
	pw     *io.PipeWriter // to the goroutine writing its shard, if not nil
	bw     *bufio.Writer
	done   chan error
	buf    []byte
	bytes  int64
	counts [][2]int64 // (segment index, documents) of every shard written
	err    error
}

// NewWriter returns the document shard writer of input file index file
// (path) in w, or nil when the job has no work directory (a stage tested
// alone): the later passes then read the input itself.
func NewWriter(ctx context.Context, w jobfiles.WorkDir, file int, path string) *Writer {
	if w.Dir == "" {
		return nil
	}
	return &Writer{ctx: ctx, dir: w.Dir, path: path, file: file, bits: w.SegmentBits}
}

// Add appends a document, whose line must not be before the last one's.
func (s *Writer) Add(line int64, length int, r rank.Key, id string, norm []byte) {
	if s == nil || s.err != nil {
		return
	}
	seg := int(line >> s.bits)
	if s.pw != nil && seg != s.index {
		if seg < s.index {
			s.err = fmt.Errorf("document shards of %s: line %d after lines of segment %d: not in line order", s.path, line, s.index)
			return
		}
		if s.closeShard(); s.err != nil {
			return
		}
	}
	if s.pw == nil {
		s.open(seg)
	}
	s.buf = wire.AppendNormHead(s.buf[:0], line, length, r, id, len(norm))
	s.bw.Write(s.buf) // an error comes back from the writing goroutine at closeShard
	s.bw.Write(norm)
	s.n++
	s.bytes += int64(len(s.buf) + len(norm))
}

// open starts the shard of segment index seg on a goroutine that copies
// what add writes into the shard's temporary name (see workfiles.Write),
// renamed into place once closeShard has closed the pipe.
func (s *Writer) open(seg int) {
	pr, pw := io.Pipe()
	done := make(chan error, 1)
	name := jobfiles.DocShardName(s.file, seg)
	go func() {
		err := workfiles.Write(s.ctx, s.dir, name, workfiles.KindDocShards, func(w io.Writer) error {
			_, err := io.Copy(w, pr)
			return err
		}, false)
		pr.CloseWithError(cmp.Or(err, io.ErrClosedPipe)) // unblocks add after a failed open
		done <- err
	}()
	s.index, s.n, s.bytes, s.pw, s.done = seg, 0, 0, pw, done
	if s.bw == nil {
		s.bw = bufio.NewWriterSize(pw, 256<<10)
	} else {
		s.bw.Reset(pw)
	}
}

// closeShard ends the shard being written and waits for it to be in place.
func (s *Writer) closeShard() {
	ferr := s.bw.Flush()
	s.pw.Close()
	err := <-s.done
	s.pw, s.done = nil, nil
	if err == nil {
		err = ferr
	}
	if err != nil {
		s.err = jobfiles.WorkFileError("document shard "+jobfiles.DocShardName(s.file, s.index), s.dir, err, s.bytes)
		return
	}
	s.counts = append(s.counts, [2]int64{int64(s.index), s.n})
}

// Finish closes the last shard and emits the marker of every shard written,
// keyed by segment; after an error in the writes it emits none and
// returns the first.
func (s *Writer) Finish(emit func(int64, []byte)) error {
	if s == nil {
		return nil
	}
	if s.pw != nil && s.err == nil {
		s.closeShard()
	}
	if s.err != nil {
		s.Abort()
		return s.err
	}
	for _, c := range s.counts {
		seg := wire.Segment(wire.DocNum(s.file, c[0]<<s.bits), s.bits)
		emit(int64(seg), wire.AppendMarker(nil, c[1], s.path))
	}
	return nil
}

// Abort drops the shard being written (its temporary name is removed).
func (s *Writer) Abort() {
	if s != nil && s.pw != nil {
		s.pw.CloseWithError(errors.New("document shard abandoned"))
		<-s.done
		s.pw, s.done = nil, nil
	}
}

// SegmentDocs is the docpool.Reader of the segment with key seg, from its
// document shard in w.Dir, which must hold want documents (any number if
// want < 0); only, if not nil, selects documents by line index, and then
// the count is not checked.
func SegmentDocs(ctx context.Context, w jobfiles.WorkDir, seg int, want int64, only func(int64) bool) docpool.Reader {
	return func(doc func(*docpool.Doc) error, _ func(record.Reject) error) error {
		file, index := wire.SegmentFile(seg, w.SegmentBits)
		n, err := readDocShard(ctx, objects.JoinPath(w.Dir, jobfiles.DocShardName(file, index)), only, doc)
		if err == nil && only == nil && want >= 0 && n != want {
			err = fmt.Errorf("document shard of input file %d, segment %d: %d documents, the first pass wrote %d: %w", file, index, n, want, wire.ErrCorrupt)
		}
		return err
	}
}

// readDocShard calls doc for every document of the shard at path that only
// (if not nil) selects, and returns how many it read.
func readDocShard(ctx context.Context, path string, only func(int64) bool, doc func(*docpool.Doc) error) (int64, error) {
	rc, err := workfiles.Open(ctx, path)
	if err != nil {
		return 0, fmt.Errorf("document shard: %w", err)
	}
	defer rc.Close()
	r := bufio.NewReaderSize(rc, 1<<20)
	var buf []byte
	var item docpool.Doc
	var n int64
	for {
		rec, err := wire.ReadNormRecord(r, &buf, only)
		if err == io.EOF {
			return n, nil
		}
		if err != nil {
			return n, fmt.Errorf("document shard %s: %w", path, err)
		}
		n++
		item = docpool.Doc{ID: string(rec.ID), TextBytes: rec.Text, Index: rec.Index, Len: rec.Len, Rank: rec.Rank, Normalized: true}
		if err := doc(&item); err != nil {
			return n, err
		}
	}
}

// CheckDocs is the docpool.Reader of the documents under key that opt.Only
// selects, for the exact checks (see near.CheckKey): from the segment's document
// shard in w.Dir, or parsed from path when there is none: an audit's
// indexed source, or a stage tested without the first pass.
func CheckDocs(ctx context.Context, w jobfiles.WorkDir, key int, path string, opt record.Options) docpool.Reader {
	file, index := wire.SegmentFile(key, w.SegmentBits)
	parse := docpool.Parsed(input.Reader(ctx, w, file, path, opt))
	if w.Dir == "" || filelist.IsIndexed(wire.DocNum(file, 0)) {
		return parse
	}
	return func(doc func(*docpool.Doc) error, reject func(record.Reject) error) error {
		n, err := readDocShard(ctx, objects.JoinPath(w.Dir, jobfiles.DocShardName(file, index)), opt.Only, doc)
		if n == 0 && errors.Is(err, fs.ErrNotExist) {
			return parse(doc, reject)
		}
		return err
	}
}
