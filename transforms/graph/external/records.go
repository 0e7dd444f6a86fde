package external

import (
	"cmp"

	"github.com/neardup/neardup/transforms/format/rank"
	"github.com/neardup/neardup/transforms/graph/greedy"
	"github.com/neardup/neardup/transforms/internal/extsort"
)

// The records of the spilled decision, each a list of its fields
// (extsort.Fixed). Ranks are positions in priority order (0 the highest);
// a group's leader is the highest-priority member of its exact group.

type fields = extsort.Fields

// memberRec is a member as added: its document, root, length, rank and where its
// ID is in the ID file; removed once its marks are known. Sorted by
// document.
type memberRec struct {
	doc, root uint64
	len       int64
	rank      rank.Key
	idOff     uint64
	idLen     uint32
	removed   bool
}

var memberCodec = extsort.Fixed(func(f fields, v *memberRec) fields {
	return f.U64(&v.doc).U64(&v.root).I64(&v.len).U64(&v.rank.Hi).U64(&v.rank.Lo).U64(&v.idOff).U32(&v.idLen).Bool(&v.removed)
}, func(a, b memberRec) int { return cmp.Compare(a.doc, b.doc) })

// markCodec sorts the documents marked removed beforehand (a link of a
// document with itself).
var markCodec = extsort.Fixed(fields.U64, cmp.Compare[uint64])

// linkKey is a link between two members: its documents, its place k in the
// order links were added, the end it may remove and what the cluster
// lines say of it. Sorted by a, b and k, the order of the in-memory
// decision's links within a component.
type linkKey struct {
	a, b, k     uint64
	jaccard     float32
	containment float32
	hamming     uint8
	method      uint8 // wire.Method
	estimated   bool  // wire.Match.Estimated
	removes     greedy.End
}

// linkInfo lists what the cluster lines say of a link.
func linkInfo(f fields, v *linkKey) fields {
	return f.F32(&v.jaccard).F32(&v.containment).U8(&v.hamming).U8(&v.method).Bool(&v.estimated)
}

var linkKeyCodec = extsort.Fixed(func(f fields, v *linkKey) fields {
	return linkInfo(f.U64(&v.a).U64(&v.b).U64(&v.k).U8((*uint8)(&v.removes)), v)
}, func(x, y linkKey) int {
	if c := cmp.Compare(x.a, y.a); c != 0 {
		return c
	}
	if c := cmp.Compare(x.b, y.b); c != 0 {
		return c
	}
	return cmp.Compare(x.k, y.k)
})

// linkInfoCodec is the record of a link in the link file, at its id times
// its size.
var linkInfoCodec = extsort.Fixed(linkInfo, nil)

// The classes of outRec, in the order a component's records are read.
const (
	classMember  = iota // every member, to count the component first
	classCluster        // a kept member, or a member removed for one
	classOutside        // a member removed for none, not removed beforehand
)

// outRec is a member's decision, sorted by its component's root, class,
// group (the kept member of its cluster) and document: the order of the
// in-memory decision's clusters and removals.
type outRec struct {
	root       uint64
	class      uint8
	group, doc uint64
	idOff      uint64
	idLen      uint32
	via, link  uint64
	len        int64    // the member's length, for a kept one's cluster line
	rank       rank.Key // and its rank
}

var outCodec = extsort.Fixed(func(f fields, v *outRec) fields {
	return f.U64(&v.root).U8(&v.class).U64(&v.group).U64(&v.doc).U64(&v.idOff).U32(&v.idLen).U64(&v.via).U64(&v.link).I64(&v.len).U64(&v.rank.Hi).U64(&v.rank.Lo)
}, func(x, y outRec) int {
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
})

// nodeFields lists a greedy.Node; nodeCodec sorts the nodes by priority.
func nodeFields(f fields, v *greedy.Node) fields {
	return f.U64(&v.Doc).U64(&v.Rank.Hi).U64(&v.Rank.Lo).I64(&v.Len).Bool(&v.Removed)
}

func nodeCodec(longest bool) *extsort.Codec[greedy.Node] {
	return extsort.Fixed(nodeFields, func(a, b greedy.Node) int { return greedy.Compare(a, b, longest) })
}

// docRank is a node's rank, sorted by document.
type docRank struct {
	doc     uint64
	rank    uint32
	removed bool
}

var docRankCodec = extsort.Fixed(func(f fields, v *docRank) fields {
	return f.U64(&v.doc).U32(&v.rank).Bool(&v.removed)
}, func(a, b docRank) int {
	if c := cmp.Compare(a.doc, b.doc); c != 0 {
		return c
	}
	return cmp.Compare(a.rank, b.rank)
})

// edge is a link; once joined, with the ranks of its ends and whether they
// were removed beforehand. edgeByA sorts by its first document, edgeByB by
// its second.
type edge struct {
	a, b, id           uint64
	ra, rb             uint32
	exact              bool
	removes            greedy.End
	aRemoved, bRemoved bool
}

func edgeFields(f fields, v *edge) fields {
	return f.U64(&v.a).U64(&v.b).U64(&v.id).U32(&v.ra).U32(&v.rb).
		Bool(&v.exact).U8((*uint8)(&v.removes)).Bool(&v.aRemoved).Bool(&v.bRemoved)
}

func compareEdges(x, y edge) int {
	if c := cmp.Compare(x.b, y.b); c != 0 {
		return c
	}
	return cmp.Compare(x.id, y.id)
}

var (
	edgeByA = extsort.Fixed(edgeFields, func(x, y edge) int {
		if c := cmp.Compare(x.a, y.a); c != 0 {
			return c
		}
		return compareEdges(x, y)
	})
	edgeByB = extsort.Fixed(edgeFields, func(x, y edge) int {
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

var exactEndCodec = extsort.Fixed(func(f fields, v *exactEnd) fields {
	return f.U64(&v.id).U64(&v.doc).U32(&v.rank).Bool(&v.removed)
}, func(a, b exactEnd) int {
	if c := cmp.Compare(a.rank, b.rank); c != 0 {
		return c
	}
	return cmp.Compare(a.id, b.id)
})

// upRec is a near link between two leaders seen from the lower-priority
// one (lo), sorted by (lo, hi, link).
type upRec struct {
	hiDoc, id uint64
	lo, hi    uint32
}

var upCodec = extsort.Fixed(func(f fields, v *upRec) fields {
	return f.U64(&v.hiDoc).U64(&v.id).U32(&v.lo).U32(&v.hi)
}, func(a, b upRec) int {
	if c := cmp.Compare(a.lo, b.lo); c != 0 {
		return c
	}
	if c := cmp.Compare(a.hi, b.hi); c != 0 {
		return c
	}
	return cmp.Compare(a.id, b.id)
})

// follower is a member of an exact group other than its leader, sorted by
// (leader's rank, document); link is its first exact link.
type follower struct {
	doc, link uint64
	lead      uint32
	removed   bool
}

var followerCodec = extsort.Fixed(func(f fields, v *follower) fields {
	return f.U64(&v.doc).U64(&v.link).U32(&v.lead).Bool(&v.removed)
}, func(a, b follower) int {
	if c := cmp.Compare(a.lead, b.lead); c != 0 {
		return c
	}
	return cmp.Compare(a.doc, b.doc)
})

// docDecision is greedy.Decision by document number: For and Via are
// documents and link the id of a link as passed to stream.addLink, none
// where Decision has -1.
type docDecision struct {
	doc               uint64
	kept              bool
	forDoc, via, link uint64
}

func decisionFields(f fields, v *docDecision) fields {
	return f.U64(&v.doc).Bool(&v.kept).U64(&v.forDoc).U64(&v.via).U64(&v.link)
}

// decisionCodec sorts the decisions by document.
var decisionCodec = extsort.Fixed(decisionFields, func(a, b docDecision) int { return cmp.Compare(a.doc, b.doc) })

// leadDec is the decision of an exact group's leader, in rank order;
// outside marks a group with a member removed beforehand.
type leadDec struct {
	d       docDecision
	rank    uint32
	outside bool
}

var leadDecCodec = extsort.Fixed(func(f fields, v *leadDec) fields {
	return decisionFields(f, &v.d).U32(&v.rank).Bool(&v.outside)
}, func(a, b leadDec) int { return cmp.Compare(a.rank, b.rank) })
