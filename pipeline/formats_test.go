package pipeline

import (
	"bytes"
	"compress/gzip"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/klauspost/compress/zstd"

	"github.com/neardup/neardup/transforms/format/output"
	"github.com/neardup/neardup/transforms/format/record"
	"github.com/neardup/neardup/transforms/format/summary"
	"github.com/neardup/neardup/transforms/job"
)

// sampleLines returns the decompressed lines of the bundled sample's files.
func sampleLines(t *testing.T) [][]string {
	t.Helper()
	var out [][]string
	for _, f := range sampleFiles {
		out = append(out, strings.Split(strings.TrimSuffix(string(decompressed(t, f)), "\n"), "\n"))
	}
	return out
}

// writeForm writes the sample's files to dir as sample-N<ext>, each line
// passed through line and the whole file through enc, and returns them.
func writeForm(t *testing.T, dir, ext string, line func(string) string, enc func([]byte) []byte) []string {
	t.Helper()
	var paths []string
	for i, lines := range sampleLines(t) {
		var b bytes.Buffer
		for _, l := range lines {
			b.WriteString(line(l) + "\n")
		}
		p := filepath.Join(dir, fmt.Sprintf("sample-%d%s", i, ext))
		if err := os.WriteFile(p, enc(b.Bytes()), 0o644); err != nil {
			t.Fatal(err)
		}
		paths = append(paths, p)
	}
	return paths
}

func gzipped(t *testing.T) func([]byte) []byte {
	return func(b []byte) []byte {
		var buf bytes.Buffer
		zw := gzip.NewWriter(&buf)
		zw.Write(b)
		if err := zw.Close(); err != nil {
			t.Fatal(err)
		}
		return buf.Bytes()
	}
}

func zstded(t *testing.T) func([]byte) []byte {
	return func(b []byte) []byte {
		zw, err := zstd.NewWriter(nil) // the library's defaults, not neardup's writer
		if err != nil {
			t.Fatal(err)
		}
		defer zw.Close()
		return zw.EncodeAll(b, nil)
	}
}

// reshape re-encodes a JSONL line: without its id (noID), or with id and
// text moved into nested objects.
func reshape(t *testing.T, noID bool) func(string) string {
	return func(l string) string {
		var m map[string]any
		if err := json.Unmarshal([]byte(l), &m); err != nil {
			t.Fatal(err)
		}
		id, text := m["id"], m["text"]
		delete(m, "id")
		if !noID {
			delete(m, "text")
			m["meta"] = map[string]any{"doc": map[string]any{"id": id}}
			m["content"] = map[string]any{"text": text}
		}
		b, err := json.Marshal(m)
		if err != nil {
			t.Fatal(err)
		}
		return string(b)
	}
}

// positions are the clusters of a run by the positions of their members,
// each with its representative's position first, in a stable order.
func positions(t *testing.T, dir string) []string {
	t.Helper()
	var out []string
	for _, cl := range clusterLines(t, dir) {
		if len(cl.Locations) != len(cl.Members) {
			t.Fatalf("cluster %s: %d locations for %d members", cl.Cluster, len(cl.Locations), len(cl.Members))
		}
		var rep string
		var locs []string
		for k, l := range cl.Locations {
			s := fmt.Sprintf("%d:%d", l.File, l.Line)
			if cl.Members[k] == cl.Representative && rep == "" {
				rep = s
			}
			locs = append(locs, s)
		}
		slices.Sort(locs)
		out = append(out, rep+" <- "+strings.Join(locs, " "))
	}
	slices.Sort(out)
	return out
}

// TestInputForms runs the bundled sample as it is and in other forms (zstd
// by name, gzip named .jsonl, without ids, with nested fields): every form
// keeps and removes the same documents and gives the same clusters, by the
// positions --locations reports.
func TestInputForms(t *testing.T) {
	cfg := job.DefaultConfig()
	cfg.Locations = true
	base := runJob(t, "", cfg, sampleFiles)
	want, wantCl := checkAccounting(t, base), positions(t, base)
	if len(wantCl) < 50 {
		t.Fatalf("only %d clusters in the sample", len(wantCl))
	}
	baseInputs := readSummary(t, base).Inputs
	same := func(l string) string { return l }
	for _, tt := range []struct {
		name, ext string
		line      func(string) string
		enc       func([]byte) []byte
		idField   string
		textField string
		spool     bool
		comp      string
		ids       string
	}{
		{"zstd", ".jsonl.zst", same, zstded(t), "id", "text", true, "zstd", ""},
		{"gzip named .jsonl", ".jsonl", same, gzipped(t), "id", "text", true, "gzip", ""},
		{"zstd named .jsonl", ".jsonl", same, zstded(t), "id", "text", false, "zstd", ""},
		{"no ids", ".jsonl", reshape(t, true), func(b []byte) []byte { return b }, "id", "text", false, "none", summary.LineIDs},
		{"--id-field ''", ".jsonl.gz", same, gzipped(t), "", "text", true, "gzip", summary.LineIDs},
		{"nested fields", ".jsonl", reshape(t, false), func(b []byte) []byte { return b }, "meta.doc.id", "content.text", false, "none", ""},
	} {
		t.Run(tt.name, func(t *testing.T) {
			files := writeForm(t, t.TempDir(), tt.ext, tt.line, tt.enc)
			c := cfg
			c.IDField, c.TextField = tt.idField, tt.textField
			if tt.spool {
				c.Spool = t.TempDir()
			}
			dir := runJob(t, "", c, files)
			got := checkAccounting(t, dir)
			for _, k := range []string{summary.StatInput, summary.StatRejected, summary.StatKept, summary.StatRemoved, summary.StatClusters, summary.StatExactDups} {
				if got[k] != want[k] {
					t.Errorf("%s = %d, want %d", k, got[k], want[k])
				}
			}
			if cl := positions(t, dir); !slices.Equal(cl, wantCl) {
				t.Errorf("%d clusters differ from the sample's %d", len(cl), len(wantCl))
			}
			s := readSummary(t, dir)
			for i, in := range s.Inputs {
				if in.Compression != tt.comp || in.IDs != tt.ids {
					t.Errorf("input %d: compression %q, ids %q; want %q, %q", i, in.Compression, in.IDs, tt.comp, tt.ids)
				}
				// The dedup copy is compressed as its input is.
				name := output.DedupName("jsonl", i) + map[string]string{"none": "", "gzip": ".gz", "zstd": ".zst"}[tt.comp]
				if _, err := os.Stat(filepath.Join(dir, name)); err != nil {
					t.Errorf("no dedup copy %s: %v", name, err)
					continue
				}
				// Of the same lines, it holds the same bytes.
				baseName := output.DedupName("jsonl", i) + map[string]string{"none": "", "gzip": ".gz"}[baseInputs[i].Compression]
				if tt.line(`{"id":"x","text":"y"}`) == `{"id":"x","text":"y"}` &&
					!bytes.Equal(readOutput(t, filepath.Join(dir, name)), readOutput(t, filepath.Join(base, baseName))) {
					t.Errorf("%s differs from the sample's %s", name, baseName)
				}
			}
			if tt.ids == "" {
				return
			}
			// FILE:LINE ids name the positions --locations gives.
			for _, cl := range clusterLines(t, dir) {
				for k, m := range cl.Members {
					if l := cl.Locations[k]; m != record.LineID(files[l.File], l.Line) {
						t.Fatalf("member %q at %+v", m, l)
					}
				}
			}
		})
	}
}

// TestCompressOutputs: with --compress gzip or zstd every line output is
// written compressed, named with the suffix, and decompresses to exactly
// the plain outputs of --compress none; the bytes do not depend on the
// shape of the job.
func TestCompressOutputs(t *testing.T) {
	files := append(slices.Clone(sampleFiles), "../testdata/bad/bad.jsonl") // with rejects
	cfg := job.DefaultConfig()
	cfg.Compress = record.None
	plain := outputs(t, runJob(t, "", cfg, files))
	delete(plain, summary.FileName)
	for _, kind := range []string{"pairs-00000.jsonl", "clusters-00000.jsonl", "rejects-00002.jsonl", "dedup-00001.jsonl"} {
		if plain[kind] == nil {
			t.Fatalf("no %s in %v", kind, slices.Sorted(func(yield func(string) bool) {
				for n := range plain {
					yield(n)
				}
			}))
		}
	}
	for _, comp := range []string{"gzip", "zstd"} {
		var first map[string][]byte
		for _, branches := range []int{1, 3} {
			cfg.Compress, cfg.Branches = must(record.ParseCompression(comp)), branches
			dir := runJob(t, "", cfg, files)
			got := outputs(t, dir)
			delete(got, summary.FileName)
			if len(got) != len(plain) {
				t.Errorf("%s: %d outputs, want %d", comp, len(got), len(plain))
			}
			ext := map[string]string{"gzip": ".gz", "zstd": ".zst"}[comp]
			for name, b := range plain {
				if d := readOutput(t, filepath.Join(dir, name+ext)); !bytes.Equal(d, b) {
					t.Errorf("%s%s decompresses to %d bytes, not the %d of the plain output", name, ext, len(d), len(b))
				}
			}
			if first == nil {
				first = got
			} else {
				sameOutputs(t, comp+" with 1 and 3 branches", first, got)
			}
		}
	}
}
