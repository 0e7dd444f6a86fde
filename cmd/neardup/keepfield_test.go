package main

import (
	"bytes"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/parquet-go/parquet-go"

	"github.com/neardup/neardup/transforms/format/output"
	"github.com/neardup/neardup/transforms/format/summary"
)

// keepStory is one news story in several copies; keepOther is unrelated.
const (
	keepStory = "The city council approved the new budget on Monday after a long debate about school funding and road repairs across the district"
	keepOther = "A completely different story about the weather this weekend, with rain expected on Saturday and sun on Sunday afternoon"
)

// TestKeepField: --keep field:NAME keeps the copy with the smallest value
// of the field (field:-NAME the largest), whatever the copies' lengths and
// order, for dates and timestamps, numbers and strings, in JSONL, TSV and
// Parquet; a copy without a value, or with one that does not parse, comes
// last and is counted in summary.json (keep_unranked), which states the
// field's type (keep_type).
func TestKeepField(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	write := func(name, content string) string {
		p := filepath.Join(dir, name)
		copyBytes(t, p, content)
		return p
	}
	line := func(id, field, text string) string {
		if field != "" {
			field = `,` + field
		}
		return `{"id":"` + id + `"` + field + `,"text":"` + text + `"}` + "\n"
	}
	// The longest copy is a reprint with a header: --keep longest keeps it.
	dated := write("news.jsonl", line("reprint", `"published":"2024-03-05"`, keepStory+".")+
		line("original", `"published":"2024-03-01T09:00:00Z"`, keepStory+".")+
		line("syndicated", `"published":"2024-03-02"`, "Reposted with permission. "+keepStory+".")+
		line("undated", ``, keepStory+"!")+
		line("garbled", `"published":"last week"`, keepStory+"?")+
		line("other", `"published":"2023-01-01"`, keepOther))
	scored := write("scored.jsonl", line("low", `"quality":{"score":0.2}`, keepStory+".")+
		line("high", `"quality":{"score":0.93}`, keepStory+"!")+
		line("mid", `"quality":{"score":"0.5"}`, "Reposted with permission. "+keepStory+"."))
	tsv := write("crawl.tsv", "https://b.example/story\tBudget\t"+keepStory+".\n"+
		"https://a.example/story\tBudget\t"+keepStory+"!\n")
	type pqRow struct {
		ID    string `parquet:"id"`
		Text  string `parquet:"text"`
		Crawl int64  `parquet:"crawl,timestamp(millisecond)"`
	}
	var buf bytes.Buffer
	w := parquet.NewGenericWriter[pqRow](&buf)
	if _, err := w.Write([]pqRow{{"late", keepStory + ".", 1709296200000}, {"early", keepStory + "!", 1709000000000}}); err != nil {
		t.Fatal(err)
	}
	if err := w.Close(); err != nil {
		t.Fatal(err)
	}
	pq := write("crawl.parquet", buf.String())

	for _, c := range []struct {
		name     string
		args     []string
		kept     string // the representative of the story's cluster
		key      any    // its key, as its cluster line gives it
		typ      string
		unranked int64
	}{
		{"longest", []string{"--input", dated}, "syndicated", float64(len(keepStory) + 27), "", -1},
		{"earliest", []string{"--input", dated, "--keep", "field:published"}, "original", "2024-03-01T09:00:00Z", "time", 2},
		{"latest", []string{"--input", dated, "--keep", "field:-published"}, "reprint", "2024-03-05T00:00:00Z", "time", 2},
		{"highest score, nested", []string{"--input", scored, "--keep", "field:-quality.score"}, "high", 0.93, "number", 0},
		{"lowest score", []string{"--input", scored, "--keep", "field:quality.score"}, "low", 0.2, "number", 0},
		{"tsv url", []string{"--input", tsv, "--format", "tsv", "--keep", "field:url"}, "https://a.example/story", "https://a.exampl", "string", 0},
		{"parquet timestamp", []string{"--input", pq, "--keep", "field:crawl"}, "early", "2024-02-27T02:13:20Z", "time", 0},
		{"first", []string{"--input", dated, "--keep", "first"}, "reprint", nil, "", -1},
	} {
		t.Run(c.name, func(t *testing.T) {
			out := filepath.Join(t.TempDir(), "out")
			code, stderr := neardup(t, "", append([]string{"run", "--quiet", "--threshold", "0.5", "--output", out}, c.args...)...)
			if code != 0 {
				t.Fatalf("exit %d: %s", code, stderr)
			}
			var reps []string
			err := output.Each(out, "clusters", func(cl *output.ClusterLine) bool {
				reps = append(reps, cl.Representative)
				want := "longest"
				if i := slices.Index(c.args, "--keep"); i >= 0 {
					want = c.args[i+1]
				}
				if cl.Keep != want || cl.KeptKey != c.key {
					t.Errorf("cluster line: keep %q, kept_key %v (%T); want %q, %v", cl.Keep, cl.KeptKey, cl.KeptKey, want, c.key)
				}
				return true
			})
			if err != nil {
				t.Fatal(err)
			}
			if len(reps) != 1 || reps[0] != c.kept {
				t.Errorf("kept %q, want [%s]", reps, c.kept)
			}
			s, err := summary.ReadSummary(out)
			if err != nil {
				t.Fatal(err)
			}
			n, has := s.Counts[summary.StatUnranked]
			if s.Settings == nil {
				t.Fatal("summary.json has no settings")
			}
			if s.Settings.KeepType != c.typ || c.unranked >= 0 && n != c.unranked || c.unranked < 0 && has {
				t.Errorf("summary.json: keep_type %q, keep_unranked %d (%v); want %q, %d", s.Settings.KeepType, n, has, c.typ, c.unranked)
			}
		})
	}
	t.Run("audit", func(t *testing.T) {
		// An index of the unrelated story; the batch's copies are decided
		// by the field as in a run.
		idx, out := filepath.Join(t.TempDir(), "idx"), filepath.Join(t.TempDir(), "out")
		other := write("other.jsonl", line("indexed", `"published":"2020-01-01"`, keepOther))
		if code, stderr := neardup(t, "", "run", "--quiet", "--threshold", "0.5", other, "--output", filepath.Join(t.TempDir(), "run"), "--index-out", idx); code != 0 {
			t.Fatalf("index: exit %d: %s", code, stderr)
		}
		if code, stderr := neardup(t, "", "audit", "--quiet", "--index", idx, dated, "--output", out, "--keep", "field:published"); code != 0 {
			t.Fatalf("audit: exit %d: %s", code, stderr)
		}
		var lines []output.ClusterLine
		if err := output.Each(out, "clusters", func(cl *output.ClusterLine) bool { lines = append(lines, *cl); return true }); err != nil {
			t.Fatal(err)
		}
		if len(lines) != 1 || lines[0].Representative != "original" || lines[0].KeptKey != "2024-03-01T09:00:00Z" {
			t.Errorf("audit clusters %+v; want one kept for original, 2024-03-01T09:00:00Z", lines)
		}
	})
	for _, c := range []struct{ name, input, format, keep, want string }{
		{"misnamed", dated, "jsonl", "field:publshed", "--keep field:publshed: none of the first 6 records of " + dated + " has it; their fields: id, published, text"},
		{"tsv column", tsv, "tsv", "field:date", "--keep field:date: a TSV record's fields are url, title and content; want url or title"},
		{"no name", dated, "jsonl", "field:-", "want a field name after field:"},
	} {
		t.Run(c.name, func(t *testing.T) {
			code, stderr := neardup(t, "", "run", "--input", c.input, "--format", c.format, "--keep", c.keep, "--output", filepath.Join(t.TempDir(), "out"))
			if code != 2 || !strings.Contains(stderr, c.want) {
				t.Errorf("exit %d, %q; want 2 and %q", code, stderr, c.want)
			}
			checkOneLine(t, stderr)
		})
	}
}
