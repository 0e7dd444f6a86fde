package main

import (
	"cmp"
	"encoding/json"
	"math"
	"os"
	"path/filepath"
	"slices"
	"sync"

	"github.com/neardup/neardup/transforms/format/output"
	"github.com/neardup/neardup/transforms/format/record"
	"github.com/neardup/neardup/transforms/format/wire"
	"github.com/neardup/neardup/transforms/graph/components"
	"github.com/neardup/neardup/transforms/graph/external"
)

// clusters takes the connected components of all matches (no
// large-star/small-star rounds: the job's --cc-rounds on one machine) and
// decides each, longest first, in memory (external.Partition): a document
// is removed only for a match with a document that is kept.
func (j *job) clusters() error {
	edges := make([]components.Edge, 0, len(j.matches))
	members := map[wire.Doc]wire.Member{}
	for _, m := range j.matches {
		if m.A == m.B {
			continue
		}
		edges = append(edges, components.NewEdge(m.A, m.B))
		if _, ok := members[m.A]; !ok {
			members[m.A] = wire.Member{Doc: m.A, ID: m.IDA, Len: m.LenA, Rank: m.RankA}
		}
		if _, ok := members[m.B]; !ok {
			members[m.B] = wire.Member{Doc: m.B, ID: m.IDB, Len: m.LenB, Rank: m.RankB}
		}
	}
	assigned, _ := components.Run(edges, ccPartitions, 0)
	p := external.NewPartition(true, math.MaxInt64, "")
	defer p.Close()
	for _, a := range assigned {
		m := members[a.Node]
		m.Root = a.Root
		if err := p.AddMember(m); err != nil {
			return err
		}
	}
	for i := range j.matches {
		if err := p.AddLink(&j.matches[i]); err != nil {
			return err
		}
	}
	return p.Decide(clusterOut{j})
}

// clusterOut takes the decision of the matches' components (external.Out):
// each cluster's line and the removal of its members but the kept one.
type clusterOut struct{ j *job }

func (clusterOut) Component() error             { return nil }
func (clusterOut) Outside(uint64, uint64) error { return nil }

func (o clusterOut) Cluster(c *external.Cluster) error {
	j := o.j
	for k, m := range c.Members {
		if k != c.Kept {
			j.files[wire.File(m.Doc)].drop.Add(wire.Line(m.Doc))
			j.counts.removed++
		}
	}
	cl := c.Line()
	cl.Keep, cl.KeptKey = "longest", c.KeptLen // the job's default order
	text, err := jsonLine(cl)
	if err != nil {
		return err
	}
	first := c.Members[0].Doc
	f := j.files[wire.File(first)]
	f.clusters = append(f.clusters, wire.OutLine{K1: first, Text: text})
	j.counts.clusters++
	j.counts.clustered += int64(len(c.Members))
	return nil
}

// write writes each file's pairs, clusters, rejects and deduplicated copy,
// as the job names and formats them.
func (j *job) write() error {
	for _, m := range j.matches {
		j.files[wire.File(m.A)].pairs = append(j.files[wire.File(m.A)].pairs, m)
	}
	j.matches = nil
	var mu sync.Mutex
	return parallel(len(j.files), func(i int) error {
		f := j.files[i]
		var pairs []wire.OutLine
		for _, m := range f.pairs {
			text, err := jsonLine(output.NewPairLine(&m))
			if err != nil {
				return err
			}
			pairs = append(pairs, wire.OutLine{K1: m.A, K2: m.B, Text: text})
		}
		for kind, lines := range map[string][]wire.OutLine{output.KindPairs: pairs, output.KindClusters: f.clusters, output.KindRejects: f.rejects} {
			if err := writeLines(filepath.Join(j.out, output.ShardName(kind, i)), lines); err != nil {
				return err
			}
		}
		kept, err := j.dedup(f)
		mu.Lock()
		j.counts.kept += kept
		mu.Unlock()
		return err
	})
}

// dedup writes the copy of f without its removed and rejected records,
// compressed as f, and returns how many records it kept.
func (j *job) dedup(f *file) (int64, error) {
	src, comp := f.raw, record.None
	if src == "" {
		src, comp = f.path, record.Unknown
	}
	in, err := os.Open(src)
	if err != nil {
		return 0, err
	}
	defer in.Close()
	out, bw, err := create(filepath.Join(j.out, output.DedupName("jsonl", f.index)+f.comp.Ext()))
	if err != nil {
		return 0, err
	}
	defer out.Close()
	w, err := record.NewWriter(bw, f.comp)
	if err != nil {
		return 0, err
	}
	opt := j.opt
	opt.Raw = true
	opt.Only = func(line int64) bool { return !f.drop.Has(line) }
	var kept int64
	err = record.Read(record.NewReader(f.path, in, comp), f.path, opt, func(d record.Doc) error {
		kept++
		if _, err := w.Write(d.Raw); err != nil {
			return err
		}
		_, err := w.Write([]byte{'\n'})
		return err
	}, func(record.Reject) error { return nil })
	if err == nil {
		err = closeAll(w, bw, out)
	}
	if f.raw != "" {
		os.Remove(f.raw)
	}
	return kept, err
}

// writeLines writes lines, sorted by their keys, to path, if there are any.
func writeLines(path string, lines []wire.OutLine) error {
	if len(lines) == 0 {
		return nil
	}
	slices.SortFunc(lines, func(a, b wire.OutLine) int { return cmp.Or(cmp.Compare(a.K1, b.K1), cmp.Compare(a.K2, b.K2)) })
	out, w, err := create(path)
	if err != nil {
		return err
	}
	for _, l := range lines {
		w.Write(l.Text)
		w.WriteByte('\n')
	}
	return closeAll(w, out)
}

// jsonLine is v in JSON.
func jsonLine(v any) ([]byte, error) { return json.Marshal(v) }
