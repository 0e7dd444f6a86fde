package external

import (
	"bufio"
	"cmp"
	"fmt"
	"os"
	"path/filepath"
	"slices"

	"github.com/neardup/neardup/transforms/format/wire"
	"github.com/neardup/neardup/transforms/graph/greedy"
	"github.com/neardup/neardup/transforms/internal/extsort"
)

// spill decides a partition of components as decideInMemory does, from
// its members and links streamed in, on disk, in a temporary directory:
// the members' IDs in one file, its records in external sorts, the
// decision by a stream in the same directory, the clusters by a last sort.
// Each sort buffers an eighth of the budget, and at most four buffer at a
// time; what it holds besides is the stream's and one cluster.
type spill struct {
	longest bool
	sp      *extsort.Dir
	ids     *os.File
	idw     *bufio.Writer
	idOff   uint64
	members *extsort.Sorter[memberRec]
	marks   *extsort.Sorter[uint64]
	links   *extsort.Sorter[linkKey]
	k       uint64
	infos   *os.File
	info    []byte // a record of infos
	buf     []byte
	count   func(int64)
}

// newSpill returns a spill deciding under the priority longest within about
// budget bytes, in a temporary directory made in dir; count is given the
// bytes of each file it writes.
func newSpill(longest bool, budget int64, dir string, count func(int64)) (*spill, error) {
	sp, err := extsort.NewDir(dir, "greedy-decide-", budget/2, count)
	if err != nil {
		return nil, err
	}
	name := filepath.Join(sp.Path(), "ids")
	f, err := os.Create(name)
	if err != nil {
		sp.Remove()
		return nil, fileErr("create", name, err)
	}
	return &spill{longest: longest, sp: sp, ids: f, idw: bufio.NewWriterSize(f, sp.BufSize()), count: count, info: make([]byte, linkInfoCodec.Size),
		members: extsort.NewSorter(sp, memberCodec), marks: extsort.NewSorter(sp, markCodec), links: extsort.NewSorter(sp, linkKeyCodec)}, nil
}

// addMember adds a member of the partition.
func (c *spill) addMember(m wire.Member) error {
	if _, err := c.idw.WriteString(m.ID); err != nil {
		return fileErr("write", c.ids.Name(), err)
	}
	r := memberRec{doc: m.Doc, root: m.Root, len: m.Len, rank: m.Rank, idOff: c.idOff, idLen: uint32(len(m.ID))}
	c.idOff += uint64(len(m.ID))
	return c.members.Add(r)
}

// addLink adds a link of two members; a link of a document with itself
// marks it removed beforehand.
func (c *spill) addLink(l *wire.Match) error {
	if l.A == l.B {
		return c.marks.Add(l.A)
	}
	c.k++
	return c.links.Add(linkKey{a: l.A, b: l.B, k: c.k, jaccard: l.Jaccard, hamming: l.Hamming, method: uint8(l.Method), removes: removes(l.Inside), containment: l.Containment, estimated: l.Estimated})
}

// close removes the temporary directory; it may be called more than once.
func (c *spill) close() error {
	for _, f := range []*os.File{c.ids, c.infos} {
		if f != nil {
			f.Close()
		}
	}
	c.ids, c.infos, c.members, c.marks, c.links = nil, nil, nil, nil, nil
	sp := c.sp
	c.sp = nil
	return sp.Remove()
}

// decide decides the partition and gives it to out. It fails where
// decideInMemory does (a link or a mark of a document that is not a
// member, a link across components), and for an error of out or of the
// files; what out was given before is then to be discarded.
func (c *spill) decide(out Out) error {
	if err := c.idw.Flush(); err != nil {
		return fileErr("write", c.ids.Name(), err)
	}
	c.count(int64(c.idOff))
	st := newStream(c.sp, c.longest)
	byDoc, err := c.addNodes(st)
	if err != nil {
		return err
	}
	if err := c.addLinks(st); err != nil {
		return err
	}
	members, err := extsort.Open(c.sp, memberCodec, byDoc, true)
	if err != nil {
		return err
	}
	defer members.Close()
	recs := extsort.NewSorter(c.sp, outCodec)
	if err := st.decide(func(d docDecision) error { return toOut(d, members, recs) }); err != nil {
		return err
	}
	members.Close()
	src, err := recs.Sorted()
	if err != nil {
		return err
	}
	defer src.Close()
	return c.emit(src, out)
}

// addNodes adds the members to st in document order, marked removed
// beforehand where a link of the document with itself says so, and writes
// them so to a file, whose name it returns.
func (c *spill) addNodes(st *stream) (string, error) {
	ms, err := c.members.Sorted()
	if err != nil {
		return "", err
	}
	defer ms.Close()
	marks, err := c.marks.Sorted()
	if err != nil {
		return "", err
	}
	defer marks.Close()
	w, err := extsort.NewWriter(c.sp, memberCodec)
	if err != nil {
		return "", err
	}
	var mark uint64
	hasMark, err := marks.Next(&mark)
	for m := (memberRec{}); err == nil; {
		var ok bool
		if ok, err = ms.Next(&m); err != nil || !ok {
			break
		}
		for err == nil && hasMark && mark <= m.doc {
			if mark < m.doc {
				err = fmt.Errorf("external: a match of document %d with itself, not a member", mark)
				break
			}
			m.removed = true
			hasMark, err = marks.Next(&mark)
		}
		if err == nil {
			err = st.add(greedy.Node{Doc: m.doc, Rank: m.rank, Len: m.len, Removed: m.removed})
		}
		if err == nil {
			err = w.Put(&m)
		}
	}
	if err == nil && hasMark {
		err = fmt.Errorf("external: a match of document %d with itself, not a member", mark)
	}
	if err != nil {
		w.Abort()
		return "", err
	}
	return w.Close()
}

// addLinks adds the links to st, their ids their ranks in the order of
// linkKey, and writes what the cluster lines say of each to the link file
// at its id.
func (c *spill) addLinks(st *stream) error {
	src, err := c.links.Sorted()
	if err != nil {
		return err
	}
	defer src.Close()
	w, err := extsort.NewWriter(c.sp, linkInfoCodec)
	if err != nil {
		return err
	}
	var l linkKey
	for id := uint64(0); ; id++ {
		ok, err := src.Next(&l)
		if err == nil && ok {
			err = st.addLink(l.a, l.b, wire.Method(l.method) == wire.Exact, l.removes, id)
		}
		if err == nil && ok {
			err = w.Put(&l)
		}
		if err != nil {
			w.Abort()
			return err
		}
		if !ok {
			break
		}
	}
	name, err := w.Close()
	if err != nil {
		return err
	}
	if c.infos, err = os.Open(name); err != nil {
		return fileErr("open", name, err)
	}
	return nil
}

// toOut adds the records of decision d of the next member of members to
// recs.
func toOut(d docDecision, members extsort.Source[memberRec], recs *extsort.Sorter[outRec]) error {
	var m memberRec
	ok, err := members.Next(&m)
	if err != nil {
		return err
	}
	if !ok || m.doc != d.doc {
		return fmt.Errorf("external: the decision of document %d out of the members' order", d.doc)
	}
	r := outRec{root: m.root, class: classMember, doc: m.doc, idOff: m.idOff, idLen: m.idLen, via: none, link: none, len: m.len, rank: m.rank}
	if err := recs.Add(r); err != nil {
		return err
	}
	switch r.class = classCluster; {
	case d.kept:
		r.group = m.doc
	case d.forDoc != none:
		r.group, r.via, r.link = d.forDoc, d.via, d.link
	case m.removed:
		return nil
	default:
		r.class, r.via = classOutside, d.via
	}
	return recs.Add(r)
}

// emit reads the sorted records of the partition's decision and gives out
// its components, clusters and removals.
func (c *spill) emit(src extsort.Source[outRec], out Out) error {
	var r outRec
	have, err := src.Next(&r)
	next := func() {
		if err == nil {
			have, err = src.Next(&r)
		}
	}
	var b clusterBuf
	for err == nil && have {
		root, first, size := r.root, r, 0
		for ; err == nil && have && r.root == root && r.class == classMember; next() {
			size++
		}
		if err != nil {
			break
		}
		if b.cl.Component, err = c.id(first); err == nil {
			b.cl.ComponentSize = size
			err = out.Component()
		}
		for err == nil && have && r.root == root && r.class == classCluster {
			group := r.group
			b.recs = b.recs[:0]
			for ; err == nil && have && r.root == root && r.class == classCluster && r.group == group; next() {
				b.recs = append(b.recs, r)
			}
			if err == nil {
				err = c.cluster(&b, group, out)
			}
		}
		for ; err == nil && have && r.root == root && r.class == classOutside; next() {
			err = out.Outside(r.doc, r.via)
		}
	}
	return err
}

// clusterBuf is one cluster's records, in document order, and the Cluster
// made of them.
type clusterBuf struct {
	recs []outRec
	cl   Cluster
}

// cluster gives out the cluster of kept document kept in b, unless it is
// the kept document alone.
func (c *spill) cluster(b *clusterBuf, kept uint64, out Out) error {
	at := func(doc uint64) (int, bool) {
		return slices.BinarySearchFunc(b.recs, doc, func(r outRec, d uint64) int { return cmp.Compare(r.doc, d) })
	}
	var ok bool
	if b.cl.Kept, ok = at(kept); !ok {
		return fmt.Errorf("external: document %d removed for %d, of another component", b.recs[0].doc, kept)
	}
	b.cl.KeptLen, b.cl.KeptRank = b.recs[b.cl.Kept].len, b.recs[b.cl.Kept].rank
	if len(b.recs) == 1 {
		return nil
	}
	b.cl.Members = b.cl.Members[:0]
	for _, r := range b.recs {
		id, err := c.id(r)
		if err != nil {
			return err
		}
		b.cl.Members = append(b.cl.Members, Member{Doc: r.doc, ID: id})
	}
	var l linkKey
	for i, r := range b.recs {
		if i == b.cl.Kept {
			continue
		}
		if _, err := c.infos.ReadAt(c.info, int64(r.link)*int64(len(c.info))); err != nil {
			return fileErr("read", c.infos.Name(), err)
		}
		linkInfoCodec.Get(c.info, &l)
		m := &b.cl.Members[i]
		m.Method, m.Jaccard, m.Containment, m.Estimated, m.Hamming = wire.Method(l.method), l.jaccard, l.containment, l.estimated, l.hamming
		if r.via != none {
			v, ok := at(r.via)
			if !ok {
				return fmt.Errorf("external: document %d removed via %d, not of its cluster", r.doc, r.via)
			}
			m.Via = b.cl.Members[v].ID
		}
	}
	return out.Cluster(&b.cl)
}

// id reads the ID of r's member from the ID file.
func (c *spill) id(r outRec) (string, error) {
	c.buf = slices.Grow(c.buf[:0], int(r.idLen))[:r.idLen]
	if _, err := c.ids.ReadAt(c.buf, int64(r.idOff)); err != nil {
		return "", fileErr("read", c.ids.Name(), err)
	}
	return string(c.buf), nil
}

func fileErr(op, name string, err error) error {
	return fmt.Errorf("external: %s %s: %w", op, name, extsort.UnwrapPath(err))
}
