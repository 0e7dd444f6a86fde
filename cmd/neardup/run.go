package main

import (
	"context"
	"flag"
	"fmt"
	"io"
	"os"
	"time"

	"github.com/apache/beam/sdks/v2/go/pkg/beam"

	"github.com/neardup/neardup/cmd/neardup/internal/jobservice"
	"github.com/neardup/neardup/cmd/neardup/internal/outdir"
	"github.com/neardup/neardup/pipeline"
	"github.com/neardup/neardup/pipeline/plan"
	"github.com/neardup/neardup/transforms/format/output"
	"github.com/neardup/neardup/transforms/format/summary"
	"github.com/neardup/neardup/transforms/job"
)

// runFlags are the flags of 'neardup run', which 'neardup audit' shares, registered
// on flag.CommandLine beside Beam's own so that Beam sees its pipeline options.
type runFlags struct {
	input, output          string
	overwrite, verbose     bool
	cpuprofile, memprofile string
	spool, spill, quiet    bool
	indexOut               string
	opts                   plan.Options // the job's options
	engine                 plan.Engine  // Beam's --runner
}

func registerRunFlags(fs *flag.FlagSet) *runFlags {
	f := &runFlags{opts: plan.Options{Config: job.DefaultConfig()}}
	c := &f.opts.Config
	fs.StringVar(&f.input, "input", "", "input files: comma-separated globs (local paths or gs://...), - for standard input; gzip (.gz)\nor zstd (.zst, .zstd) by extension or by content")
	fs.StringVar(&f.output, "output", "", "output directory; must be empty or absent unless --overwrite")
	fs.StringVar(&f.indexOut, "index-out", "", "also write the signature index of the kept documents to this directory (empty or absent;\nwith --overwrite, one holding only an index's files), for 'neardup audit'")
	fs.BoolVar(&f.overwrite, "overwrite", false, "write into a non-empty output directory, replacing neardup's files there once the run succeeds\n(never an input file), and break the lock a killed run left")
	fs.Float64Var(&f.opts.MaxRejectRatio, "max-reject-ratio", 0.5, "fail the run, writing no outputs, when more than this share of the records is rejected or every\nrecord of an input file is (the input is not what --format and the field flags say); 1: never")
	fs.BoolVar(&f.verbose, "verbose", false, "show the runner's log")
	fs.BoolVar(&f.quiet, "quiet", false, "no progress lines on stderr while a local job runs")
	fs.BoolVar(&f.spool, "spool", true, "keep decompressed copies of compressed inputs in the work directory (about the decompressed input;\none machine, or a cluster whose --output is a path), so that the deduplicated copy does not inflate them again")
	fs.BoolVar(&f.spill, "spill", true, "send the shuffles that grow with the input through files in the work directory, read back\none group at a time, rather than hold them in the runner's memory (local runners) or send them\nthrough its shuffle (a cluster whose work directory is a local path its workers share)")
	fs.StringVar(&f.cpuprofile, "cpuprofile", "", "write a CPU profile of the local run to this file (go tool pprof)")
	fs.StringVar(&f.opts.Memory, "memory", plan.DefaultMemory, "local runners: the memory the job may use: a size (8GiB, 512MiB; 8G, 8GB: powers of 1000) or a share\nof the machine's memory (its control group's, if lower); sets Go's soft memory limit (9/10 of it) and\nmore shuffle rounds when it is small; an input that cannot fit is refused before the run")
	fs.StringVar(&f.memprofile, "memprofile", "", "write a heap profile of the local run, taken when the heap in use\nwas largest (checked every second), to this file (go tool pprof)")
	fs.TextVar(&c.Format, "format", c.Format, "input format: jsonl, tsv (url<TAB>title<TAB>content), text (one document per file) or parquet\n(a row per document, columns --id-field/--text-field; a .parquet file is read as Parquet whatever the format)")
	fs.StringVar(&c.IDField, "id-field", c.IDField, "jsonl, parquet: field (column) holding the document id (meta.url: a nested field); '': ids are FILE:LINE\n(parquet: FILE:ROW), as they are for a file whose first record has no such field")
	fs.StringVar(&c.TextField, "text-field", c.TextField, "jsonl, parquet: field (column) holding the document text (content.text: a nested field)")
	fs.TextVar(&c.Compress, "compress", c.Compress, "compress the outputs: none, gzip or zstd (suffix .gz, .zst); unset: each dedup copy\nas its input is, the rest plain (a Parquet copy keeps its input's codecs)")
	fs.TextVar(&c.CompressLevel, "compress-level", c.CompressLevel, "level of every compressed output (dedup copies of compressed inputs, --compress): fast,\ndefault, best (gzip 1, 6, 9; zstd's fastest, default, best encoder) or a number, gzip 1 to 9,\nzstd 1 to 22; the same bytes every run at any level")
	fs.BoolVar(&c.Locations, "locations", false, "pairs and clusters also give each document's input file index and line")
	fs.BoolVar(&c.Removed, "removed", false, "also write removed-NNNNN: the removed records, whole, as the input has them (format and\ncompression as dedup-NNNNN)")
	fs.BoolVar(&c.Fates, "fates", false, "write fates-NNNNN in place of dedup-NNNNN: every good record, kept or removed, with its\nfate added (JSONL: a \"neardup\" key; Parquet: a \"neardup\" group column; TSV: ten\ncolumns); not with --removed or text")
	fs.IntVar(&c.MaxDocBytes, "max-doc-bytes", c.MaxDocBytes, "records longer than this are rejected (0: the default)")
	fs.IntVar(&c.MaxTokens, "max-tokens", c.MaxTokens, "tokens per document used for signatures")
	fs.TextVar(&c.Method, "method", c.Method, "candidates from minhash bands, simhash tables, or both; simhash verifies by Hamming distance, the others by Jaccard")
	fs.Float64Var(&c.Threshold, "threshold", c.Threshold, "Jaccard similarity at or above which two documents are near-duplicates")
	fs.TextVar(&c.Verify, "verify", c.Verify, "how candidates are verified against --threshold: auto (MinHash estimate, exact Jaccard where the estimate cannot decide), estimate, or exact")
	fs.Float64Var(&c.Confidence, "confidence", c.Confidence, "confidence bound of the MinHash estimate: estimates within it of --threshold are checked exactly (auto) or accepted (estimate)")
	fs.IntVar(&c.Hamming, "hamming", c.Hamming, "SimHash: largest Hamming distance of near-duplicates (bits of 64)")
	fs.Float64Var(&c.Containment, "containment", 0, "also find documents inside others: pairs whose smaller document has at least this share of its\nshingles in the larger (0: off); the contained document is removed, the larger kept")
	fs.IntVar(&c.ContainMinSize, "containment-min-size", c.ContainMinSize, "--containment: the fewest distinct shingles a contained document has (shorter texts are\ncounted in summary.json, not paired)")
	fs.StringVar(&f.opts.Shingle, "shingle", "char:5", "shingles: char:N (CJK characters, words elsewhere) or word:N (gse words for CJK)")
	fs.BoolVar(&c.FoldScript, "fold-script", c.FoldScript, "fold Chinese text to one script before comparing: Traditional characters and variant forms\nto Simplified, character by character (OpenCC's tables), so a reprint in the other script is a\nnear-duplicate; false: compare the characters as written")
	fs.TextVar(&c.Dictionary, "dict", c.Dictionary, "gse dictionary for word shingles: auto (simplified or traditional by each text's script), zh_s, zh_t or zh (both in one)")
	fs.IntVar(&c.Perms, "perms", c.Perms, "MinHash permutations")
	fs.TextVar(&c.MinHash, "minhash", c.MinHash, "MinHash scheme: classic or oph (one-permutation hashing, faster)")
	fs.IntVar(&c.Bands, "bands", 0, "LSH bands (0: chosen from --threshold and --perms)")
	fs.IntVar(&c.Rows, "rows", 0, "LSH rows per band (0: chosen with --bands)")
	fs.IntVar(&c.SimBlocks, "simhash-blocks", 0, "SimHash pigeonhole blocks m > k (0: chosen from the input size)")
	fs.IntVar(&c.Partitions, "partitions", c.Partitions, "shuffle partitions; when not given, on the direct runner with --spill, 256 per 6 GiB of input\n(decompressed)")
	fs.IntVar(&c.MaxBucket, "max-bucket", c.MaxBucket, "buckets up to this many documents compare all pairs")
	fs.IntVar(&c.Window, "window", c.Window, "bigger buckets compare each document with this many neighbours")
	fs.Func("runner-option", "NAME=VALUE: a pipeline option of Beam's Java runners (flink, spark, universal) that Beam's\nGo SDK cannot send, added to the job's options, as environment_cache_millis=30000 (default\n10000: how long a worker is kept between stages); VALUE is JSON, or else a string; repeatable", jobservice.AddOption)
	fs.IntVar(&f.opts.SegmentLines, "segment-lines", 0, "lines (rows) of one input file per segment: the key of every pass after the first, so a file\nof n lines spreads over n/segment-lines workers; a power of two from 2 to 16777216,\nor 0: 65536 on one machine, 4096 on a cluster runner (flink, spark, dataflow, universal)")
	fs.IntVar(&c.CCPartitions, "cc-partitions", c.CCPartitions, "partitions of the documents for the connected components; when not given, on the direct runner\nwith --spill, 16 per 6 GiB of input (decompressed)")
	fs.IntVar(&c.CCRounds, "cc-rounds", -1, "large-star/small-star rounds before the components left are\njoined on one worker (summary: components_remainder_edges);\n-1: "+fmt.Sprint(plan.AutoCCRounds(true, 0, true))+" on one machine for up to 1.5 GiB of input (decompressed),\nelse "+fmt.Sprint(plan.AutoCCRounds(false, 0, true)))
	fs.TextVar(&c.Keep, "keep", c.Keep, "which documents have the priority to be kept: longest (text, in bytes), first (input order),\nfield:NAME (the smallest value of a field first: a number, a date or timestamp, or a string)\nor field:-NAME (the largest first); then longest, then input order")
	fs.TextVar(&c.Clusters, "clusters", c.Clusters, "which documents are removed: kept (default: a document only for a near-duplicate that is\nkept, deciding in --keep order; a cluster is a kept document and those removed for it) or\ncomponents (one document kept per connected component of the pairs: removals chain)")
	fs.IntVar(&c.Branches, "branches", c.Branches, "copies of each file-reading stage, each reading every n-th file (parallelism on Prism)")
	fs.IntVar(&c.Rounds, "rounds", 0, "rounds, one after the other, of the largest shuffles (block entries, verification, exact checks)\n(0: 1 with --spill and on a cluster; on Prism or with --spill=false, one per 128 MiB of input,\nfrom --branches up to 8)")
	fs.IntVar(&c.Workers, "workers", c.Workers, "goroutines per file for parsing and signatures (0: one per core)")
	return f
}

func runUsage() {
	fs := flag.NewFlagSet("run", flag.ContinueOnError)
	registerRunFlags(fs)
	fmt.Print(`usage: neardup run [--input 'GLOB[,GLOB...]'] [FILE|DIR...] --output DIR [flags]

Run reads the input shards, finds exact and near-duplicate documents and
writes to DIR:

	pairs-NNNNN.jsonl     exact and verified pairs {"a","b","jaccard","hamming","method"}
	                      ("jaccard_estimate": a pair accepted on its MinHash estimate)
	clusters-NNNNN.jsonl  {"cluster","size","representative","members"}
	dedup-NNNNN.jsonl     the input records kept, byte for byte (.tsv for --format tsv;
	                      .txt for --format text: the file as read, or empty if removed;
	                      .parquet for a Parquet input: its schema, the rows kept)
	removed-NNNNN.jsonl   with --removed: the records removed, as dedup-NNNNN holds the kept
	fates-NNNNN.jsonl     with --fates, in place of dedup-NNNNN: every good record, its fate added
	rejects-NNNNN.jsonl   records that could not be read, with file, line and reason
	summary.json          counts; input_records = kept + removed + rejected
	report.html           a page to look at the run

NNNNN is the index of the input file in sorted order. A dedup copy is
compressed as its input (.jsonl.gz, .jsonl.zst); --compress gzip|zstd
compresses every file but summary.json and report.html; --compress-level
sets how hard (fast by default: gzip level 1).

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
	{"Input and output", []string{"input", "format", "id-field", "text-field", "max-doc-bytes", "max-reject-ratio", "output", "overwrite", "compress", "compress-level", "locations", "removed", "fates", "index-out"}},
	{"What counts as a near-duplicate", []string{"threshold", "shingle", "fold-script", "dict", "method", "hamming", "verify", "confidence", "containment", "containment-min-size", "keep", "clusters"}},
	{"Signatures, blocking and shuffles", []string{"perms", "minhash", "bands", "rows", "simhash-blocks", "max-tokens", "max-bucket", "window", "partitions", "segment-lines", "cc-partitions", "cc-rounds", "rounds"}},
	{"Running on one machine", []string{"memory", "branches", "workers", "spool", "spill", "quiet", "verbose", "cpuprofile", "memprofile"}},
	{"Running on a cluster", []string{"runner-option"}},
}

// runJob is 'neardup run': the job of pipeline.Build, its output
// directory and, with --index-out, the index of the documents kept.
type runJob struct {
	f   *runFlags
	idx *outdir.Dir // --index-out; nil without it
}

func runMain(args []string) error { return doJob(&runJob{}, args) }

func (r *runJob) register(fs *flag.FlagSet) *runFlags {
	r.f = registerRunFlags(fs)
	return r.f
}

func (r *runJob) usage() { runUsage() }

func (r *runJob) check() error {
	f := r.f
	if f.input == "" || f.output == "" {
		return usagef("--input and --output are required (see 'neardup help run')")
	}
	return nil
}

func (r *runJob) dirs() []outdir.Path {
	return []outdir.Path{{Name: "--output", Path: r.f.output, Written: true}, {Name: "--index-out", Path: r.f.indexOut, Written: true}}
}

func (r *runJob) options(context.Context) (plan.Options, error) { return r.f.opts, nil }

func (r *runJob) stage(_ context.Context, open opener, cfg *job.Config, _ []string) (*outdir.Dir, error) {
	out, err := open(outdir.Output, r.f.output)
	if err != nil {
		return nil, err
	}
	if r.f.indexOut != "" {
		if r.idx, err = open(outdir.Index, r.f.indexOut); err != nil {
			return nil, fmt.Errorf("--index-out: %w", err)
		}
		cfg.IndexOut = r.idx.Stage()
	}
	return out, nil
}

func (r *runJob) build(ctx context.Context, s beam.Scope, cfg job.Config, files []string) error {
	return pipeline.Build(ctx, s, cfg, files)
}

// finish checks the staged outputs and only then puts them in place, summary.json last.
func (r *runJob) finish(ctx context.Context, d doneJob) error {
	sum, err := completeSummary(ctx, d.out.Stage(), d.engine.Local(), d.res, d.start, d.took, d.cfg.Settings(d.engine.String()))
	if err != nil {
		return err
	}
	err = finishJob(ctx, finishedJob{
		counts: sum.Counts, balanced: sum.Balanced, inputs: sum.Inputs, files: d.files, maxRejectRatio: d.maxRejectRatio,
		out: d.out, summary: summary.FileName, index: r.idx, indexFlag: "--index-out",
		beforeCommit: func() error { return writeReport(d.out.Stage(), d.out.Path(), d.files, &d.cfg) },
	})
	if err != nil {
		return err
	}
	report(os.Stdout, d.out.Path(), d.out.Written(), sum, len(d.files), d.took)
	if r.idx != nil {
		fmt.Fprintf(os.Stdout, "index in %s (%s)\n", r.idx.Path(), outdir.FileList(r.idx.Written()))
	}
	return nil
}

// report prints where the outputs are, the files written and the counts.
func report(w io.Writer, out string, written []string, sum summary.Summary, files int, took time.Duration) {
	c := sum.Counts
	fmt.Fprintf(w, "neardup: %d input files, %d records in %s\n", files, c[summary.StatInput], took.Round(time.Millisecond))
	fmt.Fprintf(w, "  rejected %d, candidate pairs %d; pairs written %d: exact duplicates %d, verified exactly %d, by estimate %d\n",
		c[summary.StatRejected], c[summary.StatCandidates], c[output.KindPairs+summary.LinesSuffix], c[summary.StatExactDups], c[summary.StatByExact], c[summary.StatByEstimate])
	fmt.Fprintf(w, "  clusters %d covering %d documents: kept %d, removed %d\n",
		c[summary.StatClusters], c[summary.StatClustered], c[summary.StatKept], c[summary.StatRemoved])
	sum.WriteStages(w)
	fmt.Fprintf(w, "outputs in %s (%s)\n", out, outdir.FileList(written))
}
