// Command neardup finds near-duplicate documents in large text corpora and
// removes them.
//
// Usage:
//
//	neardup run --input 'GLOB[,GLOB...]' --output DIR [flags]
//
// Run 'neardup help run' for the flags. Beam's own flags (--runner,
// --endpoint, --environment_type, --job_name, ...) are accepted too; the
// default runner is Prism, in process.
package main

import (
	"errors"
	"flag"
	"fmt"
	"os"
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
	eval     measure a run's pairs and clusters against ground truth
	tune     measure on a sample which bands, shingle size and Hamming bound fit a threshold
	compare  print every similarity measure of two documents side by side

Run 'neardup help <command>' for a command's flags.

Examples:

	neardup run --input 'testdata/sample/sample-*' --output out/sample
	neardup run --input 'crawl/*.jsonl.gz' --output out/crawl --threshold 0.85
	neardup run --input 'day1/*.jsonl.gz' --output out/day1 --index-out idx/day1
	neardup audit --index idx/day1 --input 'day2/*.jsonl.gz' --output out/day2 --update-index idx/day2
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
	if strings.HasPrefix(cmd, "-") {
		// A worker started by a runner: the binary re-executes itself with
		// Beam's worker flags (--worker, --id, ...) and no subcommand;
		// beam.Init runs the worker harness and does not return.
		flag.Parse()
		beam.Init()
		fmt.Fprint(os.Stderr, usage)
		os.Exit(2)
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
	case "eval":
		err = evalMain(os.Args[2:])
	case "compare":
		err = compareMain(os.Args[2:])
	case "tune":
		err = tuneMain(os.Args[2:])
	case "help", "-h", "--help":
		if len(os.Args) > 2 {
			switch os.Args[2] {
			case "run":
				runUsage()
				return
			case "audit":
				auditUsage()
				return
			case "eval":
				_ = evalMain([]string{"-h"})
				return
			case "compare":
				_ = compareMain([]string{"-h"})
				return
			case "tune":
				_ = tuneMain([]string{"-h"})
				return
			}
		}
		fmt.Fprint(os.Stdout, usage)
		return
	default:
		fmt.Fprintf(os.Stderr, "neardup: unknown command %q\n\n%s", cmd, usage)
		os.Exit(2)
	}
	waitIfInterrupted()
	var usage usageError
	switch {
	case err == nil || errors.Is(err, errHelp):
	case errors.As(err, &usage):
		fmt.Fprintf(os.Stderr, "neardup %s: %v\n", cmd, err)
		os.Exit(2)
	default:
		fmt.Fprintf(os.Stderr, "neardup %s: %s\n", cmd, oneLine(err.Error()))
		os.Exit(1)
	}
}

// oneLine joins the lines of an error message.
func oneLine(s string) string {
	return strings.Join(strings.Fields(strings.ReplaceAll(s, "\n", " \n ")), " ")
}
