package pipeline

import (
	"encoding/json"
	"fmt"
	"maps"
	"math/rand/v2"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/neardup/neardup/transforms/format/summary"
	"github.com/neardup/neardup/transforms/job"
)

// TestDeterministic: the same input gives byte-identical output files
// whatever the number of shuffle partitions, shuffle rounds, branches and
// worker goroutines per DoFn, on Prism and on the direct runner. The input holds bad records too,
// so the rejects shards are compared as well.
func TestDeterministic(t *testing.T) {
	files := inputs(t, append([]string{"../testdata/bad/bad.jsonl", "../testdata/bad/truncated.jsonl.gz"}, sampleFiles...)...)
	variants := []struct {
		runner              string
		partitions, workers int
		spool, branches     int  // spool: decompressed copies of the inputs
		rounds              int  // 0: as many as branches
		spill               bool // the large shuffles through spill files
	}{
		{"", job.DefaultPartitions, 1, 0, 1, 1, false}, // the reference
		{"", 1, 2, 1, 2, 3, false},
		{"", 7, 1, 1, 3, 0, false},
		{"", 7, 1, 0, 2, 5, false},
		{"", 3, 2, 0, 1, 0, false},
		{"", job.DefaultPartitions, 2, 0, 4, 0, false},
		{"direct", 1, 1, 0, 1, 2, false},
		{"direct", 7, 2, 1, 2, 4, false},
		{"direct", job.DefaultPartitions, 2, 0, 3, 0, false},
		{"direct", 1000, 1, 0, 1, 0, false},
		{"", 7, 2, 1, 2, 3, true},
		{"direct", 7, 2, 1, 2, 4, true},
		{"direct", job.DefaultPartitions, 2, 0, 1, 1, true},
		{"direct", 8 * job.DefaultPartitions, 2, 0, 2, 0, true}, // and 8 times the components partitions: plan.PartitionScale of 48 GiB
	}
	var want map[string][]byte
	for i, v := range variants {
		cfg := job.DefaultConfig()
		cfg.Partitions, cfg.Workers, cfg.Branches, cfg.Rounds, cfg.Spill = v.partitions, v.workers, v.branches, v.rounds, v.spill
		if v.spill && v.partitions > job.DefaultPartitions {
			cfg.CCPartitions *= v.partitions / job.DefaultPartitions // as plan.PartitionScale scales both
		}
		if v.spool == 1 {
			cfg.Spool = t.TempDir()
		}
		dir := t.TempDir()
		if err := runInto(t, v.runner, cfg, files, dir); err != nil {
			t.Fatalf("%+v: %v", v, err)
		}
		got := outputs(t, dir)
		if i == 0 {
			checkAccounting(t, dir)
			if len(readRejects(t, dir)) == 0 {
				t.Fatal("no rejects in the reference run")
			}
			want = got
			continue
		}
		runner := v.runner
		if runner == "" {
			runner = "prism"
		}
		if v.spool == 1 {
			if spooled, _ := filepath.Glob(filepath.Join(cfg.Spool, "input-*")); len(spooled) == 0 {
				t.Errorf("%+v: no spool copy written", v)
			}
		}
		sameOutputs(t, fmt.Sprintf("%s, %d partitions, %d workers, spool %d, %d branches, %d rounds, spill %v", runner, v.partitions, v.workers, v.spool, v.branches, v.rounds, v.spill), want, got)
	}
}

// TestOrderIndependent shuffles the lines inside each sample shard and
// reverses the order of the shards, and gets the same clusters (as sets of
// member ids) and the same counts.
//
// Representatives are the longest text (record.Doc.Len) of a cluster, ties
// broken by input order (file index, then line). So the invariant is: in each run,
// every representative is the first, in that run's input order, of the
// members of greatest length; where one member alone is the longest, both
// runs keep the same document.
func TestOrderIndependent(t *testing.T) {
	shards := make([][]string, len(sampleFiles))
	for i, f := range sampleFiles {
		b := decompressed(t, f)
		shards[i] = strings.Split(strings.TrimSuffix(string(b), "\n"), "\n")
	}
	// The reordered copy: shard k of it is the last-but-k original shard,
	// its lines shuffled.
	tmp := t.TempDir()
	rng := rand.New(rand.NewPCG(6, 6))
	var reordered []string
	n := len(shards)
	for k := range n {
		lines := slices.Clone(shards[n-1-k])
		rng.Shuffle(len(lines), func(i, j int) { lines[i], lines[j] = lines[j], lines[i] })
		path := filepath.Join(tmp, fmt.Sprintf("reordered-%d.jsonl", k))
		if err := os.WriteFile(path, []byte(strings.Join(lines, "\n")+"\n"), 0o644); err != nil {
			t.Fatal(err)
		}
		reordered = append(reordered, path)
		shards = append(shards, lines)
	}
	runs := []struct {
		name  string
		files []string
		lines [][]string // the shards' lines, in file index order
	}{
		{"original", inputs(t, sampleFiles...), shards[:n]},
		{"reordered", reordered, shards[n:]},
	}

	type result struct {
		reps   map[string]string // sorted members joined by "," -> representative
		counts map[string]int64
	}
	var res []result
	var ties int
	for _, r := range runs {
		// Input order and length (its text's bytes) of every id (the
		// sample's ids are unique).
		pos, length := map[string]int{}, map[string]int{}
		for _, lines := range r.lines {
			for _, l := range lines {
				var d struct{ ID, Text string }
				if err := json.Unmarshal([]byte(l), &d); err != nil {
					t.Fatal(err)
				}
				pos[d.ID], length[d.ID] = len(pos), len(d.Text)
			}
		}
		dir := t.TempDir()
		if err := runInto(t, "", job.DefaultConfig(), r.files, dir); err != nil {
			t.Fatal(err)
		}
		c := checkAccounting(t, dir)
		reps := map[string]string{}
		ties = 0
		for _, cl := range clusterLines(t, dir) {
			members := slices.Clone(cl.Members)
			slices.SortFunc(members, func(a, b string) int {
				if length[a] != length[b] {
					return length[b] - length[a] // longest first
				}
				return pos[a] - pos[b]
			})
			if len(members) > 1 && length[members[0]] == length[members[1]] {
				ties++
			}
			if cl.Representative != members[0] {
				t.Errorf("%s: cluster %v keeps %s (%d bytes), want %s (%d bytes, first of the longest)",
					r.name, cl.Members, cl.Representative, length[cl.Representative], members[0], length[members[0]])
			}
			slices.Sort(members)
			reps[strings.Join(members, ",")] = cl.Representative
		}
		res = append(res, result{reps, c})
	}
	t.Logf("%d clusters, %d with more than one longest member", len(res[0].reps), ties)
	if len(res[0].reps) == 0 {
		t.Fatal("no clusters in the sample")
	}
	if !slices.Equal(slices.Sorted(maps.Keys(res[0].reps)), slices.Sorted(maps.Keys(res[1].reps))) {
		t.Errorf("clusters differ:\noriginal  %v\nreordered %v", slices.Sorted(maps.Keys(res[0].reps)), slices.Sorted(maps.Keys(res[1].reps)))
	}
	var differ int
	for k, rep := range res[0].reps {
		if other, ok := res[1].reps[k]; ok && other != rep {
			differ++ // allowed by the rule only between members of equal length, checked above
		}
	}
	t.Logf("%d clusters keep a different document of the same length after reordering", differ)
	if !maps.Equal(res[0].counts, res[1].counts) {
		t.Errorf("counts differ:\noriginal  %v\nreordered %v", res[0].counts, res[1].counts)
	}
}

// TestComponentsShape: the connected-components rounds and partitions change
// how the clusters are found, not what they are. With no rounds every
// cluster that is not already a star goes to the one-worker remainder; with
// enough rounds none does. Every output file is byte-identical, and the
// summary differs only in the remainder count.
func TestComponentsShape(t *testing.T) {
	files := inputs(t, append([]string{"../testdata/bad/bad.jsonl"}, sampleFiles...)...)
	variants := []struct{ partitions, rounds int }{
		{job.DefaultConfig().CCPartitions, job.DefaultConfig().CCRounds}, // the reference
		{1, 0},
		{7, 0},
		{7, 1},
		{64, 2},
		{3, 6},
	}
	var want map[string][]byte
	var wantCounts map[string]int64
	remainders := map[int]int64{}
	for i, v := range variants {
		cfg := job.DefaultConfig()
		cfg.CCPartitions, cfg.CCRounds = v.partitions, v.rounds
		dir := t.TempDir()
		if err := runInto(t, "", cfg, files, dir); err != nil {
			t.Fatalf("%+v: %v", v, err)
		}
		counts := checkAccounting(t, dir)
		remainders[v.rounds] = max(remainders[v.rounds], counts[summary.StatRemainder])
		delete(counts, summary.StatRemainder)
		got := outputs(t, dir)
		delete(got, "summary.json")
		if i == 0 {
			want, wantCounts = got, counts
			continue
		}
		what := fmt.Sprintf("%d components partitions, %d rounds", v.partitions, v.rounds)
		sameOutputs(t, what, want, got)
		if !maps.Equal(counts, wantCounts) {
			t.Errorf("%s: counts %v, want %v", what, counts, wantCounts)
		}
	}
	t.Logf("edges left to the remainder by rounds: %v", remainders)
	if remainders[0] == 0 {
		t.Error("no edges left to the remainder without rounds: that path is untested")
	}
	if remainders[6] != 0 {
		t.Errorf("%d edges left to the remainder after 6 rounds, want 0 on the sample", remainders[6])
	}
}
