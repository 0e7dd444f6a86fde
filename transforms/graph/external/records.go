package greedy

import (
	"cmp"
	"encoding/binary"

	"github.com/neardup/neardup/transforms/format/wire"
	"github.com/neardup/neardup/transforms/internal/extsort"
)

// The records of Stream's spilled decision, with their codecs. Ranks are
// positions in priority order (0 the highest); a group's leader is the
// highest-priority member of its exact group.

var le = binary.LittleEndian

func putBool(b []byte, v bool) {
	b[0] = 0
	if v {
		b[0] = 1
	}
}

// nodeRec is a node as added, sorted by priority; in rank order, the rank
// file.
type nodeRec struct {
	doc     uint64
	len     int64
	removed bool
}

func nodeCodec(longest bool) *extsort.Codec[nodeRec] {
	return &extsort.Codec[nodeRec]{
		Size: 17,
		Put: func(b []byte, v *nodeRec) {
			le.PutUint64(b, v.doc)
			le.PutUint64(b[8:], uint64(v.len))
			putBool(b[16:], v.removed)
		},
		Get: func(b []byte, v *nodeRec) {
			*v = nodeRec{doc: le.Uint64(b), len: int64(le.Uint64(b[8:])), removed: b[16] != 0}
		},
		Cmp: func(a, b nodeRec) int {
			if longest && a.len != b.len {
				return cmp.Compare(b.len, a.len)
			}
			return cmp.Compare(a.doc, b.doc)
		},
	}
}

// docRank is a node's rank, sorted by document.
type docRank struct {
	doc     uint64
	rank    uint32
	removed bool
}

var docRankCodec = &extsort.Codec[docRank]{
	Size: 13,
	Put: func(b []byte, v *docRank) {
		le.PutUint64(b, v.doc)
		le.PutUint32(b[8:], v.rank)
		putBool(b[12:], v.removed)
	},
	Get: func(b []byte, v *docRank) {
		*v = docRank{doc: le.Uint64(b), rank: le.Uint32(b[8:]), removed: b[12] != 0}
	},
	Cmp: func(a, b docRank) int {
		if c := cmp.Compare(a.doc, b.doc); c != 0 {
			return c
		}
		return cmp.Compare(a.rank, b.rank)
	},
}

// edge is a link (inside: its contained end, Link.Inside); once joined,
// with the ranks of its ends and whether they were removed beforehand.
// edgeByB sorts by its second document. Its record holds exact and inside
// in one byte (exact the low bit, inside the next two).
type edge struct {
	a, b, id           uint64
	ra, rb             uint32
	exact              bool
	inside             wire.Side
	aRemoved, bRemoved bool
}

func edgeCodec(order func(a, b edge) int) *extsort.Codec[edge] {
	return &extsort.Codec[edge]{
		Size: 35,
		Put: func(b []byte, v *edge) {
			le.PutUint64(b, v.a)
			le.PutUint64(b[8:], v.b)
			le.PutUint64(b[16:], v.id)
			le.PutUint32(b[24:], v.ra)
			le.PutUint32(b[28:], v.rb)
			putBool(b[32:], v.exact)
			b[32] |= byte(v.inside&3) << 1
			putBool(b[33:], v.aRemoved)
			putBool(b[34:], v.bRemoved)
		},
		Get: func(b []byte, v *edge) {
			*v = edge{a: le.Uint64(b), b: le.Uint64(b[8:]), id: le.Uint64(b[16:]),
				ra: le.Uint32(b[24:]), rb: le.Uint32(b[28:]),
				exact: b[32]&1 != 0, inside: wire.Side(b[32]>>1) & 3, aRemoved: b[33] != 0, bRemoved: b[34] != 0}
		},
		Cmp: order,
	}
}

func compareEdges(x, y edge) int {
	if c := cmp.Compare(x.b, y.b); c != 0 {
		return c
	}
	return cmp.Compare(x.id, y.id)
}

var (
	edgeByA = edgeCodec(func(x, y edge) int {
		if c := cmp.Compare(x.a, y.a); c != 0 {
			return c
		}
		return compareEdges(x, y)
	})
	edgeByB = edgeCodec(func(x, y edge) int {
		if c := compareEdges(x, y); c != 0 {
			return c
		}
		return cmp.Compare(x.a, y.a)
	})
)

// exactEnd is an end of an exact link: its rank and document, sorted by
// (rank, link).
type exactEnd struct {
	id, doc uint64
	rank    uint32
	removed bool
}

var exactEndCodec = &extsort.Codec[exactEnd]{
	Size: 21,
	Put: func(b []byte, v *exactEnd) {
		le.PutUint64(b, v.id)
		le.PutUint64(b[8:], v.doc)
		le.PutUint32(b[16:], v.rank)
		putBool(b[20:], v.removed)
	},
	Get: func(b []byte, v *exactEnd) {
		*v = exactEnd{id: le.Uint64(b), doc: le.Uint64(b[8:]), rank: le.Uint32(b[16:]), removed: b[20] != 0}
	},
	Cmp: func(a, b exactEnd) int {
		if c := cmp.Compare(a.rank, b.rank); c != 0 {
			return c
		}
		return cmp.Compare(a.id, b.id)
	},
}

// upRec is a near link between two leaders seen from the lower-priority
// one (lo), sorted by (lo, hi, link).
type upRec struct {
	hiDoc, id uint64
	lo, hi    uint32
}

var upCodec = &extsort.Codec[upRec]{
	Size: 24,
	Put: func(b []byte, v *upRec) {
		le.PutUint64(b, v.hiDoc)
		le.PutUint64(b[8:], v.id)
		le.PutUint32(b[16:], v.lo)
		le.PutUint32(b[20:], v.hi)
	},
	Get: func(b []byte, v *upRec) {
		*v = upRec{hiDoc: le.Uint64(b), id: le.Uint64(b[8:]), lo: le.Uint32(b[16:]), hi: le.Uint32(b[20:])}
	},
	Cmp: func(a, b upRec) int {
		if c := cmp.Compare(a.lo, b.lo); c != 0 {
			return c
		}
		if c := cmp.Compare(a.hi, b.hi); c != 0 {
			return c
		}
		return cmp.Compare(a.id, b.id)
	},
}

// follower is a member of an exact group other than its leader, sorted by
// (leader's rank, document); link is its first exact link.
type follower struct {
	doc, link uint64
	lead      uint32
	removed   bool
}

var followerCodec = &extsort.Codec[follower]{
	Size: 21,
	Put: func(b []byte, v *follower) {
		le.PutUint64(b, v.doc)
		le.PutUint64(b[8:], v.link)
		le.PutUint32(b[16:], v.lead)
		putBool(b[20:], v.removed)
	},
	Get: func(b []byte, v *follower) {
		*v = follower{doc: le.Uint64(b), link: le.Uint64(b[8:]), lead: le.Uint32(b[16:]), removed: b[20] != 0}
	},
	Cmp: func(a, b follower) int {
		if c := cmp.Compare(a.lead, b.lead); c != 0 {
			return c
		}
		return cmp.Compare(a.doc, b.doc)
	},
}

// leadDec is the decision of an exact group's leader, in rank order;
// outside marks a group with a member removed beforehand.
type leadDec struct {
	d       DocDecision
	rank    uint32
	outside bool
}

var leadDecCodec = &extsort.Codec[leadDec]{
	Size: decisionSize + 5,
	Put: func(b []byte, v *leadDec) {
		putDecision(b, &v.d)
		le.PutUint32(b[decisionSize:], v.rank)
		putBool(b[decisionSize+4:], v.outside)
	},
	Get: func(b []byte, v *leadDec) {
		getDecision(b, &v.d)
		v.rank = le.Uint32(b[decisionSize:])
		v.outside = b[decisionSize+4] != 0
	},
	Cmp: func(a, b leadDec) int { return cmp.Compare(a.rank, b.rank) },
}

const decisionSize = 33

func putDecision(b []byte, d *DocDecision) {
	le.PutUint64(b, d.Doc)
	le.PutUint64(b[8:], d.For)
	le.PutUint64(b[16:], d.Via)
	le.PutUint64(b[24:], d.Link)
	putBool(b[32:], d.Kept)
}

func getDecision(b []byte, d *DocDecision) {
	*d = DocDecision{Doc: le.Uint64(b), For: le.Uint64(b[8:]), Via: le.Uint64(b[16:]), Link: le.Uint64(b[24:]), Kept: b[32] != 0}
}

// decisionCodec sorts the decisions by document.
var decisionCodec = &extsort.Codec[DocDecision]{
	Size: decisionSize,
	Put:  putDecision,
	Get:  getDecision,
	Cmp:  func(a, b DocDecision) int { return cmp.Compare(a.Doc, b.Doc) },
}
