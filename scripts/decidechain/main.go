// Command decidechain measures the clusters stage's decision of one
// partition holding a chain of documents (each a near-duplicate of the
// next only, one component): it calls cluster.ClusterFn's ProcessElement
// directly, without a runner, with the partition's members and links made
// chunk by chunk as they are read (as a runner's spilled groups give them)
// and its outputs hashed, not held. It prints the time and a hash of the cluster lines, removals and stats, which is the same
// for the in-memory and the spilled decision:
//
//	go build -o /tmp/decidechain ./scripts/decidechain
//	/usr/bin/time -v /tmp/decidechain -n 1000000 -budget 1073741824
package main

import (
	"context"
	"crypto/sha256"
	"encoding/binary"
	"flag"
	"fmt"
	"log"
	"os"
	"time"

	"github.com/neardup/neardup/transforms/cluster"
	"github.com/neardup/neardup/transforms/format/wire"
	"github.com/neardup/neardup/transforms/job"
	"github.com/neardup/neardup/transforms/jobfiles"
)

func main() {
	n := flag.Int("n", 1_000_000, "documents in the chain")
	budget := flag.Int64("budget", 0, "Config.DecideBytes (0: the default)")
	keep := flag.String("keep", "longest", "--keep")
	flag.Parse()
	work, err := os.MkdirTemp("", "decidechain-")
	if err != nil {
		log.Fatal(err)
	}
	defer os.RemoveAll(work)
	cfg := job.DefaultConfig()
	if cfg.Keep, err = job.ParseKeep(*keep); err != nil {
		log.Fatal(err)
	}
	cfg.DecideBytes = *budget
	fn := &cluster.ClusterFn{Work: jobfiles.WorkDir{Dir: work}, Lines: cluster.OptionsFor(cfg).Lines}
	h := sha256.New()
	hash := func(tag string) func(int64, []byte) {
		return func(k int64, c []byte) {
			h.Write([]byte(tag))
			h.Write(binary.AppendUvarint(nil, uint64(k)))
			h.Write(c)
		}
	}
	stats := map[string]int64{}
	start := time.Now()
	err = fn.ProcessElement(context.Background(), 0, chunks(*n, member), chunks(*n-1, link),
		hash("c"), hash("r"), func(int64, []byte) {}, func(name string, v int64) { stats[name] += v })
	if err != nil {
		log.Fatal(err)
	}
	took := time.Since(start)
	fmt.Fprint(h, stats)
	left, _ := os.ReadDir(work)
	fmt.Printf("n=%d budget=%d keep=%s: %.2fs, removed=%d clusters=%d, files left %d, sha256 %x\n",
		*n, fn.Lines.DecideBytes, *keep, took.Seconds(), stats["removed"], stats["clusters"], len(left), h.Sum(nil)[:8])
}

// member appends chain document i's member; link appends its link with
// document i+1.
func member(c []byte, i int) []byte {
	m := wire.Member{Root: 0, Doc: wire.DocNum(0, int64(i)), ID: fmt.Sprint(i), Len: 100}
	return wire.AppendMember(c, &m)
}

func link(c []byte, i int) []byte {
	m := wire.Match{A: wire.DocNum(0, int64(i)), B: wire.DocNum(0, int64(i+1)), IDA: fmt.Sprint(i), IDB: fmt.Sprint(i + 1), LenA: 100, LenB: 100, Jaccard: 0.9, Method: wire.MinHash}
	return wire.AppendMatch(c, &m)
}

// chunks is an iterator over chunks of 1,000 records made by rec.
func chunks(n int, rec func([]byte, int) []byte) func(*[]byte) bool {
	i := 0
	var buf []byte
	return func(c *[]byte) bool {
		if i >= n {
			return false
		}
		buf = buf[:0]
		for end := min(i+1000, n); i < end; i++ {
			buf = rec(buf, i)
		}
		*c = buf
		return true
	}
}
