package tune

import (
	"bytes"
	"compress/gzip"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/neardup/neardup/transforms/format/record"
)

// TestSampleTextsCutGzip: a gzip corpus cut short is sampled from the
// documents before the cut, with one line saying so; a whole one without.
func TestSampleTextsCutGzip(t *testing.T) {
	var gz bytes.Buffer
	zw, _ := gzip.NewWriterLevel(&gz, gzip.NoCompression)
	for i := range 2000 {
		fmt.Fprintf(zw, `{"id":"d%d","text":"document number %d of the corpus"}`+"\n", i, i)
	}
	zw.Close()
	dir := t.TempDir()
	whole, cut := filepath.Join(dir, "whole.jsonl.gz"), filepath.Join(dir, "cut.jsonl.gz")
	if err := os.WriteFile(whole, gz.Bytes(), 0o644); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(cut, gz.Bytes()[:gz.Len()/2], 0o644); err != nil {
		t.Fatal(err)
	}
	var warn bytes.Buffer
	texts, err := SampleTexts(whole, 100, record.Options{}, &warn)
	if err != nil || len(texts) != 100 || warn.Len() > 0 {
		t.Errorf("whole: %d texts, %v, warning %q; want 100, no warning", len(texts), err, warn.String())
	}
	texts, err = SampleTexts(cut, 100, record.Options{}, &warn)
	if err != nil || len(texts) != 100 {
		t.Fatalf("cut: %d texts, %v; want 100", len(texts), err)
	}
	if w := warn.String(); !strings.HasPrefix(w, "neardup tune: "+cut+":") || !strings.Contains(w, "(corrupt_gzip): the sample is of the ") || strings.Count(w, "\n") != 1 {
		t.Errorf("cut: warning %q; want one line naming the file and corrupt_gzip", w)
	}
}
