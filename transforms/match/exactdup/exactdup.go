// Package exactdup finds exact duplicates among document infos: documents
// whose normalized texts have the same key (normalize.Key) form a group, of
// which one document, the representative, is kept.
package exactdup

import (
	"cmp"
	"slices"

	"github.com/neardup/neardup/transforms/format/rank"
	"github.com/neardup/neardup/transforms/format/wire"
)

// Sort sorts infos by exact key, then document: each run of equal keys is
// one group, its first document the earliest in input order.
func Sort(infos []wire.Info) {
	slices.SortFunc(infos, func(a, b wire.Info) int {
		if a.Exact != b.Exact {
			return cmp.Compare(a.Exact, b.Exact)
		}
		return cmp.Compare(a.Doc, b.Doc)
	})
}

// Groups calls fn with every group of two or more documents of infos, which
// Sort has sorted, in order.
func Groups(infos []wire.Info, fn func(group []wire.Info)) {
	for i := 0; i < len(infos); {
		j := i + 1
		for j < len(infos) && infos[j].Exact == infos[i].Exact {
			j++
		}
		if j-i > 1 {
			fn(infos[i:j])
		}
		i = j
	}
}

// Representative returns the index of the member of group to keep: the
// largest rank (wire.Info.Rank, rank.Compare); then, with longest, the
// longest text (wire.Info.Len); then the first document.
func Representative(group []wire.Info, longest bool) int {
	best := 0
	for k := 1; k < len(group); k++ {
		g, b := &group[k], &group[best]
		if c := rank.Compare(g.Rank, b.Rank); c != 0 {
			if c < 0 {
				best = k
			}
			continue
		}
		if longest && g.Len != b.Len {
			if g.Len > b.Len {
				best = k
			}
			continue
		}
		if g.Doc < b.Doc {
			best = k
		}
	}
	return best
}

// Match is the exact-duplicate match between two documents, the smaller
// document number first.
func Match(a, b *wire.Info) wire.Match {
	if a.Doc > b.Doc {
		a, b = b, a
	}
	return wire.Match{A: a.Doc, B: b.Doc, IDA: a.ID, IDB: b.ID, LenA: a.Len, LenB: b.Len, RankA: a.Rank, RankB: b.Rank, Jaccard: 1, Method: wire.Exact}
}
