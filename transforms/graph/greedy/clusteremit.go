package greedy

import (
	"cmp"
	"fmt"
	"slices"

	"github.com/neardup/neardup/transforms/internal/extsort"
)

// emit reads the sorted records of the partition's decision and gives out
// its components, clusters and removals.
func (c *ClusterSpill) emit(src extsort.Source[outRec], out ClusterOut) error {
	var r outRec
	have, err := src.Next(&r)
	next := func() {
		if err == nil {
			have, err = src.Next(&r)
		}
	}
	var cl clusterBuf
	for err == nil && have {
		root, first, size := r.root, r, 0
		for ; err == nil && have && r.root == root && r.class == classMember; next() {
			size++
		}
		if err != nil {
			break
		}
		id, ierr := c.id(first)
		if err = ierr; err == nil {
			err = out.Component(id, size)
		}
		for err == nil && have && r.root == root && r.class == classCluster {
			group := r.group
			cl.reset()
			for ; err == nil && have && r.root == root && r.class == classCluster && r.group == group; next() {
				cl.add(r)
			}
			if err == nil {
				err = c.cluster(&cl, group, out)
			}
		}
		for ; err == nil && have && r.root == root && r.class == classOutside; next() {
			err = out.Outside(r.doc)
		}
	}
	return err
}

// clusterBuf is one cluster's records, in document order.
type clusterBuf struct {
	recs    []outRec
	members []ClusterMember
}

func (b *clusterBuf) reset()       { b.recs, b.members = b.recs[:0], b.members[:0] }
func (b *clusterBuf) add(r outRec) { b.recs = append(b.recs, r) }

// cluster gives out the cluster of kept document kept in b, unless it is
// the kept document alone.
func (c *ClusterSpill) cluster(b *clusterBuf, kept uint64, out ClusterOut) error {
	at, ok := slices.BinarySearchFunc(b.recs, kept, func(r outRec, d uint64) int { return cmp.Compare(r.doc, d) })
	if !ok {
		return fmt.Errorf("greedy: document %d removed for %d, of another component", b.recs[0].doc, kept)
	}
	if len(b.recs) == 1 {
		return nil
	}
	for _, r := range b.recs {
		id, err := c.id(r)
		if err != nil {
			return err
		}
		b.members = append(b.members, ClusterMember{Doc: r.doc, ID: id})
	}
	for i, r := range b.recs {
		if i == at {
			continue
		}
		var l linkKey
		if err := c.readInfo(r.link, &l); err != nil {
			return err
		}
		m := &b.members[i]
		m.Method, m.Jaccard, m.Containment, m.Hamming = l.method, l.jaccard, l.containment, l.hamming
		if r.via != None {
			v, ok := slices.BinarySearchFunc(b.recs, r.via, func(r outRec, d uint64) int { return cmp.Compare(r.doc, d) })
			if !ok {
				return fmt.Errorf("greedy: document %d removed via %d, not of its cluster", r.doc, r.via)
			}
			m.Via = b.members[v].ID
		}
	}
	return out.Cluster(b.members, at)
}

// id reads the ID of r's member from the ID file.
func (c *ClusterSpill) id(r outRec) (string, error) {
	c.buf = slices.Grow(c.buf[:0], int(r.idLen))[:r.idLen]
	if _, err := c.ids.ReadAt(c.buf, int64(r.idOff)); err != nil {
		return "", fileErr("read", c.ids.Name(), err)
	}
	return string(c.buf), nil
}

// readInfo reads what the cluster lines say of link id into l.
func (c *ClusterSpill) readInfo(id uint64, l *linkKey) error {
	var b [linkInfoSize]byte
	if _, err := c.infos.ReadAt(b[:], int64(id)*linkInfoSize); err != nil {
		return fileErr("read", c.infos.Name(), err)
	}
	getLinkInfo(b[:], l)
	return nil
}
