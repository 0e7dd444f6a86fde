package greedy

import (
	"cmp"
	"math"

	"github.com/neardup/neardup/transforms/format/wire"
	"github.com/neardup/neardup/transforms/internal/extsort"
)

// The records of ClusterSpill, with their codecs.

// memberRec is a member as added: its document, root, length and where its
// ID is in the ID file; removed once its marks are known. Sorted by
// document.
type memberRec struct {
	doc, root uint64
	len       int64
	idOff     uint64
	idLen     uint32
	removed   bool
}

var memberCodec = &extsort.Codec[memberRec]{
	Size: 37,
	Put: func(b []byte, v *memberRec) {
		le.PutUint64(b, v.doc)
		le.PutUint64(b[8:], v.root)
		le.PutUint64(b[16:], uint64(v.len))
		le.PutUint64(b[24:], v.idOff)
		le.PutUint32(b[32:], v.idLen)
		putBool(b[36:], v.removed)
	},
	Get: func(b []byte, v *memberRec) {
		*v = memberRec{doc: le.Uint64(b), root: le.Uint64(b[8:]), len: int64(le.Uint64(b[16:])),
			idOff: le.Uint64(b[24:]), idLen: le.Uint32(b[32:]), removed: b[36] != 0}
	},
	Cmp: func(a, b memberRec) int { return cmp.Compare(a.doc, b.doc) },
}

// markCodec sorts the documents marked removed beforehand (a link of a
// document with itself).
var markCodec = &extsort.Codec[uint64]{
	Size: 8,
	Put:  func(b []byte, v *uint64) { le.PutUint64(b, *v) },
	Get:  func(b []byte, v *uint64) { *v = le.Uint64(b) },
	Cmp:  cmp.Compare[uint64],
}

// linkKey is a link between two members: its documents, its place k in the
// order links were added, its contained end (wire.Match.Inside) and what
// the cluster lines say of it. Sorted by a, b and k, the order of
// DecideComponents' links within a component.
type linkKey struct {
	a, b, k     uint64
	jaccard     float32
	containment float32
	hamming     uint8
	method      wire.Method
	inside      wire.Side
}

func putLinkInfo(b []byte, v *linkKey) {
	le.PutUint32(b, math.Float32bits(v.jaccard))
	b[4], b[5], b[6] = v.hamming, byte(v.method), byte(v.inside)
	le.PutUint32(b[7:], math.Float32bits(v.containment))
}

func getLinkInfo(b []byte, v *linkKey) {
	v.jaccard, v.hamming, v.method = math.Float32frombits(le.Uint32(b)), b[4], wire.Method(b[5])
	v.inside, v.containment = wire.Side(b[6]), math.Float32frombits(le.Uint32(b[7:]))
}

var linkKeyCodec = &extsort.Codec[linkKey]{
	Size: 24 + linkInfoSize,
	Put: func(b []byte, v *linkKey) {
		le.PutUint64(b, v.a)
		le.PutUint64(b[8:], v.b)
		le.PutUint64(b[16:], v.k)
		putLinkInfo(b[24:], v)
	},
	Get: func(b []byte, v *linkKey) {
		v.a, v.b, v.k = le.Uint64(b), le.Uint64(b[8:]), le.Uint64(b[16:])
		getLinkInfo(b[24:], v)
	},
	Cmp: func(x, y linkKey) int {
		if c := cmp.Compare(x.a, y.a); c != 0 {
			return c
		}
		if c := cmp.Compare(x.b, y.b); c != 0 {
			return c
		}
		return cmp.Compare(x.k, y.k)
	},
}

// linkInfoSize is the size of a link's record in the link file, at its id
// times linkInfoSize: what the cluster lines say of it.
const linkInfoSize = 11

var linkInfoCodec = &extsort.Codec[linkKey]{Size: linkInfoSize, Put: putLinkInfo, Get: getLinkInfo}

// The classes of outRec, in the order a component's records are read.
const (
	classMember  = iota // every member, to count the component first
	classCluster        // a kept member, or a member removed for one
	classOutside        // a member removed for none, not removed beforehand
)

// outRec is a member's decision, sorted by its component's root, class,
// group (the kept member of its cluster) and document: the order of the
// cluster lines and removals of DecideComponents and Clusters.
type outRec struct {
	root       uint64
	class      uint8
	group, doc uint64
	idOff      uint64
	idLen      uint32
	via, link  uint64
}

var outCodec = &extsort.Codec[outRec]{
	Size: 53,
	Put: func(b []byte, v *outRec) {
		le.PutUint64(b, v.root)
		b[8] = v.class
		le.PutUint64(b[9:], v.group)
		le.PutUint64(b[17:], v.doc)
		le.PutUint64(b[25:], v.idOff)
		le.PutUint32(b[33:], v.idLen)
		le.PutUint64(b[37:], v.via)
		le.PutUint64(b[45:], v.link)
	},
	Get: func(b []byte, v *outRec) {
		*v = outRec{root: le.Uint64(b), class: b[8], group: le.Uint64(b[9:]), doc: le.Uint64(b[17:]),
			idOff: le.Uint64(b[25:]), idLen: le.Uint32(b[33:]), via: le.Uint64(b[37:]), link: le.Uint64(b[45:])}
	},
	Cmp: func(x, y outRec) int {
		if c := cmp.Compare(x.root, y.root); c != 0 {
			return c
		}
		if c := cmp.Compare(x.class, y.class); c != 0 {
			return c
		}
		if c := cmp.Compare(x.group, y.group); c != 0 {
			return c
		}
		return cmp.Compare(x.doc, y.doc)
	},
}
