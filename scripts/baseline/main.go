// Command baseline does neardup's signature and blocking work in one Go
// process without Beam, as the yardstick for the pipeline's overhead
// (scripts/bench.sh compares the two): read and parse every shard,
// normalize, skip exact duplicates (a document whose normalized text was
// met before), SimHash + MinHash, band keys and SimHash table keys with the
// settings `neardup run` picks by default for the same input, group the keys
// by sorting, and list the candidate pairs of each bucket (table buckets
// keep pairs within --hamming bits, as in the pipeline). It uses one
// goroutine per core over the files, like the runner, and the same packages
// as the pipeline.
//
//	go run ./scripts/baseline 'GLOB[,GLOB...]'
package main

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"runtime"
	"slices"
	"strings"
	"sync"
	"time"

	"github.com/neardup/neardup/transforms/format/record"
	"github.com/neardup/neardup/transforms/format/wire"
	"github.com/neardup/neardup/transforms/match/blocking"
	"github.com/neardup/neardup/transforms/match/candidates"
	"github.com/neardup/neardup/transforms/sketch/signature"
	"github.com/neardup/neardup/transforms/text/normalize"
)

func main() {
	if len(os.Args) != 2 {
		fmt.Fprintln(os.Stderr, "usage: baseline 'GLOB[,GLOB...]'")
		os.Exit(2)
	}
	var files []string
	for _, g := range strings.Split(os.Args[1], ",") {
		m, err := filepath.Glob(g)
		if err != nil {
			fmt.Fprintln(os.Stderr, err)
			os.Exit(1)
		}
		files = append(files, m...)
	}
	slices.Sort(files)
	var size int64
	for _, f := range files {
		if fi, err := os.Stat(f); err == nil {
			size += fi.Size()
		}
	}
	// As `neardup run` chooses them (cmd/neardup/run.go).
	bands := blocking.ChooseBands(0.8, 128, blocking.DefaultWeights)
	design := blocking.ChooseDesign(hamming, max(size/1024, 1))
	start := time.Now()
	r, err := sign(context.Background(), files, bands, design)
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		os.Exit(1)
	}
	signed := time.Since(start)
	var st candidates.Stats
	pairs := candidates.Append(nil, candidates.Sort(r.entries), candidates.DefaultLimits, &st)
	pairs = candidates.AppendNear(pairs, candidates.SortSim(r.sims), hamming, candidates.DefaultLimits, &st)
	pairs = candidates.Unique(pairs)
	total := time.Since(start)
	fmt.Printf("baseline: %d docs, %.1f MB, %d exact duplicates skipped, %d block keys (%d bands, %d SimHash tables), %d candidate pairs\n",
		r.docs, float64(r.bytes)/1e6, r.skipped, len(r.entries)+len(r.sims), bands.B, design.Tables(), len(pairs))
	fmt.Printf("baseline: read+sign+keys %.1f s, group+candidates %.1f s, total %.1f s (%.0f docs/s, %.1f MB/s) on %d goroutines\n",
		signed.Seconds(), (total - signed).Seconds(), total.Seconds(), float64(r.docs)/total.Seconds(), float64(r.bytes)/1e6/total.Seconds(), runtime.GOMAXPROCS(0))
}

// hamming is the default --hamming of neardup run.
const hamming = 3

// signed is what sign returns.
type signed struct {
	docs, bytes, skipped int64
	entries              []wire.Entry
	sims                 []wire.SimEntry
}

// sign reads every file and returns the block entries of every document
// whose normalized text was not met before.
func sign(ctx context.Context, files []string, bands blocking.Bands, design blocking.Design) (signed, error) {
	var mu sync.Mutex
	var out signed
	seen := map[uint64]bool{}
	work := make(chan int)
	errs := make(chan error, len(files))
	var wg sync.WaitGroup
	tables, err := blocking.NewTables(design)
	if err != nil {
		return out, err
	}
	for w := 0; w < runtime.GOMAXPROCS(0); w++ {
		wg.Add(1)
		go func() {
			defer wg.Done()
			s, _ := signature.New(signature.DefaultConfig())
			var sig signature.Signature
			var keys []uint64
			for i := range work {
				var entries []wire.Entry
				var sims []wire.SimEntry
				var n, b, skipped int64
				f, err := os.Open(files[i])
				if err != nil {
					errs <- err
					continue
				}
				r, _ := record.Decompress(files[i], f)
				err = record.Read(r, files[i], record.Options{}, func(d record.Doc) error {
					n++
					b += int64(len(d.Raw))
					norm := normalize.Text(d.Text)
					key := normalize.Key(norm)
					mu.Lock()
					dup := seen[key]
					seen[key] = true
					mu.Unlock()
					if dup {
						skipped++
						return nil
					}
					s.Sign(norm, &sig)
					if sig.Shingles == 0 {
						return nil
					}
					doc := wire.DocNum(i, d.Index)
					for _, k := range bands.AppendKeys(keys[:0], sig.MinHash) {
						entries = append(entries, wire.Entry{Key: k, Doc: doc})
					}
					for _, k := range tables.AppendKeys(keys[:0], sig.SimHash) {
						sims = append(sims, wire.SimEntry{Key: k, Doc: doc, FP: sig.SimHash})
					}
					return nil
				}, func(record.Reject) error { return nil })
				f.Close()
				if err != nil {
					errs <- err
				}
				mu.Lock()
				out.entries = append(out.entries, entries...)
				out.sims = append(out.sims, sims...)
				out.docs += n
				out.bytes += b
				out.skipped += skipped
				mu.Unlock()
			}
		}()
	}
	for i := range files {
		work <- i
	}
	close(work)
	wg.Wait()
	close(errs)
	for e := range errs {
		return signed{}, e
	}
	return out, nil
}
