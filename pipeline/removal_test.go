package pipeline

import (
	"cmp"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/neardup/neardup/transforms/eval/quality"
	"github.com/neardup/neardup/transforms/format/summary"
	"github.com/neardup/neardup/transforms/job"
)

// chainCorpus writes a JSONL file of n documents, each a near-duplicate of
// the next only (12 blocks of 10 words sliding by one block: J about 0.84
// with the next, 0.71 with the one after), every 10th with an exact
// duplicate (the same words, other white space), and a star: a centre and
// 6 variants, each with one block added. Trailing spaces give the documents
// lengths that are not in input order. It returns the path and each id's
// text length.
func chainCorpus(t *testing.T, n int) (string, map[string]int64) {
	t.Helper()
	block := func(j int) string {
		w := make([]string, 10)
		for k := range w {
			w[k] = fmt.Sprintf("blk%dw%d", j, k)
		}
		return strings.Join(w, " ")
	}
	doc := func(first, blocks int) string {
		b := make([]string, blocks)
		for k := range b {
			b[k] = block(first + k)
		}
		return strings.Join(b, " ")
	}
	var sb strings.Builder
	lens := map[string]int64{}
	add := func(id, text string) {
		lens[id] = int64(len(text))
		line, err := json.Marshal(map[string]string{"id": id, "text": text})
		if err != nil {
			t.Fatal(err)
		}
		sb.Write(line)
		sb.WriteByte('\n')
	}
	for i := range n {
		text := doc(i, 12) + strings.Repeat(" ", i*7%13)
		add(fmt.Sprintf("c%04d", i), text)
		if i%10 == 0 {
			add(fmt.Sprintf("c%04dx", i), strings.ReplaceAll(text, " ", "  "))
		}
	}
	centre := doc(100_000, 12)
	add("star", centre)
	for k := range 6 {
		add(fmt.Sprintf("star%d", k), centre+" "+block(200_000+k)+strings.Repeat(" ", k*5))
	}
	path := filepath.Join(t.TempDir(), "chain.jsonl")
	if err := os.WriteFile(path, []byte(sb.String()), 0o644); err != nil {
		t.Fatal(err)
	}
	return path, lens
}

// greedyByHand decides the documents of the reported pairs one by one in
// priority order, on the graph in which every exact-duplicate group is a
// clique sharing its members' partners: the rule, by its definition. It
// returns, for each removed document, the document it is removed for: ""
// for the documents of a group with a member in outside (an audit's
// documents with an indexed match), removed beforehand.
func greedyByHand(pairs []quality.Pair, lens map[string]int64, longest bool, outside map[string]bool) map[string]string {
	group := map[string]string{}
	var find func(string) string
	find = func(x string) string {
		if g, ok := group[x]; ok && g != x {
			return find(g)
		}
		return x
	}
	docs := map[string]bool{}
	for _, p := range pairs {
		docs[p.A], docs[p.B] = true, true
		if p.Method == "exact" {
			if a, b := find(p.A), find(p.B); a != b {
				group[b] = a
			}
		}
	}
	near := map[[2]string]bool{} // pairs of groups
	for _, p := range pairs {
		if a, b := find(p.A), find(p.B); p.Method != "exact" && a != b {
			near[[2]string{a, b}], near[[2]string{b, a}] = true, true
		}
	}
	alike := func(x, y string) bool { return find(x) == find(y) || near[[2]string{find(x), find(y)}] }
	order := slices.Collect(func(yield func(string) bool) {
		for d := range docs {
			if !yield(d) {
				return
			}
		}
	})
	slices.SortFunc(order, func(x, y string) int {
		if longest && lens[x] != lens[y] {
			return cmp.Compare(lens[y], lens[x])
		}
		return cmp.Compare(x, y) // ids sort in input order
	})
	removedFor := map[string]string{}
	gone := map[string]bool{} // groups removed beforehand
	for d := range outside {
		gone[find(d)] = true
	}
	var kept []string // in priority order
	for _, d := range order {
		if gone[find(d)] {
			removedFor[d] = ""
			continue
		}
		for _, k := range kept {
			if alike(k, d) {
				removedFor[d] = k
				break
			}
		}
		if _, removed := removedFor[d]; !removed {
			kept = append(kept, d)
		}
	}
	return removedFor
}

// TestRemovalRule runs a chain, exact duplicates and a star through the
// whole job and checks every removal against greedyByHand on the pairs the
// job reports: the same documents removed, each for the same document, with
// --keep longest and first; with --clusters components the chain is one
// cluster.
func TestRemovalRule(t *testing.T) {
	path, lens := chainCorpus(t, 300)
	for _, keep := range []string{"longest", "first"} {
		cfg := job.DefaultConfig()
		cfg.Keep = must(job.ParseKeep(keep))
		dir := runJob(t, "", cfg, []string{path})
		c := checkAccounting(t, dir)
		pairs, clusters, err := quality.ReadRun(filepath.Join(dir, "pairs-*.jsonl"))
		if err != nil {
			t.Fatal(err)
		}
		want := greedyByHand(pairs, lens, keep == "longest", nil)
		got := map[string]string{}
		for _, cl := range clusters {
			for _, m := range cl.Members {
				if m != cl.Representative {
					got[m] = cl.Representative
				}
			}
		}
		if len(got) != len(want) || int64(len(got)) != c["removed"] {
			t.Errorf("keep %s: %d removed in clusters, %d in the summary, %d by hand", keep, len(got), c["removed"], len(want))
		}
		for d, k := range want {
			if got[d] != k {
				t.Errorf("keep %s: %s removed for %q, by hand for %q", keep, d, got[d], k)
			}
		}
		if len(want) < 150 || len(want) > 250 {
			t.Errorf("keep %s: %d removed of 337: the corpus is not the chain it should be", keep, len(want))
		}
		t.Logf("keep %s: %d pairs, %d removed, %d clusters", keep, len(pairs), len(want), len(clusters))
	}

	cfg := job.DefaultConfig()
	cfg.Clusters = job.ClustersComponents
	dir := runJob(t, "", cfg, []string{path})
	_, clusters, err := quality.ReadRun(filepath.Join(dir, "pairs-*.jsonl"))
	if err != nil {
		t.Fatal(err)
	}
	largest := 0
	for _, cl := range clusters {
		largest = max(largest, len(cl.Members))
	}
	if largest < 300 {
		t.Errorf("--clusters components: the largest cluster has %d members, want the whole chain", largest)
	}
}

// TestAuditRemovalRule audits the chain against an index of two of its
// documents: the documents with an indexed match (those two, and their
// neighbours) are removed for the index, and the rest of the batch is
// decided as a run is, with those removed beforehand: the neighbours' other
// partners are kept unless a kept document of the batch removes them.
func TestAuditRemovalRule(t *testing.T) {
	path, lens := chainCorpus(t, 60)
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	var indexed []string
	for _, l := range strings.SplitAfter(string(b), "\n") {
		if strings.Contains(l, `"c0010"`) || strings.Contains(l, `"c0031"`) {
			indexed = append(indexed, l)
		}
	}
	idxFile := filepath.Join(t.TempDir(), "indexed.jsonl")
	if err := os.WriteFile(idxFile, []byte(strings.Join(indexed, "")), 0o644); err != nil {
		t.Fatal(err)
	}
	cfg := job.DefaultConfig()
	cfg.Keep = job.Keep{Order: job.KeepFirst}
	_, idx := runIndexed(t, cfg, []string{idxFile})
	dir := runAudit(t, cfg, idx, []string{path}, false, "")
	c := checkAuditAccounting(t, dir)
	outside := map[string]bool{}
	for _, p := range auditPairs(t, dir) {
		outside[p.A] = true
	}
	pairs := runPairs(t, dir)
	_, clusters, err := quality.ReadRun(filepath.Join(dir, "pairs-*.jsonl"))
	if err != nil {
		t.Fatal(err)
	}
	want := greedyByHand(pairs, lens, false, outside)
	for d := range outside { // removed for the index, in a batch pair or not
		want[d] = ""
	}
	got := map[string]string{}
	for _, cl := range clusters {
		for _, m := range cl.Members {
			if m != cl.Representative {
				got[m] = cl.Representative
			}
		}
	}
	for d, k := range want {
		if k != "" && got[d] != k {
			t.Errorf("%s removed for %q, by hand for %q", d, got[d], k)
		}
		if k == "" && got[d] != "" {
			t.Errorf("%s removed for %q in the batch, by hand for the index", d, got[d])
		}
	}
	if n := int64(len(lens) - len(want)); c[summary.StatKept] != n {
		t.Errorf("kept %d, by hand %d", c[summary.StatKept], n)
	}
	if len(outside) < 4 {
		t.Errorf("%d documents with an indexed match, want both indexed documents and their neighbours", len(outside))
	}
	t.Logf("%d with an indexed match, %d removed in all", len(outside), len(want))
}
