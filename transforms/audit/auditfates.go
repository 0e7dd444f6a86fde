package audit

import (
	"encoding/json"
	"fmt"

	"github.com/neardup/neardup/transforms/cluster"
	"github.com/neardup/neardup/transforms/format/output"
	"github.com/neardup/neardup/transforms/format/wire"
)

// completeFates emits, for --fates, the fates of an audited file's
// documents that an audit decides, and passes on those Clusters decided:
// each document of docs, which the index removes (its matches in best),
// is removed for its best indexed match that removes it (removal); a
// fate of fateChunks with a text is passed on as it is; one without a
// text is a document removed for none (clusterWriter.Outside), an exact
// duplicate of its via, a document of this file that the index removes:
// it is removed for via's indexed document, with via's ID as its via.
// Every fate goes out keyed by its document's file.
func completeFates(docs []wire.Doc, best map[wire.Doc]map[wire.Doc]wire.Match, fateChunks func(*[]byte) bool, emit func(int64, []byte)) error {
	out := wire.NewBatcher(0)
	add := func(d wire.Doc, m *wire.Match, via string) error {
		f := output.Fate{Fate: output.FateRemoved, Kept: m.IDB, Match: indexMatch(m, via)}
		text, err := json.Marshal(f)
		if err != nil {
			return err
		}
		out.Add(wire.File(d), func(c []byte) []byte { return wire.AppendLine(c, d, 0, text) }, emit)
		return nil
	}
	for _, d := range docs {
		m := removal(best[d])
		if err := add(d, &m, ""); err != nil {
			return err
		}
	}
	var chunk []byte
	var lines []wire.OutLine
	for fateChunks(&chunk) {
		var err error
		if lines, err = wire.AppendLines(lines[:0], chunk); err != nil {
			return err
		}
		for _, l := range lines {
			if len(l.Text) > 0 {
				out.Add(wire.File(l.K1), func(c []byte) []byte { return wire.AppendLine(c, l.K1, l.K2, l.Text) }, emit)
				continue
			}
			ms := best[l.K2]
			if !removing(ms) {
				return fmt.Errorf("line %d of file %d is removed for none, and the document it follows, line %d of file %d, has no indexed match that removes it",
					wire.Line(l.K1)+1, wire.File(l.K1), wire.Line(l.K2)+1, wire.File(l.K2))
			}
			m := removal(ms)
			if err := add(l.K1, &m, m.IDA); err != nil {
				return err
			}
		}
	}
	out.Flush(emit)
	return nil
}

// removal is the best (as the audit line orders them) of the matches ms of
// one new document that remove it; ms has one (removing).
func removal(ms map[wire.Doc]wire.Match) wire.Match {
	var r wire.Match
	found := false
	for _, m := range ms {
		if !cluster.Removes(&m) {
			continue
		}
		if !found || better(m, r) || !better(r, m) && m.B < r.B {
			r, found = m, true
		}
	}
	return r
}

// indexMatch is (new, indexed) match m as a fate gives it, with via.
func indexMatch(m *wire.Match, via string) *output.RemovedMember {
	r := &output.RemovedMember{Method: m.Method.String(), Jaccard: output.RoundJaccard(m.Jaccard), Estimated: m.Estimated, Hamming: int(m.Hamming), Via: via}
	if m.Method == wire.Containment {
		r.Containment = output.RoundJaccard(m.Containment)
	}
	return r
}
