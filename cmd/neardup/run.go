package main

import (
	"cmp"
	"context"
	"crypto/rand"
	"encoding/hex"
	"encoding/json"
	"flag"
	"fmt"
	"io"
	"log/slog"
	"math"
	"os"
	"path/filepath"
	"runtime/pprof"
	"slices"
	"strings"
	"sync"
	"time"

	"github.com/apache/beam/sdks/v2/go/pkg/beam"
	"github.com/apache/beam/sdks/v2/go/pkg/beam/core/metrics"
	"github.com/apache/beam/sdks/v2/go/pkg/beam/io/filesystem"
	_ "github.com/apache/beam/sdks/v2/go/pkg/beam/io/filesystem/gcs"
	_ "github.com/apache/beam/sdks/v2/go/pkg/beam/io/filesystem/local"
	_ "github.com/apache/beam/sdks/v2/go/pkg/beam/io/filesystem/s3"
	"github.com/apache/beam/sdks/v2/go/pkg/beam/log"
	"github.com/apache/beam/sdks/v2/go/pkg/beam/x/beamx"

	"github.com/neardup/neardup/cmd/neardup/internal/jobservice"
	"github.com/neardup/neardup/cmd/neardup/internal/outdir"
	"github.com/neardup/neardup/cmd/neardup/internal/progress"
	"github.com/neardup/neardup/pipeline"
	"github.com/neardup/neardup/transforms"
	"github.com/neardup/neardup/transforms/format/output"
	"github.com/neardup/neardup/transforms/match/blocking"
)

// runFlags are the flags of 'neardup run', registered on flag.CommandLine
// beside Beam's own so that Beam sees its pipeline options.
type runFlags struct {
	input, output, shingle string
	overwrite, verbose     bool
	cpuprofile             string
	memprofile             string
	spool, spill, quiet    bool
	indexOut               string
	maxRejectRatio         float64
	memoryFlag             string       // --memory as given
	memory                 memoryBudget // --memory parsed (checkRunFlags)
	memoryGiven            bool         // --memory was on the command line
	segmentLines           int          // --segment-lines, a power of two: cfg.SegmentBits
	cfg                    transforms.Config
}

func registerRunFlags(fs *flag.FlagSet) *runFlags {
	f := &runFlags{cfg: transforms.DefaultConfig()}
	c := &f.cfg
	fs.StringVar(&f.input, "input", "", "input files: comma-separated globs (local paths or gs://...); gzip (.gz) or zstd (.zst, .zstd)\nby extension or by content")
	fs.StringVar(&f.output, "output", "", "output directory; must be empty or absent unless --overwrite")
	fs.StringVar(&f.indexOut, "index-out", "", "also write the signature index of the kept documents to this directory (empty or absent;\nwith --overwrite, one holding only an index's files), for 'neardup audit'")
	fs.BoolVar(&f.overwrite, "overwrite", false, "write into a non-empty output directory, replacing neardup's files there once the run succeeds\n(never an input file), and break the lock a killed run left")
	fs.Float64Var(&f.maxRejectRatio, "max-reject-ratio", 0.5, "fail the run, writing no outputs, when more than this share of the records is rejected or every\nrecord of an input file is (the input is not what --format and the field flags say); 1: never")
	fs.BoolVar(&f.verbose, "verbose", false, "show the runner's log")
	fs.BoolVar(&f.quiet, "quiet", false, "no progress lines on stderr while a local job runs")
	fs.BoolVar(&f.spool, "spool", true, "local runners: keep decompressed copies of compressed inputs in a temporary directory (about the\ndecompressed input), so that the deduplicated copy does not inflate them again")
	fs.BoolVar(&f.spill, "spill", true, "local runners: send the shuffles that grow with the input through files in the work directory,\nread back one group at a time, rather than hold them in the runner's memory")
	fs.StringVar(&f.cpuprofile, "cpuprofile", "", "write a CPU profile of the local run to this file (go tool pprof)")
	fs.StringVar(&f.memoryFlag, "memory", defaultMemory, "local runners: the memory the job may use: a size (8GiB, 512MiB; 8G, 8GB: powers of 1000) or a share\nof the machine's memory (its control group's, if lower); sets Go's soft memory limit (9/10 of it) and\nmore shuffle rounds when it is small; an input that cannot fit is refused before the run")
	fs.StringVar(&f.memprofile, "memprofile", "", "write a heap profile of the local run, taken when the heap in use\nwas largest (checked every second), to this file (go tool pprof)")
	fs.StringVar(&c.Format, "format", c.Format, "input format: jsonl, tsv (url<TAB>title<TAB>content), text (one document per file) or parquet\n(a row per document, columns --id-field/--text-field; a .parquet file is read as Parquet whatever the format)")
	fs.StringVar(&c.IDField, "id-field", c.IDField, "jsonl, parquet: field (column) holding the document id (meta.url: a nested field); '': ids are FILE:LINE\n(parquet: FILE:ROW), as they are for a file whose first record has no such field")
	fs.StringVar(&c.TextField, "text-field", c.TextField, "jsonl, parquet: field (column) holding the document text (content.text: a nested field)")
	fs.StringVar(&c.Compress, "compress", "", "compress the outputs: none, gzip or zstd (suffix .gz, .zst); unset: each dedup copy\nas its input is, the rest plain (a Parquet copy keeps its input's codecs)")
	fs.BoolVar(&c.Locations, "locations", false, "pairs and clusters also give each document's input file index and line")
	fs.IntVar(&c.MaxDocBytes, "max-doc-bytes", c.MaxDocBytes, "records longer than this are rejected (0: the default)")
	fs.IntVar(&c.MaxTokens, "max-tokens", c.MaxTokens, "tokens per document used for signatures")
	fs.StringVar(&c.Method, "method", c.Method, "candidates from minhash bands, simhash tables, or both; simhash verifies by Hamming distance, the others by Jaccard")
	fs.Float64Var(&c.Threshold, "threshold", c.Threshold, "Jaccard similarity at or above which two documents are near-duplicates")
	fs.StringVar(&c.Verify, "verify", c.Verify, "how candidates are verified against --threshold: auto (MinHash estimate, exact Jaccard where the estimate cannot decide), estimate, or exact")
	fs.Float64Var(&c.Confidence, "confidence", c.Confidence, "confidence bound of the MinHash estimate: estimates within it of --threshold are checked exactly (auto) or accepted (estimate)")
	fs.IntVar(&c.Hamming, "hamming", c.Hamming, "SimHash: largest Hamming distance of near-duplicates (bits of 64)")
	fs.StringVar(&f.shingle, "shingle", "char:5", "shingles: char:N (CJK characters, words elsewhere) or word:N (gse words for CJK)")
	fs.StringVar(&c.Dictionary, "dict", c.Dictionary, "gse dictionary for word shingles: auto (simplified or traditional by each text's script), zh_s, zh_t or zh (both in one)")
	fs.IntVar(&c.Perms, "perms", c.Perms, "MinHash permutations")
	fs.StringVar(&c.MinHash, "minhash", c.MinHash, "MinHash scheme: classic or oph (one-permutation hashing, faster)")
	fs.IntVar(&c.Bands, "bands", 0, "LSH bands (0: chosen from --threshold and --perms)")
	fs.IntVar(&c.Rows, "rows", 0, "LSH rows per band (0: chosen with --bands)")
	fs.IntVar(&c.SimBlocks, "simhash-blocks", 0, "SimHash pigeonhole blocks m > k (0: chosen from the input size)")
	fs.IntVar(&c.Partitions, "partitions", c.Partitions, "shuffle partitions; when not given, on the direct runner with --spill, 256 per 1.5 GiB of input\n(decompressed)")
	fs.IntVar(&c.MaxBucket, "max-bucket", c.MaxBucket, "buckets up to this many documents compare all pairs")
	fs.IntVar(&c.Window, "window", c.Window, "bigger buckets compare each document with this many neighbours")
	fs.Func("runner-option", "NAME=VALUE: a pipeline option of Beam's Java runners (flink, spark, universal) that Beam's\nGo SDK cannot send, added to the job's options, as environment_cache_millis=30000 (default\n10000: how long a worker is kept between stages); VALUE is JSON, or else a string; repeatable", jobservice.AddOption)
	fs.IntVar(&f.segmentLines, "segment-lines", 0, "lines (rows) of one input file per segment: the key of every pass after the first, so a file\nof n lines spreads over n/segment-lines workers; a power of two from 2 to 16777216,\nor 0: 65536 on one machine, 4096 on a cluster runner (flink, spark, dataflow, universal)")
	fs.IntVar(&c.CCPartitions, "cc-partitions", c.CCPartitions, "partitions of the documents for the connected components; when not given, on the direct runner\nwith --spill, 16 per 1.5 GiB of input (decompressed)")
	fs.IntVar(&c.CCRounds, "cc-rounds", -1, "large-star/small-star rounds before the components left are\njoined on one worker (summary: components_remainder_edges);\n-1: "+fmt.Sprint(transforms.AutoCCRounds(true, 1))+" on one machine for up to 1.5 GiB of input (decompressed),\nelse "+fmt.Sprint(transforms.AutoCCRounds(false, 1)))
	fs.StringVar(&c.Keep, "keep", c.Keep, "which document of a cluster to keep: longest (text, in bytes) or first")
	fs.IntVar(&c.Branches, "branches", c.Branches, "copies of each file-reading stage, each reading every n-th file (parallelism on Prism)")
	fs.IntVar(&c.Rounds, "rounds", 0, "rounds, one after the other, of the largest shuffles (block entries, verification, exact checks)\n(0: 1 with --spill and on a cluster; on Prism or with --spill=false, one per 128 MiB of input,\nfrom --branches up to 8)")
	fs.IntVar(&c.Workers, "workers", c.Workers, "goroutines per file for parsing and signatures (0: one per core)")
	return f
}

func runUsage() {
	fs := flag.NewFlagSet("run", flag.ContinueOnError)
	registerRunFlags(fs)
	fmt.Print(`usage: neardup run --input 'GLOB[,GLOB...]' --output DIR [flags]

Run reads the input shards, finds exact and near-duplicate documents and
writes to DIR:

	pairs-NNNNN.jsonl     verified pairs {"a","b","jaccard","hamming","method"}
	clusters-NNNNN.jsonl  {"cluster","size","representative","members"}
	dedup-NNNNN.jsonl     the input records kept, byte for byte (.tsv for --format tsv;
	                      .txt for --format text: the file as read, or empty if removed;
	                      .parquet for a Parquet input: its schema, the rows kept)
	rejects-NNNNN.jsonl   records that could not be read, with file, line and reason
	summary.json          counts; input_records = kept + removed + rejected
	report.html           a page to look at the run

NNNNN is the index of the input file in sorted order. A dedup copy is
compressed as its input (.jsonl.gz, .jsonl.zst); --compress gzip|zstd
compresses every file but summary.json and report.html.

Examples:

	neardup run --input 'testdata/sample/sample-*' --output out/sample
	neardup run --input 'a/*.jsonl.gz,b/*.jsonl.gz' --output out --method minhash --threshold 0.9
	neardup run --input 'pages/*.tsv' --format tsv --output out/pages

Beam flags such as --runner (default direct), --endpoint and
--environment_type choose where the job runs: see 'neardup help runners'.
neardup's flags may also be written with '_' (--max_doc_bytes).
`)
	printGrouped(os.Stdout, fs, runFlagGroups)
}

// runFlagGroups orders the flags of 'neardup run' by what they are about.
var runFlagGroups = []struct {
	title string
	names []string
}{
	{"Input and output", []string{"input", "format", "id-field", "text-field", "max-doc-bytes", "max-reject-ratio", "output", "overwrite", "compress", "locations", "index-out"}},
	{"What counts as a near-duplicate", []string{"threshold", "shingle", "dict", "method", "hamming", "verify", "confidence", "keep"}},
	{"Signatures, blocking and shuffles", []string{"perms", "minhash", "bands", "rows", "simhash-blocks", "max-tokens", "max-bucket", "window", "partitions", "segment-lines", "cc-partitions", "cc-rounds", "rounds"}},
	{"Running on one machine", []string{"memory", "branches", "workers", "spool", "spill", "quiet", "verbose", "cpuprofile", "memprofile"}},
	{"Running on a cluster", []string{"runner-option"}},
}

// printGrouped prints the flags of fs under the titles of groups, then any
// flag no group names (under "Other", if there are groups), in the layout
// of flag.PrintDefaults with two dashes.
func printGrouped(w io.Writer, fs *flag.FlagSet, groups []struct {
	title string
	names []string
}) {
	seen := map[string]bool{}
	one := func(f *flag.Flag) {
		seen[f.Name] = true
		name, usage := flag.UnquoteUsage(f)
		fmt.Fprintf(w, "  --%s", f.Name)
		if name != "" {
			fmt.Fprintf(w, " %s", name)
		}
		fmt.Fprintf(w, "\n    \t%s", strings.ReplaceAll(usage, "\n", "\n    \t"))
		switch {
		case f.DefValue == "" || f.DefValue == "0" || f.DefValue == "false":
		case name == "string":
			fmt.Fprintf(w, " (default %q)", f.DefValue)
		default:
			fmt.Fprintf(w, " (default %s)", f.DefValue)
		}
		fmt.Fprintln(w)
	}
	for _, g := range groups {
		fmt.Fprintf(w, "\n%s:\n", g.title)
		for _, n := range g.names {
			if f := fs.Lookup(n); f != nil {
				one(f)
			}
		}
	}
	var rest []*flag.Flag
	fs.VisitAll(func(f *flag.Flag) {
		if !seen[f.Name] {
			rest = append(rest, f)
		}
	})
	if len(rest) > 0 && len(groups) > 0 {
		fmt.Fprintf(w, "\nOther:\n")
	}
	for _, f := range rest {
		one(f)
	}
}

func runMain(args []string) error {
	f := registerRunFlags(flag.CommandLine)
	if err := parseFlags(flag.CommandLine, args, runUsage); err != nil {
		return err
	}
	if f.input == "" || f.output == "" {
		return usagef("--input and --output are required (see 'neardup help run')")
	}
	if err := checkRunFlags(f); err != nil {
		return err
	}
	f.memoryGiven = flagSet(flag.CommandLine)["memory"]
	if f.indexOut != "" && sameDir(f.indexOut, f.output) {
		return usagef("--index-out must be another directory than --output")
	}
	cfg := &f.cfg
	if cfg.Bands == 0 {
		b := blocking.ChooseBands(cfg.Threshold, cfg.Perms, blocking.DefaultWeights)
		cfg.Bands, cfg.Rows = b.B, b.R
	}
	initBeam(f.verbose)
	setDefaultRunner()
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	jobDone := make(chan struct{})
	handleSignals(cancel, jobDone)

	files, bytes, err := expandInputs(ctx, f.input)
	if err != nil {
		return err
	}
	if cfg.SimBlocks == 0 {
		// About 1 KB of raw text per document. Pairs of a table bucket
		// farther than k bits are dropped in the bucket, so a chance
		// collision costs one comparison.
		cfg.SimBlocks = blocking.ChooseDesign(cfg.Hamming, max(bytes/1024, 1)).Blocks
	}
	if err := planMemory(f, cfg, files, bytes); err != nil {
		return err
	}
	scale := scalePartitions(f, cfg, decompressedBytes(files, cfg.Format, bytes))
	if cfg.CCRounds == -1 {
		cfg.CCRounds = transforms.AutoCCRounds(localRunner(), scale)
	}
	if err := cfg.Validate(); err != nil {
		return usageError{err}
	}

	out, abort, err := openDir(outdir.Output, f.output, f.overwrite, files)
	if err != nil {
		return err
	}
	defer abort()
	setInterruptOutput(f.output, out.Committed)
	cfg.Output = out.Stage()
	var idx *outdir.Dir
	if f.indexOut != "" {
		var abort func()
		if idx, abort, err = openDir(outdir.Index, f.indexOut, f.overwrite, files); err != nil {
			return fmt.Errorf("--index-out: %w", err)
		}
		defer abort()
		cfg.IndexOut = idx.Stage()
	}

	stop, err := startLocal(f, cfg, files)
	if err != nil {
		return err
	}
	defer stop()
	p, s := beam.NewPipelineWithRoot()
	if err := pipeline.Build(ctx, s, *cfg, files); err != nil {
		return err
	}
	start := time.Now()
	res, err := runPipeline(ctx, p, jobDone)
	if err != nil {
		return err
	}
	took := time.Since(start)

	// Check the outputs in the staging directory; only then put them in
	// place, summary.json last.
	sum, err := completeSummary(ctx, out.Stage(), res, start, took, cfg.Settings(runnerName()))
	if err != nil {
		return err
	}
	err = finishJob(ctx, finishedJob{
		counts: sum.Counts, balanced: sum.Balanced, inputs: sum.Inputs, files: files, maxRejectRatio: f.maxRejectRatio,
		out: out, summary: output.SummaryName, index: idx, indexFlag: "--index-out",
		beforeCommit: func() error { return writeReport(out.Stage(), out.Path(), files, cfg) },
	})
	if err != nil {
		return err
	}
	report(os.Stdout, out.Path(), sum, len(files), took)
	if idx != nil {
		fmt.Fprintf(os.Stdout, "index in %s (index.json, index-*.bin)\n", idx.Path())
	}
	return nil
}

// runPipeline runs p and closes jobDone when it ends. If the job failed on
// a local runner, it returns once the DoFns of the bundles other than the
// failed one, which go on in this process, have stopped writing into the
// directories the caller's cleanups remove.
func runPipeline(ctx context.Context, p *beam.Pipeline, jobDone chan struct{}) (beam.PipelineResult, error) {
	transforms.Progress.Stages.Reset()
	stopProxy, err := jobservice.Use(ctx, runnerName())
	if err != nil {
		return nil, err
	}
	defer stopProxy()
	res, err := beamx.RunWithMetrics(ctx, p)
	close(jobDone)
	progress.End(err == nil)
	if err != nil {
		if localRunner() && ctx.Err() == nil {
			transforms.WaitIdle(30 * time.Second)
		}
		return nil, fmt.Errorf("pipeline failed: %s", rootCause(err))
	}
	return res, nil
}

// localDir is dir if it is a local directory, else "".
func localDir(dir string) string {
	if strings.Contains(dir, "://") {
		return ""
	}
	return dir
}

// initBeam initializes Beam. Unless verbose, the runner's log shows only
// warnings, and not the errors of a failed job either: they repeat the
// failed bundle's plan, and the command prints the error itself, on one
// line (rootCause).
func initBeam(verbose bool) {
	if !verbose {
		log.LogLevel = "warn"
	}
	beam.Init()
	if !verbose {
		slog.SetDefault(slog.New(dropErrors{slog.Default().Handler()}))
	}
}

// dropErrors is a slog handler that drops records of level Error and above.
type dropErrors struct{ slog.Handler }

func (d dropErrors) Enabled(ctx context.Context, l slog.Level) bool {
	return l < slog.LevelError && d.Handler.Enabled(ctx, l)
}

func (d dropErrors) WithAttrs(a []slog.Attr) slog.Handler { return dropErrors{d.Handler.WithAttrs(a)} }
func (d dropErrors) WithGroup(n string) slog.Handler      { return dropErrors{d.Handler.WithGroup(n)} }

// completeSummary adds the wall time, the busy time and span of each stage
// (from the runner's metrics, where it reports them) and the job's settings
// to the summary.json the job wrote in dir, and returns it. Times vary from
// run to run and the shape of the job from runner to runner; the counts
// beside them do not.
func completeSummary(ctx context.Context, dir string, res beam.PipelineResult, start time.Time, wall time.Duration, settings output.Settings) (output.Summary, error) {
	return updateJSON(ctx, dir, output.SummaryName, func(sum *output.Summary) {
		sum.WallSeconds = wall.Seconds()
		sum.Settings = &settings
		if res == nil {
			return
		}
		if localRunner() { // the DoFns ran here: their own record is complete
			sum.StageSeconds, sum.StageSpans = localStages(&transforms.Progress.Stages, start)
			sum.Workers = map[string]output.WorkerStats{transforms.WorkerID: {
				Signed: transforms.Progress.Signed.Load(), StageSeconds: sum.StageSeconds}}
			return
		}
		all := res.Metrics().AllMetrics()
		sum.StageSeconds = map[string]float64{}
		for _, c := range all.Counters() {
			if c.Namespace() == output.MetricsNamespace && strings.HasPrefix(c.Name(), output.BusyPrefix) {
				sum.StageSeconds[strings.TrimPrefix(c.Name(), output.BusyPrefix)] += float64(c.Result()) / 1000
			}
		}
		sum.StageSpans = stageSpans(all.Distributions(), start)
		sum.Workers = workerStats(all.Counters())
	})
}

// updateJSON reads the JSON file name the job wrote in dir (through Beam's
// filesystems: dir need not be on this machine), applies update to it and
// writes it back, indented.
func updateJSON[T any](ctx context.Context, dir, name string, update func(*T)) (T, error) {
	var v T
	path := output.JoinPath(dir, name)
	b, err := readAny(ctx, path)
	if err == nil {
		err = json.Unmarshal(b, &v)
	}
	if err != nil {
		return v, fmt.Errorf("the job wrote no readable %s: %w", name, err)
	}
	update(&v)
	if b, err = json.MarshalIndent(v, "", "  "); err != nil {
		return v, err
	}
	return v, writeAny(ctx, path, append(b, '\n'))
}

// readAny reads a file on any Beam filesystem.
func readAny(ctx context.Context, path string) ([]byte, error) {
	fsys, err := filesystem.New(ctx, path)
	if err != nil {
		return nil, err
	}
	defer fsys.Close()
	return filesystem.Read(ctx, fsys, path)
}

// writeAny writes a file on any Beam filesystem: a local one through a
// temporary file and a rename.
func writeAny(ctx context.Context, path string, b []byte) error {
	if !strings.Contains(path, "://") {
		tmp := filepath.Join(filepath.Dir(path), ".tmp-"+filepath.Base(path)+"-"+randomHex())
		if err := os.WriteFile(tmp, b, 0o644); err != nil {
			os.Remove(tmp)
			return err
		}
		return os.Rename(tmp, path)
	}
	fsys, err := filesystem.New(ctx, path)
	if err != nil {
		return err
	}
	defer fsys.Close()
	return filesystem.Write(ctx, fsys, path, b)
}

// stageClock is the record of the stages' work kept by the DoFns of this
// process (transforms.Progress.Stages).
type stageClock interface {
	Busy() map[string]time.Duration
	Spans() map[string][2]time.Time
}

// localStages returns, per stage, the seconds of work and the seconds
// since start at which its work first started and last ended, from the
// record the DoFns of this process kept. It returns nils if there is none.
func localStages(c stageClock, start time.Time) (busy map[string]float64, spans map[string][2]float64) {
	since := func(t time.Time) float64 { return math.Round(float64(t.Sub(start).Milliseconds())) / 1000 }
	for name, d := range c.Busy() {
		if busy == nil {
			busy = map[string]float64{}
		}
		busy[name] = math.Round(float64(d.Milliseconds())) / 1000
	}
	for name, s := range c.Spans() {
		if spans == nil {
			spans = map[string][2]float64{}
		}
		spans[name] = [2]float64{since(s[0]), since(s[1])}
	}
	return busy, spans
}

// workerStats returns the work of each worker process from the per-worker
// counters (output.WorkerBusyPrefix, output.WorkerSignedPrefix), or nil if
// the runner reported none.
func workerStats(counters []metrics.CounterResult) map[string]output.WorkerStats {
	var ws map[string]output.WorkerStats
	add := func(worker string, f func(*output.WorkerStats)) {
		if ws == nil {
			ws = map[string]output.WorkerStats{}
		}
		w := ws[worker]
		f(&w)
		ws[worker] = w
	}
	for _, c := range counters {
		if c.Namespace() != output.MetricsNamespace {
			continue
		}
		if worker, ok := strings.CutPrefix(c.Name(), output.WorkerSignedPrefix); ok {
			add(worker, func(w *output.WorkerStats) { w.Signed += c.Result() })
		} else if rest, ok := strings.CutPrefix(c.Name(), output.WorkerBusyPrefix); ok {
			worker, stage, _ := strings.Cut(rest, "/")
			add(worker, func(w *output.WorkerStats) {
				if w.StageSeconds == nil {
					w.StageSeconds = map[string]float64{}
				}
				w.StageSeconds[stage] += float64(c.Result()) / 1000
			})
		}
	}
	return ws
}

// stageSpans returns, per stage, the seconds since start at which its work
// first started and last ended, from the span_ms distributions: the runner
// reports one per step, and a stage may have several (branches, rounds).
// It returns nil if there are none.
func stageSpans(dists []metrics.DistributionResult, start time.Time) map[string][2]float64 {
	since := func(ms int64) float64 { return math.Round(float64(ms-start.UnixMilli())) / 1000 }
	var spans map[string][2]float64
	for _, d := range dists {
		if d.Namespace() != output.MetricsNamespace || !strings.HasPrefix(d.Name(), output.SpanPrefix) {
			continue
		}
		if spans == nil {
			spans = map[string][2]float64{}
		}
		r := d.Result()
		name := strings.TrimPrefix(d.Name(), output.SpanPrefix)
		span := [2]float64{since(r.Min), since(r.Max)}
		if old, ok := spans[name]; ok {
			span = [2]float64{min(old[0], span[0]), max(old[1], span[1])}
		}
		spans[name] = span
	}
	return spans
}

// sameDir reports whether two directory arguments name the same directory.
func sameDir(a, b string) bool {
	if !strings.Contains(a, "://") {
		a, _ = filepath.Abs(a)
	}
	if !strings.Contains(b, "://") {
		b, _ = filepath.Abs(b)
	}
	return strings.TrimSuffix(a, "/") == strings.TrimSuffix(b, "/")
}

// startLocal prepares what a job running on one machine needs, for run and
// audit alike: the soft memory limit, the spool of decompressed inputs, the
// CPU and heap profiles and the progress lines. The returned stop ends them;
// call it once the job is done.
func startLocal(f *runFlags, cfg *transforms.Config, files []string) (stop func(), err error) {
	var undo []func()
	var once sync.Once
	stop = func() {
		once.Do(func() {
			for i := len(undo) - 1; i >= 0; i-- {
				undo[i]()
			}
		})
	}
	tuneLocalGC(f.memory.of(machineMemory()), f.memoryGiven)
	if localRunner() {
		// One temporary directory holds the job's intermediate files and
		// the spool, and the runner's temporary files (TMPDIR): it goes
		// when the command ends, however it ends but SIGKILL, and a later
		// run removes it then (outdir.SweepWorkDirs).
		outdir.SweepWorkDirs(os.TempDir(), time.Now())
		dir, err := outdir.MakeWorkDir()
		if err != nil {
			return stop, fmt.Errorf("making the work directory in %s: %w", os.TempDir(), err)
		}
		remove := atExit(func() { outdir.RemoveAll(dir) })
		tmpdir, had := os.LookupEnv("TMPDIR")
		os.Setenv("TMPDIR", dir)
		undo = append(undo, func() {
			if had {
				os.Setenv("TMPDIR", tmpdir)
			} else {
				os.Unsetenv("TMPDIR")
			}
			remove()
		})
		cfg.Work = dir
		cfg.Spill = f.spill
		if f.spool {
			cfg.Spool = dir
		}
	}
	if f.cpuprofile != "" {
		pf, err := os.Create(f.cpuprofile)
		if err != nil {
			stop()
			return func() {}, err
		}
		if err := pprof.StartCPUProfile(pf); err != nil {
			pf.Close()
			stop()
			return func() {}, err
		}
		undo = append(undo, func() { pprof.StopCPUProfile(); pf.Close() })
	}
	if f.memprofile != "" {
		quit := make(chan struct{})
		done := make(chan error)
		go func() { done <- peakHeapProfile(f.memprofile, time.Second, quit) }()
		undo = append(undo, func() {
			close(quit)
			if err := <-done; err != nil {
				fmt.Fprintln(os.Stderr, "neardup: memprofile:", err)
			}
		})
	}
	if !f.quiet && localRunner() {
		undo = append(undo, progress.Start(files))
	}
	return stop, nil
}

// tuneLocalGC gives the Go runtime a soft memory limit, nine tenths of the
// budget of --memory (softLimit), when the job runs in this process (Prism
// or the direct runner): the runner keeps shuffled data in memory and the
// garbage it leaves would otherwise let the heap grow to twice the live
// data. GOMEMLIMIT, if set, wins over --memory's default, not over a
// --memory given (given). A budget of 0 (a share of a machine whose memory
// is unknown) sets no limit.
//
// The collector's pace is Go's default (GOGC=100) unless GOGC is set. A
// local run used GOGC=50 while the runner held the largest shuffles whole
// (peak RSS 3.6-3.8 GB at 100, 2.3-2.8 GB at 50); with the shuffle rounds
// GOGC=100 was the faster on the full SCALE corpus (25.4-26.5 s against
// 27.1-27.3 s, peak RSS 1.43-1.58 GB against 1.13-1.33 GB), and 150 or 200
// were no faster.
func tuneLocalGC(budget int64, given bool) {
	if !localRunner() || budget <= 0 || !given && os.Getenv("GOMEMLIMIT") != "" {
		return
	}
	setMemoryLimit(softLimit(budget))
}

// runnerName is the value of Beam's --runner flag, "prism" if unset.
func runnerName() string {
	if r := flag.Lookup("runner"); r != nil && r.Value.String() != "" {
		return r.Value.String()
	}
	return "direct"
}

// setDefaultRunner sets --runner to direct when the user gave none: on one
// machine the job runs on Beam's direct runner, in this process. Prism, the
// SDK's own default, keeps every shuffled byte of the job in memory; the
// direct runner only what a stage holds. Measured on the tiled SCALE corpus
// (docs/BENCHMARKS.md): x1 on a quiet machine 27.5 s and 0.86 GB against
// Prism's 29.3 s and 2.2 GB; x4, on a shared machine, 115 s and 2.1 GB
// against 170 s and 5.1 GB; x10 5.6 GB against 12.9 GB. The outputs are
// byte for byte the same; --runner prism still picks Prism.
func setDefaultRunner() {
	if r := flag.Lookup("runner"); r != nil && r.Value.String() == "" {
		_ = r.Value.Set("direct")
	}
}

// localRunner reports whether the job runs in this process: the direct
// runner (the default) or Prism.
func localRunner() bool {
	r := runnerName()
	return r == "prism" || r == "direct"
}

// expandInputs lists the paths matching comma-separated globs, sorted and
// without repeats (local paths absolute, URLs as typed), and their total
// size. A glob that matches nothing is an error, before any work starts.
// Every path a glob matches is an input, a directory or an unreadable file
// too: the job reports each of those as one rejected record (not_a_file,
// unreadable) instead of skipping it silently.
func expandInputs(ctx context.Context, spec string) ([]string, int64, error) {
	var files []string
	var total int64
	for _, glob := range strings.Split(spec, ",") {
		glob = strings.TrimSpace(glob)
		if glob == "" {
			continue
		}
		pattern := glob
		if !strings.Contains(glob, "://") {
			// Workers run in other directories: send them absolute paths.
			abs, err := filepath.Abs(glob)
			if err != nil {
				return nil, 0, fmt.Errorf("--input %q: %w", glob, err)
			}
			pattern = abs
		}
		fs, err := filesystem.New(ctx, pattern)
		if err != nil {
			return nil, 0, fmt.Errorf("--input %q: %w", glob, err)
		}
		matched, err := fs.List(ctx, pattern)
		if err != nil {
			fs.Close()
			return nil, 0, fmt.Errorf("--input %q: %w", glob, err)
		}
		if len(matched) == 0 {
			fs.Close()
			return nil, 0, fmt.Errorf("--input %q matches no file", glob)
		}
		for _, m := range matched {
			if !strings.Contains(m, "://") {
				// Not fs.Size, which opens the file: that blocks on a FIFO.
				if fi, err := os.Stat(m); err == nil && fi.Mode().IsRegular() {
					total += fi.Size()
				}
			} else if n, err := fs.Size(ctx, m); err == nil {
				total += n
			}
			files = append(files, m)
		}
		fs.Close()
	}
	slices.Sort(files)
	files = slices.Compact(files)
	if len(files) == 0 {
		return nil, 0, fmt.Errorf("--input %q matches no file", spec)
	}
	return files, total, nil
}

// report prints where the outputs are and the main counts.
func report(w io.Writer, out string, sum output.Summary, files int, took time.Duration) {
	c := sum.Counts
	fmt.Fprintf(w, "neardup: %d input files, %d records in %s\n", files, c[output.StatInput], took.Round(time.Millisecond))
	fmt.Fprintf(w, "  rejected %d, exact duplicates %d, candidate pairs %d, verified pairs %d\n",
		c[output.StatRejected], c[output.StatExactDups], c[output.StatCandidates], c[output.StatVerified])
	fmt.Fprintf(w, "  clusters %d covering %d documents: kept %d, removed %d\n",
		c[output.StatClusters], c[output.StatClustered], c[output.StatKept], c[output.StatRemoved])
	if len(sum.StageSeconds) > 0 {
		names := make([]string, 0, len(sum.StageSeconds))
		for n := range sum.StageSeconds {
			names = append(names, n)
		}
		slices.Sort(names)
		fmt.Fprintf(w, "  busy seconds per stage:")
		for _, n := range names {
			fmt.Fprintf(w, " %s %.1f", n, sum.StageSeconds[n])
		}
		fmt.Fprintln(w)
	}
	if len(sum.StageSpans) > 0 {
		names := make([]string, 0, len(sum.StageSpans))
		for n := range sum.StageSpans {
			names = append(names, n)
		}
		slices.SortFunc(names, func(a, b string) int {
			return cmp.Or(cmp.Compare(sum.StageSpans[a][0], sum.StageSpans[b][0]), cmp.Compare(a, b))
		})
		fmt.Fprintf(w, "  stage spans (s since start):")
		for _, n := range names {
			fmt.Fprintf(w, " %s %.1f-%.1f", n, sum.StageSpans[n][0], sum.StageSpans[n][1])
		}
		fmt.Fprintln(w)
	}
	fmt.Fprintf(w, "outputs in %s (summary.json, pairs-*, clusters-*, dedup-*, rejects-*)\n", out)
}

func randomHex() string {
	var b [8]byte
	_, _ = rand.Read(b[:])
	return hex.EncodeToString(b[:])
}
