package greedy

import (
	"bufio"
	"errors"
	"fmt"
	"os"
	"path/filepath"

	"github.com/neardup/neardup/transforms/format/wire"
	"github.com/neardup/neardup/transforms/internal/extsort"
)

// ClusterMember is a member of a cluster of a spilled partition: its
// document and ID and, when it is removed, the match that removes it and
// the ID of its Via ("" when none), as output.DecidedClusterLine gives
// them.
type ClusterMember struct {
	Doc         uint64
	ID          string
	Method      wire.Method
	Jaccard     float32
	Containment float32 // the match's wire.Match.Containment
	Hamming     uint8
	Via         string
}

// ClusterOut receives the decision of a spilled partition, component by
// component in the order of their roots, as DecideComponents and Clusters
// give it: Component with the ID of the component's first document and
// its size; then Cluster with each cluster (members in document order,
// kept the index of the kept one) in the order of their kept documents;
// then Outside with each member removed for none that was not removed
// beforehand, in document order.
type ClusterOut struct {
	Component func(first string, size int) error
	Cluster   func(members []ClusterMember, kept int) error
	Outside   func(doc uint64) error
}

// ClusterSpill decides a partition of components as DecideComponents does,
// from its members and links streamed in, on disk: the members' IDs in one
// file, its records in sorted runs (external sorts buffering an eighth of
// the budget each), the decision by a Stream with half the budget. What it
// holds besides is one cluster at a time. Add the members and links in any
// order, then call Decide once; Close removes its temporary directory (made
// in the directory given to NewClusterSpill), on every path.
type ClusterSpill struct {
	longest bool
	budget  int64
	sp      *extsort.Dir
	ids     *os.File
	idw     *bufio.Writer
	idOff   uint64
	members *extsort.Sorter[memberRec]
	marks   *extsort.Sorter[uint64]
	links   *extsort.Sorter[linkKey]
	k       uint64
	infos   *os.File
	buf     []byte
}

// NewClusterSpill returns a ClusterSpill deciding under the priority
// longest within about budget bytes, in a temporary directory made in dir.
func NewClusterSpill(longest bool, budget int64, dir string) (*ClusterSpill, error) {
	sp, err := extsort.NewDir(dir, "greedy-decide-", budget/2, countSpilled)
	if err != nil {
		return nil, err
	}
	name := filepath.Join(sp.Path(), "ids")
	f, err := os.Create(name)
	if err != nil {
		sp.Remove()
		return nil, fileErr("create", name, err)
	}
	return &ClusterSpill{longest: longest, budget: budget, sp: sp, ids: f, idw: bufio.NewWriterSize(f, sp.BufSize()),
		members: extsort.NewSorter(sp, memberCodec), marks: extsort.NewSorter(sp, markCodec), links: extsort.NewSorter(sp, linkKeyCodec)}, nil
}

// AddMember adds a member of the partition.
func (c *ClusterSpill) AddMember(m wire.Member) error {
	if _, err := c.idw.WriteString(m.ID); err != nil {
		return fileErr("write", c.ids.Name(), err)
	}
	r := memberRec{doc: m.Doc, root: m.Root, len: m.Len, idOff: c.idOff, idLen: uint32(len(m.ID))}
	c.idOff += uint64(len(m.ID))
	return c.members.Add(r)
}

// AddLink adds a link of two members; a link of a document with itself
// marks it removed beforehand (as in DecideComponents).
func (c *ClusterSpill) AddLink(l *wire.Match) error {
	if l.A == l.B {
		return c.marks.Add(l.A)
	}
	c.k++
	return c.links.Add(linkKey{a: l.A, b: l.B, k: c.k, jaccard: l.Jaccard, hamming: l.Hamming, method: l.Method, inside: l.Inside, containment: l.Containment})
}

// Close removes the temporary directory; it may be called more than once.
func (c *ClusterSpill) Close() error {
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

var errSpillDone = errors.New("greedy: ClusterSpill used after Decide or Close")

// Decide decides the partition, gives it to out and removes the temporary
// directory. It fails where DecideComponents does (a link or a mark of a
// document that is not a member, a link across components), and for an
// error of out or of the files; what out was given before is then to be
// discarded.
func (c *ClusterSpill) Decide(out ClusterOut) error {
	if c.sp == nil {
		return errSpillDone
	}
	err := c.decide(out)
	if cerr := c.Close(); err == nil {
		err = cerr
	}
	return err
}

func (c *ClusterSpill) decide(out ClusterOut) error {
	if err := c.idw.Flush(); err != nil {
		return fileErr("write", c.ids.Name(), err)
	}
	spilledBytes.Add(int64(c.idOff))
	st := NewStream(c.longest, c.budget/2, c.sp.Path())
	defer st.Close()
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
	if err := st.Decide(func(d DocDecision) error { return toOut(d, members, recs) }); err != nil {
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
func (c *ClusterSpill) addNodes(st *Stream) (string, error) {
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
				err = fmt.Errorf("greedy: a match of document %d with itself, not a member", mark)
				break
			}
			m.removed = true
			hasMark, err = marks.Next(&mark)
		}
		if err == nil {
			err = st.Add(Node{Doc: m.doc, Len: m.len, Removed: m.removed})
		}
		if err == nil {
			err = w.Put(&m)
		}
	}
	if err == nil && hasMark {
		err = fmt.Errorf("greedy: a match of document %d with itself, not a member", mark)
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
func (c *ClusterSpill) addLinks(st *Stream) error {
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
			err = st.AddLink(l.a, l.b, l.method == wire.Exact, l.inside, id)
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
func toOut(d DocDecision, members extsort.Source[memberRec], recs *extsort.Sorter[outRec]) error {
	var m memberRec
	ok, err := members.Next(&m)
	if err != nil {
		return err
	}
	if !ok || m.doc != d.Doc {
		return fmt.Errorf("greedy: the decision of document %d out of the members' order", d.Doc)
	}
	r := outRec{root: m.root, class: classMember, doc: m.doc, idOff: m.idOff, idLen: m.idLen, via: None, link: None}
	if err := recs.Add(r); err != nil {
		return err
	}
	switch r.class = classCluster; {
	case d.Kept:
		r.group = m.doc
	case d.For != None:
		r.group, r.via, r.link = d.For, d.Via, d.Link
	case m.removed:
		return nil
	default:
		r.class = classOutside
	}
	return recs.Add(r)
}
