package wire

import (
	"encoding/binary"
	"fmt"
	"math"
)

// SizedEntry is one entry of the containment blocking shuffle: a band key
// (ensemble.Levels), the document, its number of distinct shingles and the
// band's id. The bucket of a (Key, Band) applies the size-ratio rule
// (candidates.AppendContained), so the entry carries the size.
type SizedEntry struct {
	Key  uint64
	Doc  Doc
	Size uint32
	Band uint8
}

// A SizedEntry chunk is packed like an Entry chunk (all entries of one
// input file, whose index heads the chunk): an entry is the key's low
// KeyBits bits, the zigzag line difference against the entry before, the
// size (uvarint) and the band id (1 byte): about 9 bytes.

// AppendSizedEntry appends e to chunk like AppendEntry: prev holds the
// document of the chunk's last entry, and is reset when chunk is empty. It
// panics if the chunk's entries are of another file.
func AppendSizedEntry(chunk []byte, e SizedEntry, prev *Doc) []byte {
	chunk = appendEntryHead(chunk, e.Key, e.Doc, prev)
	chunk = appendLine(chunk, e.Doc, prev)
	chunk = binary.AppendUvarint(chunk, uint64(e.Size))
	return append(chunk, e.Band)
}

// AppendSizedEntries decodes every SizedEntry of chunk and appends it to
// dst; keys keep their low KeyBits bits. A size above math.MaxUint32 or a
// cut entry is ErrCorrupt, and on error dst is returned as it was.
func AppendSizedEntries(dst []SizedEntry, chunk []byte) ([]SizedEntry, error) {
	return decodeChunk(dst, chunk, func(c []byte, file int, line *int64) (SizedEntry, []byte, error) {
		if len(c) < KeyBits/8 {
			return SizedEntry{}, nil, fmt.Errorf("%w: short sized entry", ErrCorrupt)
		}
		var k [8]byte
		copy(k[:], c[:KeyBits/8])
		c, err := nextLine(c[KeyBits/8:], line)
		if err != nil {
			return SizedEntry{}, nil, err
		}
		size, n := binary.Uvarint(c)
		if n <= 0 || size > math.MaxUint32 || len(c) == n {
			return SizedEntry{}, nil, fmt.Errorf("%w: sized entry size or band", ErrCorrupt)
		}
		e := SizedEntry{Key: binary.LittleEndian.Uint64(k[:]), Doc: DocNum(file, *line), Size: uint32(size), Band: c[n]}
		return e, c[n+1:], nil
	})
}
