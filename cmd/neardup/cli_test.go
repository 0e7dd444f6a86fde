package main

import (
	"flag"
	"os"
	"os/exec"
	"reflect"
	"regexp"
	"runtime"
	"runtime/debug"
	"slices"
	"strings"
	"testing"
)

func TestNormalizeFlags(t *testing.T) {
	fs := flag.NewFlagSet("t", flag.ContinueOnError)
	fs.Int("max-doc-bytes", 0, "")
	fs.String("job_name", "", "")
	fs.String("input", "", "")
	fs.Bool("overwrite", false, "")
	tests := []struct{ in, want []string }{
		{[]string{"--max_doc_bytes", "5"}, []string{"--max-doc-bytes", "5"}},
		{[]string{"-max_doc_bytes=5"}, []string{"-max-doc-bytes=5"}},
		{[]string{"--max-doc-bytes", "5"}, []string{"--max-doc-bytes", "5"}},
		{[]string{"--job-name", "x"}, []string{"--job_name", "x"}},
		// A value is not a flag, whatever it looks like.
		{[]string{"--input", "--max_doc_bytes"}, []string{"--input", "--max_doc_bytes"}},
		// A boolean flag takes no next argument.
		{[]string{"--overwrite", "--max_doc_bytes", "1"}, []string{"--overwrite", "--max-doc-bytes", "1"}},
		// Flags end at the first argument that is not one, and at --.
		{[]string{"a", "--max_doc_bytes", "1"}, []string{"a", "--max_doc_bytes", "1"}},
		{[]string{"--", "--max_doc_bytes", "1"}, []string{"--", "--max_doc_bytes", "1"}},
		// Unknown either way: left for the parser to refuse.
		{[]string{"--max_doc_byte", "1"}, []string{"--max_doc_byte", "1"}},
	}
	for _, tt := range tests {
		if got := normalizeFlags(fs, tt.in); !slices.Equal(got, tt.want) {
			t.Errorf("normalizeFlags(%q) = %q, want %q", tt.in, got, tt.want)
		}
	}
}

// TestSnakeCaseFlags parses the flags of 'neardup run' spelled both ways:
// the settings are the same, and not the defaults.
func TestSnakeCaseFlags(t *testing.T) {
	parse := func(args ...string) *runFlags {
		t.Helper()
		fs := flag.NewFlagSet("run", flag.ContinueOnError)
		f := registerRunFlags(fs)
		if err := parseFlags(fs, args, func() {}); err != nil {
			t.Fatalf("%q: %v", args, err)
		}
		return f
	}
	kebab := parse("--max-doc-bytes", "777", "--max-reject-ratio=0.25", "--cc-rounds", "3", "--id-field", "key", "--index-out", "idx")
	snake := parse("--max_doc_bytes", "777", "--max_reject_ratio=0.25", "--cc_rounds", "3", "--id_field", "key", "--index_out", "idx")
	if !reflect.DeepEqual(kebab, snake) {
		t.Errorf("snake_case flags differ from kebab-case:\n%+v\n%+v", *kebab, *snake)
	}
	def := parse()
	if kebab.opts.Config.MaxDocBytes != 777 || def.opts.Config.MaxDocBytes == 777 || kebab.opts.MaxRejectRatio != 0.25 || kebab.indexOut != "idx" || kebab.opts.Config.IDField != "key" {
		t.Errorf("flags not set: %+v", *kebab)
	}
}

func TestDidYouMean(t *testing.T) {
	names := []string{"threshold", "max-doc-bytes", "max-tokens", "environment_type", "environment_config", "run", "audit", "input", "index"}
	tests := []struct{ name, want string }{
		{"threshhold", "threshold"},
		{"treshold", "threshold"},
		{"thresold", "threshold"},
		{"max_doc_byte", "max-doc-bytes"},
		{"max-docbytes", "max-doc-bytes"},
		{"enviroment_type", "environment_type"},
		{"rnu", "run"},          // a transposition is one edit
		{"thresh", "threshold"}, // the start of only one flag
		{"max", ""},             // the start of two
		{"x", ""},
		{"inpt", "input"},
		{"indx", "index"},
		{"frobnicate", ""},
	}
	for _, tt := range tests {
		if got := didYouMean(tt.name, names); got != tt.want {
			t.Errorf("didYouMean(%q) = %q, want %q", tt.name, got, tt.want)
		}
	}
}

func TestEditDistance(t *testing.T) {
	for _, tt := range []struct {
		a, b string
		want int
	}{
		{"", "", 0}, {"abc", "", 3}, {"", "ab", 2}, {"kitten", "sitting", 3},
		{"run", "rnu", 1}, {"ab", "ba", 1}, {"threshold", "threshhold", 1}, {"abc", "abc", 0},
	} {
		if got := editDistance(tt.a, tt.b); got != tt.want {
			t.Errorf("editDistance(%q, %q) = %d, want %d", tt.a, tt.b, got, tt.want)
		}
		if got := editDistance(tt.b, tt.a); got != tt.want {
			t.Errorf("editDistance(%q, %q) = %d, want %d", tt.b, tt.a, got, tt.want)
		}
	}
}

func TestVersionText(t *testing.T) {
	bi := &debug.BuildInfo{
		GoVersion: "go1.26.0",
		Main:      debug.Module{Path: "github.com/neardup/neardup", Version: "v1.2.3"},
		Deps: []*debug.Module{
			{Path: "github.com/cespare/xxhash/v2", Version: "v2.3.0"},
			{Path: beamModule, Version: "v2.77.0"},
		},
		Settings: []debug.BuildSetting{
			{Key: "GOOS", Value: "linux"}, {Key: "GOARCH", Value: "arm64"},
			{Key: "vcs.revision", Value: "c2a39d78d0555b9c81fbfc4bc55feb5f1c758672"},
			{Key: "vcs.time", Value: "2026-11-24T15:00:00Z"},
			{Key: "vcs.modified", Value: "true"},
		},
	}
	want := `neardup v1.2.3
commit  c2a39d78d0555b9c81fbfc4bc55feb5f1c758672 (modified)
date    2026-11-24T15:00:00Z
go      go1.26.0 linux/arm64
beam    v2.77.0
`
	if got := versionText(bi); got != want {
		t.Errorf("got\n%s\nwant\n%s", got, want)
	}
	// A replaced Beam shows the replacement's version; no VCS, no commit.
	bi.Deps[1].Replace = &debug.Module{Path: beamModule, Version: "v2.78.0-rc1"}
	bi.Settings = nil
	bi.Main.Version = ""
	want = "neardup (devel)\ngo      go1.26.0\nbeam    v2.78.0-rc1\n"
	if got := versionText(bi); got != want {
		t.Errorf("got\n%s\nwant\n%s", got, want)
	}
}

// TestVersionCommand runs 'neardup version' and '--version': the Go
// version is the toolchain's and the Beam version is go.mod's.
func TestVersionCommand(t *testing.T) {
	mod, err := os.ReadFile("../../go.mod")
	if err != nil {
		t.Fatal(err)
	}
	m := regexp.MustCompile(`(?m)^\s*github\.com/apache/beam/sdks/v2 (v\S+)`).FindSubmatch(mod)
	if m == nil {
		t.Fatal("go.mod does not require Beam")
	}
	for _, arg := range []string{"version", "--version", "-version"} {
		out, code, stderr := neardupOut(t, arg)
		if code != 0 {
			t.Fatalf("%s: exit %d: %s", arg, code, stderr)
		}
		for _, want := range []string{
			"neardup ",
			"\ngo      " + runtime.Version() + " " + runtime.GOOS + "/" + runtime.GOARCH + "\n",
			"\nbeam    " + string(m[1]) + "\n",
		} {
			if !strings.Contains(out, want) {
				t.Errorf("%s: %q lacks %q", arg, out, want)
			}
		}
	}
}

// neardupOut runs the command in a child process and returns its standard
// output, exit code and standard error.
func neardupOut(t *testing.T, args ...string) (string, int, string) {
	t.Helper()
	var stdout, stderr strings.Builder
	cmd := exec.Command(os.Args[0], args...)
	cmd.Env = append(os.Environ(), "NEARDUP_TEST_MAIN=1")
	cmd.Stdout, cmd.Stderr = &stdout, &stderr
	code := exitCode(t, cmd.Run())
	return stdout.String(), code, stderr.String()
}

// beamOnly are listings of Beam flags that only 'neardup help runners'
// may show.
var beamOnly = regexp.MustCompile(`\n  --?(environment_type|autoscaling_algorithm|dataflow_kms_key|worker_harness_container_image|job_name|runner) `)

// TestHelp checks that the help of neardup and of its commands shows
// neardup's commands and flags, not Beam's, and where Beam's are.
func TestHelp(t *testing.T) {
	tests := []struct {
		args []string
		want []string
	}{
		{[]string{"-h"}, []string{"run ", "audit ", "version ", "neardup help runners"}},
		{[]string{"--help"}, []string{"run ", "audit ", "version "}},
		{[]string{"help"}, []string{"run ", "audit ", "version "}},
		{[]string{"help", "run"}, []string{"-max-doc-bytes", "-threshold", "neardup help runners"}},
		{[]string{"run", "-h"}, []string{"-max-doc-bytes", "-threshold"}},
		{[]string{"help", "audit"}, []string{"-update-index", "-threshold"}},
		{[]string{"help", "eval"}, []string{"-pairs", "-truth"}},
		{[]string{"help", "tune"}, []string{"-sample"}},
		{[]string{"help", "compare"}, []string{"-jsonl"}},
		{[]string{"help", "version"}, []string{"neardup version"}},
	}
	for _, tt := range tests {
		out, code, stderr := neardupOut(t, tt.args...)
		if code != 0 || stderr != "" {
			t.Errorf("%q: exit %d, stderr %q", tt.args, code, stderr)
		}
		for _, w := range tt.want {
			if !strings.Contains(out, w) {
				t.Errorf("%q: help lacks %q", tt.args, w)
			}
		}
		if b := beamOnly.FindString(out); b != "" {
			t.Errorf("%q: help shows Beam's flag %q", tt.args, b)
		}
	}
	out, code, _ := neardupOut(t, "help", "runners")
	if beamOnly.FindString(out) == "" {
		t.Errorf("the test's pattern finds no Beam flag in help runners:\n%s", out)
	}
	for _, w := range []string{"-runner string", "-endpoint string", "-environment_type string", "-environment_config string",
		"-job_name string", "-project string", "-region string", "-temp_location string", "-staging_location string",
		"-worker_binary string", "neardup help runners --all"} {
		if !strings.Contains(out, w) {
			t.Errorf("help runners lacks %q:\n%s", w, out)
		}
	}
	if code != 0 || strings.Contains(out, "-autoscaling_algorithm") || strings.Contains(out, "-max-doc-bytes") {
		t.Errorf("help runners: exit %d, or shows a flag it should leave to --all or to 'help run':\n%s", code, out)
	}
	all, _, _ := neardupOut(t, "help", "runners", "--all")
	if !strings.Contains(all, "-autoscaling_algorithm") || strings.Contains(all, "-test.") {
		t.Errorf("help runners --all does not list exactly Beam's flags:\n%s", all)
	}
}

// TestCommandLineMistakes checks that a mistake on the command line is one
// line on stderr, with a suggestion where one is near, and exit code 2,
// before any work.
func TestCommandLineMistakes(t *testing.T) {
	tests := []struct {
		args []string
		want string // the whole of stderr
	}{
		{[]string{"run", "--threshhold", "0.8"}, "neardup run: unknown flag --threshhold (did you mean --threshold?); see 'neardup help run'\n"},
		{[]string{"run", "--input", "x", "--max_doc_byte", "9"}, "neardup run: unknown flag --max_doc_byte (did you mean --max-doc-bytes?); see 'neardup help run'\n"},
		{[]string{"run", "--enviroment_type", "EXTERNAL"}, "neardup run: unknown flag --enviroment_type (did you mean --environment_type?); see 'neardup help run'\n"},
		{[]string{"run", "--frobnicate"}, "neardup run: unknown flag --frobnicate; see 'neardup help run'\n"},
		{[]string{"audit", "--updat-index", "x"}, "neardup audit: unknown flag --updat-index (did you mean --update-index?); see 'neardup help audit'\n"},
		{[]string{"eval", "--truht", "x"}, "neardup eval: unknown flag --truht (did you mean --truth?); see 'neardup help eval'\n"},
		{[]string{"tune", "--sampel", "3"}, "neardup tune: unknown flag --sampel (did you mean --sample?); see 'neardup help tune'\n"},
		{[]string{"compare", "a", "b", "--treshold", "0.5"}, "neardup compare: unknown flag --treshold (did you mean --threshold?); see 'neardup help compare'\n"},
		{[]string{"rnu"}, "neardup: unknown command \"rnu\" (did you mean run?); see 'neardup help'\n"},
		{[]string{"frobnicate"}, "neardup: unknown command \"frobnicate\"; see 'neardup help'\n"},
		{[]string{"help", "bogus"}, "neardup help: unknown command \"bogus\"; see 'neardup help'\n"},
		{[]string{"help", "audti"}, "neardup help: unknown command \"audti\" (did you mean audit?); see 'neardup help'\n"},
		{[]string{"version", "--json"}, "neardup version: takes no arguments (see 'neardup help version')\n"},
		{[]string{"--input", "x"}, "neardup: --input is not a command: usage: neardup <command> [flags]; see 'neardup help'\n"},
		{[]string{"run", "--threshold", "high"}, "neardup run: invalid value \"high\" for flag --threshold: parse error\n"},
		{[]string{"run", "--format", "csv"}, "neardup run: invalid value \"csv\" for flag --format: want jsonl, tsv, text or parquet\n"},
		{[]string{"run", "--method", "lsh"}, "neardup run: invalid value \"lsh\" for flag --method: want both, minhash or simhash\n"},
		{[]string{"run", "--keep", "shortest"}, "neardup run: invalid value \"shortest\" for flag --keep: want longest, first, field:NAME or field:-NAME\n"},
		{[]string{"run", "--clusters", "all"}, "neardup run: invalid value \"all\" for flag --clusters: want kept or components\n"},
		{[]string{"run", "--dict", "en"}, "neardup run: invalid value \"en\" for flag --dict: want auto, zh_s, zh_t or zh\n"},
		{[]string{"run", "--verify", "maybe"}, "neardup run: invalid value \"maybe\" for flag --verify: want auto, estimate or exact\n"},
		{[]string{"run", "--minhash", "bbit"}, "neardup run: invalid value \"bbit\" for flag --minhash: want classic or oph\n"},
		{[]string{"run", "--compress", "lz4"}, "neardup run: invalid value \"lz4\" for flag --compress: want none, gzip or zstd\n"},
		{[]string{"run", "--compress-level", "0"}, "neardup run: invalid value \"0\" for flag --compress-level: want fast, default, best, or 1 to 9 for gzip, 1 to 22 for zstd\n"},
		{[]string{"audit", "--keep", "shortest"}, "neardup audit: invalid value \"shortest\" for flag --keep: want longest, first, field:NAME or field:-NAME\n"},
	}
	for _, tt := range tests {
		out, code, stderr := neardupOut(t, tt.args...)
		if code != 2 || stderr != tt.want || out != "" {
			t.Errorf("%q: exit %d, stdout %q, stderr\n%q, want exit 2 and\n%q", tt.args, code, out, stderr, tt.want)
		}
	}
}

// TestSnakeCaseOnCommandLine gives the command snake_case spellings of
// its flags: they are taken (the run goes on to refuse --threshold, the
// last flag), not refused as unknown.
func TestSnakeCaseOnCommandLine(t *testing.T) {
	_, code, stderr := neardupOut(t, "run", "--input", "x", "--output", t.TempDir(), "--max_doc_bytes", "100", "--max-reject-ratio", "1", "--index_out", "", "--threshold", "2")
	if want := "neardup run: --threshold 2: want a number in (0, 1]\n"; code != 2 || stderr != want {
		t.Errorf("exit %d, stderr %q; want 2 and %q", code, stderr, want)
	}
}
