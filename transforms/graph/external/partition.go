package greedy

import "github.com/neardup/neardup/transforms/format/wire"

// The estimated in-memory cost of a member and of a link on Partition's
// in-memory path, besides their IDs' bytes: the decoded record, the slices
// it grows by appending, and what DecideComponents, Decide and Clusters
// allocate for it (the member index map, the sorted links, nodes, links,
// decisions).
const (
	memberBytes = 160
	matchBytes  = 240
)

// Partition collects the members and links of a partition of components
// (DecideComponents' input) in memory while their estimated in-memory cost
// fits its budget, and beyond, in a ClusterSpill in a temporary directory;
// Decide decides them by the one or the other, with the same clusters in
// the same order. Close removes the temporary directory on every path.
type Partition struct {
	longest     bool
	budget, mem int64
	dir         string
	members     []wire.Member
	links       []wire.Match
	spill       *ClusterSpill

	added SpillSize // all added, for SpillBytes
}

// SpillSize counts what a partition holds: its members, their IDs' bytes
// and its links.
type SpillSize struct{ Members, IDBytes, Links int64 }

// Bytes is about the disk space the spilled decision of a partition of
// that size needs, at most.
func (s SpillSize) Bytes() int64 {
	return s.IDBytes + s.Members*spillMemberBytes + s.Links*spillLinkBytes
}

// The bytes the files of a spilled decision write, at most, for a member
// (besides its ID) and for a link: the records of each sort and file that
// holds one, in ClusterSpill (members, links and their infos, the output
// records, two a member) and in Stream (nodes, ranks, leaders' decisions,
// followers; edges by either end, their exact ends, the links up), each
// counted once, with some room: a sort's runs merged in one step, as under
// a run's budgets (TestSpillBytes checks them against what decisions
// write).
const (
	spillMemberBytes = 384
	spillLinkBytes   = 320
)

// SpillBytes is about the disk space the spilled decision of what was
// added needs, at most (SpillSize.Bytes).
func (p *Partition) SpillBytes() int64 { return p.added.Bytes() }

// NewPartition returns a Partition deciding under the priority longest
// within about budget bytes, spilling to a temporary directory made in dir
// when it needs to.
func NewPartition(longest bool, budget int64, dir string) *Partition {
	return &Partition{longest: longest, budget: budget, dir: dir}
}

// AddMember adds a member of the partition.
func (p *Partition) AddMember(m wire.Member) error {
	p.added.Members++
	p.added.IDBytes += int64(len(m.ID))
	if p.spill != nil {
		return p.spill.AddMember(m)
	}
	p.members = append(p.members, m)
	return p.charge(memberBytes + int64(len(m.ID)))
}

// AddLink adds a link of two members (one of a document with itself marks
// it removed beforehand); l is not kept.
func (p *Partition) AddLink(l *wire.Match) error {
	p.added.Links++
	if p.spill != nil {
		return p.spill.AddLink(l)
	}
	p.links = append(p.links, *l)
	return p.charge(matchBytes + int64(len(l.IDA)+len(l.IDB)))
}

// charge adds cost to the in-memory bytes and moves what is held to a
// ClusterSpill once they exceed the budget.
func (p *Partition) charge(cost int64) error {
	if p.mem += cost; p.mem <= p.budget {
		return nil
	}
	sp, err := NewClusterSpill(p.longest, p.budget, p.dir)
	if err != nil {
		return err
	}
	p.spill = sp
	members, links := p.members, p.links
	p.members, p.links = nil, nil
	for _, m := range members {
		if err := sp.AddMember(m); err != nil {
			return err
		}
	}
	for i := range links {
		if err := sp.AddLink(&links[i]); err != nil {
			return err
		}
	}
	return nil
}

// Spilled reports whether the Partition went past its budget to disk.
func (p *Partition) Spilled() bool { return p.spill != nil }

// Decide decides the partition: in memory, by DecideComponents with
// inMemory; spilled, by ClusterSpill.Decide with spilled.
func (p *Partition) Decide(inMemory func(comp []wire.Member, nodes []Node, links []wire.Match, dec []Decision) error, spilled ClusterOut) error {
	if p.spill != nil {
		return p.spill.Decide(spilled)
	}
	members, links := p.members, p.links
	p.members, p.links = nil, nil
	return DecideComponents(members, links, p.longest, inMemory)
}

// Close removes the temporary directory, if any; it may be called more
// than once.
func (p *Partition) Close() error {
	p.members, p.links = nil, nil
	if p.spill == nil {
		return nil
	}
	return p.spill.Close()
}
