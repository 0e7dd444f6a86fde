package external

import (
	"slices"

	"github.com/neardup/neardup/transforms/graph/greedy"
	"github.com/neardup/neardup/transforms/internal/extsort"
)

// leaderPass decides the nodes in rank order: a leader is removed for its
// first kept higher-priority neighbour (ups), else kept unless its group is
// removed beforehand; the other members of exact groups go to followers,
// to be decided with their leader's decision (leads) by follow. kept is
// the one structure of a bit a node.
type leaderPass struct {
	s         *stream
	g         *groups
	ups       extsort.Source[upRec]
	kept      []uint64
	out       *extsort.Sorter[docDecision]
	followers *extsort.Sorter[follower]
	leads     string // the leaders of exact groups' leadDecs, in rank order

	u           upRec
	haveU       bool
	end         exactEnd
	haveEnd     bool
	ends        *extsort.Reader[exactEnd]
	leadsWriter *extsort.Writer[leadDec]
}

func (p *leaderPass) run(rankFile, endsFile string) (err error) {
	s := p.s
	rk, err := extsort.Open(s.sp, nodeCodec(s.longest), rankFile, true)
	if err != nil {
		return err
	}
	defer rk.Close()
	if p.ends, err = extsort.Open(s.sp, exactEndCodec, endsFile, true); err != nil {
		return err
	}
	defer p.ends.Close()
	if p.leadsWriter, err = extsort.NewWriter(s.sp, leadDecCodec); err != nil {
		return err
	}
	defer func() {
		if err != nil {
			p.leadsWriter.Abort()
		}
	}()
	p.kept = make([]uint64, (s.n+63)/64)
	p.out = extsort.NewSorter(s.sp, decisionCodec)
	p.followers = extsort.NewSorter(s.sp, followerCodec)
	if p.haveU, err = p.ups.Next(&p.u); err != nil {
		return err
	}
	if p.haveEnd, err = p.ends.Next(&p.end); err != nil {
		return err
	}
	var v greedy.Node
	slot := 0
	for r := uint32(0); ; r++ {
		ok, err := rk.Next(&v)
		if err != nil {
			return err
		}
		if !ok {
			break
		}
		for slot < len(p.g.ranks) && p.g.ranks[slot] < r {
			slot++
		}
		grouped := slot < len(p.g.ranks) && p.g.ranks[slot] == r
		if grouped && p.g.find(uint32(slot)) != uint32(slot) {
			err = p.follower(r, v, slot)
		} else {
			err = p.leader(r, v, grouped && p.g.isOutside(slot), grouped)
		}
		if err != nil {
			return err
		}
	}
	p.kept = nil
	p.leads, err = p.leadsWriter.Close()
	return err
}

// follower puts the member of rank r, not its group's leader, among the
// followers with its first exact link.
func (p *leaderPass) follower(r uint32, v greedy.Node, slot int) error {
	for p.haveEnd && p.end.rank < r {
		var err error
		if p.haveEnd, err = p.ends.Next(&p.end); err != nil {
			return err
		}
	}
	if !p.haveEnd || p.end.rank != r {
		return errBroken
	}
	lead := p.g.ranks[p.g.find(uint32(slot))]
	return p.followers.Add(follower{doc: v.Doc, link: p.end.id, lead: lead, removed: v.Removed})
}

// leader decides the leader of rank r (a node without exact links is its
// own).
func (p *leaderPass) leader(r uint32, v greedy.Node, outside, grouped bool) error {
	outside = outside || v.Removed
	d := docDecision{doc: v.Doc, kept: !outside, forDoc: none, via: none, link: none}
	for p.haveU && p.u.lo == r {
		if d.kept && bit(p.kept, int(p.u.hi)) {
			d.kept, d.forDoc, d.link = false, p.u.hiDoc, p.u.id
		}
		var err error
		if p.haveU, err = p.ups.Next(&p.u); err != nil {
			return err
		}
	}
	if d.kept {
		setBit(p.kept, int(r))
	}
	if grouped {
		if err := p.leadsWriter.Put(&leadDec{d: d, rank: r, outside: outside}); err != nil {
			return err
		}
	}
	return p.out.Add(d)
}

// follow decides the followers, each as its leader's decision says (see
// greedy.Decide), into out.
func (s *stream) follow(followers *extsort.Sorter[follower], leads string, out *extsort.Sorter[docDecision]) error {
	src, err := followers.Sorted()
	if err != nil {
		return err
	}
	defer src.Close()
	lr, err := extsort.Open(s.sp, leadDecCodec, leads, true)
	if err != nil {
		return err
	}
	defer lr.Close()
	var f follower
	var l leadDec
	have := false
	for {
		ok, err := src.Next(&f)
		if err != nil || !ok {
			return err
		}
		for !have || l.rank < f.lead {
			if have, err = lr.Next(&l); err != nil {
				return err
			}
			if !have {
				return errBroken
			}
		}
		if l.rank != f.lead {
			return errBroken
		}
		d := docDecision{doc: f.doc, forDoc: none, via: none, link: none}
		switch {
		case f.removed:
		case l.outside:
			d.via = l.d.doc
		case l.d.kept:
			d.forDoc, d.link = l.d.doc, f.link
		default:
			d.forDoc, d.via, d.link = l.d.forDoc, l.d.doc, l.d.link
		}
		if err := out.Add(d); err != nil {
			return err
		}
	}
}

// groups is the exact groups of a spilled component: a union-find over the
// ranks of the documents that have an exact link, in memory (4 + 4 + 8
// bytes and two bits a document with an exact link; none for the others).
// A set's root is its lowest index, so its highest-priority member: the
// group's leader.
type groups struct {
	ranks   []uint32 // ascending
	parent  []uint32 // indices into ranks
	docs    []uint64 // the document of each rank
	removed []uint64 // bitset by index: removed beforehand
	outside []uint64 // bitset by root: a member removed beforehand
}

// buildGroups reads the ends of the exact links (sorted by rank) and the
// exact links, and joins the groups.
func buildGroups(sp *extsort.Dir, endsFile, exactFile string) (*groups, error) {
	ends, err := extsort.Open(sp, exactEndCodec, endsFile, false)
	if err != nil {
		return nil, err
	}
	defer ends.Close()
	g := &groups{}
	var x exactEnd
	for {
		ok, err := ends.Next(&x)
		if err != nil {
			return nil, err
		}
		if !ok {
			break
		}
		if n := len(g.ranks); n == 0 || g.ranks[n-1] != x.rank {
			g.parent = append(g.parent, uint32(n))
			g.ranks = append(g.ranks, x.rank)
			g.docs = append(g.docs, x.doc)
			if n%64 == 0 {
				g.removed = append(g.removed, 0)
			}
		}
		if x.removed {
			setBit(g.removed, len(g.ranks)-1)
		}
	}
	links, err := extsort.Open(sp, edgeByA, exactFile, true)
	if err != nil {
		return nil, err
	}
	defer links.Close()
	var e edge
	for {
		ok, err := links.Next(&e)
		if err != nil {
			return nil, err
		}
		if !ok {
			break
		}
		i, _ := g.slot(e.ra)
		j, _ := g.slot(e.rb)
		g.union(i, j)
	}
	g.outside = make([]uint64, len(g.removed))
	for i := range g.ranks {
		if bit(g.removed, i) {
			setBit(g.outside, int(g.find(uint32(i))))
		}
	}
	return g, nil
}

func setBit(b []uint64, i int)         { b[i/64] |= 1 << (i % 64) }
func bit(b []uint64, i int) bool       { return b[i/64]&(1<<(i%64)) != 0 }
func (g *groups) isOutside(i int) bool { return bit(g.outside, int(g.find(uint32(i)))) }

// slot returns the index of rank r, if it has an exact link.
func (g *groups) slot(r uint32) (uint32, bool) {
	i, ok := slices.BinarySearch(g.ranks, r)
	return uint32(i), ok
}

func (g *groups) find(i uint32) uint32 {
	for g.parent[i] != i {
		g.parent[i] = g.parent[g.parent[i]]
		i = g.parent[i]
	}
	return i
}

func (g *groups) union(i, j uint32) {
	a, b := g.find(i), g.find(j)
	if a == b {
		return
	}
	if b < a {
		a, b = b, a
	}
	g.parent[b] = a
}

// lead returns the rank and document of the leader of rank r, whose
// document is doc.
func (g *groups) lead(r uint32, doc uint64) (uint32, uint64) {
	i, ok := g.slot(r)
	if !ok {
		return r, doc
	}
	root := g.find(i)
	return g.ranks[root], g.docs[root]
}
