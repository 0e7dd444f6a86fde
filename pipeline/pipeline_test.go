package pipeline

import (
	"bytes"
	"context"
	"encoding/json"
	"flag"
	"io"
	"maps"
	"net"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"testing"

	"github.com/apache/beam/sdks/v2/go/pkg/beam"
	"github.com/apache/beam/sdks/v2/go/pkg/beam/runners/prism"
	"github.com/apache/beam/sdks/v2/go/pkg/beam/testing/ptest"
	_ "github.com/apache/beam/sdks/v2/go/pkg/beam/x/beamx" // registers every runner

	"github.com/neardup/neardup/transforms/beamtest"
	"github.com/neardup/neardup/transforms/eval/devcorpus"
	"github.com/neardup/neardup/transforms/eval/quality"
	"github.com/neardup/neardup/transforms/format/record"
	"github.com/neardup/neardup/transforms/format/summary"
	"github.com/neardup/neardup/transforms/job"
)

func TestMain(m *testing.M) { beamtest.Main(m) }

var sampleFiles = []string{"../testdata/sample/sample-0.jsonl", "../testdata/sample/sample-1.jsonl.gz"}

// runJob builds the job for files with cfg (Output set to a new temporary
// directory) and runs it on runner ("" is the default, Prism).
func runJob(t *testing.T, runner string, cfg job.Config, files []string) string {
	t.Helper()
	cfg.Output = t.TempDir()
	if err := cfg.Validate(); err != nil {
		t.Fatal(err)
	}
	abs := make([]string, len(files))
	for i, f := range files {
		var err error
		if abs[i], err = filepath.Abs(f); err != nil {
			t.Fatal(err)
		}
	}
	p, s := beam.NewPipelineWithRoot()
	if err := Build(context.Background(), s, cfg, abs); err != nil {
		t.Fatal(err)
	}
	var err error
	if runner == "" {
		err = ptest.Run(p)
	} else {
		_, err = beam.Run(context.Background(), runner, p)
	}
	if err != nil {
		t.Fatalf("%s: %v", runner, err)
	}
	return cfg.Output
}

func readSummary(t *testing.T, dir string) summary.Summary {
	t.Helper()
	s, err := summary.ReadSummary(dir)
	if err != nil {
		t.Fatal(err)
	}
	return s
}

// checkAccounting asserts input = kept + removed + rejected, and that the
// dedup shards hold exactly the kept records.
func checkAccounting(t *testing.T, dir string) map[string]int64 {
	t.Helper()
	s := readSummary(t, dir)
	c := s.Counts
	if !s.Balanced || c[summary.StatInput] != c[summary.StatKept]+c[summary.StatRemoved]+c[summary.StatRejected] {
		t.Errorf("records do not add up: %v", c)
	}
	if lines := dedupRecords(t, dir); lines != c[summary.StatKept] {
		t.Errorf("dedup shards hold %d records, summary says kept %d", lines, c[summary.StatKept])
	}
	return c
}

// dedupRecords counts the records of the dedup shards in dir.
func dedupRecords(t *testing.T, dir string) int64 {
	t.Helper()
	var lines int64
	files, _ := filepath.Glob(filepath.Join(dir, "dedup-*"))
	for _, f := range files {
		lines += int64(bytes.Count(readOutput(t, f), []byte{'\n'}))
	}
	return lines
}

// readOutput returns the content of an output file, decompressed by its
// name (.gz, .zst).
func readOutput(t *testing.T, path string) []byte {
	t.Helper()
	f, err := os.Open(path)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	comp := max(record.ByName(path), record.None)
	b, err := io.ReadAll(record.NewReader(path, f, comp))
	if err != nil {
		t.Fatalf("%s: %v", path, err)
	}
	return b
}

func evaluate(t *testing.T, dir string, truth quality.Truth) quality.Report {
	t.Helper()
	pairs, clusters, err := quality.ReadRun(filepath.Join(dir, "pairs-*.jsonl"))
	if err != nil {
		t.Fatal(err)
	}
	return quality.Evaluate(pairs, clusters, truth, 0.8)
}

// TestSample runs the bundled sample on Prism and checks the outputs against
// the sample's ground truth.
func TestSample(t *testing.T) {
	dir := runJob(t, "", job.DefaultConfig(), sampleFiles)
	c := checkAccounting(t, dir)
	if c[summary.StatInput] != 1200 || c[summary.StatRejected] != 0 {
		t.Errorf("read %d records, %d rejected; want 1200, 0", c[summary.StatInput], c[summary.StatRejected])
	}
	truth, err := quality.ReadTruth("../testdata/sample/truth.tsv")
	if err != nil {
		t.Fatal(err)
	}
	r := evaluate(t, dir, quality.Truth{Pairs: truth})
	high := bandRecall(r, 0.85)
	t.Logf("sample: recall J>=0.85 %.4f, J>=0.8 %.4f, lenient precision %.4f", high, r.All.AtThreshold.RecallDirect, r.All.LenientPrecision)
	if high < 0.97 || r.All.LenientPrecision < 0.97 {
		t.Errorf("sample quality: recall at J>=0.85 %.4f, lenient precision %.4f; want >= 0.97", high, r.All.LenientPrecision)
	}
}

// bandRecall is the recall over the bands at or above lo.
func bandRecall(r quality.Report, lo float64) float64 {
	var n, found int
	for i, b := range quality.DefaultBands {
		if b.Lo >= lo {
			n += r.All.Bands[i].Pairs
			found += r.All.Bands[i].FoundDirect
		}
	}
	if n == 0 {
		return 1
	}
	return float64(found) / float64(n)
}

// TestDevCorpus runs the whole dev corpus with the defaults: every true pair
// with J >= 0.9 is found, recall and precision at J >= 0.85 stay >= 0.97, and
// the counts add up.
func TestDevCorpus(t *testing.T) {
	dcDir, err := devcorpus.Dir()
	if err != nil {
		t.Skip(err)
	}
	dir := runJob(t, "", job.DefaultConfig(), []string{filepath.Join(dcDir, "dev.jsonl")})
	checkAccounting(t, dir)
	truth, err := quality.ReadTruth(filepath.Join(dcDir, "dev_pairs.tsv"))
	if err != nil {
		t.Fatal(err)
	}
	langs, err := quality.ReadLangs(filepath.Join(dcDir, "dev.jsonl"))
	if err != nil {
		t.Fatal(err)
	}
	r := evaluate(t, dir, quality.Truth{Pairs: truth, Lang: langs})
	if got := bandRecall(r, 0.9); got != 1 {
		t.Errorf("recall at J >= 0.9 is %.4f, want 1 (missed: %v)", got, r.Examples["missed"])
	}
	high := bandRecall(r, 0.85)
	byLang := map[string]float64{}
	for l, f := range r.ByLang {
		byLang[l] = f.LenientPrecision
	}
	t.Logf("dev: recall J>=0.85 %.4f, J>=0.8 %.4f, lenient precision %.4f %v", high, r.All.AtThreshold.RecallDirect, r.All.LenientPrecision, byLang)
	if high < 0.97 || r.All.LenientPrecision < 0.97 {
		t.Errorf("dev quality: recall at J>=0.85 %.4f, lenient precision %.4f; want >= 0.97", high, r.All.LenientPrecision)
	}
}

// outputs reads every file of an output directory.
func outputs(t *testing.T, dir string) map[string][]byte {
	t.Helper()
	entries, err := os.ReadDir(dir)
	if err != nil {
		t.Fatal(err)
	}
	m := map[string][]byte{}
	for _, e := range entries {
		if e.IsDir() {
			m[e.Name()+"/"] = nil // a leftover directory shows as an extra output
			continue
		}
		b, err := os.ReadFile(filepath.Join(dir, e.Name()))
		if err != nil {
			t.Fatal(err)
		}
		m[e.Name()] = b
	}
	return m
}

func sameOutputs(t *testing.T, what string, want, got map[string][]byte) {
	t.Helper()
	var names []string
	for n := range want {
		names = append(names, n)
	}
	slices.Sort(names)
	for _, n := range names {
		w, g := want[n], got[n]
		if n == summary.FileName {
			w, g = withoutShuffles(t, what, w, g)
		}
		if !bytes.Equal(w, g) {
			t.Errorf("%s: %s differs (%d vs %d bytes)", what, n, len(w), len(g))
		}
	}
	if len(got) != len(want) {
		t.Errorf("%s: %d output files, want %d", what, len(got), len(want))
	}
}

// withoutShuffles returns the summaries want and got without their shuffle
// tallies, which depend on the shape of the job (the chunks records are
// packed in) and, for delta-coded records, on the order in which the
// workers finish documents; it checks that both tallied the same shuffles,
// each with bytes and elements.
func withoutShuffles(t *testing.T, what string, want, got []byte) ([]byte, []byte) {
	t.Helper()
	var names [2][]string
	strip := func(i int64, b []byte) []byte {
		var m map[string]json.RawMessage
		if err := json.Unmarshal(b, &m); err != nil {
			t.Fatalf("%s: summary: %v", what, err)
		}
		var bytes, elems map[string]int64
		if err := json.Unmarshal(m["shuffle_bytes"], &bytes); err != nil {
			t.Fatalf("%s: summary: shuffle_bytes: %v", what, err)
		}
		if err := json.Unmarshal(m["shuffle_elements"], &elems); err != nil {
			t.Fatalf("%s: summary: shuffle_elements: %v", what, err)
		}
		for name, v := range bytes {
			if v <= 0 || elems[name] <= 0 || elems[name] > v {
				t.Errorf("%s: shuffle %s: %d bytes in %d elements", what, name, v, elems[name])
			}
		}
		names[i] = slices.Sorted(maps.Keys(bytes))
		delete(m, "shuffle_bytes")
		delete(m, "shuffle_elements")
		out, err := json.Marshal(m)
		if err != nil {
			t.Fatal(err)
		}
		return out
	}
	want, got = strip(0, want), strip(1, got)
	if !slices.Equal(names[0], names[1]) || len(names[0]) == 0 {
		t.Errorf("%s: shuffles tallied %v, want %v", what, names[1], names[0])
	}
	return want, got
}

// TestJobServer submits the job to a Prism job server on loopback through
// the portable runner (--runner=universal), as a Flink or Spark job server
// would get it, and gets the same outputs as in-process Prism.
func TestJobServer(t *testing.T) {
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	port := l.Addr().(*net.TCPAddr).Port
	l.Close()
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	if _, err := prism.CreateJobServer(ctx, prism.Options{Port: port}); err != nil {
		t.Fatal(err)
	}
	for name, v := range map[string]string{"endpoint": "localhost:" + strconv.Itoa(port), "environment_type": "LOOPBACK"} {
		old := flag.Lookup(name).Value.String()
		if err := flag.Set(name, v); err != nil {
			t.Fatal(err)
		}
		defer flag.Set(name, old)
	}
	cfg := job.DefaultConfig()
	got := outputs(t, runJob(t, "universal", cfg, sampleFiles))
	sameOutputs(t, "job server", outputs(t, runJob(t, "", cfg, sampleFiles)), got)
}

// must returns v, or panics with err: for a test's parse of a table's
// value, which is never wrong.
func must[T any](v T, err error) T {
	if err != nil {
		panic(err)
	}
	return v
}
