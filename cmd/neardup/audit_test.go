package main

import (
	"errors"
	"flag"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/neardup/neardup/transforms"
	"github.com/neardup/neardup/transforms/index"
)

// TestAuditConfig: the audit takes every index setting from the manifest,
// and a flag given with another value is refused, naming the difference.
func TestAuditConfig(t *testing.T) {
	built := transforms.DefaultConfig()
	built.SimBlocks, built.Threshold = 6, 0.85
	m := index.NewManifest(built.IndexConfig(), nil)
	cases := []struct {
		args []string
		want string // "" = accepted
	}{
		{nil, ""},
		{[]string{"--threshold", "0.85", "--simhash-blocks", "6"}, ""},
		{[]string{"--partitions", "64", "--verify", "exact"}, ""}, // not index settings
		{[]string{"--threshold", "0.9"}, "threshold: index 0.85, now 0.9"},
		{[]string{"--shingle", "word:5"}, "tokens: index char, now word"},
		{[]string{"--perms", "64", "--format", "tsv"}, "perms: index 128, now 64; format: index jsonl, now tsv"},
	}
	for _, c := range cases {
		fs := flag.NewFlagSet("audit", flag.ContinueOnError)
		f := registerAuditFlags(fs)
		if err := fs.Parse(c.args); err != nil {
			t.Fatal(err)
		}
		set := map[string]bool{}
		fs.Visit(func(fl *flag.Flag) { set[fl.Name] = true })
		cfg, err := auditConfig(f.cfg, f.shingle, set, &m)
		switch {
		case c.want == "" && err != nil:
			t.Errorf("%q: %v", c.args, err)
		case c.want == "" && (cfg.SimBlocks != 6 || cfg.Threshold != 0.85):
			t.Errorf("%q: settings not from the index: %+v", c.args, cfg)
		case c.want != "" && (!errors.Is(err, index.ErrMismatch) || !strings.Contains(err.Error(), c.want)):
			t.Errorf("%q: got %v, want an error naming %q", c.args, err, c.want)
		}
	}
}

// TestPrepareNextIndex: the next index may not be the old one, inside it,
// or around it, and must be empty.
func TestPrepareNextIndex(t *testing.T) {
	root := t.TempDir()
	old := filepath.Join(root, "idx")
	if err := os.MkdirAll(old, 0o755); err != nil {
		t.Fatal(err)
	}
	full := filepath.Join(root, "full")
	if err := os.MkdirAll(full, 0o755); err != nil {
		t.Fatal(err)
	}
	os.WriteFile(filepath.Join(full, "x"), nil, 0o644)
	for _, c := range []struct {
		next string
		ok   bool
	}{
		{filepath.Join(root, "idx2"), true},
		{old, false},
		{old + "/", false},
		{filepath.Join(old, "next"), false},
		{root, false},
		{full, false},
	} {
		_, err := prepareNextIndex(old, c.next)
		if (err == nil) != c.ok {
			t.Errorf("next %s: err %v, want ok=%v", c.next, err, c.ok)
		}
	}
}
