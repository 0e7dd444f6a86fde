package wire

import (
	"encoding/binary"
	"fmt"
)

// Key set chunks carry the keys of an audit's new batch to the scan of the
// index, which keeps only what meets them (a semi-join). A chunk is a tag
// byte, then fixed-width little-endian values: for KeySetExact the exact
// keys of documents, for KeySetBlock the low KeyBits bits of MinHash band
// keys (as block entries carry them), for KeySetSim (SimHash table key,
// fingerprint) pairs, for KeySetContain (containment key, index.ContainFP
// of the document's size and the key's band id) pairs.
const (
	KeySetExact   = 'E'
	KeySetBlock   = 'B'
	KeySetSim     = 'S'
	KeySetContain = 'C'
)

// NewKeySet starts a key set chunk of kind tag (KeySetExact, KeySetBlock,
// KeySetSim or KeySetContain).
func NewKeySet(tag byte) []byte { return []byte{tag} }

// AppendKey appends a key to a KeySetExact or KeySetBlock chunk.
func AppendKey(chunk []byte, key uint64) []byte { return binary.LittleEndian.AppendUint64(chunk, key) }

// AppendKeyPair appends a (key, value) pair to a KeySetSim or
// KeySetContain chunk.
func AppendKeyPair(chunk []byte, key, fp uint64) []byte {
	return binary.LittleEndian.AppendUint64(binary.LittleEndian.AppendUint64(chunk, key), fp)
}

// DecodeKeySet calls key with every key of a KeySetExact or KeySetBlock
// chunk, or pair with every pair of a KeySetSim or KeySetContain chunk,
// and returns the tag.
// A chunk without a known tag or with a partial value is ErrCorrupt, and
// then nothing is passed on.
func DecodeKeySet(chunk []byte, key func(tag byte, k uint64), pair func(tag byte, k, fp uint64)) (byte, error) {
	if len(chunk) == 0 {
		return 0, fmt.Errorf("key set: %w: empty chunk", ErrCorrupt)
	}
	tag, c := chunk[0], chunk[1:]
	switch tag {
	case KeySetExact, KeySetBlock:
		if len(c)%8 != 0 {
			return tag, fmt.Errorf("key set: %w: %d bytes of keys", ErrCorrupt, len(c))
		}
		for ; len(c) > 0; c = c[8:] {
			key(tag, binary.LittleEndian.Uint64(c))
		}
	case KeySetSim, KeySetContain:
		if len(c)%16 != 0 {
			return tag, fmt.Errorf("key set: %w: %d bytes of key pairs", ErrCorrupt, len(c))
		}
		for ; len(c) > 0; c = c[16:] {
			pair(tag, binary.LittleEndian.Uint64(c), binary.LittleEndian.Uint64(c[8:]))
		}
	default:
		return tag, fmt.Errorf("key set: %w: tag %q", ErrCorrupt, tag)
	}
	return tag, nil
}
