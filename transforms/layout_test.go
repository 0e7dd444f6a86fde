package transforms

import (
	"go/ast"
	"go/parser"
	"go/token"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// The house rules of the Beam layer (issue 22): small exported surfaces,
// short stage files, every record format in package format/wire (or the
// index's own file format), and no Beam in the algorithm packages. The
// direction of the imports between the stage packages is checked by
// scripts/shape.
const (
	maxExported  = 40
	maxFileLines = 400
)

// sharedExported is the exported surface of jobfiles, which every stage
// imports for the work files they pass each other: the input list, the
// work directory's shards, spool copies and pre-shards (the types its functions return are exported, with their
// methods).
const sharedExported = 35

// stagePackages are the Beam layer's packages (see the package doc).
var stagePackages = []string{"job", "jobstate", "jobfiles", "jobfiles/filelist", "jobfiles/docshards", "jobfiles/input", "jobfiles/spool", "jobfiles/spilled", "ingest", "exact", "sign", "near", "cluster", "write", "indexing", "audit"}

// algorithmPackages are the Beam-free packages under this one.
var algorithmPackages = []string{"text", "sketch", "match", "graph", "format", "eval", "objects", "mix", "choice"}

// standardMethods are the methods of the standard library's interfaces
// (fmt.Stringer, encoding.TextMarshaler and TextUnmarshaler, error): they
// let a type be printed and parsed, and add nothing to learn.
var standardMethods = map[string]bool{"String": true, "MarshalText": true, "UnmarshalText": true, "Error": true}

// exported returns the exported identifiers of the package's non-test
// files: top-level names and the methods of exported types.
func exported(t *testing.T, fset *token.FileSet, files map[string]*ast.File) []string {
	t.Helper()
	var names []string
	for _, f := range files {
		for _, d := range f.Decls {
			switch d := d.(type) {
			case *ast.FuncDecl:
				if !d.Name.IsExported() || d.Recv != nil && standardMethods[d.Name.Name] {
					continue
				}
				if d.Recv == nil {
					names = append(names, d.Name.Name)
					continue
				}
				typ := d.Recv.List[0].Type
				if star, ok := typ.(*ast.StarExpr); ok {
					typ = star.X
				}
				if id, ok := typ.(*ast.Ident); ok && id.IsExported() {
					names = append(names, id.Name+"."+d.Name.Name)
				}
			case *ast.GenDecl:
				for _, s := range d.Specs {
					switch s := s.(type) {
					case *ast.TypeSpec:
						if s.Name.IsExported() {
							names = append(names, s.Name.Name)
						}
					case *ast.ValueSpec:
						for _, n := range s.Names {
							if n.IsExported() {
								names = append(names, n.Name)
							}
						}
					}
				}
			}
		}
	}
	return names
}

func TestLayout(t *testing.T) {
	for _, pkg := range stagePackages {
		checkStagePackage(t, pkg)
	}
	// The algorithms are plain Go: no package of theirs imports Beam.
	fset := token.NewFileSet()
	for _, dir := range algorithmPackages {
		err := filepath.WalkDir(dir, func(path string, d fs.DirEntry, err error) error {
			if err != nil || d.IsDir() || !strings.HasSuffix(path, ".go") {
				return err
			}
			f, err := parser.ParseFile(fset, path, nil, parser.ImportsOnly)
			if err != nil {
				return err
			}
			for _, imp := range f.Imports {
				if strings.Contains(imp.Path.Value, "github.com/apache/beam") {
					t.Errorf("%s imports %s: only the stage packages wrap the algorithms in Beam", path, imp.Path.Value)
				}
			}
			return nil
		})
		if err != nil {
			t.Fatal(err)
		}
	}
}

// checkStagePackage checks the non-test files of the stage package in dir.
func checkStagePackage(t *testing.T, dir string) {
	fset := token.NewFileSet()
	files := map[string]*ast.File{}
	paths, _ := filepath.Glob(filepath.Join(dir, "*.go"))
	if len(paths) == 0 {
		t.Errorf("stage package %s has no files", dir)
	}
	for _, p := range paths {
		if strings.HasSuffix(p, "_test.go") {
			continue
		}
		src, err := os.ReadFile(p)
		if err != nil {
			t.Fatal(err)
		}
		if n := strings.Count(string(src), "\n"); n > maxFileLines {
			t.Errorf("%s has %d lines, more than %d", p, n, maxFileLines)
		}
		for _, coding := range []string{"binary.AppendUvarint", "binary.Uvarint", "binary.ReadUvarint", "binary.AppendVarint", "binary.Varint"} {
			if strings.Contains(string(src), coding) {
				t.Errorf("%s uses %s: record formats belong in package format/wire", p, coding)
			}
		}
		if files[p], err = parser.ParseFile(fset, p, src, 0); err != nil {
			t.Fatal(err)
		}
	}
	names := exported(t, fset, files)
	t.Logf("package %s exports %d identifiers", dir, len(names))
	limit := maxExported
	if dir == "jobfiles" {
		limit = sharedExported
	}
	if len(names) > limit {
		t.Errorf("package %s exports %d identifiers, more than %d: %v", dir, len(names), limit, names)
	}
}
