// Command baseline does the work of `neardup run` with its default settings
// in one Go process without Beam, as the yardstick for the pipeline's
// overhead (scripts/bench.sh compares the two). It uses the same Beam-free
// packages as the job, stage for stage:
//
//   - read and parse every input (record), normalize (normalize), key each
//     document by its normalized text, and write a spool of each file's
//     decompressed bytes and normalized documents (wire.AppendNormRecord),
//     as the job's first pass does;
//   - group the keys (sorting): exact duplicates, the longest of each group
//     kept (exactdup);
//   - sign the other documents from the spool (signature), derive their
//     band and SimHash-table keys with the settings `run` picks for the same
//     input (blocking, blockkeys) and write them, packed as the job shuffles
//     them, to 2×256 partition files;
//   - per partition, sort the keys and list the candidate pairs
//     (candidates), the hot buckets windowed as in the job;
//   - verify each pair on the 8-bit MinHash estimate at --confidence 0.99
//     (verify), and compute the exact Jaccard of the pairs it cannot decide
//     from their shingle sets, the documents re-tokenized from the spool
//     (similarity), in batches of first documents as the job's rounds;
//   - connected components of all matches, each decided longest first (a
//     document removed only for a match with a kept one)
//     kept (components);
//   - write pairs-, clusters-, rejects- and dedup-NNNNN files, the copies
//     compressed as their inputs, named and formatted as the job's.
//
// It prints the counts `neardup run` writes to summary.json (verified pairs,
// clusters, kept, removed...) and the time of each step. The outputs go to
// -out, else to a temporary directory removed at the end, beside the spool
// (both in $TMPDIR).
//
//	go run ./scripts/baseline [-out DIR] 'GLOB[,GLOB...]'
package main

import (
	"flag"
	"fmt"
	"os"
	"path/filepath"
	"runtime"
	"runtime/pprof"
	"slices"
	"strings"
	"sync"
	"time"

	"github.com/neardup/neardup/pipeline/plan"
	"github.com/neardup/neardup/transforms/format/record"
	"github.com/neardup/neardup/transforms/match/blocking"
	"github.com/neardup/neardup/transforms/match/candidates"
	"github.com/neardup/neardup/transforms/match/verify"
	"github.com/neardup/neardup/transforms/sketch/signature"
	"github.com/neardup/neardup/transforms/text/normalize"
)

// The defaults of `neardup run` (job.DefaultConfig, which this
// command does not import: it would bring Beam in).
const (
	threshold    = 0.8
	hamming      = 3
	confidence   = 0.99
	partitions   = 256 // job.DefaultPartitions
	ccPartitions = 16
	// setDocs bounds the first documents whose shingle sets the exact
	// checks hold at once (the job's rounds bound them likewise).
	setDocs = 500_000
)

var (
	norm   = normalize.Form{FoldScript: true} // job.DefaultConfig's FoldScript
	vcfg   = verify.Config{Blocking: verify.Both, Mode: verify.Auto, Threshold: threshold, Hamming: hamming, Confidence: confidence}.Prepared()
	limits = candidates.DefaultLimits
	perms  = signature.DefaultConfig().Perms
)

func main() {
	out := flag.String("out", "", "write the outputs here (default: a temporary directory, removed at the end)")
	cpuprofile := flag.String("cpuprofile", "", "write a CPU profile to this file")
	flag.Usage = func() {
		fmt.Fprintln(os.Stderr, "usage: baseline [-out DIR] 'GLOB[,GLOB...]'")
		flag.PrintDefaults()
	}
	flag.Parse()
	if flag.NArg() != 1 {
		flag.Usage()
		os.Exit(2)
	}
	if *cpuprofile != "" {
		f, err := os.Create(*cpuprofile)
		if err == nil {
			err = pprof.StartCPUProfile(f)
		}
		if err != nil {
			fmt.Fprintln(os.Stderr, "baseline:", err)
			os.Exit(1)
		}
		defer pprof.StopCPUProfile()
	}
	if _, err := run(flag.Arg(0), *out); err != nil {
		pprof.StopCPUProfile()
		fmt.Fprintln(os.Stderr, "baseline:", err)
		os.Exit(1)
	}
}

// run does the whole job on the files the globs match and returns its
// counts.
func run(globs, out string) (counts, error) {
	j, err := newJob(globs, out)
	if err != nil {
		return counts{}, err
	}
	defer j.cleanup()
	err = j.run()
	return j.counts, err
}

// newJob lists the files the globs match and prepares the job: its spool
// and, if out is "", a temporary output directory, which cleanup removes.
func newJob(globs, out string) (*job, error) {
	var paths []string
	for _, g := range strings.Split(globs, ",") {
		m, err := filepath.Glob(g)
		if err != nil {
			return nil, err
		}
		for _, p := range m {
			abs, err := filepath.Abs(p) // as the job names them (FILE:LINE ids)
			if err != nil {
				return nil, err
			}
			paths = append(paths, abs)
		}
	}
	slices.Sort(paths)
	paths = slices.Compact(paths)
	if len(paths) == 0 {
		return nil, fmt.Errorf("%q matches no file", globs)
	}
	var stored int64
	for _, p := range paths {
		if fi, err := os.Stat(p); err == nil {
			stored += fi.Size()
		}
	}
	spool, err := os.MkdirTemp("", "baseline-spool-")
	if err != nil {
		return nil, err
	}
	j := &job{spool: spool, out: out, temps: []string{spool}}
	if out == "" {
		if j.out, err = os.MkdirTemp("", "baseline-out-"); err != nil {
			j.cleanup()
			return nil, err
		}
		j.temps = append(j.temps, j.out)
	} else if err := os.MkdirAll(out, 0o755); err != nil {
		j.cleanup()
		return nil, err
	}

	// As the job plan chooses them (plan.New).
	bands := blocking.ChooseBands(threshold, perms, blocking.DefaultWeights)
	design := blocking.ChooseDesign(hamming, max(plan.DecompressedBytes(paths, record.JSONL, stored)/1024, 1))
	j.bands = bands
	if j.tables, err = blocking.NewTables(design); err != nil {
		j.cleanup()
		return nil, err
	}
	j.opt = record.Options{IDField: record.DefaultIDField, TextField: record.DefaultTextField, IDs: record.IDAuto, MaxDocBytes: record.DefaultMaxDocBytes}
	if j.opt.Format, err = record.ParseFormat("jsonl"); err != nil {
		j.cleanup()
		return nil, err
	}
	for i, p := range paths {
		j.files = append(j.files, &file{index: i, path: p})
	}
	return j, nil
}

// cleanup removes the job's temporary directories.
func (j *job) cleanup() {
	for _, d := range j.temps {
		os.RemoveAll(d)
	}
}

// run does the job's steps and prints its counts and times.
func (j *job) run() error {
	start := time.Now()
	steps := []struct {
		name string
		fn   func() error
	}{
		{"read", j.read},
		{"exact", j.exactDuplicates},
		{"sign", j.sign},
		{"candidates", j.candidates},
		{"verify", j.verify},
		{"exact checks", j.exactChecks},
		{"clusters", j.clusters},
		{"write", j.write},
	}
	var times []string
	for _, s := range steps {
		t := time.Now()
		if err := s.fn(); err != nil {
			return fmt.Errorf("%s: %w", s.name, err)
		}
		times = append(times, fmt.Sprintf("%s %.1f", s.name, time.Since(t).Seconds()))
	}
	total := time.Since(start)
	c := &j.counts
	fmt.Printf("baseline: %d input files, %d records (%.1f MB), rejected %d, exact duplicates %d, signed %d\n",
		len(j.files), c.records, float64(c.bytes)/1e6, c.rejected, c.exact, c.signed)
	fmt.Printf("baseline: %d block keys (%d bands, %d SimHash tables), candidate pairs %d, verified pairs %d (by estimate %d, exactly %d of %d unsure)\n",
		c.keys, j.bands.B, j.tables.Len(), c.candidates, c.byEstimate+c.byExact, c.byEstimate, c.byExact, c.unsure)
	fmt.Printf("baseline: clusters %d covering %d documents: kept %d, removed %d\n", c.clusters, c.clustered, c.kept, c.removed)
	fmt.Printf("baseline: seconds per step: %s; total %.1f s (%.0f docs/s, %.1f MB/s) on %d goroutines\n",
		strings.Join(times, ", "), total.Seconds(), float64(c.records)/total.Seconds(), float64(c.bytes)/1e6/total.Seconds(), runtime.GOMAXPROCS(0))
	if len(j.temps) > 1 {
		fmt.Printf("baseline: outputs in %s (a temporary directory, removed now)\n", j.out)
	} else {
		fmt.Printf("baseline: outputs in %s\n", j.out)
	}
	return nil
}

// parallel calls fn(i) for i in [0, n) on one goroutine per core and
// returns the first error.
func parallel(n int, fn func(i int) error) error {
	work := make(chan int)
	var wg sync.WaitGroup
	var mu sync.Mutex
	var first error
	for range min(n, runtime.GOMAXPROCS(0)) {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for i := range work {
				if err := fn(i); err != nil {
					mu.Lock()
					if first == nil {
						first = err
					}
					mu.Unlock()
				}
			}
		}()
	}
	for i := range n {
		work <- i
	}
	close(work)
	wg.Wait()
	return first
}
