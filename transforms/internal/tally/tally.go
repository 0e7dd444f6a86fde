// Package tally counts what the Beam layer's stages emit: the bytes and
// elements of each shuffle (Shuffle), under the names of the job's
// shuffles (ShuffleBands and the other Shuffle constants), and the counts
// a stage reports for one element (Counts).
package tally

import "github.com/neardup/neardup/transforms/format/summary"

// Shuffle counts what a DoFn emits into one of the job's shuffles: the
// bytes of the values and the elements (chunks). Each emitted chunk adds
// its length, so the cost per record is nothing. The tallies reach
// summary.json as shuffle_bytes and shuffle_elements (see
// summary.ShuffleBytesPrefix), from which docs/CLUSTER.md sizes a cluster.
type Shuffle struct {
	bytes, elems int64
}

// Count returns emit, counting what passes through it.
func (t *Shuffle) Count(emit func(int64, []byte)) func(int64, []byte) {
	return func(k int64, v []byte) {
		t.bytes += int64(len(v))
		t.elems++
		emit(k, v)
	}
}

// Report emits the tally as the stats of shuffle name, if anything was
// emitted, and resets it.
func (t *Shuffle) Report(name string, emitStat func(string, int64)) {
	if t.elems == 0 {
		return
	}
	emitStat(summary.ShuffleBytesPrefix+name, t.bytes)
	emitStat(summary.ShuffleElementsPrefix+name, t.elems)
	*t = Shuffle{}
}

// CountShuffle returns emit counting into a new tally of shuffle name, and
// the function that reports the tally to emitStat.
func CountShuffle(name string, emit func(int64, []byte), emitStat func(string, int64)) (counted func(int64, []byte), report func()) {
	t := &Shuffle{}
	return t.Count(emit), func() { t.Report(name, emitStat) }
}

// Counts is what a DoFn counted of one element, reported with one call.
type Counts []Stat

// Stat is a named count.
type Stat struct {
	Name string
	N    int64
}

// Emit emits every stat of c.
func (c Counts) Emit(emitStat func(string, int64)) {
	for _, st := range c {
		emitStat(st.Name, st.N)
	}
}
