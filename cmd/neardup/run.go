package main

import (
	"cmp"
	"context"
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"io"
	"io/fs"
	"math"
	"os"
	"path/filepath"
	"runtime/debug"
	"runtime/pprof"
	"slices"
	"strings"
	"time"

	"github.com/apache/beam/sdks/v2/go/pkg/beam"
	"github.com/apache/beam/sdks/v2/go/pkg/beam/core/metrics"
	"github.com/apache/beam/sdks/v2/go/pkg/beam/io/filesystem"
	_ "github.com/apache/beam/sdks/v2/go/pkg/beam/io/filesystem/gcs"
	_ "github.com/apache/beam/sdks/v2/go/pkg/beam/io/filesystem/local"
	"github.com/apache/beam/sdks/v2/go/pkg/beam/log"
	"github.com/apache/beam/sdks/v2/go/pkg/beam/x/beamx"

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
	spool, quiet           bool
	indexOut               string
	cfg                    transforms.Config
}

func registerRunFlags(fs *flag.FlagSet) *runFlags {
	f := &runFlags{cfg: transforms.DefaultConfig()}
	c := &f.cfg
	fs.StringVar(&f.input, "input", "", "input files: comma-separated globs (local paths or gs://...); gzip by .gz extension")
	fs.StringVar(&f.output, "output", "", "output directory; must be empty or absent unless --overwrite")
	fs.StringVar(&f.indexOut, "index-out", "", "also write the signature index of the kept documents to this directory (empty or absent;\nwith --overwrite, one holding only an index's files), for 'neardup audit'")
	fs.BoolVar(&f.overwrite, "overwrite", false, "write into a non-empty output directory, replacing neardup's files there")
	fs.BoolVar(&f.verbose, "verbose", false, "show the runner's log")
	fs.BoolVar(&f.quiet, "quiet", false, "no progress lines on stderr while a local job runs")
	fs.BoolVar(&f.spool, "spool", true, "local runners: keep decompressed and normalized copies of the inputs in a temporary directory (about twice\nthe decompressed input), so that later passes neither inflate nor parse them again")
	fs.StringVar(&f.cpuprofile, "cpuprofile", "", "write a CPU profile of the local run to this file (go tool pprof)")
	fs.StringVar(&f.memprofile, "memprofile", "", "write a heap profile of the local run, taken when the heap in use\nwas largest (checked every second), to this file (go tool pprof)")
	fs.StringVar(&c.Format, "format", c.Format, "input format: jsonl, tsv (url<TAB>title<TAB>content) or text (one document per file)")
	fs.StringVar(&c.IDField, "id-field", c.IDField, "jsonl: field holding the document id")
	fs.StringVar(&c.TextField, "text-field", c.TextField, "jsonl: field holding the document text")
	fs.IntVar(&c.MaxDocBytes, "max-doc-bytes", c.MaxDocBytes, "records longer than this are rejected")
	fs.IntVar(&c.MaxTokens, "max-tokens", c.MaxTokens, "tokens per document used for signatures")
	fs.StringVar(&c.Method, "method", c.Method, "candidates from minhash bands, simhash tables, or both; simhash verifies by Hamming distance, the others by Jaccard")
	fs.Float64Var(&c.Threshold, "threshold", c.Threshold, "Jaccard similarity at or above which two documents are near-duplicates")
	fs.StringVar(&c.Verify, "verify", c.Verify, "how candidates are verified against --threshold: auto (MinHash estimate, exact Jaccard where the estimate cannot decide), estimate, or exact")
	fs.Float64Var(&c.Confidence, "confidence", c.Confidence, "confidence bound of the MinHash estimate: estimates within it of --threshold are checked exactly (auto) or accepted (estimate)")
	fs.IntVar(&c.Hamming, "hamming", c.Hamming, "SimHash: largest Hamming distance of near-duplicates (bits of 64)")
	fs.StringVar(&f.shingle, "shingle", "char:5", "shingles: char:N (CJK characters, words elsewhere) or word:N (gse words for CJK)")
	fs.StringVar(&c.Dictionary, "dict", c.Dictionary, "gse dictionary for word shingles: zh_s, zh_t or zh (both)")
	fs.IntVar(&c.Perms, "perms", c.Perms, "MinHash permutations")
	fs.StringVar(&c.MinHash, "minhash", c.MinHash, "MinHash scheme: classic or oph (one-permutation hashing, faster)")
	fs.IntVar(&c.Bands, "bands", 0, "LSH bands (0: chosen from --threshold and --perms)")
	fs.IntVar(&c.Rows, "rows", 0, "LSH rows per band (0: chosen with --bands)")
	fs.IntVar(&c.SimBlocks, "simhash-blocks", 0, "SimHash pigeonhole blocks m > k (0: chosen from the input size)")
	fs.IntVar(&c.Partitions, "partitions", c.Partitions, "shuffle partitions")
	fs.IntVar(&c.MaxBucket, "max-bucket", c.MaxBucket, "buckets up to this many documents compare all pairs")
	fs.IntVar(&c.Window, "window", c.Window, "bigger buckets compare each document with this many neighbours")
	fs.IntVar(&c.CCPartitions, "cc-partitions", c.CCPartitions, "partitions of the documents for the connected components")
	fs.IntVar(&c.CCRounds, "cc-rounds", -1, "large-star/small-star rounds before the components left are\njoined on one worker (summary: components_remainder_edges);\n-1: "+fmt.Sprint(transforms.AutoCCRounds(true))+" on one machine, "+fmt.Sprint(transforms.AutoCCRounds(false))+" on a cluster")
	fs.StringVar(&c.Keep, "keep", c.Keep, "which document of a cluster to keep: longest or first")
	fs.IntVar(&c.Branches, "branches", c.Branches, "copies of each file-reading stage, each reading every n-th file (parallelism on Prism)")
	fs.IntVar(&c.Rounds, "rounds", 0, "rounds, one after the other, of the largest shuffles (block entries, verification, exact checks)\n(0: on Prism or direct, one per 128 MiB of input, from --branches up to 8; on a cluster, 1)")
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
	                      .txt for --format text: the file as read, or empty if removed)
	rejects-NNNNN.jsonl   records that could not be read, with file, line and reason
	summary.json          counts; input_records = kept + removed + rejected
	report.html           a page to look at the run

NNNNN is the index of the input file in sorted order.

Examples:

	neardup run --input 'testdata/sample/sample-*' --output out/sample
	neardup run --input 'a/*.jsonl.gz,b/*.jsonl.gz' --output out --method minhash --threshold 0.9
	neardup run --input 'pages/*.tsv' --format tsv --output out/pages

Beam flags such as --runner (default prism), --endpoint and
--environment_type choose where the job runs (see scripts/run-flink.sh and
scripts/run-dataflow.sh).
`)
	printGrouped(os.Stdout, fs, runFlagGroups)
}

// runFlagGroups orders the flags of 'neardup run' by what they are about.
var runFlagGroups = []struct {
	title string
	names []string
}{
	{"Input and output", []string{"input", "format", "id-field", "text-field", "max-doc-bytes", "output", "overwrite", "index-out"}},
	{"What counts as a near-duplicate", []string{"threshold", "shingle", "dict", "method", "hamming", "verify", "confidence", "keep"}},
	{"Signatures, blocking and shuffles", []string{"perms", "minhash", "bands", "rows", "simhash-blocks", "max-tokens", "max-bucket", "window", "partitions", "cc-partitions", "cc-rounds", "rounds"}},
	{"Running on one machine", []string{"branches", "workers", "spool", "quiet", "verbose", "cpuprofile", "memprofile"}},
}

// printGrouped prints the flags of fs under the titles of groups, then any
// flag no group names, in the layout of flag.PrintDefaults.
func printGrouped(w io.Writer, fs *flag.FlagSet, groups []struct {
	title string
	names []string
}) {
	seen := map[string]bool{}
	one := func(f *flag.Flag) {
		seen[f.Name] = true
		name, usage := flag.UnquoteUsage(f)
		fmt.Fprintf(w, "  -%s", f.Name)
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
	if len(rest) > 0 {
		fmt.Fprintf(w, "\nOther:\n")
		for _, f := range rest {
			one(f)
		}
	}
}

func runMain(args []string) error {
	f := registerRunFlags(flag.CommandLine)
	flag.Usage = runUsage
	if err := flag.CommandLine.Parse(args); err != nil {
		return err
	}
	if flag.NArg() > 0 {
		return fmt.Errorf("unexpected arguments %q", flag.Args())
	}
	if f.input == "" || f.output == "" {
		return errors.New("--input and --output are required (see 'neardup help run')")
	}
	if !f.verbose {
		log.LogLevel = "warn"
	}
	beam.Init()
	ctx := context.Background()

	cfg := &f.cfg
	if err := parseShingle(f.shingle, cfg); err != nil {
		return err
	}
	files, bytes, err := expandInputs(ctx, f.input)
	if err != nil {
		return err
	}
	if cfg.Bands == 0 || cfg.Rows == 0 {
		b := blocking.ChooseBands(cfg.Threshold, cfg.Perms, blocking.DefaultWeights)
		cfg.Bands, cfg.Rows = b.B, b.R
	}
	if cfg.SimBlocks == 0 {
		// About 1 KB of raw text per document. Pairs of a table bucket
		// farther than k bits are dropped in the bucket, so a chance
		// collision costs one comparison.
		cfg.SimBlocks = blocking.ChooseDesign(cfg.Hamming, max(bytes/1024, 1)).Blocks
	}
	if cfg.Rounds == 0 {
		cfg.Rounds = transforms.AutoRounds(bytes, cfg.Branches, localRunner())
	}
	if cfg.CCRounds == -1 {
		cfg.CCRounds = transforms.AutoCCRounds(localRunner())
	}
	if f.indexOut != "" && sameDir(f.indexOut, f.output) {
		return errors.New("--index-out must be another directory than --output")
	}
	out, err := outputDir.prepare(f.output, f.overwrite)
	if err != nil {
		return err
	}
	cfg.Output = out
	if err := cfg.Validate(); err != nil {
		return err
	}
	if f.indexOut != "" {
		if cfg.IndexOut, err = indexDir.prepare(f.indexOut, f.overwrite); err != nil {
			return fmt.Errorf("--index-out: %w", err)
		}
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
	res, err := beamx.RunWithMetrics(ctx, p)
	if err != nil {
		return fmt.Errorf("pipeline failed: %w", err)
	}
	took := time.Since(start)
	if err := completeSummary(out, res, start, took, cfg.Settings(runnerName())); err != nil {
		return err
	}
	if err := writeReport(out, files, cfg); err != nil {
		return err
	}
	if err := report(os.Stdout, out, len(files), took); err != nil {
		return err
	}
	if cfg.IndexOut != "" {
		fmt.Fprintf(os.Stdout, "index in %s (index.json, index-*.bin)\n", cfg.IndexOut)
	}
	return nil
}

// completeSummary adds the wall time, the busy time and span of each stage
// (from the runner's metrics, where it reports them) and the job's settings
// to a local summary.json. Times vary from run to run and the shape of the
// job from runner to runner; the counts beside them do not.
func completeSummary(out string, res beam.PipelineResult, start time.Time, wall time.Duration, settings output.Settings) error {
	if strings.Contains(out, "://") {
		return nil
	}
	sum, err := output.ReadSummary(out)
	if err != nil {
		return err
	}
	sum.WallSeconds = wall.Seconds()
	sum.Settings = &settings
	if res != nil {
		all := res.Metrics().AllMetrics()
		sum.StageSeconds = map[string]float64{}
		for _, c := range all.Counters() {
			if c.Namespace() == output.MetricsNamespace && strings.HasPrefix(c.Name(), output.BusyPrefix) {
				sum.StageSeconds[strings.TrimPrefix(c.Name(), output.BusyPrefix)] += float64(c.Result()) / 1000
			}
		}
		sum.StageSpans = stageSpans(all.Distributions(), start)
	}
	b, err := json.MarshalIndent(sum, "", "  ")
	if err != nil {
		return err
	}
	return os.WriteFile(filepath.Join(out, output.SummaryName), append(b, '\n'), 0o644)
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
	stop = func() {
		for i := len(undo) - 1; i >= 0; i-- {
			undo[i]()
		}
	}
	tuneLocalGC()
	if localRunner() {
		// One temporary directory holds the job's intermediate files and
		// the spool.
		dir, err := os.MkdirTemp("", "neardup-work-")
		if err != nil {
			return stop, err
		}
		undo = append(undo, func() { os.RemoveAll(dir) })
		cfg.Work = dir
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
		quit := make(chan struct{})
		done := make(chan struct{})
		go func() { progress(os.Stderr, 5*time.Second, quit); close(done) }()
		undo = append(undo, func() { close(quit); <-done })
	}
	return stop, nil
}

// tuneLocalGC gives the Go runtime a soft memory limit when the job runs
// in this process (Prism or the direct runner) and GOMEMLIMIT is not set:
// the runner keeps shuffled data in memory and the garbage it leaves would
// otherwise let the heap grow to twice the live data. A quarter of the
// machine's memory, at most 5 GiB, cost no time in measurements.
//
// The collector's pace is Go's default (GOGC=100) unless GOGC is set. A
// local run used GOGC=50 while the runner held the largest shuffles whole
// (peak RSS 3.6-3.8 GB at 100, 2.3-2.8 GB at 50); with the shuffle rounds
// GOGC=100 was the faster on the full SCALE corpus (25.4-26.5 s against
// 27.1-27.3 s, peak RSS 1.43-1.58 GB against 1.13-1.33 GB), and 150 or 200
// were no faster.
func tuneLocalGC() {
	if !localRunner() || os.Getenv("GOMEMLIMIT") != "" {
		return
	}
	limit := int64(5 << 30)
	if total := physicalMemory(); total > 0 {
		limit = min(limit, max(total/4, 1<<30))
	}
	debug.SetMemoryLimit(limit)
}

// runnerName is the value of Beam's --runner flag, "prism" if unset.
func runnerName() string {
	if r := flag.Lookup("runner"); r != nil && r.Value.String() != "" {
		return r.Value.String()
	}
	return "prism"
}

// localRunner reports whether the job runs in this process: Prism (the
// default) or the direct runner.
func localRunner() bool {
	r := runnerName()
	return r == "prism" || r == "direct"
}

// physicalMemory returns the machine's memory in bytes, or 0 if unknown.
func physicalMemory() int64 {
	b, err := os.ReadFile("/proc/meminfo")
	if err != nil {
		return 0
	}
	for _, line := range strings.Split(string(b), "\n") {
		if rest, ok := strings.CutPrefix(line, "MemTotal:"); ok {
			var kb int64
			if _, err := fmt.Sscanf(strings.TrimSpace(rest), "%d kB", &kb); err == nil {
				return kb << 10
			}
		}
	}
	return 0
}

// parseShingle reads "char:5" or "word:5".
func parseShingle(s string, cfg *transforms.Config) error {
	mode, n, ok := strings.Cut(s, ":")
	if !ok {
		return fmt.Errorf("--shingle %q: want char:N or word:N", s)
	}
	var k int
	if _, err := fmt.Sscanf(n, "%d", &k); err != nil || k < 1 {
		return fmt.Errorf("--shingle %q: shingle size must be a positive number", s)
	}
	cfg.Tokens, cfg.Shingle = mode, k
	return nil
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
			if n, err := fs.Size(ctx, m); err == nil {
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
func report(w *os.File, out string, files int, took time.Duration) error {
	sum, err := output.ReadSummary(out)
	var unread *fs.PathError
	if errors.As(err, &unread) {
		fmt.Fprintf(w, "neardup: done in %s; outputs in %s\n", took.Round(time.Millisecond), out)
		return nil
	}
	if err != nil {
		return err
	}
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
	if !sum.Balanced {
		return fmt.Errorf("records do not add up: input %d != kept %d + removed %d + rejected %d",
			c[output.StatInput], c[output.StatKept], c[output.StatRemoved], c[output.StatRejected])
	}
	return nil
}
