package transforms

import "github.com/neardup/neardup/transforms/format/output"

// shuffleTally counts what a DoFn emits into one of the job's shuffles: the
// bytes of the values and the elements (chunks). Each emitted chunk adds
// its length, so the cost per record is nothing. The tallies reach
// summary.json as shuffle_bytes and shuffle_elements (see
// output.ShuffleBytesPrefix), from which docs/CLUSTER.md sizes a cluster.
type shuffleTally struct {
	bytes, elems int64
}

// count returns emit, counting what passes through it.
func (t *shuffleTally) count(emit func(int, []byte)) func(int, []byte) {
	return func(k int, v []byte) {
		t.bytes += int64(len(v))
		t.elems++
		emit(k, v)
	}
}

// report emits the tally as the stats of shuffle name, if anything was
// emitted, and resets it.
func (t *shuffleTally) report(name string, emitStat func(string, int64)) {
	if t.elems == 0 {
		return
	}
	emitStat(output.ShuffleBytesPrefix+name, t.bytes)
	emitStat(output.ShuffleElementsPrefix+name, t.elems)
	*t = shuffleTally{}
}

// countShuffle returns emit counting into a new tally of shuffle name, and
// the function that reports the tally to emitStat.
func countShuffle(name string, emit func(int, []byte), emitStat func(string, int64)) (counted func(int, []byte), report func()) {
	t := &shuffleTally{}
	return t.count(emit), func() { t.report(name, emitStat) }
}

// counts is what a DoFn counted of one element, reported with one call.
type counts []stat

// stat is a named count.
type stat struct {
	name string
	v    int64
}

// emit emits every stat of s.
func (s counts) emit(emitStat func(string, int64)) {
	for _, st := range s {
		emitStat(st.name, st.v)
	}
}
