package plan

import (
	"math"
	"strings"
	"testing"

	"github.com/neardup/neardup/transforms/format/record"
	"github.com/neardup/neardup/transforms/job"
	"github.com/neardup/neardup/transforms/match/verify"
	"github.com/neardup/neardup/transforms/text/tokenize"
)

// TestCheck: each option out of range is refused with an error naming it
// as the command's flag; good options pass and are completed.
func TestCheck(t *testing.T) {
	local := Runner{Engine: Direct, Spill: true}
	tests := []struct {
		name   string
		change func(*Options)
		want   string // the start of the error; "": none
	}{
		{"defaults", func(*Options) {}, ""},
		{"threshold NaN", func(o *Options) { o.Config.Threshold = math.NaN() }, "--threshold NaN"},
		{"confidence NaN", func(o *Options) { o.Config.Confidence = math.NaN() }, "--confidence NaN"},
		{"max reject ratio", func(o *Options) { o.MaxRejectRatio = 1.5 }, "--max-reject-ratio 1.5"},
		{"perms 0", func(o *Options) { o.Config.Perms = 0 }, "--perms 0: want 1 to 1024"},
		{"perms above the limit", func(o *Options) { o.Config.Perms = 1025 }, "--perms 1025"},
		{"max doc bytes -1", func(o *Options) { o.Config.MaxDocBytes = -1 }, "--max-doc-bytes -1"},
		{"bands overflowing", func(o *Options) { o.Config.Bands, o.Config.Rows = 1<<40, 1<<40 }, "--bands 1099511627776"},
		{"bands without rows", func(o *Options) { o.Config.Bands = 16 }, "--bands 16 needs --rows"},
		{"simhash blocks", func(o *Options) { o.Config.SimBlocks = 3 }, "--simhash-blocks 3"},
		{"segment lines", func(o *Options) { o.SegmentLines = 3 }, "--segment-lines 3"},
		{"shingle", func(o *Options) { o.Shingle = "char:0" }, "--shingle \"char:0\""},
		{"shingle of the config", func(o *Options) { o.Shingle, o.Config.Tokens = "", tokenize.Mode(7) }, "--shingle \"Mode(7):5\""},
		{"memory", func(o *Options) { o.Memory = "8" }, "--memory \"8\""},
		{"gzip level 19", func(o *Options) { o.Config.CompressLevel = 19 }, "--compress-level 19: gzip levels are 1 to 9"},
		{"gzip level 19, --compress gzip", func(o *Options) { o.Config.Compress, o.Config.CompressLevel = record.Gzip, 19 }, "--compress-level 19"},
		{"zstd level 19", func(o *Options) { o.Config.Compress, o.Config.CompressLevel = record.Zstd, 19 }, ""},
		{"no compression, level 19", func(o *Options) { o.Config.Compress, o.Config.CompressLevel = record.None, 19 }, ""},
		{"best", func(o *Options) { o.Config.CompressLevel = record.LevelBest }, ""},
		{"containment below eval's range", func(o *Options) { o.Config.Containment = 0.5 }, "--containment 0.5: want a number in [0.6, 1], or 0 (off)"},
		{"containment NaN", func(o *Options) { o.Config.Containment = math.NaN() }, "--containment NaN: want a number in [0.6, 1]"},
		{"containment 0.6", func(o *Options) { o.Config.Containment = 0.6 }, ""},
		{"containment 1", func(o *Options) { o.Config.Containment = 1 }, ""},
		{"containment with too many perms", func(o *Options) { o.Config.Containment, o.Config.Perms = 0.8, 512 },
			"--containment 0.8 with --perms 512: 569 LSH bands, more than the 255 a document's containment keys number; use --perms 128 (the default"},
	}
	for _, tt := range tests {
		o := defaults()
		tt.change(&o)
		err := Check(&o, local)
		switch {
		case tt.want == "" && err != nil:
			t.Errorf("%s: %v", tt.name, err)
		case tt.want != "" && (err == nil || !strings.HasPrefix(err.Error(), tt.want)):
			t.Errorf("%s: error %v; want one starting %q", tt.name, err, tt.want)
		}
	}
	o := defaults()
	o.Shingle, o.Config.Format, o.Config.Method, o.Config.Keep = "word:3", record.TSV, verify.SimHash, job.Keep{Order: job.KeepFirst}
	if err := Check(&o, local); err != nil || o.Config.Tokens != tokenize.Word || o.Config.Shingle != 3 || o.Config.Format != record.TSV ||
		o.Config.Method != verify.SimHash || o.Config.Keep != (job.Keep{Order: job.KeepFirst}) || o.Config.SegmentBits != 16 {
		t.Errorf("Check = %v, completing %+v; want word shingles of 3, tsv, simhash, keep first, 16 segment bits", err, o.Config)
	}
}

// TestSegmentLines: segments of 65,536 lines on the local runners and
// 4,096 on a cluster's.
func TestSegmentLines(t *testing.T) {
	for runner, want := range map[Engine]int{Direct: 1 << 16, Prism: 1 << 16, Flink: 1 << 12, Spark: 1 << 12, Dataflow: 1 << 12} {
		if got := segmentLines(Runner{Engine: runner}); got != want {
			t.Errorf("--runner %s: %d lines a segment; want %d", runner, got, want)
		}
	}
}

// TestContainmentRange: run and eval take the same --containment values
// (CheckContainment), and every one of them, by steps of 0.01, works with
// the default --perms, as the error for too many perms says.
func TestContainmentRange(t *testing.T) {
	local := Runner{Engine: Direct, Spill: true}
	for i := 0; i <= 100; i++ {
		c := float64(i) / 100
		o := defaults()
		o.Config.Containment = c
		err, runErr := CheckContainment(c), Check(&o, local)
		inRange := c == 0 || c >= MinContainment
		if (err == nil) != inRange || (runErr == nil) != inRange {
			t.Errorf("--containment %v: CheckContainment %v, Check %v; want both to accept it: %v", c, err, runErr, inRange)
		}
	}
}
