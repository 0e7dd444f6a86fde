package pipeline

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"io/fs"
	"maps"
	"os"
	"path/filepath"
	"runtime"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/apache/beam/sdks/v2/go/pkg/beam"
	"github.com/apache/beam/sdks/v2/go/pkg/beam/io/filesystem"
	"github.com/apache/beam/sdks/v2/go/pkg/beam/testing/ptest"

	"github.com/neardup/neardup/transforms/format/output"
	"github.com/neardup/neardup/transforms/format/record"
	"github.com/neardup/neardup/transforms/format/summary"
	"github.com/neardup/neardup/transforms/job"
	"github.com/neardup/neardup/transforms/jobstate"
)

// runInto builds the job for files (absolute paths or URLs, used as given:
// their order is their file index) with cfg writing into dir, runs it on
// runner ("" is Prism) and returns the runner's error.
func runInto(t *testing.T, runner string, cfg job.Config, files []string, dir string) error {
	t.Helper()
	cfg.Output = dir
	if err := cfg.Validate(); err != nil {
		t.Fatal(err)
	}
	p, s := beam.NewPipelineWithRoot()
	if err := Build(context.Background(), s, cfg, files); err != nil {
		t.Fatal(err)
	}
	var err error
	if runner == "" {
		err = ptest.Run(p)
	} else {
		_, err = beam.Run(context.Background(), runner, p)
	}
	if err != nil && !jobstate.WaitIdle(30*time.Second) {
		t.Errorf("the DoFns of the failed job still run 30 s after it failed")
	}
	return err
}

// inputs returns paths as the command lists them: absolute and sorted.
func inputs(t *testing.T, paths ...string) []string {
	t.Helper()
	out := make([]string, len(paths))
	for i, p := range paths {
		if strings.Contains(p, "://") {
			out[i] = p
			continue
		}
		abs, err := filepath.Abs(p)
		if err != nil {
			t.Fatal(err)
		}
		out[i] = abs
	}
	slices.Sort(out)
	return out
}

// shardReject is one line of rejects-NNNNN.jsonl and its NNNNN.
type shardReject struct {
	shard int
	output.RejectLine
}

func readRejects(t *testing.T, dir string) []shardReject {
	t.Helper()
	names, _ := filepath.Glob(filepath.Join(dir, "rejects-*.jsonl*"))
	var out []shardReject
	for _, name := range names {
		var shard int
		if _, err := fmt.Sscanf(filepath.Base(name), "rejects-%d.jsonl", &shard); err != nil {
			t.Fatalf("%s: %v", name, err)
		}
		b := readOutput(t, name)
		for _, line := range bytes.Split(bytes.TrimSuffix(b, []byte{'\n'}), []byte{'\n'}) {
			r := shardReject{shard: shard}
			if err := json.Unmarshal(line, &r.RejectLine); err != nil {
				t.Fatalf("%s: %q: %v", name, line, err)
			}
			out = append(out, r)
		}
	}
	return out
}

// decompressed returns the bytes of a local input as the reader sees them,
// as far as they can be read.
func decompressed(t *testing.T, path string) []byte {
	t.Helper()
	f, err := os.Open(path)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	r, err := record.Decompress(path, f)
	if err != nil {
		t.Fatal(err)
	}
	b, _ := io.ReadAll(r) // a damaged gzip stream: what was decoded
	return b
}

// wholeFileReasons are the rejects that stand for a whole input, or for
// what follows its last record (trailing garbage): Line 0.
var wholeFileReasons = map[string]bool{record.ReasonNotAFile: true, record.ReasonUnreadable: true, record.ReasonTrailingGarbage: true}

// checkRejects asserts that every reject names one of the inputs, sits in
// the rejects shard of that input's index, and has a reason, a detail naming
// the file, and a line and offset that point at the start of that line in
// the (decompressed) input. It returns the count by reason.
func checkRejects(t *testing.T, dir string, files []string, format string) map[string]int {
	t.Helper()
	got := map[string]int{}
	data := map[string][]byte{}
	for _, r := range readRejects(t, dir) {
		got[r.Reason]++
		i := slices.Index(files, r.File)
		switch {
		case i < 0:
			t.Errorf("reject %+v: file is not an input", r)
			continue
		case i != r.shard:
			t.Errorf("reject %+v in rejects shard %d, want %d", r, r.shard, i)
		case r.Reason == "" || !strings.Contains(r.Detail, r.File):
			t.Errorf("reject %+v: want a reason and a detail naming the file", r)
		}
		if r.Line == 0 {
			if format != "text" && !wholeFileReasons[r.Reason] {
				t.Errorf("reject %+v: line 0 in a %s file", r, format)
			}
			continue
		}
		if format == "text" || wholeFileReasons[r.Reason] || strings.Contains(r.File, "://") {
			t.Errorf("reject %+v: want line 0", r)
			continue
		}
		b, ok := data[r.File]
		if !ok {
			b = decompressed(t, r.File)
			data[r.File] = b
		}
		if r.Offset > int64(len(b)) || int64(bytes.Count(b[:r.Offset], []byte{'\n'})) != r.Line-1 ||
			(r.Offset > 0 && b[r.Offset-1] != '\n') {
			t.Errorf("reject %+v: offset %d is not the start of line %d", r, r.Offset, r.Line)
		}
	}
	return got
}

// deniedFS is a Beam filesystem ("denied://") whose files exist but may not
// be opened, as a chmod 000 file is for anyone but root.
type deniedFS struct{}

func (deniedFS) Close() error { return nil }
func (deniedFS) List(_ context.Context, glob string) ([]string, error) {
	return []string{glob}, nil
}
func (deniedFS) OpenRead(_ context.Context, name string) (io.ReadCloser, error) {
	return nil, &fs.PathError{Op: "open", Path: name, Err: fs.ErrPermission}
}
func (deniedFS) OpenWrite(_ context.Context, name string) (io.WriteCloser, error) {
	return nil, &fs.PathError{Op: "open", Path: name, Err: fs.ErrPermission}
}
func (deniedFS) Size(context.Context, string) (int64, error) { return 100, nil }

func init() {
	filesystem.Register("denied", func(context.Context) filesystem.Interface { return deniedFS{} })
}

// unreadableFile returns a local file that the test process may not read,
// or skips the test where permissions do not stop it (root).
func unreadableFile(t *testing.T) string {
	t.Helper()
	path := filepath.Join(t.TempDir(), "locked.jsonl")
	if err := os.WriteFile(path, []byte(`{"id":"x","text":"never read"}`+"\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	if err := os.Chmod(path, 0); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { os.Chmod(path, 0o644) })
	if f, err := os.Open(path); err == nil {
		f.Close()
		t.Skip("a chmod 000 file is still readable here (running as root)")
	}
	return path
}

// TestBadInput runs every bad input of testdata/bad on Prism: the run
// finishes, every bad record is in the rejects shard of its file with file,
// line, offset and reason, and the records add up.
func TestBadInput(t *testing.T) {
	bad := func(names ...string) func(*testing.T) []string {
		return func(t *testing.T) []string {
			paths := make([]string, len(names))
			for i, n := range names {
				paths[i] = filepath.Join("..", "testdata", "bad", n)
			}
			return inputs(t, paths...)
		}
	}
	withDir := func(t *testing.T) []string {
		sub := filepath.Join(t.TempDir(), "sub.jsonl")
		if err := os.Mkdir(sub, 0o755); err != nil {
			t.Fatal(err)
		}
		return inputs(t, sub, "../testdata/bad/good.jsonl.gz")
	}
	// withTail: good.jsonl.gz (6 records in gzip members) followed by tail.
	withTail := func(tail string) func(*testing.T) []string {
		return func(t *testing.T) []string {
			b, err := os.ReadFile("../testdata/bad/good.jsonl.gz")
			if err != nil {
				t.Fatal(err)
			}
			p := filepath.Join(t.TempDir(), "tail.jsonl.gz")
			if err := os.WriteFile(p, append(b, tail...), 0o644); err != nil {
				t.Fatal(err)
			}
			return []string{p}
		}
	}
	tests := []struct {
		name        string
		files       func(*testing.T) []string
		format      string
		maxDocBytes int
		docs        int64
		rejects     map[string]int
	}{
		{"bad.jsonl", bad("bad.jsonl"), "jsonl", 0, 4, map[string]int{
			record.ReasonBadJSON: 3, record.ReasonMissingID: 2, record.ReasonIDNotString: 4, record.ReasonMissingText: 1,
			record.ReasonTextNotString: 2, record.ReasonEmptyText: 2, record.ReasonInvalidUTF8: 1}},
		{"bad.jsonl max-doc-bytes 1024", bad("bad.jsonl"), "jsonl", 1024, 3, map[string]int{
			record.ReasonBadJSON: 3, record.ReasonMissingID: 2, record.ReasonIDNotString: 4, record.ReasonMissingText: 1,
			record.ReasonTextNotString: 2, record.ReasonEmptyText: 2, record.ReasonInvalidUTF8: 1, record.ReasonTooLarge: 1}},
		{"bad.tsv", bad("bad.tsv"), "tsv", 0, 3, map[string]int{
			record.ReasonTooFewColumns: 2, record.ReasonMissingID: 1, record.ReasonEmptyText: 1, record.ReasonInvalidUTF8: 1}},
		{"invalid_utf8.jsonl", bad("invalid_utf8.jsonl"), "jsonl", 0, 2, map[string]int{record.ReasonInvalidUTF8: 6}},
		{"truncated gzip", bad("truncated.jsonl.gz"), "jsonl", 0, 8, map[string]int{record.ReasonCorruptGzip: 1}},
		{"not gzip", bad("notgzip.jsonl.gz"), "jsonl", 0, 0, map[string]int{record.ReasonCorruptGzip: 1}},
		{"gzip members", bad("good.jsonl.gz"), "jsonl", 0, 6, map[string]int{}},
		{"gzip zero padding", withTail(strings.Repeat("\x00", 512)), "jsonl", 0, 6, map[string]int{}},
		// Listed in the rejects, but no record: not counted (record.IsRecord).
		{"gzip trailing garbage", withTail("not a gzip member"), "jsonl", 0, 6, map[string]int{record.ReasonTrailingGarbage: 1}},
		{"empty text file", bad("empty.txt"), "text", 0, 0, map[string]int{record.ReasonEmptyText: 1}},
		{"text files", bad("doc1.txt", "empty.txt"), "text", 0, 1, map[string]int{record.ReasonEmptyText: 1}},
		{"all jsonl shards", bad("bad.jsonl", "invalid_utf8.jsonl", "truncated.jsonl.gz", "notgzip.jsonl.gz", "good.jsonl.gz"),
			"jsonl", 0, 4 + 2 + 8 + 6, map[string]int{
				record.ReasonBadJSON: 3, record.ReasonMissingID: 2, record.ReasonIDNotString: 4, record.ReasonMissingText: 1,
				record.ReasonTextNotString: 2, record.ReasonEmptyText: 2, record.ReasonInvalidUTF8: 7, record.ReasonCorruptGzip: 2}},
		{"directory in the glob", withDir, "jsonl", 0, 6, map[string]int{record.ReasonNotAFile: 1}},
		{"file that may not be opened", func(t *testing.T) []string {
			return inputs(t, "denied://locked.jsonl", "../testdata/bad/good.jsonl.gz")
		}, "jsonl", 0, 6, map[string]int{record.ReasonUnreadable: 1}},
		{"chmod 000 file", func(t *testing.T) []string {
			return inputs(t, unreadableFile(t), "../testdata/bad/good.jsonl.gz")
		}, "jsonl", 0, 6, map[string]int{record.ReasonUnreadable: 1}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			files := tt.files(t)
			cfg := job.DefaultConfig()
			cfg.Format = must(record.ParseFormat(tt.format))
			if tt.maxDocBytes > 0 {
				cfg.MaxDocBytes = tt.maxDocBytes
			}
			dir := t.TempDir()
			if err := runInto(t, "", cfg, files, dir); err != nil {
				t.Fatalf("run failed: %v", err)
			}
			var c map[string]int64
			if tt.format == "text" {
				// A text document may hold many lines, and its dedup copy
				// too: only the summary counts records.
				s := readSummary(t, dir)
				c = s.Counts
				if !s.Balanced || c[summary.StatInput] != c[summary.StatKept]+c[summary.StatRemoved]+c[summary.StatRejected] {
					t.Errorf("records do not add up: %v", c)
				}
			} else {
				c = checkAccounting(t, dir)
			}
			got := checkRejects(t, dir, files, tt.format)
			if !maps.Equal(got, tt.rejects) {
				t.Errorf("rejects by reason = %v, want %v", got, tt.rejects)
			}
			var nrej int64
			for reason, n := range tt.rejects {
				if record.IsRecord(reason) {
					nrej += int64(n)
				}
			}
			if c[summary.StatDocuments] != tt.docs || c[summary.StatRejected] != nrej || c[summary.StatInput] != tt.docs+nrej {
				t.Errorf("summary: %d input, %d documents, %d rejected; want %d, %d, %d",
					c[summary.StatInput], c[summary.StatDocuments], c[summary.StatRejected], tt.docs+nrej, tt.docs, nrej)
			}
		})
	}
}

// clusterLines reads every clusters-*.jsonl of dir.
func clusterLines(t *testing.T, dir string) []output.ClusterLine {
	t.Helper()
	names, _ := filepath.Glob(filepath.Join(dir, "clusters-*.jsonl*"))
	var out []output.ClusterLine
	for _, name := range names {
		b := readOutput(t, name)
		dec := json.NewDecoder(bytes.NewReader(b))
		for dec.More() {
			var cl output.ClusterLine
			if err := dec.Decode(&cl); err != nil {
				t.Fatalf("%s: %v", name, err)
			}
			out = append(out, cl)
		}
	}
	return out
}

// keptIDs returns the ids of the records in dedup-NNNNN.jsonl, by shard.
func keptIDs(t *testing.T, dir string) map[string][]string {
	t.Helper()
	names, _ := filepath.Glob(filepath.Join(dir, "dedup-*.jsonl*"))
	out := map[string][]string{}
	for _, name := range names {
		b := readOutput(t, name)
		dec := json.NewDecoder(bytes.NewReader(b))
		for dec.More() {
			var d struct{ ID string }
			if err := dec.Decode(&d); err != nil {
				t.Fatalf("%s: %v", name, err)
			}
			out[filepath.Base(name)] = append(out[filepath.Base(name)], d.ID)
		}
	}
	return out
}

// TestBadInputDuplicateIDs: documents are (file, line); ids need not be
// unique. Two different texts with the same id in two shards are both kept
// and never clustered; two identical texts with the same id are exact
// duplicates like any others, and the first in input order stays.
func TestBadInputDuplicateIDs(t *testing.T) {
	files := inputs(t, "../testdata/bad/dupid-0.jsonl", "../testdata/bad/dupid-1.jsonl")
	dir := t.TempDir()
	if err := runInto(t, "", job.DefaultConfig(), files, dir); err != nil {
		t.Fatal(err)
	}
	c := checkAccounting(t, dir)
	if c[summary.StatInput] != 6 || c[summary.StatRejected] != 0 || c[summary.StatKept] != 5 || c[summary.StatRemoved] != 1 {
		t.Errorf("counts %v: want 6 input, 0 rejected, 5 kept, 1 removed", c)
	}
	cls := clusterLines(t, dir)
	want := output.ClusterLine{Cluster: "twin", Size: 2, Representative: "twin", Keep: "longest", KeptKey: 146 /* bytes of its text */, Members: []string{"twin", "twin"},
		Removed: []output.RemovedMember{{ID: "twin", Method: "exact", Jaccard: 1}}, Component: "twin", ComponentSize: 2}
	if len(cls) != 1 || fmt.Sprint(cls[0]) != fmt.Sprint(want) {
		t.Errorf("clusters = %+v, want only %+v", cls, want)
	}
	kept := keptIDs(t, dir)
	wantKept := map[string][]string{
		"dedup-00000.jsonl": {"same", "twin", "only-0"},
		"dedup-00001.jsonl": {"same", "only-1"},
	}
	if fmt.Sprint(kept) != fmt.Sprint(wantKept) {
		t.Errorf("kept %v, want %v", kept, wantKept)
	}
}

// writeJSONL writes docs (id, text pairs) as a JSONL file.
func writeJSONL(t *testing.T, path string, docs ...string) {
	t.Helper()
	var b bytes.Buffer
	for i := 0; i < len(docs); i += 2 {
		line, err := json.Marshal(map[string]string{"id": docs[i], "text": docs[i+1]})
		if err != nil {
			t.Fatal(err)
		}
		b.Write(line)
		b.WriteByte('\n')
	}
	if err := os.WriteFile(path, b.Bytes(), 0o644); err != nil {
		t.Fatal(err)
	}
}

// TestBadInputHugeLine: a 50 MB single line between two good records is
// rejected as too_large under the default --max-doc-bytes (10 MiB) and the
// run finishes. Memory is bounded by --max-doc-bytes, not by the line: the
// job allocates no more for a 50 MB line than for one just over the limit
// (each pass over the file buffers at most max-doc-bytes of a line).
func TestBadInputHugeLine(t *testing.T) {
	cfg := job.DefaultConfig()
	first := `{"id":"before","text":"a good record before the huge one, long enough to shingle"}` + "\n"
	var allocs []uint64
	for _, size := range []int{cfg.MaxDocBytes + 1<<20, 50 << 20} {
		path := filepath.Join(t.TempDir(), "huge.jsonl")
		writeHuge(t, path, first, size)
		var before, after runtime.MemStats
		runtime.GC()
		runtime.ReadMemStats(&before)
		dir := t.TempDir()
		err := runInto(t, "", cfg, []string{path}, dir)
		runtime.ReadMemStats(&after)
		if err != nil {
			t.Fatal(err)
		}
		allocs = append(allocs, after.TotalAlloc-before.TotalAlloc)
		t.Logf("%d MB line: the job allocated %d MB", size>>20, allocs[len(allocs)-1]>>20)
		c := checkAccounting(t, dir)
		if c[summary.StatInput] != 3 || c[summary.StatKept] != 2 || c[summary.StatRejected] != 1 {
			t.Errorf("counts %v: want 3 input, 2 kept, 1 rejected", c)
		}
		rj := readRejects(t, dir)
		if len(rj) != 1 || rj[0].Reason != record.ReasonTooLarge || rj[0].Line != 2 || rj[0].Offset != int64(len(first)) ||
			len(rj[0].Sample) > record.SampleBytes {
			t.Errorf("rejects = %+v, want one too_large at line 2, offset %d, with a short sample", rj, len(first))
		}
	}
	if allocs[1] > allocs[0]+8<<20 {
		t.Errorf("the job allocated %d MB for a 50 MB line, %d MB for an 11 MB one: memory grows with the line",
			allocs[1]>>20, allocs[0]>>20)
	}
}

// writeHuge writes a JSONL file of three records: first, one whose line is
// size bytes long, and a good one.
func writeHuge(t *testing.T, path, first string, size int) {
	t.Helper()
	f, err := os.Create(path)
	if err != nil {
		t.Fatal(err)
	}
	w := bufio.NewWriter(f)
	w.WriteString(first)
	head, tail := `{"id":"huge","text":"`, "\"}\n"
	w.WriteString(head)
	word := []byte("lorem ipsum dolor sit amet ")
	for n := len(head) + len(tail) - 1; n < size; n += len(word) {
		w.Write(word[:min(len(word), size-n)])
	}
	w.WriteString(tail)
	w.WriteString(`{"id":"after","text":"a good record after the huge one, long enough to shingle too"}` + "\n")
	if err := w.Flush(); err != nil {
		t.Fatal(err)
	}
	if err := f.Close(); err != nil {
		t.Fatal(err)
	}
}

// TestBadInputMaxTokens: a document longer than --max-tokens is signed on its
// first tokens and counted as truncated. Two documents that share their first
// 60 words and nothing after are near-duplicates with --max-tokens 60, and
// not with the default.
func TestBadInputMaxTokens(t *testing.T) {
	words := func(prefix string, n int) string {
		w := make([]string, n)
		for i := range w {
			w[i] = fmt.Sprintf("%s%d", prefix, i)
		}
		return strings.Join(w, " ")
	}
	path := filepath.Join(t.TempDir(), "long.jsonl")
	writeJSONL(t, path,
		"long-a", words("shared", 60)+" "+words("alpha", 300),
		"long-b", words("shared", 60)+" "+words("beta", 300),
		"short", words("other", 40))
	for _, tt := range []struct {
		maxTokens int
		truncated int64
		clusters  int
	}{
		{60, 2, 1},
		{job.DefaultConfig().MaxTokens, 0, 0},
	} {
		t.Run(fmt.Sprint("max-tokens ", tt.maxTokens), func(t *testing.T) {
			cfg := job.DefaultConfig()
			cfg.MaxTokens = tt.maxTokens
			dir := t.TempDir()
			if err := runInto(t, "", cfg, []string{path}, dir); err != nil {
				t.Fatal(err)
			}
			c := checkAccounting(t, dir)
			cls := clusterLines(t, dir)
			if c[summary.StatTruncated] != tt.truncated || len(cls) != tt.clusters {
				t.Errorf("truncated %d, clusters %+v; want %d truncated, %d clusters", c[summary.StatTruncated], cls, tt.truncated, tt.clusters)
			}
			if tt.clusters == 1 && fmt.Sprint(cls[0].Members) != "[long-a long-b]" {
				t.Errorf("cluster %+v, want long-a and long-b", cls[0])
			}
		})
	}
}

// TestFault injects a failure into one stage (jobstate.SetFailOnce: each
// DoFn of the stage fails the first time it sees a key). Prism does not
// retry a failed bundle: the job fails with an error naming the fault. It
// drops the failed bundle's elements and lets later stages run on what is
// left until the cancellation reaches them (ElementManager.FailBundle in
// Prism's engine), so a failed job may leave files written from part of
// the input in the directory it writes to: the command writes into a
// staging directory and commits it only after the job succeeded, which
// TestRunFault checks for each of these stages. Here, a run without the
// fault into the same directory replaces them with the complete result. On a
// runner that retries, the job succeeds and its outputs are complete and
// not duplicated. A stage whose DoFns no longer call the fault hook
// (jobstate.FaultHooked) fails the test: its fault would go untested.
func TestFault(t *testing.T) {
	files := inputs(t, sampleFiles...)
	cfg := job.DefaultConfig()
	want := outputs(t, runJob(t, "", cfg, sampleFiles))
	for _, stage := range []string{"Read", "Signatures", "Write"} {
		t.Run(stage, func(t *testing.T) {
			jobstate.SetFailOnce(stage)
			defer jobstate.SetFailOnce("")
			dir := t.TempDir()
			err := runInto(t, "", cfg, files, dir)
			if err == nil {
				if !jobstate.FaultHooked(stage) {
					t.Fatalf("no DoFn of stage %s calls the fault hook (jobstate.SetFailOnce)", stage)
				}
				sameOutputs(t, "after retries", want, outputs(t, dir))
				return
			}
			// The error crossed the runner as text.
			if !strings.Contains(err.Error(), jobstate.ErrInjectedFault.Error()) {
				t.Fatalf("job failed with %v, want the injected fault", err)
			}
			msg := err.Error()
			msg = msg[strings.Index(msg, jobstate.ErrInjectedFault.Error()):]
			t.Logf("the job failed: ...%s", msg[:strings.IndexByte(msg+"\n", '\n')])
			for name := range outputs(t, dir) {
				if strings.HasPrefix(name, ".tmp-") { // the failed job's work directory and unfinished writers
					if err := os.RemoveAll(filepath.Join(dir, name)); err != nil {
						t.Fatal(err)
					}
				}
			}
			jobstate.SetFailOnce("")
			if err := runInto(t, "", cfg, files, dir); err != nil {
				t.Fatal(err)
			}
			sameOutputs(t, "run again without the fault", want, outputs(t, dir))
		})
	}
}

// TestTextDedup: with --format text each file is one document, and its
// deduplicated copy, dedup-NNNNN.txt, is the file byte for byte (line ends
// and a missing final newline included) or, for a removed duplicate, empty.
func TestTextDedup(t *testing.T) {
	in := t.TempDir()
	a := "A text document of a few lines, long enough to give shingles.\r\nIts second line says a little more.\n\n"
	c := "Another document about something else entirely, with no newline at the end"
	contents := []string{a, a, c} // the second is an exact duplicate of the first
	var files []string
	for i, text := range contents {
		path := filepath.Join(in, fmt.Sprintf("doc%d.txt", i))
		if err := os.WriteFile(path, []byte(text), 0o644); err != nil {
			t.Fatal(err)
		}
		files = append(files, path)
	}
	cfg := job.DefaultConfig()
	cfg.Format = record.Text
	out := runJob(t, "", cfg, files)
	for i, want := range []string{a, "", c} {
		got, err := os.ReadFile(filepath.Join(out, output.DedupName("text", i)))
		if err != nil {
			t.Fatal(err)
		}
		if string(got) != want {
			t.Errorf("%s = %q, want %q", output.DedupName("text", i), got, want)
		}
	}
	if s := readSummary(t, out); s.Counts[summary.StatKept] != 2 || s.Counts[summary.StatRemoved] != 1 {
		t.Errorf("kept %d, removed %d; want 2 and 1", s.Counts[summary.StatKept], s.Counts[summary.StatRemoved])
	}
}
