// Command spark-repro shows where Beam's Spark runner puts the keys of a
// Go pipeline's GroupByKey: it groups N keys, once as Go int 0..N-1 (Beam
// Go's length-prefixed zigzag varint coder, opaque to the runner), once
// as int64 0..N-1 (Beam's standard varint coder, the type of every
// shuffle key of neardup's job) and once as int64 segment keys of
// neardup's signature pass (segmentKeys), and each group's DoFn records
// the worker process that got it. It prints, per key type, how many keys
// each worker process got.
//
// At Spark's default parallelism on a cluster of 2 cores (2 partitions a
// shuffle), every int key lands in one partition, so one worker process
// gets them all; int64 keys spread over both. Beam partitions a
// GroupByKey's output with Spark's HashPartitioner over Arrays.hashCode of
// the key's encoded bytes: for a zigzag varint of a small non-negative n,
// with its length prefix, that is 31*(31+1)+2n, always even; for an int64
// varint of n below 128 it is 31+n, odd and even in turn. The direct
// runner and Flink (murmur hash) spread both.
//
//	go build -o /tmp/repro ./scripts/spark-repro
//	scripts/spark-cluster.sh start /tmp/sparkrepro
//	. /tmp/sparkrepro/endpoints.env
//	/tmp/repro --out /tmp/repro-out --runner spark --endpoint $SPARK_JOB_ENDPOINT \
//	  --environment_type PROCESS --environment_config '{"command":"'$SPARK_GO_WORKER'"}' \
//	  --worker_binary /tmp/repro
//
// Measured (Spark 3.5.0, Beam 2.62.0 job server, Go SDK 2.77.0, 16 keys):
//
//	2 partitions (Spark's default here):
//	                     int keys: 1 worker process(es); 16 keys
//	                     int64 keys: 2 worker process(es); 8 and 8 keys
//	                     segment keys: 2 worker process(es); 8 and 8 keys
//	SPARK_PARALLELISM=5: int keys: 5 worker process(es); 3, 3, 4, 3, 3 keys
//	                     int64 keys: 5 worker process(es); 3, 3, 3, 4, 3 keys
//
// (Without neardup's environment_cache_millis each task starts a Go
// worker of its own, so the processes count tasks that got keys.)
package main

import (
	"context"
	"flag"
	"fmt"
	"log"
	"os"
	"path/filepath"
	"sort"
	"strings"

	"github.com/apache/beam/sdks/v2/go/pkg/beam"
	"github.com/apache/beam/sdks/v2/go/pkg/beam/register"
	"github.com/apache/beam/sdks/v2/go/pkg/beam/x/beamx"

	"github.com/neardup/neardup/transforms/format/wire"
)

// types are the key types grouped: Go int, int64, and int64 segment keys.
var types = []string{"int", "int64", "segment"}

var (
	out  = flag.String("out", "", "directory for the records of which process got which key (local, shared by the workers)")
	keys = flag.Int("keys", 16, "number of keys")
)

func init() {
	register.DoFn2x0[int, func(int, int)](&intKeys{})
	register.DoFn2x0[int, func(int64, int)](&int64Keys{})
	register.DoFn2x0[int, func(int64, int)](&segmentKeys{})
	register.DoFn2x0[int, func(*int) bool](&recordInt{})
	register.DoFn2x0[int64, func(*int) bool](&recordInt64{})
	register.DoFn2x0[int64, func(*int) bool](&recordSegment{})
	register.Emitter2[int, int]()
	register.Emitter2[int64, int]()
	register.Iter1[int]()
}

type intKeys struct{}

func (*intKeys) ProcessElement(n int, emit func(int, int)) { emit(n, n) }

type int64Keys struct{}

func (*int64Keys) ProcessElement(n int, emit func(int64, int)) { emit(int64(n), n) }

// segmentKeys keys n by the segment key neardup's signature pass groups
// by (wire.Segment, at the default 4,096 lines a segment): segment n%8 of
// input file n/8.
type segmentKeys struct{}

func (*segmentKeys) ProcessElement(n int, emit func(int64, int)) {
	const bits = 12
	emit(int64(wire.Segment(wire.DocNum(n/8, int64(n%8)<<bits), bits)), n)
}

type recordInt struct{ Out string }

func (f *recordInt) ProcessElement(k int, _ func(*int) bool) { record(f.Out, "int", int64(k)) }

type recordInt64 struct{ Out string }

func (f *recordInt64) ProcessElement(k int64, _ func(*int) bool) { record(f.Out, "int64", k) }

type recordSegment struct{ Out string }

func (f *recordSegment) ProcessElement(k int64, _ func(*int) bool) { record(f.Out, "segment", k) }

// record appends "KEY PID" to DIR/TYPE.
func record(dir, typ string, k int64) {
	f, err := os.OpenFile(filepath.Join(dir, typ), os.O_APPEND|os.O_CREATE|os.O_WRONLY, 0o644)
	if err != nil {
		panic(err)
	}
	defer f.Close()
	fmt.Fprintf(f, "%d %d\n", k, os.Getpid())
}

func main() {
	flag.Parse()
	beam.Init()
	if *out == "" {
		log.Fatal("--out is required")
	}
	if err := os.MkdirAll(*out, 0o755); err != nil {
		log.Fatal(err)
	}
	for _, typ := range types {
		os.Remove(filepath.Join(*out, typ))
	}
	p, s := beam.NewPipelineWithRoot()
	ns := make([]int, *keys)
	for i := range ns {
		ns[i] = i
	}
	in := beam.CreateList(s, ns)
	beam.ParDo0(s.Scope("int"), &recordInt{Out: *out}, beam.GroupByKey(s.Scope("int"), beam.ParDo(s.Scope("int"), &intKeys{}, in)))
	beam.ParDo0(s.Scope("int64"), &recordInt64{Out: *out}, beam.GroupByKey(s.Scope("int64"), beam.ParDo(s.Scope("int64"), &int64Keys{}, in)))
	beam.ParDo0(s.Scope("segment"), &recordSegment{Out: *out}, beam.GroupByKey(s.Scope("segment"), beam.ParDo(s.Scope("segment"), &segmentKeys{}, in)))
	if err := beamx.Run(context.Background(), p); err != nil {
		log.Fatalf("pipeline: %v", err)
	}
	for _, typ := range types {
		b, err := os.ReadFile(filepath.Join(*out, typ))
		if err != nil {
			log.Fatal(err)
		}
		per := map[string][]string{}
		for _, line := range strings.Split(strings.TrimSpace(string(b)), "\n") {
			k, pid, _ := strings.Cut(line, " ")
			per[pid] = append(per[pid], k)
		}
		var pids []string
		for pid := range per {
			pids = append(pids, pid)
		}
		sort.Strings(pids)
		fmt.Printf("%s keys: %d worker process(es)", typ, len(pids))
		for _, pid := range pids {
			fmt.Printf("; pid %s got %d keys", pid, len(per[pid]))
		}
		fmt.Println()
	}
}
