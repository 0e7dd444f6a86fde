package transforms

import (
	"bufio"
	"compress/gzip"
	"context"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/neardup/neardup/transforms/format/output"
	"github.com/neardup/neardup/transforms/format/record"
	"github.com/neardup/neardup/transforms/format/wire"
	"github.com/neardup/neardup/transforms/text/normalize"
)

// collectDocs reads every document r reports, by line index.
func collectDocs(t *testing.T, r docReader) map[int64]docItem {
	t.Helper()
	got := map[int64]docItem{}
	err := r(func(d *docItem) error {
		if _, dup := got[d.Index]; dup {
			t.Errorf("line %d reported twice", d.Index)
		}
		item := *d
		if item.textBytes != nil { // valid only during the call
			item.Text, item.textBytes = string(item.textBytes), nil
		}
		got[d.Index] = item
		return nil
	}, func(record.Reject) error { return nil })
	if err != nil {
		t.Fatal(err)
	}
	return got
}

// TestNormSpool: the first pass (readKeysFn) writes a normalized copy of
// each input file that reads, it alone, which its reading left whole; the
// shingling passes then get from it the same documents, with the same ids,
// lengths and normalized texts, as from parsing the input again, Only still
// selecting them; without a spool, and for the raw reading of the
// deduplicated copy, documents are parsed.
func TestNormSpool(t *testing.T) {
	dir := t.TempDir()
	lines := []string{
		`{"id":"a","text":"Ｆｕｌｌ-width ＴＥＸＴ, and   spaces"}`,
		`not json`,
		``,
		`{"id":"b","text":"中文文本：全角，标点。"}`,
		`{"id":"c","text":"café\u0301 e\u0301"}`,
		`{"id":"d","text":""}`,
		`{"id":"e","text":"last line without newline"}`,
	}
	plain := filepath.Join(dir, "in.jsonl")
	if err := os.WriteFile(plain, []byte(strings.Join(lines, "\n")), 0o644); err != nil {
		t.Fatal(err)
	}
	// The same records gzipped, cut in the middle: a file whose reading
	// ends in an error gets no copy.
	cut := filepath.Join(dir, "cut.jsonl.gz")
	f, err := os.Create(cut)
	if err != nil {
		t.Fatal(err)
	}
	zw := gzip.NewWriter(f)
	zw.Write([]byte(strings.Repeat(lines[0]+"\n", 2000)))
	zw.Close()
	f.Close()
	whole, _ := os.ReadFile(cut)
	if err := os.WriteFile(cut, whole[:len(whole)/2], 0o644); err != nil {
		t.Fatal(err)
	}

	ctx := context.Background()
	cfg := DefaultConfig()
	cfg.Spool = filepath.Join(dir, "spool")
	if err := os.Mkdir(cfg.Spool, 0o755); err != nil {
		t.Fatal(err)
	}
	for file, path := range []string{plain, cut} {
		fn := &readKeysFn{Cfg: cfg}
		nop := func(int, []byte) {}
		if err := fn.ProcessElement(ctx, file, path, nop, nop, nop, func(string, int64) {}); err != nil {
			t.Fatal(err)
		}
	}
	if _, err := os.Stat(cfg.normPath(0)); err != nil {
		t.Fatalf("no normalized copy of %s: %v", plain, err)
	}
	if _, err := os.Stat(cfg.normPath(1)); err == nil {
		t.Fatalf("normalized copy of %s, whose reading failed", cut)
	}

	opt := cfg.recordOptions()
	parsedDocs := collectDocs(t, cfg.docs(ctx, 0, plain, opt))
	noSpool := cfg
	noSpool.Spool = ""
	if got := collectDocs(t, noSpool.docs(ctx, 0, plain, opt)); len(got) != len(parsedDocs) {
		t.Fatalf("without a spool: %d documents, with: %d", len(got), len(parsedDocs))
	}
	for line, p := range collectDocs(t, noSpool.docs(ctx, 0, plain, opt)) {
		s, ok := parsedDocs[line]
		switch {
		case p.Normalized:
			t.Errorf("line %d parsed from the input is marked normalized", line)
		case !ok || !s.Normalized:
			t.Errorf("line %d not read from the normalized copy: %+v", line, s)
		case p.Len != len(p.Text) || p.Len == p.RawLen:
			t.Errorf("line %d parsed: length %d, raw %d; want its text's %d bytes, less than the line", line, p.Len, p.RawLen, len(p.Text))
		case s.ID != p.ID || s.Len != p.Len || s.Text != normalize.Text(p.Text) || s.norm() != p.norm():
			t.Errorf("line %d: copy %+v, parsed %+v", line, s, p)
		}
	}
	if len(parsedDocs) != 4 { // "not json" and d's empty text are rejects
		t.Errorf("%d documents in the copy, want 4 (a, b, c, e)", len(parsedDocs))
	}

	opt.Only = func(i int64) bool { return i == 3 || i == 6 }
	only := collectDocs(t, cfg.docs(ctx, 0, plain, opt))
	if len(only) != 2 || only[3].ID != "b" || only[6].ID != "e" {
		t.Errorf("Only lines 3 and 6: got %+v", only)
	}
	opt.Only = nil
	opt.Raw = true
	for _, d := range collectDocs(t, cfg.docs(ctx, 0, plain, opt)) {
		if d.Normalized {
			t.Fatalf("raw reading served from the normalized copy: %+v", d)
		}
	}
	// The cut file is parsed: its good lines, then the read error.
	if got := collectDocs(t, cfg.docs(ctx, 1, cut, cfg.recordOptions())); len(got) == 0 {
		t.Error("no documents parsed from the cut file")
	}

	// A copy cut short does not decode: an error, not fewer documents.
	copyBytes, _ := os.ReadFile(cfg.normPath(0))
	if err := os.WriteFile(cfg.normPath(0), copyBytes[:len(copyBytes)-3], 0o644); err != nil {
		t.Fatal(err)
	}
	err = cfg.docs(ctx, 0, plain, cfg.recordOptions())(func(*docItem) error { return nil }, nil)
	if !errors.Is(err, wire.ErrCorrupt) {
		t.Errorf("reading a cut copy: %v, want a corrupt-spool error", err)
	}
}

// TestSpoolDropped: a spool copy that cannot be created, written or renamed
// into place (a full disk, issue 19 D7) costs
// the job nothing but the copy: the first pass succeeds, reports the same
// documents, and leaves no copy, so the later passes parse the input.
func TestSpoolDropped(t *testing.T) {
	ctx := context.Background()
	dir := t.TempDir()
	in := filepath.Join(dir, "in.jsonl.gz")
	f, err := os.Create(in)
	if err != nil {
		t.Fatal(err)
	}
	zw := gzip.NewWriter(f)
	zw.Write([]byte(`{"id":"a","text":"one"}` + "\n" + `{"id":"b","text":"two"}` + "\n"))
	zw.Close()
	f.Close()

	// A spool "directory" that is a file: no copy can be created.
	cfg := DefaultConfig()
	cfg.Spool = filepath.Join(dir, "not-a-dir")
	if err := os.WriteFile(cfg.Spool, nil, 0o644); err != nil {
		t.Fatal(err)
	}
	var docs int64
	fn := &readKeysFn{Cfg: cfg}
	nop := func(int, []byte) {}
	err = fn.ProcessElement(ctx, 0, in, nop, nop, nop, func(name string, n int64) {
		if name == output.StatDocuments {
			docs = n
		}
	})
	if err != nil || docs != 2 {
		t.Fatalf("first pass without a usable spool: %v, %d documents, want 2", err, docs)
	}
	for _, d := range collectDocs(t, cfg.docs(ctx, 0, in, cfg.recordOptions())) {
		if d.Normalized {
			t.Errorf("document read from a spool copy that cannot exist: %+v", d)
		}
	}

	// Writes that fail (a file opened read-only): Write reports success,
	// so that the tee'd read goes on, and commit drops the copy.
	tmp := filepath.Join(dir, "copy.tmp")
	if err := os.WriteFile(tmp, nil, 0o644); err != nil {
		t.Fatal(err)
	}
	ro, err := os.Open(tmp)
	if err != nil {
		t.Fatal(err)
	}
	final := filepath.Join(dir, "copy")
	s := &spoolFile{File: ro, final: final, input: in}
	if n, err := s.Write([]byte("some bytes")); n != 10 || err != nil {
		t.Errorf("Write = %d, %v; want 10, nil", n, err)
	}
	if s.err == nil {
		t.Fatal("the failed write was not kept")
	}
	s.commit(ctx)
	if _, err := os.Stat(final); err == nil {
		t.Error("a copy whose writes failed was committed")
	}
	if _, err := os.Stat(tmp); err == nil {
		t.Error("a dropped copy was left behind")
	}

	// A rename that fails (the final name is a directory): dropped too.
	if err := os.MkdirAll(filepath.Join(final, "x"), 0o755); err != nil {
		t.Fatal(err)
	}
	if s = newSpoolFile(ctx, final, in); s == nil {
		t.Fatal("no spool copy")
	}
	s.Write([]byte("some bytes"))
	tmpName := s.File.Name()
	s.commit(ctx)
	if _, err := os.Stat(tmpName); err == nil {
		t.Error("a copy that could not be renamed was left behind")
	}
	if err := os.RemoveAll(final); err != nil {
		t.Fatal(err)
	}

	// The normalized copy goes through the same spoolFile: more than its
	// buffer's worth of documents that cannot be written, then commit.
	if err := os.WriteFile(tmp, nil, 0o644); err != nil {
		t.Fatal(err)
	}
	if ro, err = os.Open(tmp); err != nil {
		t.Fatal(err)
	}
	n := &normWriter{f: &spoolFile{File: ro, final: final, input: in}}
	n.w = bufio.NewWriterSize(n.f, 1<<10)
	for i := range 100 {
		n.add(int64(i), 30, "id", []byte(strings.Repeat("text ", 10)))
	}
	n.commit(ctx)
	if _, err := os.Stat(final); err == nil {
		t.Error("a normalized copy whose writes failed was committed")
	}
}
