package main

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// writeTree writes files (path → content) under a new directory.
func writeTree(t *testing.T, files map[string]string) string {
	t.Helper()
	root := t.TempDir()
	for name, content := range files {
		p := filepath.Join(root, name)
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(p, []byte(content), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	return root
}

// body returns a function body of n lines in all.
func body(name string, n int) string {
	return "func " + name + "() {\n" + strings.Repeat("\t_ = 1\n", n-2) + "}\n"
}

func TestCheck(t *testing.T) {
	for _, tc := range []struct {
		name  string
		files map[string]string
		want  []string // substrings, one per problem, in order
	}{
		{"clean", map[string]string{"a/a.go": "package a\n\n" + body("f", 80)}, nil},
		{"long function", map[string]string{"a/a.go": "package a\n\n" + body("f", 81)}, []string{"a/a.go:3: f has 81 lines"}},
		{"decoder says why", map[string]string{"a/a.go": "package a\n\n// f is a hand-written decoder: one switch.\n" + body("f", 120)}, nil},
		{"tests left out", map[string]string{"a/a_test.go": "package a\n\n" + body("f", 200)}, nil},
		{"long ProcessElement", map[string]string{"a/a.go": "package a\n\ntype fn struct{}\n\n" +
			strings.Replace(body("ProcessElement", 41), "func ProcessElement", "func (f *fn) ProcessElement", 1)},
			[]string{"fn.ProcessElement has 41 lines, more than 40"}},
		{"DoFn with the job Config", map[string]string{"transforms/job/t.go": "package job\n\ntype Config struct{}\n\ntype fn struct{ Cfg Config }\n\nfunc (f *fn) ProcessElement() {}\n"},
			[]string{"DoFn transforms/job.fn carries the whole job Config"}},
		{"Config outside a DoFn", map[string]string{"transforms/job/t.go": "package job\n\ntype Config struct{}\n\ntype plan struct{ Cfg Config }\n"}, nil},
		{"imports that follow the data", map[string]string{"transforms/near/n.go": "package near\n\nimport (\n\t\"github.com/neardup/neardup/transforms/ingest\"\n\t\"github.com/neardup/neardup/transforms/sketch/minhash\"\n)\n"}, nil},
		{"imports against the data", map[string]string{
			"transforms/ingest/r.go":  "package ingest\n\nimport \"github.com/neardup/neardup/transforms/near\"\n",
			"transforms/graph/g/g.go": "package g\n\nimport \"github.com/neardup/neardup/transforms/job\"\n",
			"transforms/job/j.go":     "package job\n\nimport \"github.com/neardup/neardup/pipeline/plan\"\n",
			"pipeline/p.go":           "package pipeline\n\nimport \"github.com/neardup/neardup/cmd/neardup/internal/outdir\"\n"},
			[]string{"pipeline/p.go:3: imports cmd/neardup/internal/outdir: pipeline does not import cmd",
				"transforms/graph/g/g.go:3: imports transforms/job: an algorithm package imports no stage package",
				"transforms/ingest/r.go:3: imports transforms/near: stage ingest comes before near",
				"transforms/job/j.go:3: imports pipeline/plan: the Beam layer and the algorithms import neither"}},
		{"test helpers may be long", map[string]string{"a/atest/a.go": "package atest\n\n" + body("f", 200)}, nil},
		{"a stage composite with the job Config", map[string]string{
			"transforms/sign/s.go": "package sign\n\nimport \"github.com/neardup/neardup/transforms/job\"\n\ntype Options struct{}\n\nfunc OptionsFor(c job.Config) Options { return Options{} }\n\nfunc Signatures(o Options) {}\n\nfunc Old(cfg job.Config) {}\n",
			"transforms/job/j.go":  "package job\n\ntype Config struct{}\n\nfunc Check(c Config) {}\n"},
			[]string{"transforms/sign/s.go:11: Old takes the whole job Config"}},
		{"DoFn elsewhere with job.Config", map[string]string{"x/x.go": "package x\n\nimport \"m/transforms/job\"\n\ntype fn struct{ Cfg *job.Config }\n\nfunc (f *fn) ProcessElement() {}\n"},
			[]string{"DoFn x.fn carries the whole job Config"}},
		{"commit in a comment", map[string]string{"a/a.go": "package a\n\n// Measured at 8eb9330.\nvar x = 1\n"}, []string{`comment quotes "8eb9330"`}},
		{"words and numbers are not commits", map[string]string{"a/a.go": "package a\n\n// 1234567 bytes, a deadbeef, 0x1f8b.\nvar x = 1\n"}, nil},
		{"names that exist", map[string]string{"a/a.go": "package a\n\n// T.M in a.go, as a.T.M, a.T.F and a.V say; fmt.Nothing is not ours.\ntype T struct{ F int }\n\nfunc (T) M() {}\n\nvar V = 1\n"}, nil},
		{"names that do not", map[string]string{"a/a.go": "package a\n\n// See gone.go, a.Gone and a.T.Gone.\ntype T struct{}\n"},
			[]string{"names a.Gone, which", "names a.T.Gone, which", "names gone.go, which"}},
		{"docs name files", map[string]string{"a/a.go": "package a\n", "docs/X.md": "In `a/a.go` and a.go, not b.go\nnor a/b.go; https://x.org/y.go is a link.\n"},
			[]string{"docs/X.md:1: names b.go, which", "docs/X.md:2: names a/b.go, which"}},
		{"another package's file", map[string]string{"a/a.go": "package a\n\n// See a.go and b/b.go, not b.go; b.F is fine.\nvar x = 1\n", "b/b.go": "package b\n\nfunc F() {}\n"},
			[]string{"a/a.go:3: comment names b.go of another package"}},
		{"docs name identifiers", map[string]string{"b/b.go": "package b\n\ntype T struct{}\n\nfunc (T) M() {}\n\nfunc F() {}\n",
			"docs/X.md": "`b.F`, `b.T.M` and fmt.Nothing;\n`b.Gone` and b.T.Gone are not.\n"},
			[]string{"docs/X.md:2: names b.Gone, which", "docs/X.md:2: names b.T.Gone, which"}},
		{"command size", map[string]string{"cmd/neardup/main.go": "package main\n" + strings.Repeat("\n", 3000)}, []string{"cmd/neardup: package main has 3001 lines"}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			got, err := Check(writeTree(t, tc.files))
			if err != nil {
				t.Fatal(err)
			}
			if len(got) != len(tc.want) {
				t.Fatalf("Check = %q, want %d problems like %q", got, len(tc.want), tc.want)
			}
			for i, w := range tc.want {
				if !strings.Contains(got[i], w) {
					t.Errorf("problem %d = %q, want it to contain %q", i, got[i], w)
				}
			}
		})
	}
}

// TestRepository: the project itself keeps the house rules.
func TestRepository(t *testing.T) {
	problems, err := Check("../..")
	if err != nil {
		t.Fatal(err)
	}
	for _, p := range problems {
		t.Error(p)
	}
}
