package main

import (
	"errors"
	"flag"
	"fmt"
	"io"
	"regexp"
	"runtime"
	"runtime/debug"
	"slices"
	"strings"
)

// The command line's habits, shared by every command: flags spelled with
// - or _ between words, one line for a mistake with a "did you mean", the
// version, and the help on Beam's runner flags.

// commands are neardup's commands, as 'neardup help' lists them.
var commands = []string{"run", "audit", "eval", "tune", "compare", "version", "help"}

// normalizeFlags returns args with each flag fs does not know under the
// name given, but knows with '-' and '_' swapped between words, renamed to
// the name fs knows: --max_doc_bytes is --max-doc-bytes, and --job-name is
// Beam's --job_name. It reads args as package flag does: it stops at the
// first argument that is not a flag, or after "--", and skips a value
// given as the next argument.
func normalizeFlags(fs *flag.FlagSet, args []string) []string {
	out := slices.Clone(args)
	for i := 0; i < len(out); i++ {
		a := out[i]
		if len(a) < 2 || a[0] != '-' || a == "--" {
			break
		}
		dashes := 1
		if a[1] == '-' {
			dashes = 2
		}
		name, value, hasValue := strings.Cut(a[dashes:], "=")
		f := fs.Lookup(name)
		if f == nil {
			if alt := otherSpelling(fs, name); alt != "" {
				f = fs.Lookup(alt)
				out[i] = a[:dashes] + alt
				if hasValue {
					out[i] += "=" + value
				}
			}
		}
		if f != nil && !hasValue && !isBoolFlag(f) {
			i++ // the next argument is the value
		}
	}
	return out
}

// otherSpelling is the name of the flag of fs that name is with '-' and '_' swapped, or "".
func otherSpelling(fs *flag.FlagSet, name string) string {
	for _, alt := range []string{strings.ReplaceAll(name, "_", "-"), strings.ReplaceAll(name, "-", "_")} {
		if alt != name && fs.Lookup(alt) != nil {
			return alt
		}
	}
	return ""
}

func isBoolFlag(f *flag.Flag) bool {
	b, ok := f.Value.(interface{ IsBoolFlag() bool })
	return ok && b.IsBoolFlag()
}

// An unknownFlagError is a flag the command does not have; main adds where
// the command's flags are listed.
type unknownFlagError struct {
	name, suggestion string
}

func (e unknownFlagError) Error() string {
	if e.suggestion != "" {
		return fmt.Sprintf("unknown flag --%s (did you mean --%s?)", e.name, e.suggestion)
	}
	return "unknown flag --" + e.name
}

// flagError turns an error of fs.Parse into one line naming the flag with
// two dashes, as the help writes them: an unknown flag becomes an
// unknownFlagError with the nearest flag fs has.
func flagError(fs *flag.FlagSet, err error) error {
	msg := err.Error()
	if name, ok := strings.CutPrefix(msg, "flag provided but not defined: -"); ok {
		var names []string
		fs.VisitAll(func(f *flag.Flag) {
			if !strings.HasPrefix(f.Name, "test.") { // the test binary's
				names = append(names, f.Name)
			}
		})
		return usageError{unknownFlagError{name, didYouMean(name, names)}}
	}
	return usageError{errors.New(singleDash.ReplaceAllString(msg, "$1--$2"))}
}

// singleDash matches a flag named with one dash in package flag's errors.
var singleDash = regexp.MustCompile(`(^|\s)-(\w)`)

// didYouMean returns the one of names nearest to name (spelled with '-' or
// '_' alike), if it is near enough to be a likely slip: at most two edits,
// fewer for short names, or name is the start of only it. It returns ""
// otherwise.
func didYouMean(name string, names []string) string {
	key := func(s string) string { return strings.ReplaceAll(strings.ToLower(s), "_", "-") }
	k := key(name)
	best, bestD, ties := "", 1<<30, 0
	var prefixed []string
	for _, n := range names {
		d := editDistance(k, key(n))
		switch {
		case d < bestD:
			best, bestD, ties = n, d, 0
		case d == bestD:
			ties++
		}
		if len(k) >= 3 && strings.HasPrefix(key(n), k) {
			prefixed = append(prefixed, n)
		}
	}
	if limit := min(2, max(1, len(k)/4)); bestD <= limit && ties == 0 {
		return best
	}
	if len(prefixed) == 1 {
		return prefixed[0]
	}
	return ""
}

// editDistance is the optimal string alignment distance of a and b, in
// bytes: insertions, deletions, substitutions and transpositions of two
// neighbours ("rnu" is one edit from "run").
func editDistance(a, b string) int {
	rows := [3][]int{make([]int, len(b)+1), make([]int, len(b)+1), make([]int, len(b)+1)}
	for j := range rows[1] {
		rows[1][j] = j
	}
	for i := 1; i <= len(a); i++ {
		before, prev, cur := rows[0], rows[1], rows[2]
		cur[0] = i
		for j := 1; j <= len(b); j++ {
			sub := prev[j-1]
			if a[i-1] != b[j-1] {
				sub++
			}
			cur[j] = min(sub, prev[j]+1, cur[j-1]+1)
			if i > 1 && j > 1 && a[i-1] == b[j-2] && a[i-2] == b[j-1] {
				cur[j] = min(cur[j], before[j-2]+1)
			}
		}
		rows = [3][]int{prev, cur, before}
	}
	return rows[1][len(b)]
}

// unknownCommand is the one line for a command neardup does not have.
func unknownCommand(name string) string {
	msg := fmt.Sprintf("unknown command %q", name)
	if s := didYouMean(name, commands); s != "" {
		msg += fmt.Sprintf(" (did you mean %s?)", s)
	}
	return msg + "; see 'neardup help'"
}

// beamModule is the module path of the Apache Beam Go SDK.
const beamModule = "github.com/apache/beam/sdks/v2"

// versionText is what 'neardup version' prints, from the binary's build
// information (nil if it has none): the module version, the commit it was
// built from, that commit's time and whether the tree had changes, the Go
// version and the Beam SDK's version.
func versionText(bi *debug.BuildInfo) string {
	var b strings.Builder
	version, goVersion, beamVersion := "unknown", runtime.Version(), "unknown"
	settings := map[string]string{}
	if bi != nil {
		version = bi.Main.Version
		goVersion = bi.GoVersion
		for _, s := range bi.Settings {
			settings[s.Key] = s.Value
		}
		for _, d := range bi.Deps {
			if d.Path == beamModule {
				if d.Replace != nil {
					d = d.Replace
				}
				beamVersion = d.Version
			}
		}
	}
	if version == "" {
		version = "(devel)"
	}
	fmt.Fprintf(&b, "neardup %s\n", version)
	if rev := settings["vcs.revision"]; rev != "" {
		if settings["vcs.modified"] == "true" {
			rev += " (modified)"
		}
		fmt.Fprintf(&b, "commit  %s\n", rev)
	}
	if t := settings["vcs.time"]; t != "" {
		fmt.Fprintf(&b, "date    %s\n", t)
	}
	if goos, goarch := settings["GOOS"], settings["GOARCH"]; goos != "" && goarch != "" {
		goVersion += " " + goos + "/" + goarch
	}
	fmt.Fprintf(&b, "go      %s\n", goVersion)
	fmt.Fprintf(&b, "beam    %s\n", beamVersion)
	return b.String()
}

// runnerFlags are the Beam flags 'neardup help runners' shows, by what
// they are about; Beam has many more (see runnersUsage).
var runnerFlags = []struct {
	title string
	names []string
}{
	{"Where the job runs", []string{"runner", "endpoint", "job_name", "environment_type", "environment_config", "worker_binary", "parallelism", "async"}},
	{"Google Cloud Dataflow", []string{"project", "region", "temp_location", "staging_location", "num_workers", "max_num_workers", "worker_machine_type", "service_account_email", "network", "subnetwork", "labels", "experiments"}},
}

// runnersUsage prints the help on Beam's runner flags, from fs (Beam's
// flags are registered on flag.CommandLine); with all, every Beam flag.
func runnersUsage(w io.Writer, fs *flag.FlagSet, all bool) {
	fmt.Fprint(w, `Beam's flags choose where and how the job runs. They go on the command line
of 'neardup run' and 'neardup audit' beside neardup's own, as Beam spells them
(snake_case; --job-name works too):

	neardup run --input 'gs://b/in/*.jsonl.gz' --output gs://b/out \
	    --runner dataflow --project P --region europe-west1 \
	    --temp_location gs://b/tmp --staging_location gs://b/staging
	neardup run --input ... --output ... --runner universal \
	    --endpoint localhost:8099 --environment_type EXTERNAL \
	    --environment_config localhost:50000

The default runner is Beam's direct runner, in this process (--runner prism: Prism). scripts/run-flink.sh,
scripts/run-dataflow.sh and scripts/run-prism-cluster.sh show whole
set-ups; docs/CLUSTER.md says more.
`)
	shown := map[string]bool{}
	var groups []struct {
		title string
		names []string
	}
	for _, g := range runnerFlags {
		groups = append(groups, g)
		for _, n := range g.names {
			shown[n] = true
		}
	}
	var rest []string
	fs.VisitAll(func(f *flag.Flag) {
		if !shown[f.Name] && !strings.HasPrefix(f.Name, "test.") {
			rest = append(rest, f.Name)
		}
	})
	if all {
		groups = append(groups, struct {
			title string
			names []string
		}{"Other Beam flags", rest})
	}
	only := flag.NewFlagSet("runners", flag.ContinueOnError)
	for _, g := range groups {
		for _, n := range g.names {
			if f := fs.Lookup(n); f != nil {
				only.Var(f.Value, f.Name, f.Usage)
			}
		}
	}
	printGrouped(w, only, groups)
	if !all {
		fmt.Fprintf(w, "\nBeam has %d more flags (machine shapes, disks, networks, worker harness\ninternals): 'neardup help runners --all' lists them all.\n", len(rest))
	}
}
