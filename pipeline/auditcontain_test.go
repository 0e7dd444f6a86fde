package pipeline

import (
	"context"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/neardup/neardup/transforms/format/output"
	"github.com/neardup/neardup/transforms/format/summary"
	"github.com/neardup/neardup/transforms/indexing"
	"github.com/neardup/neardup/transforms/job"
)

// writeBlocks writes docs (id, text) as JSONL to a new file named name.
func writeBlocks(t *testing.T, name string, docs [][2]string) string {
	t.Helper()
	var sb strings.Builder
	for _, d := range docs {
		line, err := json.Marshal(map[string]string{"id": d[0], "text": d[1]})
		if err != nil {
			t.Fatal(err)
		}
		sb.Write(line)
		sb.WriteByte('\n')
	}
	path := filepath.Join(t.TempDir(), name)
	if err := os.WriteFile(path, []byte(sb.String()), 0o644); err != nil {
		t.Fatal(err)
	}
	return path
}

// blockText is the text of blocks first..first+n-1, ten distinct words
// each.
func blockText(first, n int) string {
	var w []string
	for j := first; j < first+n; j++ {
		for k := range 10 {
			w = append(w, fmt.Sprintf("b%dw%d", j, k))
		}
	}
	return strings.Join(w, " ")
}

// readAuditLines reads audit-*.jsonl of dir by new document; a document
// on two lines fails the test.
func readAuditLines(t *testing.T, dir string) map[string]output.AuditLine {
	t.Helper()
	files, _ := filepath.Glob(filepath.Join(dir, "audit-*.jsonl"))
	lines := map[string]output.AuditLine{}
	for _, f := range files {
		b, err := os.ReadFile(f)
		if err != nil {
			t.Fatal(err)
		}
		for _, l := range strings.Split(strings.TrimSpace(string(b)), "\n") {
			var a output.AuditLine
			if err := json.Unmarshal([]byte(l), &a); err != nil {
				t.Fatal(err)
			}
			if _, twice := lines[a.Doc]; twice {
				t.Errorf("%s: %s on two lines", f, a.Doc)
			}
			lines[a.Doc] = a
		}
	}
	return lines
}

// TestAuditContainment audits a batch against an index built with
// --containment 0.8: a new document inside an indexed one is removed (its
// line: method containment, inside "new"); a new document holding an
// indexed one is kept (inside "indexed", kept: true); lookups and a scan,
// with and without the indexed sources, give the same outputs; the next
// index holds the kept documents' containment keys, so a truncated copy
// of one is found in the next audit.
func TestAuditContainment(t *testing.T) {
	cfg := job.DefaultConfig()
	cfg.Containment = 0.8
	indexed := writeBlocks(t, "indexed.jsonl", [][2]string{
		{"whole", blockText(0, 60)},
		{"other1", blockText(1000, 25)},
		{"reprint", blockText(500, 30)},
		{"other2", blockText(2000, 40)},
	})
	batch := writeBlocks(t, "batch.jsonl", [][2]string{
		{"part", blockText(0, 20)},                                  // inside "whole"
		{"reprint+", blockText(500, 30) + " " + blockText(700, 10)}, // holds "reprint" (Jaccard 0.75)
		{"other3", blockText(3000, 30)},
		{"line", "b3w0 b3w1 b3w2 b3w3"},
	})
	_, idx := runIndexed(t, cfg, []string{indexed})
	next := filepath.Join(t.TempDir(), "next")
	aud := runAudit(t, cfg, idx, []string{batch}, true, next)
	c := checkAuditAccounting(t, aud)
	lines := readAuditLines(t, aud)
	part, whole := lines["part"], lines["reprint+"]
	switch {
	case len(lines) != 2 || len(part.Matches) != 1 || len(whole.Matches) != 1:
		t.Fatalf("audit lines %+v, want part and reprint+, one match each", lines)
	case part.Kept || part.Matches[0].ID != "whole" || part.Matches[0].Method != "containment" || part.Matches[0].Inside != "new" || part.Matches[0].Containment < 0.8:
		t.Errorf("part: %+v, want removed, inside whole by containment", part)
	case !whole.Kept || whole.Matches[0].ID != "reprint" || whole.Matches[0].Method != "containment" || whole.Matches[0].Inside != "indexed":
		t.Errorf("reprint+: %+v, want kept, holding reprint", whole)
	}
	if c[summary.StatRemoved] != 1 || c[summary.StatDupOfIndex] != 1 || c[summary.StatContainsIndex] != 1 || c[summary.StatKept] != 3 {
		t.Errorf("counts removed %d, duplicates of the index %d, holding an indexed one %d, kept %d; want 1, 1, 1, 3",
			c[summary.StatRemoved], c[summary.StatDupOfIndex], c[summary.StatContainsIndex], c[summary.StatKept])
	}
	sameAudit(t, "containment audit by lookups and by a scan", aud, runAuditOpt(t, cfg, []string{batch}, AuditOptions{Index: idx, ReadSources: true, Scan: true}))
	// Without the indexed sources the unsure pairs are decided on their
	// estimates: the same documents, methods and sides.
	bySketch := readAuditLines(t, runAudit(t, cfg, idx, []string{batch}, false, ""))
	if decisions(bySketch) != decisions(lines) {
		t.Errorf("without the indexed sources: %s, want %s", decisions(bySketch), decisions(lines))
	}

	man, err := indexing.ReadManifest(context.Background(), next)
	if err != nil {
		t.Fatal(err)
	}
	if man.Config.Containment != 0.8 {
		t.Errorf("next index: containment %v, want 0.8", man.Config.Containment)
	}
	tail := writeBlocks(t, "tail.jsonl", [][2]string{{"reprint+ cut", blockText(700, 10) + " " + blockText(500, 12)}})
	againstNext := runAudit(t, cfg, next, []string{tail}, true, "")
	got := readAuditLines(t, againstNext)
	if m := got["reprint+ cut"].Matches; len(m) == 0 || m[0].ID != "reprint+" || m[0].Inside != "new" {
		t.Errorf("a part of reprint+ against the next index: %+v, want inside reprint+", got)
	}
	// Its compaction copies the containment keys: the same audit.
	compact := filepath.Join(t.TempDir(), "compact")
	if _, err := indexing.CompactIndex(context.Background(), next, compact, t.TempDir()); err != nil {
		t.Fatal(err)
	}
	sameAudit(t, "a containment index and its compaction", againstNext, runAudit(t, cfg, compact, []string{tail}, true, ""))
}

// decisions is what audit lines decide, without the similarity values.
func decisions(lines map[string]output.AuditLine) string {
	var out []string
	for doc, l := range lines {
		for _, m := range l.Matches {
			out = append(out, fmt.Sprintf("%s~%s %s inside %s kept %v", doc, m.ID, m.Method, m.Inside, l.Kept))
		}
	}
	slices.Sort(out)
	return strings.Join(out, "; ")
}
