package transforms

import (
	"context"
	"encoding/binary"
	"encoding/json"
	"time"

	"github.com/apache/beam/sdks/v2/go/pkg/beam/register"

	"github.com/neardup/neardup/transforms/unionfind"
	"github.com/neardup/neardup/transforms/wire"
)

func init() {
	register.DoFn6x1[context.Context, int, func(*[]byte) bool, func(int, []byte), func(int, []byte), func(string, int64), error](&ClusterFn{})
	register.Function2x2(ToOneKey)
}

// ToOneKey moves every element to key 0, for a step that must see them all.
func ToOneKey(_ int, v []byte) (int, []byte) { return 0, v }

// ClusterLine is one line of clusters-*.jsonl.
type ClusterLine struct {
	Cluster        string   `json:"cluster"`
	Size           int      `json:"size"`
	Representative string   `json:"representative"`
	Members        []string `json:"members"`
}

// ClusterFn joins matched documents into clusters (connected components) and
// picks the representative each cluster keeps.
//
// In: (key, every wire.Match chunk: exact and verified). Out: cluster lines
// (wire.OutLine chunks keyed by the file of the cluster's first document,
// sorted by that document) and the documents to remove (uvarint line
// numbers keyed by file index).
//
// The components are found on one worker; its memory follows the number of
// matched documents, not the corpus.
type ClusterFn struct {
	Cfg Config
}

type node struct {
	id  string
	len int64
}

func (fn *ClusterFn) ProcessElement(ctx context.Context, _ int, chunks func(*[]byte) bool, emitCluster, emitRemove func(int, []byte), emitStat func(string, int64)) error {
	defer busy(ctx, "Clusters", time.Now())
	uf := unionfind.NewSparse()
	nodes := make(map[wire.Doc]node)
	var chunk []byte
	var m wire.Match
	var err error
	for chunks(&chunk) {
		for c := chunk; len(c) > 0; {
			if c, err = wire.DecodeMatch(c, &m); err != nil {
				return err
			}
			nodes[m.A] = node{m.IDA, m.LenA}
			nodes[m.B] = node{m.IDB, m.LenB}
			uf.Union(m.A, m.B)
		}
	}
	lines := wire.NewBatcher(0)
	removes := wire.NewBatcher(0)
	var clusters, clustered, removed int64
	for _, comp := range uf.Components() { // sorted members, sorted by first member
		rep := comp[0]
		if fn.Cfg.Keep == "longest" {
			for _, d := range comp[1:] {
				if nodes[d].len > nodes[rep].len {
					rep = d
				}
			}
		}
		cl := ClusterLine{Cluster: nodes[comp[0]].id, Size: len(comp), Representative: nodes[rep].id, Members: make([]string, len(comp))}
		for i, d := range comp {
			cl.Members[i] = nodes[d].id
			if d != rep {
				line := wire.Line(d)
				removes.Add(wire.File(d), func(c []byte) []byte { return binary.AppendUvarint(c, uint64(line)) }, emitRemove)
				removed++
			}
		}
		text, err := json.Marshal(cl)
		if err != nil {
			return err
		}
		first := comp[0]
		lines.Add(wire.File(first), func(c []byte) []byte { return wire.AppendLine(c, first, 0, text) }, emitCluster)
		clusters++
		clustered += int64(len(comp))
	}
	lines.Flush(emitCluster)
	removes.Flush(emitRemove)
	emitStat(StatClusters, clusters)
	emitStat(StatClustered, clustered)
	emitStat(StatRemoved, removed)
	return nil
}

func init() {
	register.DoFn3x0[int, []byte, func(int, []byte)](&BranchFn{})
}

// BranchFn keeps the elements of a collection keyed by file index whose file
// belongs to branch I of N (index mod N).
type BranchFn struct{ N, I int }

func (fn *BranchFn) ProcessElement(file int, v []byte, emit func(int, []byte)) {
	if file%fn.N == fn.I {
		emit(file, v)
	}
}
