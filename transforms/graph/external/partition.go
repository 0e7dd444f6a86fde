// Package external decides a partition of components of the near-duplicate
// graph (its members, each with its component's root, and the verified
// pairs between them) with greedy.Decide while it fits a memory budget,
// and beyond it in external memory: sorted runs in a temporary directory,
// with the same clusters in the same order (Out).
//
// The one budget switch is Partition's: its members and links are held
// while their cost (MemberBytes and LinkBytes each, besides their IDs)
// fits the budget, and decided in memory; the first one beyond moves what
// is held to a spill, which decides on disk within the same budget: each
// of its sorts buffers an eighth of it and at most four buffer at a time;
// besides, it holds a bit per document, 16 bytes per document with an
// exact duplicate, and one cluster.
package external

import (
	"github.com/neardup/neardup/transforms/format/wire"
	"github.com/neardup/neardup/transforms/graph/greedy"
)

// The in-memory cost of a member and of a link, besides their IDs' bytes:
// the decoded record, the slices it grows by appending, and what the
// in-memory decision allocates for it (the member index map, the sorted
// links, the greedy nodes, links and decisions). Partition holds a
// partition in memory while the cost of what it holds fits its budget.
const (
	MemberBytes = 192
	LinkBytes   = 240
)

// The bytes the files of a spilled decision write, at most, for a member
// (besides its ID) and for a link: the records of each sort and file that
// holds one (members, links and their infos, the output records, two a
// member; nodes, ranks, leaders' decisions, followers; edges by either
// end, their exact ends, the links up), each counted once, with some room:
// a sort's runs merged in one step, as under a run's budgets
// (TestSpillBytes checks them against what decisions write).
const (
	spillMemberBytes = 480
	spillLinkBytes   = 320
)

// Partition decides a partition of components: members and links are
// added in any order, then Decide gives the decision to an Out, the same
// whether it was held in memory or spilled to disk. Close removes the
// temporary directory on every path.
type Partition struct {
	longest     bool
	budget, mem int64
	dir         string
	members     []wire.Member
	links       []wire.Match
	spill       *spill
	err         error // the first error of an add

	added   struct{ members, idBytes, links int64 } // for SpillBytes
	written int64                                   // for Written
}

// NewPartition returns a Partition deciding under the priority longest
// (greedy.Compare) within about budget bytes, spilling to a temporary
// directory made in dir when it needs to.
func NewPartition(longest bool, budget int64, dir string) *Partition {
	return &Partition{longest: longest, budget: budget, dir: dir}
}

// AddMember adds a member of the partition. Once an add fails, the
// Partition holds nothing more, counts what is added (SpillBytes) and
// returns that error again.
func (p *Partition) AddMember(m wire.Member) error {
	p.added.members++
	p.added.idBytes += int64(len(m.ID))
	switch {
	case p.err != nil:
	case p.spill != nil:
		p.err = p.spill.addMember(m)
	default:
		p.members = append(p.members, m)
		p.charge(MemberBytes + int64(len(m.ID)))
	}
	return p.err
}

// AddLink adds a link of two members (one of a document with itself marks
// it removed beforehand: greedy.Node.Removed); l is not kept.
func (p *Partition) AddLink(l *wire.Match) error {
	p.added.links++
	switch {
	case p.err != nil:
	case p.spill != nil:
		p.err = p.spill.addLink(l)
	default:
		p.links = append(p.links, *l)
		p.charge(LinkBytes + int64(len(l.IDA)+len(l.IDB)))
	}
	return p.err
}

// charge adds cost to the in-memory bytes and moves what is held to a
// spill once they exceed the budget.
func (p *Partition) charge(cost int64) {
	if p.mem += cost; p.mem <= p.budget {
		return
	}
	if p.spill, p.err = newSpill(p.longest, p.budget, p.dir, func(n int64) { p.written += n }); p.err != nil {
		return
	}
	members, links := p.members, p.links
	p.members, p.links = nil, nil
	for i := 0; i < len(members) && p.err == nil; i++ {
		p.err = p.spill.addMember(members[i])
	}
	for i := 0; i < len(links) && p.err == nil; i++ {
		p.err = p.spill.addLink(&links[i])
	}
}

// Spilled reports whether the Partition went past its budget to disk.
func (p *Partition) Spilled() bool { return p.spill != nil }

// SpillBytes is about the disk space the spilled decision of what was
// added needs, at most.
func (p *Partition) SpillBytes() int64 {
	return p.added.idBytes + p.added.members*spillMemberBytes + p.added.links*spillLinkBytes
}

// Written is the bytes the Partition has written to its temporary files.
func (p *Partition) Written() int64 { return p.written }

// Decide decides the partition and gives the decision to out (see Out); it
// may be called once. It fails for an error of an add, for a link of a
// document that is not a member or across components, and for an error of
// out or of the files; what out was given before is then to be discarded.
func (p *Partition) Decide(out Out) error {
	switch {
	case p.err != nil:
		return p.err
	case p.spill != nil:
		err := p.spill.decide(out)
		if cerr := p.Close(); err == nil {
			err = cerr
		}
		return err
	}
	members, links := p.members, p.links
	p.members, p.links = nil, nil
	return decideInMemory(members, links, p.longest, out)
}

// Close removes the temporary directory, if any; it may be called more
// than once.
func (p *Partition) Close() error {
	p.members, p.links = nil, nil
	if p.spill == nil {
		return nil
	}
	return p.spill.close()
}

// removes is the end of a link that the match of side inside may remove.
func removes(inside wire.Side) greedy.End {
	switch inside {
	case wire.SideA:
		return greedy.OnlyA
	case wire.SideB:
		return greedy.OnlyB
	}
	return greedy.Either
}
