package index

import (
	"encoding/binary"
	"fmt"
	"hash/crc32"
	"io"
)

// ShardAt reads chosen records of a version 3 shard by ranged reads: for
// each block, two entries of the block directory and the block.
type ShardAt struct {
	rangedFile // Read counts the bytes read from the file
	s          Shard
	blocks     int64
	dir        int64 // offset of the block directory
	version    uint32
	rec        Record
}

// NewShardAt returns the reader of the shard s (its manifest entry) in ra;
// name names it in errors. It reads the shard's header and, from version
// 6, its footer: a shard whose footer is not the CRC-32C the manifest
// records, or one without a footer where s says it has one, is
// ErrForeign, so that no record of another file is read for s.
func NewShardAt(ra io.ReaderAt, name string, s Shard) (*ShardAt, error) {
	sa := &ShardAt{rangedFile: rangedFile{ra: ra, kind: "index shard", name: name, size: s.Bytes}, s: s, blocks: numBlocks(s.Records)}
	h, err := sa.read(0, int64(len(magic))+4, "header")
	if err != nil {
		return nil, err
	}
	if string(h[:len(magic)]) != string(magic) {
		return nil, sa.corrupt("not an index shard (bad magic %q)", h[:len(magic)])
	}
	v := binary.LittleEndian.Uint32(h[len(magic):])
	if v < 3 || v > ShardVersion {
		return nil, fmt.Errorf("index shard %s: %w %d (lookups read versions 3 to %d; convert the index with `neardup index compact`)", name, ErrVersion, v, ShardVersion)
	}
	sa.version = v
	sa.dir = s.Bytes - dirEntry*(sa.blocks+1)
	switch {
	case v >= footerVersion:
		sa.dir -= footerLen
	case s.Footer:
		return nil, fmt.Errorf("index shard %s: %w (a shard of version %d, without the footer the files of its generation have)", name, ErrForeign, v)
	}
	if sa.dir < int64(len(magic))+4+trailerLen {
		return nil, sa.corrupt("%d bytes cannot hold %d records", s.Bytes, s.Records)
	}
	if v >= footerVersion {
		f, err := sa.read(s.Bytes-footerLen, footerLen, "footer")
		if err != nil {
			return nil, err
		}
		if err := checkFooter(sa.kind, name, f, s.CRC32C); err != nil {
			return nil, err
		}
	}
	return sa, nil
}

// Records calls fn with the records numbered ords (sorted, distinct) of
// the shard, in order. The record is reused from one call to the next.
func (sa *ShardAt) Records(ords []int64, fn func(ord int64, r *Record) error) error {
	for i := 0; i < len(ords); {
		if ords[i] < 0 || ords[i] >= sa.s.Records || i > 0 && ords[i] <= ords[i-1] {
			return fmt.Errorf("index shard %s: record %d of %d asked out of order or range", sa.name, ords[i], sa.s.Records)
		}
		b := ords[i] / BlockRecords
		j := i + 1
		for j < len(ords) && ords[j]/BlockRecords == b {
			j++
		}
		if err := sa.block(b, ords[i:j], fn); err != nil {
			return err
		}
		i = j
	}
	return nil
}

// block reads block b and calls fn with its records numbered ords.
func (sa *ShardAt) block(b int64, ords []int64, fn func(ord int64, r *Record) error) error {
	d, err := sa.read(sa.dir+dirEntry*b, 2*dirEntry, "block directory")
	if err != nil {
		return err
	}
	off0, ok0 := dirOffset(d, int(b))
	off1, ok1 := dirOffset(d[dirEntry:], int(b+1))
	if !ok0 || !ok1 || off0 < int64(len(magic))+4 || off1-off0 <= 8 || off1-off0-8 > maxBlock || off1 > sa.dir-trailerLen {
		return sa.corrupt("block directory entry %d is damaged", b)
	}
	blk, err := sa.read(off0, off1-off0, "block")
	if err != nil {
		return err
	}
	n := binary.LittleEndian.Uint32(blk)
	if int64(n) != off1-off0-8 || crc32.Checksum(blk[8:], castagnoli) != binary.LittleEndian.Uint32(blk[4:]) {
		return sa.corrupt("block %d: checksum mismatch", b)
	}
	rest := blk[8:]
	first := b * BlockRecords
	count := min(BlockRecords, sa.s.Records-first)
	for k := first; k < first+count; k++ {
		if rest, err = decodeRecord(rest, &sa.rec, sa.version); err != nil {
			return sa.corrupt("record %d does not decode", k)
		}
		if len(ords) > 0 && ords[0] == k {
			ords = ords[1:]
			if err := fn(k, &sa.rec); err != nil {
				return err
			}
		}
	}
	if len(rest) != 0 {
		return sa.corrupt("block %d holds more than %d records", b, count)
	}
	return nil
}
