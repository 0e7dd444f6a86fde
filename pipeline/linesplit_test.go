package pipeline

import (
	"bytes"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/neardup/neardup/transforms/format/output"
	"github.com/neardup/neardup/transforms/format/summary"
)

// lineSample writes the sample's two files as one JSONL file in dir, with
// ids or without (FILE:LINE ids, settled by a record past the first unit;
// the first line of each segment the other way),
// and the edge cases of a cut among its lines: a byte order mark, 70 lines
// of bad JSON and blank ones first (so that the first parsable record
// comes after the first units), CRLF, a line over MaxDocBytes, invalid
// UTF-8 and bad JSON every so often, and no final newline. It returns the
// file and its lines.
func lineSample(t *testing.T, dir string, withID bool) (path string, lines int) {
	t.Helper()
	var b bytes.Buffer
	b.WriteString("\xEF\xBB\xBF")
	for i := range 70 {
		b.WriteString([]string{"{oops\n", "\n", "  \r\n", "[1,2]\n"}[i%4])
	}
	noID := reshape(t, true)
	k := 0
	for _, name := range sampleFiles {
		for _, l := range strings.Split(strings.TrimSuffix(string(decompressed(t, name)), "\n"), "\n") {
			// The first line of every segment has an id if the first
			// record has none and none if it has one: a unit that settled
			// its ids on its own first record would get them wrong.
			if withID == ((70+k)%16 == 0) {
				l = noID(l)
			}
			switch k++; k % 97 {
			case 10:
				l = "{bad json"
			case 20:
				l += "\r"
			case 30:
				l = `{"id":"long","text":"` + strings.Repeat("x", 5000) + `"}`
			case 40:
				l = `{"id":"bad","text":"` + "\xff\xfe" + `"}`
			}
			b.WriteString(l + "\n")
		}
	}
	path = filepath.Join(dir, "one.jsonl")
	if err := os.WriteFile(path, bytes.TrimSuffix(b.Bytes(), []byte("\n")), 0o644); err != nil {
		t.Fatal(err)
	}
	return path, 70 + k
}

// TestLineSplit: the sample as one JSONL file, read by the first pass in
// units of 1 and 3 segments of 16 lines, gives byte for byte the outputs
// of reading it in one unit (dedup copy, pairs, clusters, rejects,
// summary.json's inputs and counts), with ids and without (FILE:LINE), on
// Prism and on the direct runner; read_units says how many units read it.
func TestLineSplit(t *testing.T) {
	for _, withID := range []bool{true, false} {
		path, lines := lineSample(t, t.TempDir(), withID)
		var want map[string][]byte
		for i, v := range splitRuns {
			cfg := v.config()
			cfg.MaxDocBytes = 4096
			dir := t.TempDir()
			if err := runInto(t, v.runner, cfg, []string{path}, dir); err != nil {
				t.Fatalf("%+v: %v", v, err)
			}
			got := outputs(t, dir)
			units := takeStat(t, got, summary.StatReadUnits)
			what := fmt.Sprintf("ids %v, %+v", withID, v)
			wantUnits := int64(1)
			if v.split > 0 {
				per := (v.split + 8) / 16 * 16
				wantUnits = int64((lines + per - 1) / per)
			}
			if units != wantUnits {
				t.Errorf("%s: read_units %d, want %d", what, units, wantUnits)
			}
			t.Logf("%s: %d units for %d lines", what, units, lines)
			if i == 0 {
				reasons := map[string]int{}
				for _, r := range readRejects(t, dir) {
					reasons[r.Reason]++
				}
				if len(reasons) < 3 {
					t.Fatalf("rejects of the reference run by reason: %v, want bad JSON, too large and invalid UTF-8", reasons)
				}
				want = got
				continue
			}
			sameOutputs(t, what, want, got)
		}
	}
}

// TestLineSplitChanged: a JSONL file read in units that changes between
// two of its units, or after the last, fails the job naming it, and the
// job writes neither its dedup copy nor summary.json.
func TestLineSplitChanged(t *testing.T) {
	path, lines := lineSample(t, t.TempDir(), true)
	splitChanged(t, []string{path}, 0, int64(lines+255)/256, 256, output.DedupName("jsonl", 0))
}
