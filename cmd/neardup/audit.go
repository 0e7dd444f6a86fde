package main

import (
	"context"
	"flag"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"time"

	"github.com/apache/beam/sdks/v2/go/pkg/beam"

	"github.com/neardup/neardup/cmd/neardup/internal/outdir"
	"github.com/neardup/neardup/pipeline"
	"github.com/neardup/neardup/pipeline/plan"
	"github.com/neardup/neardup/transforms/format/index"
	"github.com/neardup/neardup/transforms/format/output"
	"github.com/neardup/neardup/transforms/format/summary"
	"github.com/neardup/neardup/transforms/indexing"
	"github.com/neardup/neardup/transforms/job"
	"github.com/neardup/neardup/transforms/jobfiles/filelist"
)

type auditFlags struct {
	*runFlags
	index, updateIndex string
	sources            bool
}

func registerAuditFlags(fs *flag.FlagSet) *auditFlags {
	f := &auditFlags{runFlags: registerRunFlags(fs)}
	fs.StringVar(&f.index, "index", "", "the index to check against (written by 'neardup run --index-out' or 'neardup audit --update-index')")
	fs.StringVar(&f.updateIndex, "update-index", "", "write the next index (the old one and the new documents kept) to this directory (empty or absent); the old index is not modified")
	fs.BoolVar(&f.sources, "index-sources", true, "check (new, indexed) pairs the MinHash estimate cannot decide exactly, reading the indexed document from its source file; false, or a source that is gone: decide them by the estimate")
	return f
}

func auditUsage() {
	fs := flag.NewFlagSet("audit", flag.ContinueOnError)
	registerAuditFlags(fs)
	fmt.Print(`usage: neardup audit --index DIR [--input 'GLOB[,GLOB...]'] [FILE|DIR...] --output OUT [--update-index NEW_DIR] [flags]

Audit checks new input shards against the signature index of documents kept
before, reading only the index's signatures and block keys (not the old
text), and writes to OUT:

	audit-NNNNN.jsonl     new documents that duplicate indexed ones:
	                      {"doc","matches":[{"id","jaccard","hamming","method","source"}]}
	pairs-NNNNN.jsonl     verified pairs within the new batch (as 'run')
	clusters-NNNNN.jsonl  clusters within the new batch (as 'run')
	dedup-NNNNN.jsonl     the new records kept: neither a duplicate of an
	                      indexed document nor removed within the batch
	                      (.tsv and .txt for those formats, as 'run')
	fates-NNNNN.jsonl     with --fates, in place of dedup-NNNNN: every new record, its fate added
	rejects-NNNNN.jsonl   records that could not be read
	audit-summary.json    counts; input_records = kept + removed + rejected,
	                      removed = duplicates_of_index + removed_in_batch_only

The signature and blocking settings come from the index; giving one that
differs (--threshold, --perms, --shingle, ...) is an error.

Example:

	neardup run --input 'day1/*.jsonl.gz' --output out/day1 --index-out idx/day1
	neardup audit --index idx/day1 --input 'day2/*.jsonl.gz' --output out/day2 --update-index idx/day2
`)
	shown := flag.NewFlagSet("audit", flag.ContinueOnError) // all but run's --index-out
	fs.VisitAll(func(fl *flag.Flag) {
		if fl.Name != "index-out" {
			shown.Var(fl.Value, fl.Name, fl.Usage)
		}
	})
	printGrouped(os.Stdout, shown, append([]struct {
		title string
		names []string
	}{{"Index", []string{"index", "update-index", "index-sources"}}}, runFlagGroups...))
}

// auditJob is 'neardup audit': the job of pipeline.BuildAudit against an
// index, its output directory and, with --update-index, the next index.
type auditJob struct {
	f    *auditFlags
	idx  string          // the index directory: its absolute path, or a URL
	man  *index.Manifest // the index's manifest
	next *outdir.Dir     // --update-index; nil without it
	opt  pipeline.AuditOptions
}

func auditMain(args []string) error { return doJob(&auditJob{}, args) }

func (a *auditJob) register(fs *flag.FlagSet) *runFlags {
	a.f = registerAuditFlags(fs)
	return a.f.runFlags
}

func (a *auditJob) usage() { auditUsage() }

func (a *auditJob) check() error {
	f := a.f
	switch {
	case f.index == "" || f.input == "" || f.output == "":
		return usagef("--index, --input and --output are required (see 'neardup help audit')")
	case f.indexOut != "":
		return usagef("--index-out is for 'run'; use --update-index to write the next index")
	}
	return nil
}

func (a *auditJob) dirs() []outdir.Path {
	return []outdir.Path{{Name: "--output", Path: a.f.output, Written: true}, {Name: "the old index --index", Path: a.f.index},
		{Name: "--update-index", Path: a.f.updateIndex, Written: true}}
}

// options reads the index and returns the options with its settings
// (plan.WithIndex); flags that differ from those are a mistake on the
// command line (exit 2). An audit's shuffles meet the index's records: none is
// spilled (pipeline.BuildAudit).
func (a *auditJob) options(ctx context.Context) (plan.Options, error) {
	a.idx = a.f.index
	if !strings.Contains(a.idx, "://") {
		abs, err := filepath.Abs(a.idx)
		if err != nil {
			return plan.Options{}, err
		}
		a.idx = abs
	}
	var err error
	if a.man, err = indexing.ReadManifest(ctx, a.idx); err != nil {
		return plan.Options{}, err
	}
	if err := outdir.CheckGenerations(a.dirs(), outdir.Path{Name: "--index", Path: a.f.index}, generationPaths(a.man)); err != nil {
		return plan.Options{}, usageError{err}
	}
	if a.man.Version == 2 {
		return plan.Options{}, fmt.Errorf("index %s is of version %d: convert it once with `neardup index compact --index %s --output NEW_DIR` (this neardup audits versions 3 to %d)",
			a.idx, a.man.Version, a.idx, index.Version)
	}
	if a.man, err = indexing.OpenIndex(ctx, a.idx); err != nil {
		return plan.Options{}, err
	}
	a.f.spill = false
	o, err := plan.WithIndex(a.f.opts, a.f.runner(), a.man.Config)
	if err != nil {
		return o, usageError{fmt.Errorf("index %s: %w", a.idx, err)}
	}
	return o, nil
}

func (a *auditJob) stage(ctx context.Context, open opener, cfg *job.Config, files []string) (*outdir.Dir, error) {
	if len(files) >= filelist.IndexFileBase || len(a.man.Shards) >= filelist.IndexFileBase {
		return nil, fmt.Errorf("too many files: %d new, %d index shards (at most %d each)", len(files), len(a.man.Shards), filelist.IndexFileBase-1)
	}
	a.opt = pipeline.AuditOptions{Index: a.idx, Manifest: a.man, ReadSources: a.f.sources}
	if a.f.updateIndex != "" {
		var err error
		if a.next, err = openNextIndex(open, a.idx, a.f.updateIndex); err != nil {
			return nil, err
		}
		a.opt.UpdateIndex = a.next.Stage()
	}
	out, err := open(outdir.Output, a.f.output)
	if err != nil {
		return nil, err
	}
	if a.opt.ReadSources {
		if src, why := unusableSource(ctx, a.man); src != "" {
			fmt.Fprintf(os.Stderr, "neardup audit: index source %s %s: unsure (new, indexed) pairs are decided by the MinHash estimate\n", src, why)
			a.opt.ReadSources = false
		}
	}
	return out, nil
}

func (a *auditJob) build(ctx context.Context, s beam.Scope, cfg job.Config, files []string) error {
	return pipeline.BuildAudit(ctx, s, cfg, files, a.opt)
}

// finish checks the outputs in the staging directories and only then puts
// them in place, the next index first and audit-summary.json last.
func (a *auditJob) finish(ctx context.Context, d doneJob) error {
	sum, err := completeAuditSummary(ctx, d.out.Stage(), d.took, d.cfg.Settings(d.engine.String()))
	if err != nil {
		return err
	}
	err = finishJob(ctx, finishedJob{
		counts: sum.Counts, balanced: sum.Balanced, audit: true, inputs: sum.Inputs, files: d.files, maxRejectRatio: d.maxRejectRatio,
		out: d.out, summary: summary.AuditFileName, index: a.next, indexFlag: "--update-index", indexOffset: len(a.man.Shards),
	})
	if err != nil {
		return err
	}
	auditReport(d.out.Path(), d.out.Written(), a.next, sum, len(d.files), a.man.Documents, d.took)
	return nil
}

// generationPaths returns the directories of m's generations.
func generationPaths(m *index.Manifest) []string {
	paths := make([]string, len(m.Generations))
	for g, gen := range m.Generations {
		paths[g] = gen.Path
	}
	return paths
}

// openNextIndex checks and takes, with open, the directory of the next
// index, which must not be the old index or inside it (nor hold it).
func openNextIndex(open opener, old, next string) (*outdir.Dir, error) {
	n := next
	if !strings.Contains(n, "://") {
		abs, err := filepath.Abs(n)
		if err != nil {
			return nil, err
		}
		n = abs
	}
	o, nn := strings.TrimSuffix(old, "/")+"/", strings.TrimSuffix(n, "/")+"/"
	if strings.HasPrefix(nn, o) || strings.HasPrefix(o, nn) {
		return nil, fmt.Errorf("--update-index: %s is or overlaps the old index %s: the next index must go to a separate directory", next, old)
	}
	t, err := open(outdir.Index, next)
	if err != nil {
		return nil, fmt.Errorf("--update-index: %w", err)
	}
	return t, nil
}

// completeAuditSummary adds the wall time and the job's settings to the
// audit-summary.json the job wrote in dir, and returns it.
func completeAuditSummary(ctx context.Context, dir string, took time.Duration, settings summary.Settings) (summary.AuditSummary, error) {
	return updateJSON(ctx, dir, summary.AuditFileName, func(sum *summary.AuditSummary) {
		sum.WallSeconds = took.Seconds()
		sum.Settings = &settings
	})
}

// auditReport prints the main counts of an audit and the files written.
func auditReport(out string, written []string, next *outdir.Dir, sum summary.AuditSummary, files int, indexed int64, took time.Duration) {
	c := sum.Counts
	fmt.Printf("neardup audit: %d input files, %d records against an index of %d documents in %s\n",
		files, c[summary.StatInput], indexed, took.Round(time.Millisecond))
	fmt.Printf("  index documents sharing a key with the batch %d, (new, indexed) candidate checks in %d pairs\n",
		c[summary.StatIndexJoined], c[summary.StatCandidates])
	fmt.Printf("  (new, indexed) pairs verified %d; pairs within the batch written %d: exact duplicates %d, verified exactly %d, by estimate %d\n",
		c[summary.StatIndexVerified], c[output.KindPairs+summary.LinesSuffix], c[summary.StatExactDups], c[summary.StatByExact], c[summary.StatByEstimate])
	fmt.Printf("  rejected %d, duplicates of the index %d (exact %d), clusters in the batch %d, removed in the batch only %d\n",
		c[summary.StatRejected], c[summary.StatDupOfIndex], c[summary.StatExactOfIndex], c[summary.StatClusters], c[summary.StatBatchOnly])
	fmt.Printf("  kept %d, removed %d\n", c[summary.StatKept], c[summary.StatRemoved])
	if n := c[summary.StatContainsIndex]; n > 0 {
		fmt.Printf("  kept holding an indexed document (--containment) %d\n", n)
	}
	fmt.Printf("outputs in %s (%s)\n", out, outdir.FileList(written))
	if next != nil {
		fmt.Printf("next index in %s (%d + %d documents)\n", next.Path(), indexed, c[summary.StatKept])
	}
}
