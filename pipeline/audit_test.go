package pipeline

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"hash/fnv"
	"maps"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/apache/beam/sdks/v2/go/pkg/beam"
	"github.com/apache/beam/sdks/v2/go/pkg/beam/testing/ptest"

	"github.com/neardup/neardup/transforms/eval/devcorpus"
	"github.com/neardup/neardup/transforms/eval/quality"
	"github.com/neardup/neardup/transforms/format/index"
	"github.com/neardup/neardup/transforms/format/summary"
	"github.com/neardup/neardup/transforms/indexing"
	"github.com/neardup/neardup/transforms/job"
)

// runIndexed runs the job on files and writes its index to a new directory,
// returning the output and index directories.
func runIndexed(t *testing.T, cfg job.Config, files []string) (out, idx string) {
	t.Helper()
	cfg.IndexOut = t.TempDir()
	return runJob(t, "", cfg, files), cfg.IndexOut
}

// runAudit audits files against the index in idx (with the index's
// settings) and returns the output directory.
func runAudit(t *testing.T, cfg job.Config, idx string, files []string, readSources bool, update string) string {
	t.Helper()
	return runAuditOpt(t, cfg, files, AuditOptions{Index: idx, ReadSources: readSources, UpdateIndex: update})
}

// runAuditOpt is runAudit with the options opt (its manifest read here).
func runAuditOpt(t *testing.T, cfg job.Config, files []string, opt AuditOptions) string {
	t.Helper()
	idx := opt.Index
	man, err := indexing.ReadManifest(context.Background(), idx)
	if err != nil {
		t.Fatal(err)
	}
	cfg = must(cfg.WithIndexConfig(man.Config))
	cfg.Output = t.TempDir()
	if err := cfg.Validate(); err != nil {
		t.Fatal(err)
	}
	p, s := beam.NewPipelineWithRoot()
	opt.Manifest = man
	if err := BuildAudit(context.Background(), s, cfg, files, opt); err != nil {
		t.Fatal(err)
	}
	if err := ptest.Run(p); err != nil {
		t.Fatalf("audit: %v", err)
	}
	return cfg.Output
}

// sameAudit compares the outputs of two audits of the same batch against
// the same documents (by lookups and by a scan, AuditOptions.Scan, or
// against an index and its compaction), all but the bytes they read from
// the index and its directory.
func sameAudit(t *testing.T, what, lookup, scan string) {
	t.Helper()
	a, b := outputs(t, lookup), outputs(t, scan)
	for _, m := range []map[string][]byte{a, b} {
		var sum map[string]any
		if err := json.Unmarshal(m[summary.AuditFileName], &sum); err != nil {
			t.Fatal(err)
		}
		delete(sum["counts"].(map[string]any), summary.StatIndexBytesRead)
		delete(sum, "index") // the index's directory
		m[summary.AuditFileName], _ = json.Marshal(sum)
	}
	sameOutputs(t, what, b, a)
}

// checkAuditAccounting asserts the audit's counts add up and the dedup
// shards hold exactly the kept records.
func checkAuditAccounting(t *testing.T, dir string) map[string]int64 {
	t.Helper()
	b, err := os.ReadFile(filepath.Join(dir, summary.AuditFileName))
	if err != nil {
		t.Fatal(err)
	}
	var s summary.AuditSummary
	if err := json.Unmarshal(b, &s); err != nil {
		t.Fatal(err)
	}
	c := s.Counts
	if !s.Balanced || c[summary.StatInput] != c[summary.StatKept]+c[summary.StatRemoved]+c[summary.StatRejected] ||
		c[summary.StatRemoved] != c[summary.StatDupOfIndex]+c[summary.StatBatchOnly] {
		t.Errorf("audit counts do not add up: %v", c)
	}
	if lines := dedupRecords(t, dir); lines != c[summary.StatKept] {
		t.Errorf("dedup shards hold %d records, summary says kept %d", lines, c[summary.StatKept])
	}
	return c
}

// auditPairs reads audit-*.jsonl as pairs (new document, indexed
// document), in the order of the new documents' ids.
func auditPairs(t *testing.T, dir string) []quality.Pair {
	t.Helper()
	lines := readAuditLines(t, dir)
	var out []quality.Pair
	for _, doc := range slices.Sorted(maps.Keys(lines)) {
		a := lines[doc]
		if len(a.Matches) == 0 {
			t.Errorf("%s: line without matches", doc)
		}
		for _, m := range a.Matches {
			out = append(out, quality.Pair{A: a.Doc, B: m.ID, Jaccard: m.Jaccard, Method: m.Method})
		}
	}
	return out
}

func runPairs(t *testing.T, dir string) []quality.Pair {
	t.Helper()
	pairs, _, err := quality.ReadRun(filepath.Join(dir, "pairs-*.jsonl"))
	if err != nil {
		t.Fatal(err)
	}
	return pairs
}

// scores evaluates pairs at the pair level (as 'neardup eval') and at the
// component level: a true pair counts as found when its documents are
// connected by reported pairs. An audit reports a new document's match with
// the kept member of an indexed cluster, not with every member, so only the
// component level compares with a single run.
func scores(pairs []quality.Pair, truth []quality.TruePair) (pair, comp quality.Report) {
	pair = quality.Evaluate(pairs, nil, quality.Truth{Pairs: truth}, 0.8)
	linked := make([]quality.Pair, len(pairs))
	for i, p := range pairs {
		linked[i] = quality.Pair{A: p.A, B: p.B, Jaccard: p.Jaccard, Method: "exact"} // "exact" pairs are unioned
	}
	comp = quality.Evaluate(linked, nil, quality.Truth{Pairs: truth}, 0.8)
	return pair, comp
}

// splitJSONL writes the lines of src whose id hash falls below pct percent to
// a, the others to b.
func splitJSONL(t *testing.T, src, a, b string, pct uint32) {
	t.Helper()
	in, err := os.ReadFile(src)
	if err != nil {
		t.Fatal(err)
	}
	var bufA, bufB bytes.Buffer
	sc := bufio.NewScanner(bytes.NewReader(in))
	sc.Buffer(make([]byte, 1<<20), 1<<28)
	for sc.Scan() {
		var d struct {
			ID string `json:"id"`
		}
		if err := json.Unmarshal(sc.Bytes(), &d); err != nil {
			t.Fatal(err)
		}
		h := fnv.New32a()
		h.Write([]byte(d.ID))
		w := &bufB
		if h.Sum32()%100 < pct {
			w = &bufA
		}
		w.Write(sc.Bytes())
		w.WriteByte('\n')
	}
	if err := os.WriteFile(a, bufA.Bytes(), 0o644); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(b, bufB.Bytes(), 0o644); err != nil {
		t.Fatal(err)
	}
}

// TestAuditSample: index the first sample shard, audit the second against
// it and write the next index; the counts add up, the next index holds the
// old documents and the new ones kept, and what the two jobs report links
// the true pairs a single run over both shards links.
func TestAuditSample(t *testing.T) {
	cfg := job.DefaultConfig()
	files := inputs(t, sampleFiles...)
	run0, idx0 := runIndexed(t, cfg, files[:1])
	c0 := checkAccounting(t, run0)
	man0, err := indexing.ReadManifest(context.Background(), idx0)
	if err != nil {
		t.Fatal(err)
	}
	if man0.Documents != c0[summary.StatKept] || len(man0.Shards) != 1 {
		t.Fatalf("index holds %d documents in %d shards; the run kept %d", man0.Documents, len(man0.Shards), c0[summary.StatKept])
	}
	next := filepath.Join(t.TempDir(), "next")
	aud := runAudit(t, cfg, idx0, files[1:], true, next)
	c := checkAuditAccounting(t, aud)
	if c[summary.StatDupOfIndex] == 0 || c[summary.StatIndexDocs] != man0.Documents {
		t.Errorf("audit found %d duplicates of the index, scanned %d indexed documents", c[summary.StatDupOfIndex], c[summary.StatIndexDocs])
	}
	// Only indexed documents sharing a key with the batch are shuffled.
	if c[summary.StatIndexJoined] >= man0.Documents {
		t.Errorf("all %d indexed documents joined", c[summary.StatIndexJoined])
	}
	man1, err := indexing.ReadManifest(context.Background(), next)
	if err != nil {
		t.Fatal(err)
	}
	for _, d := range []string{idx0, next} {
		names, _ := filepath.Glob(filepath.Join(d, "*"))
		hidden, _ := filepath.Glob(filepath.Join(d, ".*"))
		gen := man1.Generations[len(man1.Generations)-1]
		if len(names) != len(gen.Shards)+len(gen.Keys)+1 && d == next || len(hidden) > 0 {
			t.Errorf("%s holds %q and %q, want the manifest, shards and key files only", d, names, hidden)
		}
	}
	if man1.Documents != man0.Documents+c[summary.StatKept] || len(man1.Shards) != 2 || man1.Shards[0] != man0.Shards[0] ||
		len(man1.Generations) != 2 || man1.Generations[0].Dir != idx0 {
		t.Errorf("next index: %d documents in %d shards, want %d + %d in 2, the first in %s", man1.Documents, len(man1.Shards), man0.Documents, c[summary.StatKept], idx0)
	}
	// The lookups find what a scan of every indexed record finds.
	sameAudit(t, "audit by lookups and by a scan", aud, runAuditOpt(t, cfg, files[1:], AuditOptions{Index: idx0, ReadSources: true, Scan: true}))
	if c[summary.StatIndexBytesRead] <= 0 {
		t.Errorf("audit read %d bytes of the index", c[summary.StatIndexBytesRead])
	}
	// The same outputs whatever the partitions, branches and workers.
	other := cfg
	other.Partitions, other.Branches, other.Workers = 7, 1, 1
	sameOutputs(t, "audit with other partitions", outputs(t, aud), outputs(t, runAudit(t, other, idx0, files[1:], true, "")))
	// Auditing the same shard again against the next index: every document
	// kept last time is now an exact duplicate of the index.
	aud2 := runAudit(t, cfg, next, files[1:], false, "")
	c2 := checkAuditAccounting(t, aud2)
	sameAudit(t, "audit of two generations by lookups and by a scan", aud2, runAuditOpt(t, cfg, files[1:], AuditOptions{Index: next, Scan: true}))
	if c2[summary.StatExactOfIndex] < c[summary.StatKept] {
		t.Errorf("re-audit: %d exact duplicates of the index, want >= %d kept before", c2[summary.StatExactOfIndex], c[summary.StatKept])
	}

	truth, err := quality.ReadTruth("../testdata/sample/truth.tsv")
	if err != nil {
		t.Fatal(err)
	}
	full := runJob(t, "", cfg, files)
	_, fullComp := scores(runPairs(t, full), truth)
	split := append(append(runPairs(t, run0), runPairs(t, aud)...), auditPairs(t, aud)...)
	_, splitComp := scores(split, truth)
	t.Logf("sample: linked recall J>=0.8 full %.4f, index+audit %.4f", fullComp.All.AtThreshold.RecallDirect, splitComp.All.AtThreshold.RecallDirect)
	if splitComp.All.AtThreshold.RecallDirect < fullComp.All.AtThreshold.RecallDirect-0.02 {
		t.Errorf("index+audit recall %.4f, full run %.4f", splitComp.All.AtThreshold.RecallDirect, fullComp.All.AtThreshold.RecallDirect)
	}
}

// TestAuditDevSplit splits the dev corpus 70/30 by id hash, runs the 70% with
// --index-out and audits the 30% against that index. The pairs of the run
// and of the audit (within the batch and with the index) link the true
// pairs of dev_pairs.tsv about as well as one run over the whole corpus,
// with no loss of precision.
func TestAuditDevSplit(t *testing.T) {
	dcDir, err := devcorpus.Dir()
	if err != nil {
		t.Skip(err)
	}
	truth, err := quality.ReadTruth(filepath.Join(dcDir, "dev_pairs.tsv"))
	if err != nil {
		t.Fatal(err)
	}
	dir := t.TempDir()
	yesterday, today := filepath.Join(dir, "yesterday.jsonl"), filepath.Join(dir, "today.jsonl")
	splitJSONL(t, filepath.Join(dcDir, "dev.jsonl"), yesterday, today, 70)
	cfg := job.DefaultConfig()

	full := runJob(t, "", cfg, []string{filepath.Join(dcDir, "dev.jsonl")})
	fullPair, fullComp := scores(runPairs(t, full), truth)

	run0, idx := runIndexed(t, cfg, []string{yesterday})
	checkAccounting(t, run0)
	aud := runAudit(t, cfg, idx, []string{today}, true, "")
	c := checkAuditAccounting(t, aud)
	sameAudit(t, "dev split audit by lookups and by a scan", aud, runAuditOpt(t, cfg, []string{today}, AuditOptions{Index: idx, ReadSources: true, Scan: true}))
	var idxBytes int64
	for _, sh := range readManifest(t, idx).Shards {
		idxBytes += sh.Bytes
	}
	t.Logf("dev split: the lookups read %d bytes of an index of %d shard bytes", c[summary.StatIndexBytesRead], idxBytes)
	split := append(append(runPairs(t, run0), runPairs(t, aud)...), auditPairs(t, aud)...)
	splitPair, splitComp := scores(split, truth)

	t.Logf("full run:      recall J>=0.8 pairs %.4f linked %.4f, precision %.4f (%d pairs)",
		fullPair.All.AtThreshold.RecallDirect, fullComp.All.AtThreshold.RecallDirect, fullPair.All.LenientPrecision, len(runPairs(t, full)))
	t.Logf("index + audit: recall J>=0.8 pairs %.4f linked %.4f, precision %.4f (%d pairs; %d new documents, %d duplicates of the index, %d of %d indexed documents joined)",
		splitPair.All.AtThreshold.RecallDirect, splitComp.All.AtThreshold.RecallDirect, splitPair.All.LenientPrecision, len(split),
		c[summary.StatInput], c[summary.StatDupOfIndex], c[summary.StatIndexJoined], c[summary.StatIndexDocs])
	if splitComp.All.AtThreshold.RecallDirect < fullComp.All.AtThreshold.RecallDirect-0.01 {
		t.Errorf("index + audit links %.4f of the true pairs, the full run %.4f (missed: %v)",
			splitComp.All.AtThreshold.RecallDirect, fullComp.All.AtThreshold.RecallDirect, splitComp.Examples["missed"])
	}
	if splitPair.All.LenientPrecision < fullPair.All.LenientPrecision-0.005 {
		t.Errorf("index + audit precision %.4f, full run %.4f", splitPair.All.LenientPrecision, fullPair.All.LenientPrecision)
	}
}

// readManifest reads the manifest of the index in dir.
func readManifest(t *testing.T, dir string) *index.Manifest {
	t.Helper()
	m, err := indexing.ReadManifest(context.Background(), dir)
	if err != nil {
		t.Fatal(err)
	}
	return m
}

// TestAuditRefusesBadIndex: a damaged shard or key file fails the audit
// with an error naming it and saying what is wrong.
func TestAuditRefusesBadIndex(t *testing.T) {
	cfg := job.DefaultConfig()
	files := inputs(t, sampleFiles...)
	for _, c := range []struct {
		name, file string
		damage     func([]byte) []byte
		msg        string
	}{
		{"truncated shard", index.ShardName(0), func(b []byte) []byte { return b[:len(b)/2] }, "bytes, the manifest says"},
		{"key file header", index.KeyFileName(0), func(b []byte) []byte { b[2] ^= 1; return b }, "bad magic"},
	} {
		t.Run(c.name, func(t *testing.T) {
			_, idx := runIndexed(t, cfg, files[:1])
			path := filepath.Join(idx, c.file)
			b, err := os.ReadFile(path)
			if err != nil {
				t.Fatal(err)
			}
			if err := os.WriteFile(path, c.damage(b), 0o644); err != nil {
				t.Fatal(err)
			}
			man := readManifest(t, idx)
			cfg := must(cfg.WithIndexConfig(man.Config))
			cfg.Output = t.TempDir()
			p, s := beam.NewPipelineWithRoot()
			if err := BuildAudit(context.Background(), s, cfg, files[1:], AuditOptions{Index: idx, Manifest: man}); err != nil {
				t.Fatal(err)
			}
			err = ptest.Run(p)
			if err == nil || !strings.Contains(err.Error(), path) || !strings.Contains(err.Error(), c.msg) {
				t.Fatalf("audit of a damaged index: %v", err)
			}
			if _, err := os.Stat(filepath.Join(cfg.Output, summary.AuditFileName)); !errors.Is(err, os.ErrNotExist) {
				t.Errorf("failed audit wrote %s", summary.AuditFileName)
			}
		})
	}
}

// TestAuditChainCompact: a chain of audits with --update-index gives an
// index of three generations; its compaction (index compact) gives the
// same audit outputs as the chain, and as a scan; a version 2 manifest
// converts the same way; removing a generation the chain needs is an error
// naming it.
func TestAuditChainCompact(t *testing.T) {
	cfg := job.DefaultConfig()
	dir := t.TempDir()
	a, rest, b1, b2 := filepath.Join(dir, "a.jsonl"), filepath.Join(dir, "rest.jsonl"), filepath.Join(dir, "b1.jsonl"), filepath.Join(dir, "b2.jsonl")
	splitJSONL(t, "../testdata/sample/sample-0.jsonl", a, rest, 40)
	splitJSONL(t, rest, b1, b2, 50)
	_, idx0 := runIndexed(t, cfg, []string{a})
	idx1, idx2 := filepath.Join(dir, "idx1"), filepath.Join(dir, "idx2")
	runAudit(t, cfg, idx0, []string{b1}, false, idx1)
	runAudit(t, cfg, idx1, []string{b2}, false, idx2)
	man := readManifest(t, idx2)
	if len(man.Generations) != 3 || man.Generations[0].Dir != idx0 || man.Generations[1].Dir != idx1 {
		t.Fatalf("chain: generations %+v", man.Generations)
	}
	files := inputs(t, sampleFiles[1:]...)
	chain := runAuditOpt(t, cfg, files, AuditOptions{Index: idx2})
	sameAudit(t, "chain by lookups and by a scan", chain, runAuditOpt(t, cfg, files, AuditOptions{Index: idx2, Scan: true}))

	compact := filepath.Join(dir, "compact")
	cm, err := indexing.CompactIndex(context.Background(), idx2, compact, t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	if len(cm.Generations) != 1 || cm.Documents != man.Documents || len(cm.Shards) != len(man.Shards) {
		t.Fatalf("compacted: %d generations, %d documents in %d shards; want 1, %d in %d", len(cm.Generations), cm.Documents, len(cm.Shards), man.Documents, len(man.Shards))
	}
	sameAudit(t, "chain and its compaction", chain, runAuditOpt(t, cfg, files, AuditOptions{Index: compact}))

	// A version 2 manifest (one directory of shards) converts the same way.
	m0 := readManifest(t, idx0)
	v2, _ := json.Marshal(map[string]any{"format": index.FormatName, "version": 2, "config": m0.Config, "documents": m0.Documents, "shards": m0.Shards})
	old := filepath.Join(dir, "v2")
	os.Mkdir(old, 0o755)
	for _, sh := range m0.Shards {
		b, _ := os.ReadFile(filepath.Join(idx0, sh.Name))
		os.WriteFile(filepath.Join(old, sh.Name), b, 0o644)
	}
	os.WriteFile(filepath.Join(old, index.ManifestName), v2, 0o644)
	_, sc := beam.NewPipelineWithRoot()
	if err := BuildAudit(context.Background(), sc, cfg, files, AuditOptions{Index: old, Manifest: readManifest(t, old)}); err == nil ||
		!strings.Contains(err.Error(), "neardup index compact --index "+old) {
		t.Errorf("audit of a version 2 index: %v, want a refusal naming the conversion", err)
	}
	conv := filepath.Join(dir, "converted")
	if _, err := indexing.CompactIndex(context.Background(), old, conv, t.TempDir()); err != nil {
		t.Fatal(err)
	}
	sameAudit(t, "an index and its conversion from version 2", runAuditOpt(t, cfg, files, AuditOptions{Index: idx0}),
		runAuditOpt(t, cfg, files, AuditOptions{Index: conv}))

	// The compacted index needs no generation; the chain needs each one.
	if err := os.RemoveAll(idx1); err != nil {
		t.Fatal(err)
	}
	if _, err := indexing.OpenIndex(context.Background(), compact); err != nil {
		t.Errorf("compacted index after removing a generation of the chain: %v", err)
	}
	want := "index " + idx2 + " needs generation " + idx1 + " (" + filepath.Join(idx1, index.ShardName(0)) + " is missing)"
	if _, err := indexing.OpenIndex(context.Background(), idx2); err == nil || err.Error() != want {
		t.Errorf("generation removed: got %v, want %s", err, want)
	}
}
