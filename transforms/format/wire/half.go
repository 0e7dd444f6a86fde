package wire

import (
	"encoding/binary"
	"fmt"
)

// A half-join record carries the Info of a pair's first document to the
// partition of its second documents, once per first document and
// destination rather than once per pair:
//
//	uvarint n (> 0) | n second documents (uvarint Doc each) | Info (AppendInfo)

// AppendHalf appends the half-join record of first document a and its
// second documents docs to chunk. It panics if docs is empty: such a
// record would not decode.
func AppendHalf(chunk []byte, a *Info, docs []Doc) []byte {
	if len(docs) == 0 {
		panic("wire: half-join record without second documents")
	}
	chunk = binary.AppendUvarint(chunk, uint64(len(docs)))
	for _, d := range docs {
		chunk = binary.AppendUvarint(chunk, d)
	}
	return AppendInfo(chunk, a)
}

// DecodeHalf decodes the half-join record at the start of chunk: the first
// document's info into a (as DecodeInfo, reusing a.Sketch), the second
// documents appended to docs[:0]. It returns the rest of the chunk and the
// documents.
func DecodeHalf(chunk []byte, a *Info, docs []Doc) ([]byte, []Doc, error) {
	docs = docs[:0]
	n, k := binary.Uvarint(chunk)
	if k <= 0 || n == 0 || n > uint64(len(chunk)) {
		return nil, docs, fmt.Errorf("%w: half-join record count", ErrCorrupt)
	}
	c := chunk[k:]
	for range n {
		d, k := binary.Uvarint(c)
		if k <= 0 {
			return nil, docs[:0], fmt.Errorf("%w: half-join record document", ErrCorrupt)
		}
		docs = append(docs, d)
		c = c[k:]
	}
	c, err := DecodeInfo(c, a)
	if err != nil {
		return nil, docs[:0], err
	}
	return c, docs, nil
}
