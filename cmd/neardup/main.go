// Command neardup finds near-duplicate documents in large text corpora and
// removes them.
//
// Usage:
//
//	neardup run --input 'GLOB[,GLOB...]' --output DIR [flags]
//
// Run 'neardup help run' for the flags. Beam's own flags (--runner,
// --endpoint, --environment_type, --job_name, ...: 'neardup help runners')
// are accepted too; the default runner is the direct runner, in process.
package main

import (
	"errors"
	"flag"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"regexp"
	"runtime/debug"
	"strings"

	"github.com/apache/beam/sdks/v2/go/pkg/beam"
)

const usage = `neardup finds near-duplicate documents in text corpora and removes them.

Usage:

	neardup <command> [flags]

Commands:

	run      find near-duplicates in input shards and write clusters, pairs,
	         the deduplicated corpus, rejects and a summary
	audit    check new shards against the signature index of an earlier run
	         (run --index-out), and write the next index
	index    compact an index's generations into one (neardup index compact)
	eval     measure a run's pairs and clusters against ground truth
	tune     measure on a sample which bands, shingle size and Hamming bound fit a threshold
	compare  print every similarity measure of two documents side by side
	version  print neardup's version, commit, and the Go and Beam versions

Run 'neardup help <command>' for a command's flags, and
'neardup help runners' for Beam's flags that choose where a job runs
(--runner, --endpoint, ...). Flags take one or two dashes, and '-' or '_'
between words alike (--max-doc-bytes, --max_doc_bytes).

Examples:

	neardup run --input 'testdata/sample/sample-*' --output out/sample
	neardup run --input 'crawl/*.jsonl.gz' --output out/crawl --threshold 0.85
	neardup run --input 'day1/*.jsonl.gz' --output out/day1 --index-out idx/day1
	neardup audit --index idx/day1 --input 'day2/*.jsonl.gz' --output out/day2 --update-index idx/day2
	neardup index compact --index idx/day2 --output idx/day2-compact
	neardup compare a.txt b.txt

Every run writes DIR/report.html: counts, time per stage, histograms of
cluster sizes and similarities, the largest clusters and sample pairs.
`

func main() {
	if len(os.Args) < 2 {
		fmt.Fprint(os.Stderr, usage)
		os.Exit(2)
	}
	cmd := os.Args[1]
	switch cmd {
	case "-h", "-help", "--help":
		cmd = "help"
	case "-version", "--version":
		cmd = "version"
	}
	if strings.HasPrefix(cmd, "-") {
		workerMain()
	}
	if cmd == "run" || cmd == "audit" {
		reexecWithMadvFree()
	}
	var err error
	switch cmd {
	case "run":
		err = runMain(os.Args[2:])
	case "audit":
		err = auditMain(os.Args[2:])
	case "index":
		err = indexMain(os.Args[2:])
	case "eval":
		err = evalMain(os.Args[2:])
	case "compare":
		err = compareMain(os.Args[2:])
	case "tune":
		err = tuneMain(os.Args[2:])
	case "version":
		if len(os.Args) > 2 {
			err = usagef("takes no arguments (see 'neardup help version')")
			break
		}
		bi, _ := debug.ReadBuildInfo()
		fmt.Print(versionText(bi))
		return
	case "help":
		err = helpMain(os.Args[2:])
	default:
		fmt.Fprintf(os.Stderr, "neardup: %s\n", unknownCommand(cmd))
		os.Exit(2)
	}
	waitIfInterrupted()
	var usage usageError
	var unknown unknownFlagError
	switch {
	case err == nil || errors.Is(err, errHelp):
	case errors.As(err, &unknown):
		fmt.Fprintf(os.Stderr, "neardup %s: %v; see 'neardup help %s'\n", cmd, err, cmd)
		os.Exit(2)
	case errors.As(err, &usage):
		fmt.Fprintf(os.Stderr, "neardup %s: %v\n", cmd, err)
		os.Exit(2)
	default:
		fmt.Fprintf(os.Stderr, "neardup %s: %s\n", cmd, oneLine(err.Error()))
		os.Exit(1)
	}
}

// workerMain runs the binary as a Beam worker: a runner that starts
// workers from it (boot) gives Beam's worker flags (--worker, --id, ...)
// and no command; beam.Init runs the worker harness and does not return.
// Flags without a command that are not a worker's are a one-line mistake.
func workerMain() {
	flag.CommandLine.Init(os.Args[0], flag.ContinueOnError)
	flag.CommandLine.SetOutput(io.Discard)
	err := flag.CommandLine.Parse(os.Args[1:])
	if w := flag.Lookup("worker"); err == nil && w != nil && w.Value.String() == "true" {
		removeBootCopy()
		beam.Init()
	}
	fmt.Fprintf(os.Stderr, "neardup: %s is not a command: usage: neardup <command> [flags]; see 'neardup help'\n", os.Args[1])
	os.Exit(2)
}

// bootCopy matches the copy of the worker binary Beam's Go boot makes and never
// removes, one a worker a job: os.MkdirTemp("/tmp/", "bin*")/worker, any TMPDIR.
var bootCopy = regexp.MustCompile(`^/tmp/bin[0-9]+/worker$`)

// removeBootCopy removes the worker's own copy made by boot, if it is one;
// Linux lets a running program unlink itself.
func removeBootCopy() {
	if exe, err := os.Executable(); err == nil && bootCopy.MatchString(exe) {
		if os.RemoveAll(filepath.Dir(exe)) == nil {
			fmt.Fprintf(os.Stderr, "neardup worker: removed boot's copy of the worker binary, %s\n", exe)
		}
	}
}

// helpMain prints the help on the topic args name: neardup's commands, a
// command's flags, or Beam's runner flags.
func helpMain(args []string) error {
	if len(args) == 0 {
		fmt.Fprint(os.Stdout, usage)
		return nil
	}
	if len(args) > 2 || len(args) == 2 && !(args[0] == "runners" && args[1] == "--all") {
		return usagef("want one topic: 'neardup help [command|runners]'")
	}
	switch args[0] {
	case "run":
		runUsage()
	case "audit":
		auditUsage()
	case "index":
		fmt.Print(indexUsage)
	case "eval":
		return evalMain([]string{"-h"})
	case "compare":
		return compareMain([]string{"-h"})
	case "tune":
		return tuneMain([]string{"-h"})
	case "runners":
		runnersUsage(os.Stdout, flag.CommandLine, len(args) == 2)
	case "version":
		fmt.Print("usage: neardup version (or neardup --version)\n\nVersion prints neardup's module version, the commit it was built from, and\nthe Go and Beam SDK versions.\n")
	case "help":
		fmt.Fprint(os.Stdout, usage)
	default:
		return usagef("%s", unknownCommand(args[0]))
	}
	return nil
}

// oneLine joins the lines of an error message.
func oneLine(s string) string {
	return strings.Join(strings.Fields(strings.ReplaceAll(s, "\n", " \n ")), " ")
}
