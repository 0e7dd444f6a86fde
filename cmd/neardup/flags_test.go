package main

import (
	"errors"
	"flag"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestBadFlags runs the command with flags out of range, missing their
// partner or not parsing: each is refused before any work with exit code 2
// and one line naming the flag, without a panic, and no output directory
// is made.
func TestBadFlags(t *testing.T) {
	sample, err := filepath.Abs("../../testdata/sample/sample-0.jsonl")
	if err != nil {
		t.Fatal(err)
	}
	tests := []struct {
		args []string // after the command's required flags
		want string   // in the message
	}{
		{[]string{"--threshold", "1.5"}, "--threshold 1.5"},
		{[]string{"--threshold", "NaN"}, "--threshold NaN"},
		{[]string{"--threshold", "-0.5"}, "--threshold -0.5"},
		{[]string{"--threshold", "0"}, "--threshold 0"},
		{[]string{"--threshold", "high"}, "-threshold"},
		{[]string{"--perms", "0"}, "--perms 0"},
		{[]string{"--perms", "-5"}, "--perms -5"},
		{[]string{"--perms", "100000"}, "--perms 100000"},
		{[]string{"--bands", "16"}, "--bands 16 needs --rows"},
		{[]string{"--rows", "8"}, "--rows 8 needs --bands"},
		{[]string{"--bands", "20", "--rows", "20"}, "more than --perms 128"},
		{[]string{"--bands", "-1", "--rows", "8"}, "--bands -1"},
		{[]string{"--max-doc-bytes", "-1"}, "--max-doc-bytes -1"},
		{[]string{"--max-tokens", "-1"}, "--max-tokens -1"},
		{[]string{"--hamming", "40"}, "--hamming 40"},
		{[]string{"--hamming", "-1"}, "--hamming -1"},
		{[]string{"--simhash-blocks", "3"}, "--simhash-blocks 3"},
		{[]string{"--confidence", "1"}, "--confidence 1"},
		{[]string{"--containment", "1.5"}, "--containment 1.5"},
		{[]string{"--containment", "-0.1"}, "--containment -0.1"},
		{[]string{"--containment", "NaN"}, "--containment NaN"},
		{[]string{"--containment", "0.5"}, "--containment 0.5: want a number in [0.6, 1], or 0 (off)"},
		{[]string{"--containment", "0.8", "--perms", "512"}, "--containment 0.8 with --perms 512: 569 LSH bands, more than the 255"},
		{[]string{"--containment", "0.8", "--method", "simhash"}, "--containment 0.8 with --method simhash"},
		{[]string{"--containment", "0.8", "--containment-min-size", "0"}, "--containment-min-size 0"},
		{[]string{"--partitions", "0"}, "--partitions 0"},
		{[]string{"--cc-partitions", "0"}, "--cc-partitions 0"},
		{[]string{"--cc-rounds", "-2"}, "--cc-rounds -2"},
		{[]string{"--rounds", "-1"}, "--rounds -1"},
		{[]string{"--segment-lines", "3"}, "--segment-lines 3"},
		{[]string{"--segment-lines", "1"}, "--segment-lines 1"},
		{[]string{"--segment-lines", "33554432"}, "--segment-lines 33554432"},
		{[]string{"--branches", "0"}, "--branches 0"},
		{[]string{"--workers", "-1"}, "--workers -1"},
		{[]string{"--workers", "0x10"}, "invalid value \"0x10\" for flag --workers: want a decimal integer"},
		{[]string{"--branches", "1_0"}, "invalid value \"1_0\" for flag --branches: want a decimal integer"},
		{[]string{"--max-bucket", "1"}, "--max-bucket 1"},
		{[]string{"--window", "0"}, "--window 0"},
		{[]string{"--max-reject-ratio", "1.5"}, "--max-reject-ratio 1.5"},
		{[]string{"--shingle", "char:0"}, "--shingle"},
		{[]string{"--shingle", "5"}, "--shingle"},
		{[]string{"--format", "csv"}, "--format"},
		{[]string{"--method", "lsh"}, "--method"},
		{[]string{"--dict", "en"}, "--dict"},
		{[]string{"--id-field", " "}, "--id-field"},
		{[]string{"--compress", "lz4"}, "--compress"},
		{[]string{"--no-such-flag"}, "-no-such-flag"},
	}
	type run struct {
		name string
		args []string
		want string
	}
	var runs []run
	for _, tt := range tests {
		runs = append(runs, run{"run " + strings.Join(tt.args, " "), append([]string{"run", "--input", sample, "--output", "OUT"}, tt.args...), tt.want})
	}
	for _, tt := range []struct {
		args []string
		want string
	}{
		{[]string{"run", "--input", sample}, "--input and --output are required"},
		{[]string{"audit", "--index", "IDX", "--input", sample, "--output", "OUT", "--threshold", "1.5"}, "--threshold 1.5"},
		{[]string{"audit", "--index", "IDX", "--input", sample, "--output", "OUT", "--perms", "0"}, "--perms 0"},
		{[]string{"audit", "--index", "IDX", "--input", sample, "--output", "OUT", "--bands", "4"}, "--bands 4 needs --rows"},
		{[]string{"audit", "--index", "IDX", "--input", sample, "--output", "OUT", "--containment", "1.5"}, "--containment 1.5"},
		{[]string{"eval", "--pairs", sample, "--truth", sample, "--containment", "0.5"}, "--containment 0.5: want a number in [0.6, 1], or 0 (off)"},
		{[]string{"eval", "--pairs", sample, "--truth", sample, "--containment", "1.5"}, "--containment 1.5: want a number in [0.6, 1], or 0 (off)"},
		{[]string{"tune", "--corpus", sample, "--threshold", "1.5"}, "--threshold 1.5"},
		{[]string{"tune", "--corpus", sample, "--threshold", "NaN"}, "--threshold NaN"},
		{[]string{"tune", "--corpus", sample, "--sample", "0"}, "--sample 0"},
		{[]string{"tune", "--corpus", sample, "--tokens", "bytes"}, "--tokens"},
		{[]string{"tune", "--corpus", sample, "stray"}, "unexpected arguments"}, // run and audit take arguments as inputs
	} {
		runs = append(runs, run{strings.Join(tt.args[:1], "") + " " + strings.Join(tt.args[len(tt.args)-2:], " "), tt.args, tt.want})
	}
	for _, r := range runs {
		t.Run(r.name, func(t *testing.T) {
			t.Parallel()
			dir := t.TempDir()
			out := filepath.Join(dir, "out")
			args := make([]string, len(r.args))
			for i, a := range r.args {
				args[i] = strings.NewReplacer("OUT", out, "IDX", filepath.Join(dir, "idx")).Replace(a)
			}
			code, stderr := neardupEnv(t, []string{"TMPDIR=" + dir}, args...)
			if code != 2 || strings.Count(stderr, "\n") != 1 || !strings.Contains(stderr, r.want) || strings.Contains(stderr, "panic") {
				t.Errorf("exit code %d, stderr %q; want 2 and one line naming %q", code, stderr, r.want)
			}
			if _, err := os.Stat(out); !errors.Is(err, os.ErrNotExist) {
				t.Errorf("the output directory was made (%v)", err)
			}
		})
	}
}

// TestDecimalFlags (issue 54): an integer flag reads its value in decimal
// only, whatever its type: a leading zero is not octal, and a base prefix
// or an underscore is refused; the flag's type name in the help is kept.
func TestDecimalFlags(t *testing.T) {
	for _, tt := range []struct {
		arg  string
		want int64  // the value read, if err is ""
		err  string // in the error
	}{
		{"010", 10, ""},
		{"0010", 10, ""},
		{"8", 8, ""},
		{"-010", -10, ""},
		{"0", 0, ""},
		{"0x10", 0, "want a decimal integer"},
		{"0o10", 0, "want a decimal integer"},
		{"0b10", 0, "want a decimal integer"},
		{"1_000", 0, "want a decimal integer"},
		{"ten", 0, "want a decimal integer"},
		{"99999999999999999999", 0, "value out of range"},
	} {
		fs := flag.NewFlagSet("test", flag.ContinueOnError)
		i := fs.Int("i", 1, "")
		i64 := fs.Int64("i64", 1, "")
		u := fs.Uint("u", 1, "")
		for _, name := range []string{"i", "i64", "u"} {
			err := parseQuiet(fs, []string{"--" + name + "=" + tt.arg})
			var got int64
			switch name {
			case "i":
				got = int64(*i)
			case "i64":
				got = *i64
			case "u":
				got = int64(*u)
			}
			switch {
			case tt.want < 0 && name == "u":
				if err == nil {
					t.Errorf("--%s %s: no error, want one", name, tt.arg)
				}
			case tt.err != "" && (err == nil || !strings.Contains(err.Error(), tt.err)):
				t.Errorf("--%s %s: error %v, want %q", name, tt.arg, err, tt.err)
			case tt.err == "" && (err != nil || got != tt.want):
				t.Errorf("--%s %s: read %d, %v; want %d", name, tt.arg, got, err, tt.want)
			}
			if kind, _ := flag.UnquoteUsage(fs.Lookup(name)); kind != map[string]string{"i": "int", "i64": "int", "u": "uint"}[name] {
				t.Errorf("--%s after parsing: help names its type %q", name, kind)
			}
		}
	}
}
