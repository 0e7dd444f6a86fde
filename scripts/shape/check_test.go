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
		{"DoFn with the job Config", map[string]string{"transforms/t.go": "package transforms\n\ntype Config struct{}\n\ntype fn struct{ Cfg Config }\n\nfunc (f *fn) ProcessElement() {}\n"},
			[]string{"DoFn transforms.fn carries the whole job Config"}},
		{"Config outside a DoFn", map[string]string{"transforms/t.go": "package transforms\n\ntype Config struct{}\n\ntype plan struct{ Cfg Config }\n"}, nil},
		{"DoFn elsewhere with transforms.Config", map[string]string{"x/x.go": "package x\n\nimport \"m/transforms\"\n\ntype fn struct{ Cfg *transforms.Config }\n\nfunc (f *fn) ProcessElement() {}\n"},
			[]string{"DoFn x.fn carries the whole job Config"}},
		{"commit in a comment", map[string]string{"a/a.go": "package a\n\n// Measured at 8eb9330.\nvar x = 1\n"}, []string{`comment quotes "8eb9330"`}},
		{"words and numbers are not commits", map[string]string{"a/a.go": "package a\n\n// 1234567 bytes, a deadbeef, 0x1f8b.\nvar x = 1\n"}, nil},
		{"names that exist", map[string]string{"a/a.go": "package a\n\n// T.M in a.go, as a.T.M, a.T.F and a.V say; fmt.Nothing is not ours.\ntype T struct{ F int }\n\nfunc (T) M() {}\n\nvar V = 1\n"}, nil},
		{"names that do not", map[string]string{"a/a.go": "package a\n\n// See gone.go, a.Gone and a.T.Gone.\ntype T struct{}\n"},
			[]string{"names a.Gone, which", "names a.T.Gone, which", "names gone.go, which"}},
		{"docs name files", map[string]string{"a/a.go": "package a\n", "docs/X.md": "In `a/a.go` and a.go, not b.go\nnor a/b.go; https://x.org/y.go is a link.\n"},
			[]string{"docs/X.md:1: names b.go, which", "docs/X.md:2: names a/b.go, which"}},
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
