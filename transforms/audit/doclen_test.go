package audit

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/apache/beam/sdks/v2/go/pkg/beam"
	"github.com/apache/beam/sdks/v2/go/pkg/beam/testing/passert"
	"github.com/parquet-go/parquet-go"

	"github.com/neardup/neardup/transforms/exact"
	"github.com/neardup/neardup/transforms/format/index"
	"github.com/neardup/neardup/transforms/format/record"
	"github.com/neardup/neardup/transforms/indexing"
	"github.com/neardup/neardup/transforms/ingest"
	"github.com/neardup/neardup/transforms/jobfiles"
	"github.com/neardup/neardup/transforms/jobfiles/filelist"
	"github.com/neardup/neardup/transforms/objects"
	"github.com/neardup/neardup/transforms/sign"
	"github.com/neardup/neardup/transforms/stagetest"
)

// TestDocLength: a document's length (what --keep longest compares) is its
// text's bytes (record.Doc.Len) in every format, in the first pass's infos
// (which pick the representatives of exact duplicates) and in the records
// of the signature pass (the info shards and the index), which reads the
// document shards, with or without a spool.
func TestDocLength(t *testing.T) {
	texts := []string{
		`Title "one" é` + "\n" + stagetest.Text(1, 30) + ` <b>&</b>`,
		"Title 中文 two\n" + stagetest.Text(2, 30) + ` back\slash`,
	}
	in := t.TempDir()
	jsonl := stagetest.Input(t, in, "d.jsonl", stagetest.JSON("a", texts[0]), stagetest.JSON("b", texts[1]))
	var tsv []string
	for i, text := range texts {
		title, content, _ := strings.Cut(text, "\n")
		tsv = append(tsv, fmt.Sprintf("https://example.com/%c\t%s\t%s", 'a'+i, title, content))
	}
	tsvPath := stagetest.Input(t, in, "d.tsv", tsv...)
	var txt []string
	for i, text := range texts {
		txt = append(txt, filepath.Join(in, fmt.Sprintf("d%d.txt", i)))
		if err := os.WriteFile(txt[i], []byte(text), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	type row struct {
		ID   string `parquet:"id"`
		Text string `parquet:"text"`
	}
	pq := filepath.Join(in, "d.parquet")
	if err := parquet.WriteFile(pq, []row{{"a", texts[0]}, {"b", texts[1]}}); err != nil {
		t.Fatal(err)
	}
	for _, c := range []struct {
		format string
		paths  []string
		ids    []string
	}{
		{"jsonl", []string{jsonl}, []string{"a", "b"}},
		{"tsv", []string{tsvPath}, []string{"https://example.com/a", "https://example.com/b"}},
		{"text", txt, txt},
		{"jsonl", []string{pq}, []string{"a", "b"}}, // Parquet by its name
	} {
		want := []string{fmt.Sprintf("%s:%d", c.ids[0], len(texts[0])), fmt.Sprintf("%s:%d", c.ids[1], len(texts[1]))}
		for _, spool := range []bool{false, true} {
			t.Run(fmt.Sprintf("%s spool=%v", filepath.Ext(c.paths[0]), spool), func(t *testing.T) {
				cfg := stagetest.Config(t)
				cfg.Format = stagetest.Must(record.ParseFormat(c.format))
				cfg.IndexOut = t.TempDir()
				if spool {
					cfg.Spool = t.TempDir()
				}
				p, s := beam.NewPipelineWithRoot()
				files := stagetest.Files(t, s, c.paths, cfg.Branches)
				keys, _, _, segs, _ := ingest.Read(s, ingest.OptionsFor(cfg), files)
				passert.Equals(s, stagetest.Decode(s, "infolen", 0, keys), stagetest.Any(want)...)
				_, skips, _ := exact.ExactDuplicates(s, exact.OptionsFor(cfg), keys)
				entries := sign.Signatures(s, sign.OptionsFor(cfg), segs, skips)
				indexing.WriteIndex(s, indexing.OptionsFor(cfg), files, beam.ParDo(s, filelist.WaitFor, beam.Flatten(s, entries...)))
				stagetest.Run(t, p)
				if !slices.ContainsFunc(stagetest.DirNames(t, cfg.Work), jobfiles.IsDocShardName) {
					t.Fatal("no document shards: the signature pass parsed the input")
				}
				man, err := indexing.ReadManifest(context.Background(), cfg.IndexOut)
				if err != nil {
					t.Fatal(err)
				}
				var got []string
				for _, sh := range man.Shards {
					got = append(got, stageShardLens(t, objects.JoinPath(cfg.IndexOut, sh.Name))...)
				}
				slices.Sort(got)
				if !slices.Equal(got, want) {
					t.Errorf("index records %v, want %v", got, want)
				}
			})
		}
	}
}

// stageShardLens reads the records of the index shard at path as "id:len".
func stageShardLens(t *testing.T, path string) []string {
	t.Helper()
	var out []string
	eachShardRecord(t, path, func(r *index.Record) { out = append(out, fmt.Sprintf("%s:%d", r.ID, r.Len)) })
	return out
}
