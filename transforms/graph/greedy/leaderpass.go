package greedy

import "github.com/neardup/neardup/transforms/internal/extsort"

// leaderPass decides the nodes in rank order: a leader is removed for its
// first kept higher-priority neighbour (ups), else kept unless its group is
// removed beforehand; the other members of exact groups go to followers,
// to be decided with their leader's decision (leads) by follow. kept is
// the one structure of a bit a node.
type leaderPass struct {
	s         *Stream
	g         *groups
	ups       extsort.Source[upRec]
	kept      []uint64
	out       *extsort.Sorter[DocDecision]
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
	var v nodeRec
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
func (p *leaderPass) follower(r uint32, v nodeRec, slot int) error {
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
	return p.followers.Add(follower{doc: v.doc, link: p.end.id, lead: lead, removed: v.removed})
}

// leader decides the leader of rank r (a node without exact links is its
// own).
func (p *leaderPass) leader(r uint32, v nodeRec, outside, grouped bool) error {
	outside = outside || v.removed
	d := DocDecision{Doc: v.doc, Kept: !outside, For: None, Via: None, Link: None}
	for p.haveU && p.u.lo == r {
		if d.Kept && bit(p.kept, int(p.u.hi)) {
			d.Kept, d.For, d.Link = false, p.u.hiDoc, p.u.id
		}
		var err error
		if p.haveU, err = p.ups.Next(&p.u); err != nil {
			return err
		}
	}
	if d.Kept {
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
// Decide), into out.
func (s *Stream) follow(followers *extsort.Sorter[follower], leads string, out *extsort.Sorter[DocDecision]) error {
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
		d := DocDecision{Doc: f.doc, For: None, Via: None, Link: None}
		switch {
		case f.removed:
		case l.outside:
			d.Via = l.d.Doc
		case l.d.Kept:
			d.For, d.Link = l.d.Doc, f.link
		default:
			d.For, d.Via, d.Link = l.d.For, l.d.Doc, l.d.Link
		}
		if err := out.Add(d); err != nil {
			return err
		}
	}
}
