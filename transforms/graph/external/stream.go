package external

import (
	"errors"
	"fmt"
	"math"
	"os"

	"github.com/neardup/neardup/transforms/graph/greedy"
	"github.com/neardup/neardup/transforms/internal/extsort"
)

// none stands for no document and no link in a docDecision.
const none uint64 = math.MaxUint64

// stream decides nodes and links, streamed in by document number in any
// order, as greedy.Decide does, in external sorts in the directory of its
// spill (disjoint components are decided as each one alone): rank the
// nodes by priority; give both ends of each link their ranks by two
// sort-merge joins with the nodes sorted by document; join the exact
// groups (groups); sort the near links between leaders that may remove
// their lower-priority end (greedy.End.Counts) by (lower-priority rank,
// higher rank, link); decide the leaders in rank order with one bit a node
// for those kept; join each other member of an exact group with its
// leader's decision; sort the decisions by document. What it holds besides
// its sorts' buffers is that bit a node (N/8 bytes: 125 KB for 1,000,000
// documents) and, for the documents with an exact link only, a union-find
// over their ranks (16 bytes each).
type stream struct {
	longest bool
	sp      *extsort.Dir
	byPrio  *extsort.Sorter[greedy.Node]
	byA     *extsort.Sorter[edge]
	n       int64
}

func newStream(sp *extsort.Dir, longest bool) *stream {
	return &stream{longest: longest, sp: sp, byPrio: extsort.NewSorter(sp, nodeCodec(longest)), byA: extsort.NewSorter(sp, edgeByA)}
}

// add adds a node; the documents must be distinct.
func (s *stream) add(n greedy.Node) error {
	if s.n++; s.n >= math.MaxUint32 {
		return fmt.Errorf("external: a partition of more than %d documents", math.MaxUint32-1)
	}
	return s.byPrio.Add(n)
}

// addLink adds the verified pair of documents a and b (nodes added before
// or after), exact for exact duplicates, removes the end it may remove
// (greedy.Link.Removes), with id as its identity: the links of a node to
// one document are tried in the order of their ids, as Decide tries them
// in the order of its links, so ids 0, 1, 2... in the order of Decide's
// links give its decisions.
func (s *stream) addLink(a, b uint64, exact bool, removes greedy.End, id uint64) error {
	return s.byA.Add(edge{a: a, b: b, id: id, exact: exact, removes: removes})
}

func notNode(e edge, doc uint64) error {
	return fmt.Errorf("external: a link of documents %d and %d: %d is not a node", e.a, e.b, doc)
}

func twice(doc uint64) error { return fmt.Errorf("external: document %d added twice", doc) }

// decide calls fn with the decision of every node, in document order. It
// fails for a link with a document that is not a node, for a document
// added twice, and for an error of fn or of the files (naming the file);
// decisions given to fn before an error are to be discarded.
func (s *stream) decide(fn func(docDecision) error) error {
	rankFile, byDoc, err := s.rank()
	if err != nil {
		return err
	}
	exactFile, nearFile, endsFile, err := s.joinLinks(byDoc)
	os.Remove(byDoc)
	if err != nil {
		return err
	}
	g, err := buildGroups(s.sp, endsFile, exactFile)
	if err != nil {
		return err
	}
	ups, err := s.upLinks(g, nearFile)
	if err != nil {
		return err
	}
	p := &leaderPass{s: s, g: g, ups: ups}
	err = p.run(rankFile, endsFile)
	ups.Close()
	if err != nil {
		return err
	}
	if err := s.follow(p.followers, p.leads, p.out); err != nil {
		return err
	}
	return emit(p.out, fn)
}

// rank numbers the nodes in priority order and returns the rank file (the
// nodes in rank order) and the file of docRank sorted by document.
func (s *stream) rank() (rankFile, byDoc string, err error) {
	src, err := s.byPrio.Sorted()
	s.byPrio = nil
	if err != nil {
		return "", "", err
	}
	defer src.Close()
	c := nodeCodec(s.longest)
	w, err := extsort.NewWriter(s.sp, c)
	if err != nil {
		return "", "", err
	}
	d := extsort.NewSorter(s.sp, docRankCodec)
	var v greedy.Node
	for r := uint32(0); ; r++ {
		ok, err := src.Next(&v)
		if err == nil && ok {
			if err = w.Put(&v); err == nil {
				err = d.Add(docRank{doc: v.Doc, rank: r, removed: v.Removed})
			}
		}
		if err != nil {
			w.Abort()
			return "", "", err
		}
		if !ok {
			break
		}
	}
	if rankFile, err = w.Close(); err != nil {
		return "", "", err
	}
	ds, err := d.Sorted()
	if err != nil {
		return "", "", err
	}
	byDoc, err = extsort.ToFile(s.sp, docRankCodec, ds)
	return rankFile, byDoc, err
}

// docJoin finds documents, in ascending order, in the file of docRank.
type docJoin struct {
	r             *extsort.Reader[docRank]
	cur           docRank
	have, started bool
}

func (j *docJoin) find(e edge, doc uint64) (docRank, error) {
	for !j.started || j.have && j.cur.doc < doc {
		prev, had := j.cur.doc, j.have
		ok, err := j.r.Next(&j.cur)
		if err != nil {
			return docRank{}, err
		}
		if ok && had && j.cur.doc == prev {
			return docRank{}, twice(prev)
		}
		j.started, j.have = true, ok
	}
	if !j.have || j.cur.doc != doc {
		return docRank{}, notNode(e, doc)
	}
	return j.cur, nil
}

// joinLinks gives the links the ranks of their ends: it returns the file of
// the exact links, that of the near links, and that of the ends of the
// exact links sorted by (rank, link).
func (s *stream) joinLinks(byDoc string) (exactFile, nearFile, endsFile string, err error) {
	byB := extsort.NewSorter(s.sp, edgeByB)
	err = s.joinEnd(s.byA, byDoc, func(e *edge, d docRank) error {
		e.ra, e.aRemoved = d.rank, d.removed
		return byB.Add(*e)
	}, func(e *edge) uint64 { return e.a })
	s.byA = nil
	if err != nil {
		return "", "", "", err
	}
	exact, err := extsort.NewWriter(s.sp, edgeByA)
	if err != nil {
		return "", "", "", err
	}
	near, err := extsort.NewWriter(s.sp, edgeByA)
	if err != nil {
		exact.Abort()
		return "", "", "", err
	}
	ends := extsort.NewSorter(s.sp, exactEndCodec)
	err = s.joinEnd(byB, byDoc, func(e *edge, d docRank) error {
		e.rb, e.bRemoved = d.rank, d.removed
		if !e.exact {
			return near.Put(e)
		}
		if err := ends.Add(exactEnd{id: e.id, doc: e.a, rank: e.ra, removed: e.aRemoved}); err != nil {
			return err
		}
		if err := ends.Add(exactEnd{id: e.id, doc: e.b, rank: e.rb, removed: e.bRemoved}); err != nil {
			return err
		}
		return exact.Put(e)
	}, func(e *edge) uint64 { return e.b })
	if err != nil {
		exact.Abort()
		near.Abort()
		return "", "", "", err
	}
	if exactFile, err = exact.Close(); err != nil {
		near.Abort()
		return "", "", "", err
	}
	if nearFile, err = near.Close(); err != nil {
		return "", "", "", err
	}
	es, err := ends.Sorted()
	if err != nil {
		return "", "", "", err
	}
	endsFile, err = extsort.ToFile(s.sp, exactEndCodec, es)
	return exactFile, nearFile, endsFile, err
}

// joinEnd merges the links of links, sorted by the end doc, with the
// nodes sorted by document, and calls fn with each link and its end's node.
func (s *stream) joinEnd(links *extsort.Sorter[edge], byDoc string, fn func(*edge, docRank) error, doc func(*edge) uint64) error {
	src, err := links.Sorted()
	if err != nil {
		return err
	}
	defer src.Close()
	r, err := extsort.Open(s.sp, docRankCodec, byDoc, false)
	if err != nil {
		return err
	}
	defer r.Close()
	j := docJoin{r: r}
	var e edge
	for {
		ok, err := src.Next(&e)
		if err != nil || !ok {
			return err
		}
		d, err := j.find(e, doc(&e))
		if err != nil {
			return err
		}
		if err := fn(&e, d); err != nil {
			return err
		}
	}
}

// upLinks returns the near links between different leaders that may
// remove their lower-priority end (greedy.End.Counts: a containment link
// only its contained end), each from that end, sorted by (lo, hi, link).
func (s *stream) upLinks(g *groups, nearFile string) (extsort.Source[upRec], error) {
	r, err := extsort.Open(s.sp, edgeByA, nearFile, true)
	if err != nil {
		return nil, err
	}
	defer r.Close()
	ups := extsort.NewSorter(s.sp, upCodec)
	var e edge
	for {
		ok, err := r.Next(&e)
		if err != nil {
			return nil, err
		}
		if !ok {
			return ups.Sorted()
		}
		la, da := g.lead(e.ra, e.a)
		lb, db := g.lead(e.rb, e.b)
		u := upRec{id: e.id, lo: la, hi: lb, hiDoc: db}
		switch {
		case la == lb || !e.removes.Counts(la, lb):
			continue
		case la < lb:
			u.lo, u.hi, u.hiDoc = lb, la, da
		}
		if err := ups.Add(u); err != nil {
			return nil, err
		}
	}
}

// emit calls fn with the decisions sorted by document.
func emit(out *extsort.Sorter[docDecision], fn func(docDecision) error) error {
	src, err := out.Sorted()
	if err != nil {
		return err
	}
	defer src.Close()
	var d docDecision
	prev := none
	for first := true; ; first = false {
		ok, err := src.Next(&d)
		if err != nil || !ok {
			return err
		}
		if !first && d.doc == prev {
			return twice(d.doc)
		}
		prev = d.doc
		if err := fn(d); err != nil {
			return err
		}
	}
}

var errBroken = errors.New("external: a follower without its leader")
