// Command baseline does neardup's signature and blocking work in one Go
// process without Beam, as the yardstick for the pipeline's overhead
// (scripts/bench.sh compares the two): read and parse every shard, normalize,
// exact keys, SimHash + MinHash, block keys, group the keys by sorting, and
// list the candidate pairs of each bucket. It uses one goroutine per core
// over the files, like the runner, and the same packages as the pipeline.
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

	"github.com/neardup/neardup/transforms/blocking"
	"github.com/neardup/neardup/transforms/candidates"
	"github.com/neardup/neardup/transforms/normalize"
	"github.com/neardup/neardup/transforms/record"
	"github.com/neardup/neardup/transforms/signature"
	"github.com/neardup/neardup/transforms/wire"
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
	start := time.Now()
	docs, bytes, entries, err := sign(context.Background(), files)
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		os.Exit(1)
	}
	signed := time.Since(start)
	entries = candidates.Sort(entries)
	var st candidates.Stats
	pairs := candidates.Unique(candidates.Append(nil, entries, candidates.DefaultLimits, &st))
	total := time.Since(start)
	fmt.Printf("baseline: %d docs, %.1f MB, %d block keys, %d candidate pairs\n", docs, float64(bytes)/1e6, len(entries), len(pairs))
	fmt.Printf("baseline: read+sign+keys %.1f s, group+candidates %.1f s, total %.1f s (%.0f docs/s, %.1f MB/s) on %d goroutines\n",
		signed.Seconds(), (total - signed).Seconds(), total.Seconds(), float64(docs)/total.Seconds(), float64(bytes)/1e6/total.Seconds(), runtime.GOMAXPROCS(0))
}

// sign reads every file and returns the block entries of every document.
func sign(ctx context.Context, files []string) (docs, bytes int64, entries []wire.Entry, err error) {
	var mu sync.Mutex
	work := make(chan int)
	errs := make(chan error, len(files))
	var wg sync.WaitGroup
	bands := blocking.ChooseBands(0.8, 128, blocking.DefaultWeights)
	tables, _ := blocking.NewTables(blocking.Design{K: 3, Blocks: 5})
	for w := 0; w < runtime.GOMAXPROCS(0); w++ {
		wg.Add(1)
		go func() {
			defer wg.Done()
			s, _ := signature.New(signature.DefaultConfig())
			var sig signature.Signature
			var keys []uint64
			for i := range work {
				var local []wire.Entry
				var n, b int64
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
					_ = normalize.Key(norm)
					s.Sign(norm, &sig)
					keys = bands.AppendKeys(keys[:0], sig.MinHash)
					keys = tables.AppendKeys(keys, sig.SimHash)
					for _, k := range keys {
						local = append(local, wire.Entry{Key: k, Doc: wire.DocNum(i, d.Index)})
					}
					return nil
				}, func(record.Reject) error { return nil })
				f.Close()
				if err != nil {
					errs <- err
				}
				mu.Lock()
				entries = append(entries, local...)
				docs += n
				bytes += b
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
		return 0, 0, nil, e
	}
	return docs, bytes, entries, nil
}
