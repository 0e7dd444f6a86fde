package cluster

import (
	"github.com/neardup/neardup/transforms/format/wire"
	"github.com/neardup/neardup/transforms/graph/components"
	"github.com/neardup/neardup/transforms/jobfiles"
	"github.com/neardup/neardup/transforms/jobfiles/spilled"
)

// The shuffles of Clusters' steps: edges, assignments and members, batched
// by the partition of a document (see clusters.go).

// edgeSender batches edges to the partitions of their endpoints: both, or
// only the larger one (components.Up).
type edgeSender struct {
	b     *wire.Batcher
	parts int
	emit  func(int64, []byte)
}

func newEdgeSender(parts int, emit func(int64, []byte)) *edgeSender {
	return &edgeSender{b: wire.NewBatcher(0), parts: parts, emit: emit}
}

func (s *edgeSender) send(e components.Edge, t components.EdgeTargets) {
	add := func(part int) { s.b.Add(part, func(c []byte) []byte { return wire.AppendPair(c, e) }, s.emit) }
	oa, ob := components.Owner(e.A, s.parts), components.Owner(e.B, s.parts)
	if t == components.Both {
		add(oa)
	}
	if t == components.Up || ob != oa {
		add(ob)
	}
}

func (s *edgeSender) flush() { s.b.Flush(s.emit) }

type assigner struct {
	b     *wire.Batcher
	parts int
	emit  func(int64, []byte)
}

func newAssigner(parts int, emit func(int64, []byte)) *assigner {
	return &assigner{b: wire.NewBatcher(0), parts: parts, emit: emit}
}

func (a *assigner) add(x components.Assignment) {
	a.b.Add(components.Owner(x.Node, a.parts), func(c []byte) []byte {
		return wire.AppendPair(c, wire.Pair{A: x.Node, B: x.Root})
	}, a.emit)
}

// decodeEdges reads every wire.Pair chunk of group key (iter, or with
// w.Spill the spill files it names, opened with in).
func decodeEdges(in *spilled.In, w jobfiles.WorkDir, key int, iter func(*[]byte) bool) (dst []components.Edge, err error) {
	err = in.Each(w, key, iter, func(chunk []byte) (err error) {
		dst, err = wire.AppendPairs(dst, chunk)
		return err
	})
	if err != nil {
		return nil, err
	}
	return dst, nil
}

// decodeMembers calls do with every wire.Member of group key (iter, or
// with w.Spill the spill files it names, opened with in).
func decodeMembers(in *spilled.In, w jobfiles.WorkDir, key int, iter func(*[]byte) bool, do func(wire.Member) error) error {
	return in.Each(w, key, iter, func(c []byte) (err error) {
		for len(c) > 0 {
			var m wire.Member
			if c, err = wire.DecodeMember(c, &m); err != nil {
				return err
			}
			if err := do(m); err != nil {
				return err
			}
		}
		return nil
	})
}
