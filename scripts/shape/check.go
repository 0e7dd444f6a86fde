package main

import (
	"fmt"
	"go/ast"
	"go/parser"
	"go/token"
	"io/fs"
	"path/filepath"
	"regexp"
	"slices"
	"sort"
	"strings"
)

// The limits of the house rules.
const (
	MaxFuncLines    = 80
	MaxMethodLines  = 40 // ProcessElement and the other DoFn methods
	MaxCommandLines = 3000
	commandDir      = "cmd/neardup"
)

// dofnMethods are the methods Beam calls on a DoFn that must stay short.
var dofnMethods = map[string]bool{"ProcessElement": true, "Setup": true, "StartBundle": true, "FinishBundle": true}

// commitHash matches a 7 to 40 digit hexadecimal word with a digit and a
// letter, as a commit is quoted.
var commitHash = regexp.MustCompile(`\b[0-9a-f]{7,40}\b`)

// Check walks the Go files under root (tests, testdata and hidden folders
// left out) and returns one line for each place that breaks a rule,
// sorted.
func Check(root string) ([]string, error) {
	fset := token.NewFileSet()
	var problems []string
	commandLines := 0
	dofns := map[string]bool{}            // "dir.Type" with a ProcessElement
	configFields := map[string][]string{} // "dir.Type" -> positions of fields of type job.Config
	refs := newReferences()
	err := filepath.WalkDir(root, func(path string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		name := d.Name()
		if d.IsDir() {
			if path != root && (strings.HasPrefix(name, ".") || name == "testdata") {
				return filepath.SkipDir
			}
			return nil
		}
		if !strings.HasSuffix(name, ".go") {
			return nil
		}
		rel, _ := filepath.Rel(root, path)
		refs.addFile(filepath.ToSlash(rel))
		if strings.HasSuffix(name, "_test.go") {
			return nil
		}
		f, err := parser.ParseFile(fset, path, nil, parser.ParseComments)
		if err != nil {
			return err
		}
		refs.add(fset, f, rel)
		dir := filepath.ToSlash(filepath.Dir(rel))
		if dir == commandDir {
			commandLines += fset.File(f.Pos()).LineCount()
		}
		problems = append(problems, checkImports(fset, f, filepath.ToSlash(rel))...)
		problems = append(problems, checkConfigParams(fset, f, filepath.ToSlash(rel))...)
		if !testSupport(rel) {
			problems = append(problems, checkFile(fset, f, rel)...)
		}
		collectDoFns(fset, f, dir, filepath.Base(dir), dofns, configFields)
		return nil
	})
	if err != nil {
		return nil, err
	}
	if commandLines > MaxCommandLines {
		problems = append(problems, fmt.Sprintf("%s: package main has %d lines, more than %d", commandDir, commandLines, MaxCommandLines))
	}
	for typ, pos := range configFields {
		if dofns[typ] {
			for _, p := range pos {
				problems = append(problems, fmt.Sprintf("%s: DoFn %s carries the whole job Config", p, typ))
			}
		}
	}
	problems = append(problems, refs.check()...)
	docs, err := checkDocs(root, refs)
	if err != nil {
		return nil, err
	}
	problems = append(problems, docs...)
	sort.Strings(problems)
	return problems, nil
}

// testSupport reports whether the file at rel is in a package of test
// helpers (one whose name ends in "test", as objectstest and stagetest):
// the length rules are for the product's code.
func testSupport(rel string) bool {
	return strings.HasSuffix(filepath.Base(filepath.Dir(rel)), "test")
}

// checkFile returns the long functions and the comments quoting a commit
// in f.
func checkFile(fset *token.FileSet, f *ast.File, rel string) []string {
	var problems []string
	for _, decl := range f.Decls {
		fn, ok := decl.(*ast.FuncDecl)
		if !ok || fn.Body == nil {
			continue
		}
		lines := fset.Position(fn.End()).Line - fset.Position(fn.Pos()).Line + 1
		limit := MaxFuncLines
		if fn.Recv != nil && dofnMethods[fn.Name.Name] {
			limit = MaxMethodLines
		}
		if lines > limit && !(limit == MaxFuncLines && handWrittenDecoder(fn)) {
			problems = append(problems, fmt.Sprintf("%s:%d: %s has %d lines, more than %d",
				rel, fset.Position(fn.Pos()).Line, funcName(fn), lines, limit))
		}
	}
	for _, g := range f.Comments {
		for _, c := range g.List {
			for _, m := range commitHash.FindAllString(c.Text, -1) {
				if strings.ContainsAny(m, "0123456789") && strings.ContainsAny(m, "abcdef") {
					problems = append(problems, fmt.Sprintf("%s:%d: comment quotes %q, like a commit", rel, fset.Position(c.Pos()).Line, m))
				}
			}
		}
	}
	return problems
}

// handWrittenDecoder reports whether fn's doc comment says it is one.
func handWrittenDecoder(fn *ast.FuncDecl) bool {
	return fn.Doc != nil && strings.Contains(fn.Doc.Text(), "hand-written decoder")
}

func funcName(fn *ast.FuncDecl) string {
	if fn.Recv == nil {
		return fn.Name.Name
	}
	t := fn.Recv.List[0].Type
	if s, ok := t.(*ast.StarExpr); ok {
		t = s.X
	}
	if ix, ok := t.(*ast.IndexExpr); ok {
		t = ix.X
	}
	if id, ok := t.(*ast.Ident); ok {
		return id.Name + "." + fn.Name.Name
	}
	return fn.Name.Name
}

// collectDoFns records the types of f with a ProcessElement method, and
// the struct fields of f whose type is the job Config of package
// transforms (Config inside it, job.Config outside).
func collectDoFns(fset *token.FileSet, f *ast.File, dir, pkg string, dofns map[string]bool, configFields map[string][]string) {
	for _, decl := range f.Decls {
		switch d := decl.(type) {
		case *ast.FuncDecl:
			if d.Recv != nil && d.Name.Name == "ProcessElement" {
				typ, _, _ := strings.Cut(funcName(d), ".")
				dofns[dir+"."+typ] = true
			}
		case *ast.GenDecl:
			for _, spec := range d.Specs {
				ts, ok := spec.(*ast.TypeSpec)
				if !ok {
					continue
				}
				st, ok := ts.Type.(*ast.StructType)
				if !ok {
					continue
				}
				for _, field := range st.Fields.List {
					if isJobConfig(field.Type, pkg) {
						p := fset.Position(field.Pos())
						configFields[dir+"."+ts.Name.Name] = append(configFields[dir+"."+ts.Name.Name], fmt.Sprintf("%s:%d", filepath.ToSlash(p.Filename), p.Line))
					}
				}
			}
		}
	}
}

// checkConfigParams returns the functions of a stage package after job
// (see stageOrder) that take the whole job Config: only OptionsFor does,
// and every other function takes the stage's Options or narrower values.
func checkConfigParams(fset *token.FileSet, f *ast.File, rel string) []string {
	i, ok := stageOf(filepath.Dir(rel))
	if !ok || i <= slices.Index(stageOrder, "job") {
		return nil
	}
	var problems []string
	for _, decl := range f.Decls {
		fn, ok := decl.(*ast.FuncDecl)
		if !ok || fn.Name.Name == "OptionsFor" {
			continue
		}
		for _, field := range fn.Type.Params.List {
			if isJobConfig(field.Type, "") {
				problems = append(problems, fmt.Sprintf("%s:%d: %s takes the whole job Config; give it the stage's Options",
					rel, fset.Position(fn.Pos()).Line, funcName(fn)))
			}
		}
	}
	return problems
}

func isJobConfig(t ast.Expr, pkg string) bool {
	if s, ok := t.(*ast.StarExpr); ok {
		t = s.X
	}
	switch t := t.(type) {
	case *ast.Ident:
		return pkg == "job" && t.Name == "Config"
	case *ast.SelectorExpr:
		id, ok := t.X.(*ast.Ident)
		return ok && id.Name == "job" && t.Sel.Name == "Config"
	}
	return false
}
