package main

import (
	"fmt"
	"go/ast"
	"go/token"
	"path"
	"slices"
	"strconv"
	"strings"
)

// modulePath is the project's module: imports under it are checked.
const modulePath = "github.com/neardup/neardup"

// stageOrder is the Beam layer's packages under transforms/, in the order
// the data passes them (see transforms/doc.go): a stage package imports
// only the stage packages before it.
var stageOrder = []string{"jobstate", "jobfiles", "job", "ingest", "exact", "sign", "near", "cluster", "write", "indexing", "audit"}

// algorithmRoots are the Beam-free packages under transforms/: they import
// no stage package.
var algorithmRoots = []string{"text", "sketch", "match", "graph", "format", "eval", "objects", "mix", "choice"}

// checkImports returns the imports of f (at rel, a path from the root)
// that run against the data: a stage package importing a later stage, an
// algorithm package importing a stage, or anything under transforms/
// importing pipeline/ or cmd/, or pipeline/ importing cmd/.
func checkImports(fset *token.FileSet, f *ast.File, rel string) []string {
	dir := path.Dir(rel)
	var problems []string
	for _, imp := range f.Imports {
		p, err := strconv.Unquote(imp.Path.Value)
		if err != nil {
			continue
		}
		to, ok := strings.CutPrefix(p, modulePath+"/")
		if !ok {
			continue
		}
		if why := wrongWay(dir, to); why != "" {
			problems = append(problems, fmt.Sprintf("%s:%d: imports %s: %s", rel, fset.Position(imp.Pos()).Line, to, why))
		}
	}
	return problems
}

// wrongWay says why package dir may not import package to, or "".
func wrongWay(dir, to string) string {
	under := func(p, root string) bool { return p == root || strings.HasPrefix(p, root+"/") }
	switch {
	case under(dir, "transforms") && (under(to, "pipeline") || under(to, "cmd")):
		return "the Beam layer and the algorithms import neither pipeline nor cmd"
	case under(dir, "pipeline") && under(to, "cmd"):
		return "pipeline does not import cmd"
	}
	from, fromStage := stageOf(dir)
	target, toStage := stageOf(to)
	switch {
	case fromStage && toStage && target > from:
		return fmt.Sprintf("stage %s comes before %s", stageOrder[from], stageOrder[target])
	case toStage && isAlgorithm(dir):
		return "an algorithm package imports no stage package"
	}
	return ""
}

// stageOf returns the index in stageOrder of the stage package that p is
// (or is under).
func stageOf(p string) (int, bool) {
	rest, ok := strings.CutPrefix(p, "transforms/")
	if !ok {
		return 0, false
	}
	first, _, _ := strings.Cut(rest, "/")
	i := slices.Index(stageOrder, first)
	return i, i >= 0
}

// isAlgorithm reports whether p is one of the Beam-free packages.
func isAlgorithm(p string) bool {
	rest, ok := strings.CutPrefix(p, "transforms/")
	first, _, _ := strings.Cut(rest, "/")
	return ok && slices.Contains(algorithmRoots, first)
}
