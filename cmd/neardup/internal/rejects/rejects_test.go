package rejects

import (
	"strings"
	"testing"

	"github.com/neardup/neardup/transforms/format/summary"
)

// TestCheck: the guard from the job's per-file counts (summary.json
// "inputs"): one file all rejected fails the run whatever the share; the
// share counts over all files; a ratio of 1 turns the guard off.
func TestCheck(t *testing.T) {
	good := summary.InputFile{Index: 0, Path: "/data/good.jsonl", Records: 1000, Rejected: 2, Reasons: map[string]int64{"empty_text": 2}}
	bad := summary.InputFile{Index: 1, Path: "/data/bad.jsonl", Records: 3, Rejected: 3, Reasons: map[string]int64{"missing_text": 2, "bad_json": 1}}
	half := summary.InputFile{Index: 1, Path: "/data/half.tsv", Records: 1000, Rejected: 999, Reasons: map[string]int64{"too_few_columns": 999}}
	counts := func(in ...summary.InputFile) map[string]int64 {
		c := map[string]int64{}
		for _, f := range in {
			c[summary.StatInput] += f.Records
			c[summary.StatRejected] += f.Rejected
		}
		return c
	}
	tests := []struct {
		inputs []summary.InputFile
		ratio  float64
		want   string // "": no error
	}{
		{[]summary.InputFile{good}, 0.5, ""},
		{[]summary.InputFile{good, bad}, 0.5, "all 3 records of /data/bad.jsonl rejected: missing_text 2, bad_json 1; see --text-field"},
		{[]summary.InputFile{good, bad}, 0.99, "all 3 records of /data/bad.jsonl rejected"},
		{[]summary.InputFile{good, bad}, 1, ""},
		{[]summary.InputFile{good, half}, 0.5, "1001 of 2000 records rejected (50%, more than --max-reject-ratio 0.5): too_few_columns 999, empty_text 2; is it TSV"},
		{[]summary.InputFile{good, half}, 0.6, ""},
	}
	for _, tt := range tests {
		err := Check(counts(tt.inputs...), tt.inputs, nil, "", tt.ratio)
		if (tt.want == "") != (err == nil) || err != nil && !strings.HasPrefix(err.Error(), tt.want) {
			t.Errorf("%d inputs, ratio %v: %v; want %q", len(tt.inputs), tt.ratio, err, tt.want)
		}
	}
	// Without per-file counts: the totals and, for one file, its name.
	c := map[string]int64{summary.StatInput: 5, summary.StatRejected: 5}
	if err := Check(c, nil, []string{"/data/x.csv"}, "", 0.5); err == nil || !strings.HasPrefix(err.Error(), "all 5 records of /data/x.csv rejected") {
		t.Errorf("totals only: %v", err)
	}
}
