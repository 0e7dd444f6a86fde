package cluster

import (
	"context"
	"errors"
	"fmt"
	"math/rand/v2"
	"os"
	"slices"
	"syscall"
	"testing"

	"github.com/apache/beam/sdks/v2/go/pkg/beam"
	"github.com/apache/beam/sdks/v2/go/pkg/beam/testing/passert"

	"github.com/neardup/neardup/transforms/format/summary"
	"github.com/neardup/neardup/transforms/format/wire"
	"github.com/neardup/neardup/transforms/graph/external"
	"github.com/neardup/neardup/transforms/jobfiles"
	"github.com/neardup/neardup/transforms/jobfiles/spilled"
	"github.com/neardup/neardup/transforms/stagetest"
)

// decideOut is what ClusterFn emits for one partition, in order.
type decideOut struct {
	clusters, removes, fates []string
	stats                    map[string]int64
}

// runDecide runs ClusterFn over one partition of members and links (each
// in chunks of a few records, in the order given) within budget bytes and
// returns what it emits; the work directory must be empty afterwards.
func runDecide(t *testing.T, members []wire.Member, links []wire.Match, longest bool, budget int64) decideOut {
	t.Helper()
	work := t.TempDir()
	keep := "longest"
	if !longest {
		keep = "first"
	}
	fn := &ClusterFn{Work: jobfiles.WorkDir{Dir: work}, Lines: ClusterLines{KeepLongest: longest, Keep: keep, Locations: true, DecideBytes: budget, Fates: true}}
	var mc, lc [][]byte
	for i := 0; i < len(members); i += 7 {
		var c []byte
		for k := i; k < min(i+7, len(members)); k++ {
			c = wire.AppendMember(c, &members[k])
		}
		mc = append(mc, c)
	}
	for i := 0; i < len(links); i += 5 {
		var c []byte
		for k := i; k < min(i+5, len(links)); k++ {
			c = wire.AppendMatch(c, &links[k])
		}
		lc = append(lc, c)
	}
	out := decideOut{stats: map[string]int64{}}
	err := fn.ProcessElement(context.Background(), 0, spilled.IterOf(mc), spilled.IterOf(lc),
		func(k int64, c []byte) { out.clusters = append(out.clusters, fmt.Sprintf("%d/%x", k, c)) },
		func(k int64, c []byte) { out.removes = append(out.removes, fmt.Sprintf("%d/%x", k, c)) },
		func(k int64, c []byte) { out.fates = append(out.fates, fmt.Sprintf("%d/%x", k, c)) },
		func(name string, n int64) { out.stats[name] += n })
	if err != nil {
		t.Fatal(err)
	}
	if left, err := os.ReadDir(work); err != nil || len(left) > 0 {
		t.Fatalf("the work directory holds %v after the decision (%v)", left, err)
	}
	return out
}

// testPartition is a partition of components of random documents and
// lengths (ties included): each component a random tree of near matches
// (a third of them containment matches) plus others, some repeated from
// the other end; exact duplicates (of
// equal length, linked by an exact match, some also by a near one); and,
// with marks, documents matched with themselves once or more
// (OutsideMarks). Members and
// links come in no order.
func testPartition(r *rand.Rand, comps, size int, marks bool) ([]wire.Member, []wire.Match) {
	var members []wire.Member
	var links []wire.Match
	used := map[wire.Doc]bool{}
	for range comps {
		n := 1 + r.IntN(size)
		var comp []wire.Member
		for len(comp) < n {
			d := wire.DocNum(r.IntN(3), int64(r.IntN(20*comps*size)))
			if used[d] {
				continue
			}
			used[d] = true
			m := wire.Member{Doc: d, ID: fmt.Sprintf("doc-%d", d), Len: int64(1 + r.IntN(4))}
			if len(comp) > 0 && r.IntN(4) == 0 { // an exact duplicate of an earlier member
				e := comp[r.IntN(len(comp))]
				m.Len = e.Len
				links = append(links, wire.Match{A: e.Doc, B: d, IDA: e.ID, IDB: m.ID, Jaccard: 1, Method: wire.Exact})
				if r.IntN(3) == 0 {
					links = append(links, wire.Match{A: d, B: e.Doc, IDA: m.ID, IDB: e.ID, Jaccard: 0.95, Method: wire.MinHash})
				}
			} else if len(comp) > 0 {
				e := comp[r.IntN(len(comp))]
				l := wire.Match{A: e.Doc, B: d, IDA: e.ID, IDB: m.ID, Jaccard: 0.5 + r.Float32()/2, Hamming: uint8(r.IntN(4)), Method: wire.MinHash}
				if r.IntN(3) == 0 { // a containment match, contained at either end
					l.Method, l.Inside, l.Containment = wire.Containment, wire.Side(1+r.IntN(2)), 0.7+r.Float32()*0.3
				}
				links = append(links, l)
			}
			comp = append(comp, m)
		}
		for range n / 2 {
			a, b := comp[r.IntN(n)], comp[r.IntN(n)]
			if a.Doc != b.Doc {
				links = append(links, wire.Match{A: a.Doc, B: b.Doc, IDA: a.ID, IDB: b.ID, Jaccard: 0.5 + r.Float32()/2, Method: wire.SimHash, Hamming: uint8(r.IntN(4))})
			}
		}
		root := slices.MinFunc(comp, func(a, b wire.Member) int { return int(a.Doc>>1) - int(b.Doc>>1) }).Doc
		for i := range comp {
			comp[i].Root = root
			for k := 0; marks && r.IntN(8) == 0 && k < 2; k++ { // one mark or two, as OutsideMarks makes them
				links = append(links, wire.Match{A: comp[i].Doc, B: comp[i].Doc, IDA: comp[i].ID, IDB: comp[i].ID, Jaccard: 1, Method: wire.Method(r.IntN(2))})
			}
		}
		members = append(members, comp...)
	}
	r.Shuffle(len(members), func(i, j int) { members[i], members[j] = members[j], members[i] })
	r.Shuffle(len(links), func(i, j int) { links[i], links[j] = links[j], links[i] })
	return members, links
}

// TestDecideSpilledSame: a partition decided spilled to disk (a budget of
// 1 byte, or of a few KB) gives the same cluster lines, removals and stats,
// byte for byte and in the same order, as decided in memory: for --keep
// longest and first, with exact duplicates and with outside marks.
func TestDecideSpilledSame(t *testing.T) {
	for seed := range uint64(6) {
		for _, longest := range []bool{true, false} {
			for _, marks := range []bool{false, true} {
				r := rand.New(rand.NewPCG(seed, 42))
				members, links := testPartition(r, 1+r.IntN(30), 1+r.IntN(40), marks)
				want := runDecide(t, members, links, longest, 1<<30)
				if len(want.clusters) == 0 || len(want.removes) == 0 {
					t.Fatalf("seed %d: no clusters or no removals", seed)
				}
				for _, budget := range []int64{1, 8 << 10} {
					got := runDecide(t, members, links, longest, budget)
					if !slices.Equal(got.clusters, want.clusters) || !slices.Equal(got.removes, want.removes) || fmt.Sprint(got.stats) != fmt.Sprint(want.stats) {
						t.Fatalf("seed %d longest %v marks %v budget %d: spilled\n%v\n%v\n%v\nin memory\n%v\n%v\n%v", seed, longest, marks, budget,
							got.clusters, got.removes, got.stats, want.clusters, want.removes, want.stats)
					}
				}
			}
		}
	}
}

// TestDecideSpilledChain: a chain of 20,000 documents in one component,
// decided spilled, gives what it gives decided in memory.
func TestDecideSpilledChain(t *testing.T) {
	const n = 20_000
	members, links := chain(n)
	for _, longest := range []bool{true, false} {
		want := runDecide(t, members, links, longest, 1<<30)
		got := runDecide(t, members, links, longest, 64<<10)
		if !slices.Equal(got.clusters, want.clusters) || !slices.Equal(got.removes, want.removes) || fmt.Sprint(got.stats) != fmt.Sprint(want.stats) {
			t.Fatalf("longest %v: the spilled decision differs: %v, in memory %v", longest, got.stats, want.stats)
		}
	}
}

// chain is a component of n documents of one length in input order, each
// matched with the next only, its members and links in no order.
func chain(n int) ([]wire.Member, []wire.Match) {
	members := make([]wire.Member, n)
	links := make([]wire.Match, n-1)
	for i := range members {
		members[i] = wire.Member{Root: wire.DocNum(0, 0), Doc: wire.DocNum(0, int64(i)), ID: fmt.Sprint(i), Len: 100}
		if i > 0 {
			links[i-1] = wire.Match{A: members[i-1].Doc, B: members[i].Doc, IDA: members[i-1].ID, IDB: members[i].ID, Jaccard: 0.9, Method: wire.MinHash}
		}
	}
	slices.Reverse(links)
	slices.Reverse(members[n/2:])
	return members, links
}

// TestClustersChain100kSpilled: the chain of 100,000 documents through
// Clusters with a budget of 1 MiB, which it exceeds (so decided spilled):
// every other document kept, each removed document in a cluster with the
// one before it.
func TestClustersChain100kSpilled(t *testing.T) {
	const n = 100_000
	cfg := stagetest.Config(t)
	cfg.DecideBytes = 1 << 20
	_, links := chain(n)
	p, s := beam.NewPipelineWithRoot()
	var chunks []stagetest.Chunk
	for i := 0; i < len(links); i += 1000 {
		chunks = append(chunks, stagetest.MatchChunk(links[i:min(i+1000, len(links))]...))
	}
	clusters, removes, _, st := Clusters(s, OptionsFor(cfg), GroupMatches(s, cfg.WorkDir(), stagetest.Chunks(s, chunks...)))
	passert.Equals(s, stagetest.Stats(s, st, summary.StatClusters, summary.StatClustered, summary.StatRemoved, summary.StatComponents),
		"clusters=50000", "clustered_documents=100000", "removed=50000", "components=1")
	wantRemoved := make([]any, 0, n/2)
	wantLines := make([]any, 0, n/2)
	for i := 1; i < n; i += 2 {
		wantRemoved = append(wantRemoved, fmt.Sprintf("0:%d", i))
		wantLines = append(wantLines, fmt.Sprintf("0/%d:2:%d:%d,%d", i-1, i-1, i-1, i))
	}
	passert.Equals(s, stagetest.Decode(s, "lines", 0, removes), wantRemoved...)
	passert.Equals(s, stagetest.Decode(s, "cluster", 0, clusters), wantLines...)
	stagetest.Run(t, p)
}

// TestDecideSpilledStarClique: a star of 2,000 documents around its
// shortest, first one (kept with --keep first, every leaf removed for it;
// with --keep longest the leaves kept) and a clique of 40 documents, some
// pairs of them exact duplicates, in one partition: the spilled decision
// gives what the in-memory one gives.
func TestDecideSpilledStarClique(t *testing.T) {
	var members []wire.Member
	var links []wire.Match
	add := func(root wire.Doc, d wire.Doc, n int64) wire.Member {
		m := wire.Member{Root: root, Doc: d, ID: fmt.Sprintf("d%d", d), Len: n}
		members = append(members, m)
		return m
	}
	centre := add(wire.DocNum(0, 0), wire.DocNum(0, 0), 1)
	for i := 1; i < 2000; i++ {
		leaf := add(centre.Doc, wire.DocNum(i%3, int64(i)), int64(2+i%5))
		links = append(links, wire.Match{A: leaf.Doc, B: centre.Doc, IDA: leaf.ID, IDB: centre.ID, Jaccard: 0.8, Method: wire.MinHash})
	}
	root := wire.DocNum(1, 5000)
	var clique []wire.Member
	for i := range 40 {
		clique = append(clique, add(root, wire.DocNum(1, int64(5000+i)), int64(10+i%3)))
	}
	for i, a := range clique {
		for _, b := range clique[i+1:] {
			method := wire.MinHash
			if a.Len == b.Len && (a.Doc+b.Doc)%4 == 0 {
				method = wire.Exact
			}
			links = append(links, wire.Match{A: b.Doc, B: a.Doc, IDA: b.ID, IDB: a.ID, Jaccard: 0.7, Method: method})
		}
	}
	for _, longest := range []bool{true, false} {
		want := runDecide(t, members, links, longest, 1<<30)
		got := runDecide(t, members, links, longest, 8<<10)
		if !slices.Equal(got.clusters, want.clusters) || !slices.Equal(got.removes, want.removes) || fmt.Sprint(got.stats) != fmt.Sprint(want.stats) {
			t.Fatalf("longest %v: the spilled decision differs: %v, in memory %v", longest, got.stats, want.stats)
		}
	}
}

// TestDecideSpilledObjectStoreWork: with the work directory on an object
// store (a cluster's gs:// or s3:// work), the spilled decision goes to the
// worker's temporary directory and decides as in memory, leaving nothing
// there.
func TestDecideSpilledObjectStoreWork(t *testing.T) {
	tmp := t.TempDir()
	t.Setenv("TMPDIR", tmp)
	members, links := chain(2_000)
	want := runDecide(t, members, links, true, 1<<30)
	fn := &ClusterFn{Work: jobfiles.WorkDir{Dir: "gs://no-bucket/work"}, Lines: ClusterLines{KeepLongest: true, Keep: "longest", Locations: true, DecideBytes: 8 << 10}}
	var clusters, removes []string
	mc, lc := [][]byte{}, [][]byte{}
	for i := range members {
		mc = append(mc, wire.AppendMember(nil, &members[i]))
	}
	for i := range links {
		lc = append(lc, wire.AppendMatch(nil, &links[i]))
	}
	err := fn.ProcessElement(context.Background(), 0, spilled.IterOf(mc), spilled.IterOf(lc),
		func(k int64, c []byte) { clusters = append(clusters, fmt.Sprintf("%d/%x", k, c)) },
		func(k int64, c []byte) { removes = append(removes, fmt.Sprintf("%d/%x", k, c)) },
		func(int64, []byte) {}, func(string, int64) {})
	if err != nil {
		t.Fatal(err)
	}
	if !slices.Equal(clusters, want.clusters) || !slices.Equal(removes, want.removes) {
		t.Errorf("the spilled decision differs from the one in memory: %d and %d cluster chunks", len(clusters), len(want.clusters))
	}
	if left, err := os.ReadDir(tmp); err != nil || len(left) > 0 {
		t.Errorf("the temporary directory holds %v after the decision (%v)", left, err)
	}
}

// TestDecideNoSpace (issue 54): a spilled decision that finds no room in
// the work directory fails with one line naming the directory, about the
// space the decision needs and TMPDIR, as the other work files do, and
// leaves nothing there. It needs a 64 KiB tmpfs, so it runs only where it
// may mount one (as root).
func TestDecideNoSpace(t *testing.T) {
	work := t.TempDir()
	if os.Geteuid() != 0 {
		t.Skip("mounting a small tmpfs needs root")
	}
	if err := syscall.Mount("tmpfs", work, "tmpfs", 0, "size=64k"); err != nil {
		t.Skipf("mounting a small tmpfs: %v", err)
	}
	t.Cleanup(func() { syscall.Unmount(work, 0) })
	members, links := chain(20_000)
	need := external.NewPartition(true, 1<<40, "")
	for i := range members {
		need.AddMember(members[i])
	}
	for i := range links {
		need.AddLink(&links[i])
	}
	fn := &ClusterFn{Work: jobfiles.WorkDir{Dir: work}, Lines: ClusterLines{KeepLongest: true, Keep: "longest", Locations: true, DecideBytes: 64 << 10}}
	mc, lc := [][]byte{}, [][]byte{}
	for i := range members {
		mc = append(mc, wire.AppendMember(nil, &members[i]))
	}
	for i := range links {
		lc = append(lc, wire.AppendMatch(nil, &links[i]))
	}
	err := fn.ProcessElement(context.Background(), 3, spilled.IterOf(mc), spilled.IterOf(lc),
		func(int64, []byte) {}, func(int64, []byte) {}, func(int64, []byte) {}, func(string, int64) {})
	want := fmt.Sprintf("clusters of components partition 3: writing the decision spilled to disk in %s: no space left on device (needs about %s; set TMPDIR to a larger disk)",
		work, jobfiles.AboutBytes(need.SpillBytes()))
	if err == nil || err.Error() != want || !errors.Is(err, syscall.ENOSPC) {
		t.Errorf("the decision on a full disk: %v\nwant %s", err, want)
	}
	if left, err := os.ReadDir(work); err != nil || len(left) > 0 {
		t.Errorf("the work directory holds %v after the failed decision (%v)", left, err)
	}
}
