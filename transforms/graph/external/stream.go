package greedy

import (
	"cmp"
	"errors"
	"fmt"
	"math"
	"slices"

	"github.com/neardup/neardup/transforms/format/wire"
	"github.com/neardup/neardup/transforms/internal/extsort"
)

// None stands for no document and no link in a DocDecision.
const None uint64 = math.MaxUint64

// DocDecision is a Decision by document number: For and Via are documents
// and Link the id of a link as passed to Stream.AddLink, None where
// Decision has -1.
type DocDecision struct {
	Doc            uint64
	Kept           bool
	For, Via, Link uint64
}

// The in-memory cost of a node and of a link on Stream's in-memory path:
// what Stream holds of it plus what Decide allocates for it.
const (
	nodeCost = 112
	linkCost = 80
)

// Stream decides one component as Decide does, from its nodes and links
// streamed in by document number, within a memory budget: while the
// component's in-memory cost (about 112 bytes a node and 80 a link) fits
// the budget, it is held and decided by Decide; beyond, it is spilled to
// sorted runs in a temporary directory and decided by a spilled, sorted
// pass whose decisions are the same (see the package doc for its memory).
//
// Add the nodes and links in any order and interleaved, then call Decide
// once; Close removes the temporary files of a Stream abandoned before
// Decide (Decide removes them itself). A Stream is not safe for concurrent
// use.
type Stream struct {
	longest bool
	budget  int64
	tmp     string
	mem     int64
	nodes   []Node
	links   []edge // a, b, id, exact and inside
	sp      *extsort.Dir
	byPrio  *extsort.Sorter[nodeRec]
	byA     *extsort.Sorter[edge]
	n, m    int64
	done    bool
}

// NewStream returns a Stream deciding under the priority longest (see
// Before) within budget bytes, spilling to a temporary directory made in
// dir when it needs to.
func NewStream(longest bool, budget int64, dir string) *Stream {
	return &Stream{longest: longest, budget: budget, tmp: dir}
}

var errDone = errors.New("greedy: Stream used after Decide or Close")

// Add adds a node: a document, its length and whether it was removed
// beforehand. The documents of a component must be distinct.
func (s *Stream) Add(n Node) error {
	if s.done {
		return errDone
	}
	s.n++
	if s.n >= math.MaxUint32 {
		return fmt.Errorf("greedy: a component of more than %d documents", math.MaxUint32-1)
	}
	if s.byPrio != nil {
		return s.byPrio.Add(nodeRec{doc: n.Doc, len: n.Len, removed: n.Removed})
	}
	s.nodes = append(s.nodes, n)
	return s.charge(nodeCost)
}

// AddLink adds the verified pair of documents a and b (nodes added before
// or after), exact for exact duplicates, inside its contained end for a
// containment link (Link.Inside: wire.SideA for a, wire.SideB for b;
// wire.NoSide for an undirected link), with id as its identity: the
// links of a node to one document are tried in the order of their ids, as
// Decide tries them in the order of its links, so ids 0, 1, 2... in the
// order of Decide's links give its decisions. An id must not be None.
func (s *Stream) AddLink(a, b uint64, exact bool, inside wire.Side, id uint64) error {
	if s.done {
		return errDone
	}
	if id == None {
		return errors.New("greedy: a link with id None")
	}
	s.m++
	e := edge{a: a, b: b, id: id, exact: exact, inside: inside}
	if s.byA != nil {
		return s.byA.Add(e)
	}
	s.links = append(s.links, e)
	return s.charge(linkCost)
}

// charge adds cost to the in-memory path's bytes and spills what it holds
// once they exceed the budget.
func (s *Stream) charge(cost int64) error {
	if s.mem += cost; s.mem <= s.budget {
		return nil
	}
	sp, err := extsort.NewDir(s.tmp, "greedy-decide-", s.budget, countSpilled)
	if err != nil {
		return err
	}
	s.sp = sp
	s.byPrio = extsort.NewSorter(sp, nodeCodec(s.longest))
	s.byA = extsort.NewSorter(sp, edgeByA)
	nodes, links := s.nodes, s.links
	s.nodes, s.links = nil, nil
	for _, n := range nodes {
		if err := s.byPrio.Add(nodeRec{doc: n.Doc, len: n.Len, removed: n.Removed}); err != nil {
			return err
		}
	}
	for _, e := range links {
		if err := s.byA.Add(e); err != nil {
			return err
		}
	}
	return nil
}

// Spilled reports whether the Stream went past its budget to disk.
func (s *Stream) Spilled() bool { return s.sp != nil }

// Decide calls fn with the decision of every node, in document order, and
// removes the temporary files. It fails for a link with a document that
// is not a node, for a document added twice, and for an error of fn or of
// the files (naming the file); decisions given to fn before an error are
// to be discarded.
func (s *Stream) Decide(fn func(DocDecision) error) error {
	if s.done {
		return errDone
	}
	s.done = true
	if s.sp == nil {
		return s.decideInMemory(fn)
	}
	err := s.decideSpilled(fn)
	if cerr := s.Close(); err == nil {
		err = cerr
	}
	return err
}

// Close removes the temporary files; it may be called more than once.
func (s *Stream) Close() error {
	s.done = true
	s.nodes, s.links, s.byPrio, s.byA = nil, nil, nil, nil
	sp := s.sp
	s.sp = nil
	return sp.Remove()
}

func notNode(e edge, doc uint64) error {
	return fmt.Errorf("greedy: a link of documents %d and %d: %d is not a node", e.a, e.b, doc)
}

func twice(doc uint64) error { return fmt.Errorf("greedy: document %d added twice", doc) }

// decideInMemory decides with Decide, its nodes in document order and its
// links in the order of their ids.
func (s *Stream) decideInMemory(fn func(DocDecision) error) error {
	nodes, links := s.nodes, s.links
	s.nodes, s.links = nil, nil
	slices.SortFunc(nodes, func(x, y Node) int { return cmp.Compare(x.Doc, y.Doc) })
	for i := 1; i < len(nodes); i++ {
		if nodes[i].Doc == nodes[i-1].Doc {
			return twice(nodes[i].Doc)
		}
	}
	byID := func(x, y edge) int { return cmp.Compare(x.id, y.id) }
	if !slices.IsSortedFunc(links, byID) {
		slices.SortStableFunc(links, byID)
	}
	at := func(doc uint64) (int32, bool) {
		i, ok := slices.BinarySearchFunc(nodes, doc, func(n Node, d uint64) int { return cmp.Compare(n.Doc, d) })
		return int32(i), ok
	}
	glinks := make([]Link, len(links))
	for k, e := range links {
		a, okA := at(e.a)
		b, okB := at(e.b)
		switch {
		case !okA:
			return notNode(e, e.a)
		case !okB:
			return notNode(e, e.b)
		}
		glinks[k] = Link{A: a, B: b, Exact: e.exact, Inside: e.inside}
	}
	dec := Decide(nodes, glinks, s.longest)
	docOf := func(i int32) uint64 {
		if i < 0 {
			return None
		}
		return nodes[i].Doc
	}
	for i, d := range dec {
		link := None
		if d.Link >= 0 {
			link = links[d.Link].id
		}
		if err := fn(DocDecision{Doc: nodes[i].Doc, Kept: d.Kept, For: docOf(d.For), Via: docOf(d.Via), Link: link}); err != nil {
			return err
		}
	}
	return nil
}
