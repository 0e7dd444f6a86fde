// Command shape checks the house rules of the project's non-test Go code
// and prints every place that breaks one, one line each:
//
//   - no function longer than 80 lines, unless its doc comment says
//     "hand-written decoder" (and why);
//
//   - no ProcessElement, Setup, StartBundle or FinishBundle longer than 40 lines;
//
//   - no DoFn (a struct with a ProcessElement method) with a field of the
//     whole job configuration (Config of package transforms/job);
//
//   - imports that follow the data: a stage package of transforms/ imports
//     only the stages before it, the algorithm packages import no stage,
//     and nothing under transforms/ imports pipeline/ or cmd/;
//
//   - package main of cmd/neardup at most 3,000 lines;
//
//   - no comment quoting a commit hash;
//
//   - comments name what exists: a .go file of their own package (another
//     package's code by package, pkg.Name) and a project package's pkg.Name,
//     pkg.Type.Method or pkg.Type.Field; README.md and docs/*.md likewise
//     name only .go files and project pkg.Names that exist.
//
//     go run ./scripts/shape [-root DIR]
//
// It exits 1 if anything breaks a rule.
package main

import (
	"flag"
	"fmt"
	"os"
)

func main() {
	root := flag.String("root", ".", "the repository's root")
	flag.Parse()
	problems, err := Check(*root)
	if err != nil {
		fmt.Fprintln(os.Stderr, "shape:", err)
		os.Exit(2)
	}
	for _, p := range problems {
		fmt.Println(p)
	}
	if len(problems) > 0 {
		os.Exit(1)
	}
}
