package greedy

import (
	"errors"
	"os"

	"github.com/neardup/neardup/transforms/internal/extsort"
)

// The spilled, sorted pass of Stream (what Decide does, in external
// sorts): rank the nodes by priority; give both ends of each link their
// ranks by two sort-merge joins with the nodes sorted by document; join
// the exact groups (groups); sort the near links between leaders that may
// remove their lower-priority end (counts) by (lower-priority rank, higher
// rank, link); decide the leaders in rank order with one bit a node for
// those kept; join each other member of an exact group with its leader's
// decision; sort the decisions by document.

func (s *Stream) decideSpilled(fn func(DocDecision) error) error {
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
func (s *Stream) rank() (rankFile, byDoc string, err error) {
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
	var v nodeRec
	for r := uint32(0); ; r++ {
		ok, err := src.Next(&v)
		if err == nil && ok {
			if err = w.Put(&v); err == nil {
				err = d.Add(docRank{doc: v.doc, rank: r, removed: v.removed})
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
func (s *Stream) joinLinks(byDoc string) (exactFile, nearFile, endsFile string, err error) {
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
func (s *Stream) joinEnd(links *extsort.Sorter[edge], byDoc string, fn func(*edge, docRank) error, doc func(*edge) uint64) error {
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
// remove their lower-priority end (counts: a containment link only its
// contained end), each from that end, sorted by (lo, hi, link).
func (s *Stream) upLinks(g *groups, nearFile string) (extsort.Source[upRec], error) {
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
		case la == lb || !counts(e.inside, la, lb):
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
func emit(out *extsort.Sorter[DocDecision], fn func(DocDecision) error) error {
	src, err := out.Sorted()
	if err != nil {
		return err
	}
	defer src.Close()
	var d DocDecision
	prev := None
	for first := true; ; first = false {
		ok, err := src.Next(&d)
		if err != nil || !ok {
			return err
		}
		if !first && d.Doc == prev {
			return twice(d.Doc)
		}
		prev = d.Doc
		if err := fn(d); err != nil {
			return err
		}
	}
}

var errBroken = errors.New("greedy: spilled decision: a follower without its leader")
