package record

import "encoding/binary"

// zstdFrames follows the frames of a zstd stream (RFC 8878) by their
// headers and block headers, without decoding them, to tell where the
// last whole frame ends: the decoder reads ahead, and 1 to 3 bytes after
// the last frame, too few for a frame's magic number, are a cut frame to
// it. Writes are the stream's bytes, in order; they never fail.
type zstdFrames struct {
	n    int64 // bytes seen
	end  int64 // the offset just after the last whole frame (0: none yet)
	lost bool  // the bytes are not zstd framing: end is the last known

	part     zstdPart
	skip     int64   // bytes to skip before the next part
	head     [4]byte // the part's bytes so far
	nh, want int     // how many it has, and needs
	checksum bool    // the frame ends with a 4-byte checksum
	fhd      byte    // the frame header descriptor
}

// zstdPart is what the next bytes of a zstd stream are.
type zstdPart int8

const (
	zstdMagicPart zstdPart = iota // a frame's magic number (4 bytes)
	zstdFHD                       // a frame header descriptor (1 byte)
	zstdBlock                     // a block header (3 bytes)
	zstdSkipSize                  // a skippable frame's size (4 bytes)
	zstdFrameEnds                 // the frame ends once skip is skipped
	zstdLastBlock                 // the last block's content is being skipped
)

func (z *zstdFrames) Write(p []byte) (int, error) {
	n := len(p)
	for len(p) > 0 && !z.lost {
		if z.skip > 0 {
			k := min(z.skip, int64(len(p)))
			z.skip -= k
			z.n += k
			p = p[k:]
			if z.skip > 0 {
				break
			}
			z.skipped()
			continue
		}
		if z.want == 0 {
			z.want = z.part.size()
		}
		k := copy(z.head[z.nh:z.want], p)
		z.nh += k
		z.n += int64(k)
		p = p[k:]
		if z.nh == z.want {
			z.parsed(z.head[:z.want])
			z.nh, z.want = 0, 0
		}
	}
	return n, nil
}

// size is how many bytes the part needs before parsed can read it.
func (p zstdPart) size() int {
	switch p {
	case zstdFHD:
		return 1
	case zstdBlock:
		return 3
	}
	return 4
}

// parsed reads the part in b, whole.
func (z *zstdFrames) parsed(b []byte) {
	switch z.part {
	case zstdMagicPart:
		switch m := binary.LittleEndian.Uint32(b); {
		case m == 0xFD2FB528:
			z.part = zstdFHD
		case m&0xFFFFFFF0 == 0x184D2A50:
			z.part = zstdSkipSize
		default:
			z.lost = true
		}
	case zstdFHD:
		z.fhd = b[0]
		z.checksum = z.fhd&4 != 0
		single := z.fhd&0x20 != 0
		rest := int64([4]int{0, 1, 2, 4}[z.fhd&3])  // the dictionary id
		rest += int64([4]int{0, 2, 4, 8}[z.fhd>>6]) // the content size
		if single {
			if z.fhd>>6 == 0 {
				rest++ // a 1-byte content size
			}
		} else {
			rest++ // the window descriptor
		}
		z.part, z.skip = zstdBlock, rest
	case zstdBlock:
		h := uint32(b[0]) | uint32(b[1])<<8 | uint32(b[2])<<16
		size := int64(h >> 3)
		switch (h >> 1) & 3 {
		case 1: // RLE: one byte
			size = 1
		case 3: // reserved
			z.lost = true
			return
		}
		z.skip = size
		if h&1 != 0 {
			z.part = zstdLastBlock
		}
		if size == 0 {
			z.skipped()
		}
	case zstdSkipSize:
		z.part, z.skip = zstdFrameEnds, int64(binary.LittleEndian.Uint32(b))
		if z.skip == 0 {
			z.skipped()
		}
	}
}

// skipped moves on once what was to be skipped is.
func (z *zstdFrames) skipped() {
	switch z.part {
	case zstdLastBlock:
		if z.checksum {
			z.part, z.skip = zstdFrameEnds, 4
			return
		}
		z.frameEnds()
	case zstdFrameEnds:
		z.frameEnds()
	}
	// zstdBlock: the header skipped or a block's content: the next block
}

func (z *zstdFrames) frameEnds() {
	z.end, z.part = z.n, zstdMagicPart
}

// short reports whether src, read to its end, holds 1 to 3 bytes after
// the last whole frame, which z (src's frames) has followed.
func (z *zstdFrames) short(src *sourceReader) bool {
	if z == nil || !src.eof || src.err != nil || z.lost || z.end == 0 || z.part != zstdMagicPart {
		return false
	}
	k := src.n - z.end
	return k > 0 && k < 4
}
