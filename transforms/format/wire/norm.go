package wire

import (
	"bufio"
	"encoding/binary"
	"fmt"
	"io"
	"math"
	"slices"

	"github.com/neardup/neardup/transforms/format/rank"
)

// A document shard (the first pass's copy of one segment of an input file)
// is a file of records, one per good document of the segment, in line order:
//
//	uvarint line index | uvarint length | rank | uvarint id length | id |
//	uvarint text length | normalized text
//
// The length is the document's (record.Doc.Len: its text's bytes before
// normalization), the rank its record.Doc.Rank (a byte 0 for the zero Key,
// else 1 and its two words, 8 bytes each). The line index is below MaxLines, and the id and the text take at most
// MaxNormField bytes each.

// MaxNormField bounds the id and the text of a normalized record.
const MaxNormField = 1 << 31

// NormRecord is a record of a document shard. ID and Text share the
// buffer of the ReadNormRecord call that returned them.
type NormRecord struct {
	Index int64    // line index
	Len   int      // the document's length (record.Doc.Len)
	Rank  rank.Key // the document's rank (record.Doc.Rank)
	ID    []byte
	Text  []byte // normalized text
}

// AppendNormHead appends a normalized record without its text, whose
// length is textLen, to dst: the writer can then write the text from where
// it is.
func AppendNormHead(dst []byte, index int64, length int, r rank.Key, id string, textLen int) []byte {
	dst = binary.AppendUvarint(dst, uint64(index))
	dst = binary.AppendUvarint(dst, uint64(length))
	dst = appendRank(dst, r)
	dst = appendString(dst, id)
	return binary.AppendUvarint(dst, uint64(textLen))
}

// AppendNormRecord appends a normalized record to dst.
func AppendNormRecord(dst []byte, index int64, length int, r rank.Key, id string, norm []byte) []byte {
	return append(AppendNormHead(dst, index, length, r, id, len(norm)), norm...)
}

// ReadNormRecord reads the next record of r whose line index only selects
// (every record if only is nil), skipping the others without copying their
// text. The record's ID and Text go to *buf, which it grows as needed. At
// the end of r it returns io.EOF; a record cut short fails with ErrCorrupt
// and io.ErrUnexpectedEOF, a malformed one or a read error with ErrCorrupt.
func ReadNormRecord(r *bufio.Reader, buf *[]byte, only func(int64) bool) (NormRecord, error) {
	for {
		index, err := binary.ReadUvarint(r)
		if err == io.EOF {
			return NormRecord{}, io.EOF
		}
		if err == nil && index >= MaxLines {
			return NormRecord{}, fmt.Errorf("%w: normalized record: line index %d", ErrCorrupt, index)
		}
		var length, idLen uint64
		if err == nil {
			length, err = readUvarint(r)
		}
		if err == nil && length > math.MaxInt {
			return NormRecord{}, fmt.Errorf("%w: normalized record: length %d", ErrCorrupt, length)
		}
		var rk rank.Key
		if err == nil {
			rk, err = readRank(r)
		}
		if err == nil {
			idLen, err = readUvarint(r)
		}
		if err == nil && idLen > MaxNormField {
			return NormRecord{}, fmt.Errorf("%w: normalized record: id too long", ErrCorrupt)
		}
		if err != nil {
			return NormRecord{}, normErr(err)
		}
		keep := only == nil || only(int64(index))
		if keep {
			err = readAppend(r, buf, 0, int(idLen))
		} else {
			err = discard(r, int(idLen))
		}
		var textLen uint64
		if err == nil {
			textLen, err = readUvarint(r)
		}
		if err == nil && textLen > MaxNormField {
			return NormRecord{}, fmt.Errorf("%w: normalized record: text too long", ErrCorrupt)
		}
		if err == nil && !keep {
			err = discard(r, int(textLen))
		}
		if err != nil {
			return NormRecord{}, normErr(err)
		}
		if !keep {
			continue
		}
		if err := readAppend(r, buf, int(idLen), int(textLen)); err != nil {
			return NormRecord{}, normErr(err)
		}
		b := *buf
		return NormRecord{Index: int64(index), Len: int(length), Rank: rk, ID: b[:idLen:idLen], Text: b[idLen:]}, nil
	}
}

// readAppend sets *buf to its first keep bytes and the next n bytes of r.
// It reads into *buf as it is when it has the room (the steady state);
// else it grows *buf as the bytes arrive, so that a corrupt length costs no
// more memory than the bytes r holds.
func readAppend(r *bufio.Reader, buf *[]byte, keep, n int) error {
	b := (*buf)[:keep]
	if cap(b)-keep >= n {
		*buf = b[:keep+n]
		return readFull(r, b[keep:keep+n])
	}
	for n > 0 {
		if len(b) == cap(b) {
			b = slices.Grow(b, min(n, 64<<10))
		}
		step := min(n, cap(b)-len(b))
		m, err := io.ReadFull(r, b[len(b):len(b)+step])
		b = b[:len(b)+m]
		n -= m
		if err != nil {
			*buf = b
			if err == io.EOF {
				err = io.ErrUnexpectedEOF
			}
			return err
		}
	}
	*buf = b
	return nil
}

// readUvarint is binary.ReadUvarint inside a record: the end of r is
// io.ErrUnexpectedEOF.
func readUvarint(r *bufio.Reader) (uint64, error) {
	v, err := binary.ReadUvarint(r)
	if err == io.EOF {
		err = io.ErrUnexpectedEOF
	}
	return v, err
}

// readFull fills b from r; the end of r is io.ErrUnexpectedEOF.
func readFull(r io.Reader, b []byte) error {
	_, err := io.ReadFull(r, b)
	if err == io.EOF {
		err = io.ErrUnexpectedEOF
	}
	return err
}

// discard skips n bytes of r; the end of r is io.ErrUnexpectedEOF.
func discard(r *bufio.Reader, n int) error {
	_, err := r.Discard(n)
	if err == io.EOF {
		err = io.ErrUnexpectedEOF
	}
	return err
}

func normErr(err error) error {
	return fmt.Errorf("%w: normalized record: %w", ErrCorrupt, err)
}

// readRank reads a rank (appendRank) inside a record of r.
func readRank(r *bufio.Reader) (rank.Key, error) {
	tag, err := r.ReadByte()
	if err != nil {
		if err == io.EOF {
			err = io.ErrUnexpectedEOF
		}
		return rank.Key{}, err
	}
	switch tag {
	case 0:
		return rank.Key{}, nil
	case 1:
		b, err := r.Peek(16)
		if err != nil {
			if err == io.EOF {
				err = io.ErrUnexpectedEOF
			}
			return rank.Key{}, err
		}
		k := rank.Key{Hi: binary.LittleEndian.Uint64(b), Lo: binary.LittleEndian.Uint64(b[8:])}
		_, err = r.Discard(16)
		return k, err
	}
	return rank.Key{}, fmt.Errorf("%w: normalized record: rank tag %d", ErrCorrupt, tag)
}
