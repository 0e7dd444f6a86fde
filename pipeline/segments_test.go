package pipeline

import (
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"testing"

	"github.com/neardup/neardup/transforms/format/summary"
	"github.com/neardup/neardup/transforms/job"
)

// takeStat removes the count name from the summary.json of outs and returns
// it (-1 if the summary has none).
func takeStat(t *testing.T, outs map[string][]byte, name string) int64 {
	t.Helper()
	var m map[string]json.RawMessage
	if err := json.Unmarshal(outs[summary.FileName], &m); err != nil {
		t.Fatal(err)
	}
	var counts map[string]int64
	if err := json.Unmarshal(m["counts"], &counts); err != nil {
		t.Fatal(err)
	}
	v, ok := counts[name]
	if !ok {
		v = -1
	}
	delete(counts, name)
	var err error
	if m["counts"], err = json.Marshal(counts); err != nil {
		t.Fatal(err)
	}
	if outs[summary.FileName], err = json.Marshal(m); err != nil {
		t.Fatal(err)
	}
	return v
}

// TestSegmentSize: segments (16 lines here instead of 65,536) change
// nothing in the outputs, on the sample's two files and on one file holding
// the same documents, with or without the spool, in one round or several,
// on Prism or the direct runner; and a one-file input gets as many
// signature keys (sign_segments) as it has segments, and as many
// verification keys (verify_segments) as it has segments with candidates,
// not one.
func TestSegmentSize(t *testing.T) {
	one := filepath.Join(t.TempDir(), "one.jsonl")
	var all []byte
	for _, f := range sampleFiles {
		all = append(all, decompressed(t, f)...)
	}
	if err := os.WriteFile(one, all, 0o644); err != nil {
		t.Fatal(err)
	}
	records := int64(0)
	for _, b := range all {
		if b == '\n' {
			records++
		}
	}
	variants := []struct {
		runner                string
		bits, workers, rounds int
		spool                 bool
	}{
		{"", 0, 2, 1, false}, // the reference: the default segments
		{"", 4, 2, 1, false},
		{"", 4, 3, 3, true},
		{"", 1, 1, 2, false},
		{"direct", 4, 2, 2, true},
	}
	for _, in := range []struct {
		name  string
		files []string
	}{{"sample", inputs(t, sampleFiles...)}, {"one file", inputs(t, one)}} {
		var want map[string][]byte
		for i, v := range variants {
			cfg := job.DefaultConfig()
			cfg.SegmentBits, cfg.Workers, cfg.Rounds, cfg.Branches = v.bits, v.workers, v.rounds, 2
			if v.spool {
				cfg.Spool = t.TempDir()
			}
			dir := t.TempDir()
			if err := runInto(t, v.runner, cfg, in.files, dir); err != nil {
				t.Fatalf("%s, %+v: %v", in.name, v, err)
			}
			got := outputs(t, dir)
			segs := takeStat(t, got, summary.StatSegments)
			signSegs := takeStat(t, got, summary.StatSignSegments)
			what := fmt.Sprintf("%s, %+v", in.name, v)
			bits := v.bits
			if bits == 0 {
				bits = 16
			}
			// Every segment of the sample has good documents.
			if wantSign := (records+1<<bits-1)>>bits + int64(len(in.files)) - 1; signSegs < wantSign-int64(len(in.files))+1 || signSegs > wantSign {
				t.Errorf("%s: sign_segments %d, want the %d records' segments (about %d)", what, signSegs, records, wantSign)
			}
			t.Logf("%s: verify_segments %d of %d records", what, segs, records)
			switch {
			case i == 0 && segs != int64(len(in.files)):
				// The sample's files, and the one file, are shorter than
				// a default segment, and each has candidates.
				t.Errorf("%s: verify_segments %d, want one per file, %d", what, segs, len(in.files))
			case i > 0 && (segs < 4 || segs > (records>>v.bits)+int64(len(in.files))):
				t.Errorf("%s: verify_segments %d, want at least 4 and at most the %d records' segments", what, segs, records)
			}
			if i == 0 {
				checkAccounting(t, dir)
				want = got
				continue
			}
			sameOutputs(t, what, want, got)
		}
	}
}
