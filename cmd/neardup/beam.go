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
	"github.com/neardup/neardup/pipeline/plan"
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

// runnerEngine returns the engine Beam's --runner names, setting the flag
// to direct when the user gave none: on one machine the job runs on Beam's
// direct runner, in this process, which holds what a stage holds (Prism, the
// SDK's default, every shuffled byte) and is the faster (docs/BENCHMARKS.md);
// --runner prism still picks Prism, for byte-identical outputs.
func runnerEngine() (plan.Engine, error) {
	r := flag.Lookup("runner")
	if r == nil {
		return plan.Direct, nil
	}
	if r.Value.String() == "" {
		_ = r.Value.Set("direct")
	}
	return plan.ParseEngine(r.Value.String())
}

// localDir is dir if it is a local directory, else "".
func localDir(dir string) string {
	if strings.Contains(dir, "://") {
		return ""
	}
	return dir
}
