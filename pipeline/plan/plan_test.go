package plan

import (
	"encoding/binary"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/neardup/neardup/transforms/job"
	"github.com/neardup/neardup/transforms/match/blocking"
)

// TestNew: New chooses what the options leave open (bands and rows,
// SimHash blocks, rounds, the partitions' scale, the components rounds)
// and keeps what they give; it refuses an input that cannot fit.
func TestNew(t *testing.T) {
	const gb = int64(1) << 30
	remote := func(n int) []string { // files whose size is only what stored says
		return []string{"gs://b/x.jsonl"}[:n]
	}
	spilled := Runner{Engine: Direct, Spill: true, MachineMemory: 64 * gb}
	tests := []struct {
		name   string
		change func(*Options)
		runner Runner
		stored int64
		check  func(c job.Config) bool
		err    string
	}{
		{"bands and blocks chosen", nil, spilled, 1 << 20, func(c job.Config) bool {
			b := blocking.ChooseBands(c.Threshold, c.Perms, blocking.DefaultWeights)
			return c.Bands == b.B && c.Rows == b.R && c.SimBlocks == blocking.ChooseDesign(c.Hamming, 1024).Blocks
		}, ""},
		{"bands given", func(o *Options) { o.Config.Bands, o.Config.Rows, o.Config.SimBlocks = 8, 4, 9 }, spilled, 1 << 20,
			func(c job.Config) bool { return c.Bands == 8 && c.Rows == 4 && c.SimBlocks == 9 }, ""},
		{"small input: 1 round, partitions as they are, no components rounds", nil, spilled, 1 << 20, func(c job.Config) bool {
			return c.Rounds == 1 && c.Partitions == job.DefaultPartitions && c.CCRounds == 0
		}, ""},
		{"3 GB spilled: partitions as they are, components rounds", nil, spilled, 3 * gb, func(c job.Config) bool {
			return c.Partitions == job.DefaultPartitions && c.CCPartitions == job.DefaultConfig().CCPartitions && c.CCRounds == ClusterCCRounds
		}, ""},
		{"large input spilled: partitions scaled", nil, spilled, 13 * gb, func(c job.Config) bool {
			k := PartitionScale(13*gb, true)
			return k > 1 && c.Partitions == k*job.DefaultPartitions && c.CCPartitions == k*job.DefaultConfig().CCPartitions && c.CCRounds == ClusterCCRounds
		}, ""},
		{"large input, partitions given", func(o *Options) { o.Given, o.Config.Partitions = map[string]bool{"partitions": true}, 7 }, spilled, 3 * gb,
			func(c job.Config) bool { return c.Partitions == 7 }, ""},
		{"cluster: 1 round, components rounds", nil, Runner{Engine: Flink}, 3 * gb, func(c job.Config) bool {
			return c.Rounds == 1 && c.Partitions == job.DefaultPartitions && c.CCRounds == ClusterCCRounds
		}, ""},
		{"rounds given", func(o *Options) { o.Config.Rounds = 3 }, Runner{Engine: Flink}, 1 << 20,
			func(c job.Config) bool { return c.Rounds == 3 }, ""},
		{"too little memory", func(o *Options) { o.Memory = "64MiB" }, spilled, gb, nil,
			"needs about 671 MiB of memory with the large shuffles spilled to disk, more than --memory 64MiB (64 MiB): raise --memory"},
		{"1 GiB is enough without containment", func(o *Options) { o.Memory = "1GiB" }, spilled, gb,
			func(c job.Config) bool { return c.Rounds == 1 }, ""},
		{"containment's shuffles counted", func(o *Options) { o.Memory, o.Config.Containment = "768MiB", 0.8 }, spilled, gb, nil,
			"needs about 959 MiB of memory with the large shuffles spilled to disk and --containment, more than --memory 768MiB (768 MiB): raise --memory"},
		{"1 GiB is enough with containment", func(o *Options) { o.Memory, o.Config.Containment = "1GiB", 0.8 }, spilled, gb,
			func(c job.Config) bool { return c.DecideBytes == 128<<20 }, ""},
		{"containment on Prism", func(o *Options) { o.Memory, o.Config.Containment = "8GiB", 0.8 }, Runner{Engine: Prism, MachineMemory: 64 * gb}, gb, nil,
			"needs about 8.9 GiB of memory on Prism, which holds every shuffled byte (the direct runner needs less) and --containment"},
	}
	for _, tt := range tests {
		o := defaults()
		if tt.change != nil {
			tt.change(&o)
		}
		if err := Check(&o, tt.runner); err != nil {
			t.Fatalf("%s: %v", tt.name, err)
		}
		p, err := New(o, tt.runner, remote(1), tt.stored)
		switch {
		case tt.err != "":
			if err == nil || !strings.Contains(err.Error(), tt.err) {
				t.Errorf("%s: error %v; want one with %q", tt.name, err, tt.err)
			}
		case err != nil:
			t.Errorf("%s: %v", tt.name, err)
		case !tt.check(p.Config):
			t.Errorf("%s: %+v", tt.name, p.Config)
		}
	}
}

// defaults are the options of the command's defaults: what New chooses
// left open.
func defaults() Options {
	o := Options{Config: job.DefaultConfig(), Shingle: "char:5", Memory: DefaultMemory, MaxRejectRatio: 0.5}
	c := &o.Config
	c.Bands, c.Rows, c.SimBlocks, c.Rounds, c.CCRounds = 0, 0, 0, 0, -1
	return o
}

func TestSharesWork(t *testing.T) {
	for _, c := range []struct {
		e      Engine
		output string
		want   bool
	}{
		{Direct, "/data/out", true},
		{Direct, "gs://bucket/out", true}, // the work directory is a local temporary one
		{Prism, "s3://bucket/out", true},
		{Flink, "/data/out", true},
		{Flink, "out", true},
		{Spark, "/mnt/shared/out", true},
		{Flink, "gs://bucket/out", false},
		{Spark, "s3://bucket/out", false},
		{Dataflow, "gs://bucket/out", false},
		{Universal, "file:///data/out", false},
	} {
		if got := c.e.SharesWork(c.output); got != c.want {
			t.Errorf("%v.SharesWork(%q) = %v, want %v", c.e, c.output, got, c.want)
		}
	}
}

// TestSimBlocksOfDecompressed: the SimHash design is sized from the
// decompressed input (about 1 KB a document), not from the compressed
// bytes stored.
func TestSimBlocksOfDecompressed(t *testing.T) {
	const isize = 3_500_000_000 // what the gzip file's last 4 bytes say
	gz := append([]byte{0x1f, 0x8b, 8, 0, 0, 0, 0, 0, 0, 0xff}, make([]byte, 64)...)
	gz = binary.LittleEndian.AppendUint32(gz, isize)
	path := filepath.Join(t.TempDir(), "big.jsonl.gz")
	if err := os.WriteFile(path, gz, 0o644); err != nil {
		t.Fatal(err)
	}
	o := defaults()
	if err := Check(&o, Runner{Engine: Flink}); err != nil {
		t.Fatal(err)
	}
	p, err := New(o, Runner{Engine: Flink}, []string{path}, int64(len(gz)))
	if err != nil {
		t.Fatal(err)
	}
	k := p.Config.Hamming
	want := blocking.ChooseDesign(k, isize/1024).Blocks
	if stored := blocking.ChooseDesign(k, 1).Blocks; want == stored {
		t.Fatalf("%d blocks either way: the test decides nothing", want)
	}
	if p.Config.SimBlocks != want {
		t.Errorf("SimBlocks %d, want %d (of %d decompressed bytes)", p.Config.SimBlocks, want, isize)
	}
}
