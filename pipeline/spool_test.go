package pipeline

import (
	"bytes"
	"compress/gzip"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/neardup/neardup/transforms/job"
)

// TestSpoolHoldsRecordsOnly: the spool copy of a compressed input holds
// only the bytes that can reach its dedup copy, its records' lines with
// their own line ends, and of a rejected or blank line its line end alone
// (issue 32: a rejected 300 MB line took 382 MB of TMPDIR); the dedup
// copy and every other output are byte-identical with and without it.
func TestSpoolHoldsRecordsOnly(t *testing.T) {
	var in, want bytes.Buffer
	in.WriteString("\xEF\xBB\xBF")
	add := func(line, end string, good bool) {
		in.WriteString(line + end)
		switch {
		case good:
			want.WriteString(line + end)
		case end != "":
			want.WriteString("\n")
		}
	}
	for i := range 40 {
		end := "\n"
		if i%3 == 0 {
			end = "\r\n"
		}
		text := fmt.Sprintf("document %d about the weather in town %d and the trains that run there", i%30, i%30)
		add(fmt.Sprintf(`{"id":"d%d","text":%q}`, i, text), end, true)
		switch i % 10 {
		case 1:
			add(`{"id":"bad"`, "\n", false)
		case 4:
			add(`{"id":"big","text":"`+strings.Repeat("too large ", 30000)+`"}`, "\r\n", false)
		case 6:
			add(" \t\r", "\n", false)
		case 8:
			add(`{"id":"empty","text":""}`, "\r\n", false)
		}
	}
	add(`{"id":"last","text":"no line end after it"}`, "", true)
	dir := t.TempDir()
	path := filepath.Join(dir, "in.jsonl.gz")
	var gz bytes.Buffer
	zw := gzip.NewWriter(&gz)
	zw.Write(in.Bytes())
	zw.Close()
	if err := os.WriteFile(path, gz.Bytes(), 0o644); err != nil {
		t.Fatal(err)
	}
	files := inputs(t, path)

	var outs [2]map[string][]byte
	for i, spool := range []bool{false, true} {
		cfg := job.DefaultConfig()
		cfg.MaxDocBytes = 64 << 10
		if spool {
			cfg.Spool = t.TempDir()
		}
		out := t.TempDir()
		if err := runInto(t, "", cfg, files, out); err != nil {
			t.Fatalf("spool %v: %v", spool, err)
		}
		checkAccounting(t, out)
		outs[i] = outputs(t, out)
		if !spool {
			continue
		}
		got, err := os.ReadFile(filepath.Join(cfg.Spool, "input-00000"))
		if err != nil {
			t.Fatal(err)
		}
		if !bytes.Equal(got, want.Bytes()) {
			t.Errorf("the spool copy holds %d bytes, want the %d of the records and line ends (the input: %d)", len(got), want.Len(), in.Len())
		}
	}
	if len(outs[0]) == 0 {
		t.Fatal("no outputs")
	}
	sameOutputs(t, "spool", outs[0], outs[1])
}
