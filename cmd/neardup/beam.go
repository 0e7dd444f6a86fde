package main

import (
	"flag"
	"log/slog"
	"strings"

	"github.com/apache/beam/sdks/v2/go/pkg/beam"
	_ "github.com/apache/beam/sdks/v2/go/pkg/beam/io/filesystem/gcs"
	_ "github.com/apache/beam/sdks/v2/go/pkg/beam/io/filesystem/local"
	_ "github.com/apache/beam/sdks/v2/go/pkg/beam/io/filesystem/s3"
	"github.com/apache/beam/sdks/v2/go/pkg/beam/log"

	"github.com/neardup/neardup/cmd/neardup/internal/quietlog"
)

// Beam's side of the command: its initialization and log, the runner, and
// the directories named on any of its filesystems (package inputs lists
// the inputs).

// initBeam initializes Beam. Unless verbose, the runner's log shows only
// warnings (not the GCS filesystem's about missing credentials), and not
// the errors of a failed job either: they repeat the failed bundle's plan,
// and the command prints the error itself, on one line (rootCause).
func initBeam(verbose bool) {
	if !verbose {
		log.LogLevel = "warn"
	}
	beam.Init()
	if !verbose {
		slog.SetDefault(slog.New(quietlog.Handler{Handler: slog.Default().Handler()}))
	}
}

// runnerName is the value of Beam's --runner flag, "direct" if unset (see
// setDefaultRunner).
func runnerName() string {
	if r := flag.Lookup("runner"); r != nil && r.Value.String() != "" {
		return r.Value.String()
	}
	return "direct"
}

// setDefaultRunner sets --runner to direct when the user gave none: on one
// machine the job runs on Beam's direct runner, in this process. Prism, the
// SDK's own default, keeps every shuffled byte of the job in memory; the
// direct runner only what a stage holds, and it is the faster
// (docs/BENCHMARKS.md). The outputs are byte for byte the same; --runner
// prism still picks Prism.
func setDefaultRunner() {
	if r := flag.Lookup("runner"); r != nil && r.Value.String() == "" {
		_ = r.Value.Set("direct")
	}
}

// localRunner reports whether the job runs in this process: the direct
// runner (the default) or Prism.
func localRunner() bool {
	r := runnerName()
	return r == "prism" || r == "direct"
}

// localDir is dir if it is a local directory, else "".
func localDir(dir string) string {
	if strings.Contains(dir, "://") {
		return ""
	}
	return dir
}
