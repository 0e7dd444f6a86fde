package quality

import (
	"fmt"
	"io"
)

// ContainRemovals measures each removed document (a member of a cluster
// but its representative) against the document kept for it (the
// representative), as Removals does for a run without containment. With
// --containment C a removal is right when the two are near-duplicates
// (true Jaccard >= t) or the removed document lies inside the kept one
// (its true containment in it, inter/its size, >= C).
type ContainRemovals struct {
	Removed int `json:"removed"`
	// Below: removals right by neither; BelowLenient: by neither at
	// t - 0.1 and C - 0.1 (a pair absent from the truth has both < 0.5).
	Below        int `json:"below"`
	BelowLenient int `json:"below_lenient"`
	// Inside: removals right by containment only (true J < t).
	Inside int `json:"inside"`
	// Precision is 1 - Below/Removed (1 when nothing is removed).
	Precision float64 `json:"precision"`
}

// containRemovals measures the removals of clusters against the truth at
// Jaccard threshold t and containment c; example records the first of
// those below.
func containRemovals(clusters []Cluster, truth []ContainPair, t, c float64, example func(kind, format string, args ...any)) ContainRemovals {
	byPair := map[key]ContainPair{}
	for _, p := range truth {
		byPair[mk(p.A, p.B)] = p
	}
	jLenient, cLenient := decimal(t-0.1), decimal(c-0.1)
	var r ContainRemovals
	eachRemoval(clusters, func(m, kept string) {
		r.Removed++
		p, ok := byPair[mk(m, kept)]
		j, in := 0.0, 0.0
		if ok {
			j = float64(p.Inter) / float64(p.Union)
			size := p.SizeA
			if p.B == m {
				size = p.SizeB
			}
			in = float64(p.Inter) / float64(size)
		}
		switch {
		case j >= t:
		case in >= c:
			r.Inside++
		default:
			r.Below++
			example("removed_below", "%s for %s (true J %.3f, %.3f of it inside)", m, kept, j, in)
		}
		if j < jLenient && in < cLenient {
			r.BelowLenient++
		}
	})
	r.Precision = 1
	if r.Removed > 0 {
		r.Precision = 1 - float64(r.Below)/float64(r.Removed)
	}
	return r
}

// print writes the removals line of a containment report at t and c.
func (r ContainRemovals) print(w io.Writer, t, c float64) {
	fmt.Fprintf(w, "removals: %d removed, %d of them inside the kept document (true J < %.2f, containment >= %.2f); neither: %d, below %.2f and %.2f: %d; removal precision %.4f\n",
		r.Removed, r.Inside, t, c, r.Below, decimal(t-0.1), decimal(c-0.1), r.BelowLenient, r.Precision)
}
