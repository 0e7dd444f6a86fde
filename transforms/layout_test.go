package transforms

import (
	"fmt"
	"go/ast"
	"go/parser"
	"go/token"
	"io/fs"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
)

// The house rules of the Beam layer (issue 22): small exported surfaces
// whose functions return only types their callers can name, short stage
// files, every record format in package format/wire (or the
// index's own file format), and no Beam in the algorithm packages. The
// direction of the imports between the stage packages is checked by
// scripts/shape.
const (
	maxExported  = 40
	maxFileLines = 400
)

// stagePackages are the Beam layer's packages (see the package doc).
var stagePackages = []string{"job", "jobstate", "jobfiles", "jobfiles/filelist", "jobfiles/input", "jobfiles/spool", "jobfiles/docshards", "jobfiles/recshards", "jobfiles/spilled", "ingest", "exact", "sign", "near", "cluster", "write", "indexing", "audit"}

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
	if len(names) > maxExported {
		t.Errorf("package %s exports %d identifiers, more than %d: %v", dir, len(names), maxExported, names)
	}
	for _, bad := range unexportedResults(files) {
		t.Errorf("package %s: %s, a type its callers cannot name", dir, bad)
	}
}

// unexportedResults returns the exported functions, and methods of
// exported types, of the package's files whose results name a type that
// the package does not export, as "Name returns type".
func unexportedResults(files map[string]*ast.File) []string {
	unexported := map[string]bool{}
	for _, f := range files {
		for _, d := range f.Decls {
			if g, ok := d.(*ast.GenDecl); ok {
				for _, s := range g.Specs {
					if ts, ok := s.(*ast.TypeSpec); ok && !ts.Name.IsExported() {
						unexported[ts.Name.Name] = true
					}
				}
			}
		}
	}
	var bad []string
	for _, f := range files {
		for _, d := range f.Decls {
			fd, ok := d.(*ast.FuncDecl)
			if !ok || !fd.Name.IsExported() || fd.Type.Results == nil || fd.Recv != nil && !exportedRecv(fd.Recv) {
				continue
			}
			ast.Inspect(fd.Type.Results, func(n ast.Node) bool {
				switch n := n.(type) {
				case *ast.SelectorExpr:
					return false // another package's type
				case *ast.Ident:
					if unexported[n.Name] {
						bad = append(bad, fmt.Sprintf("%s returns %s", fd.Name.Name, n.Name))
					}
				}
				return true
			})
		}
	}
	slices.Sort(bad)
	return bad
}

// exportedRecv reports whether the receiver's type is exported.
func exportedRecv(recv *ast.FieldList) bool {
	typ := recv.List[0].Type
	if star, ok := typ.(*ast.StarExpr); ok {
		typ = star.X
	}
	id, ok := typ.(*ast.Ident)
	return ok && id.IsExported()
}

func TestUnexportedResults(t *testing.T) {
	for _, tt := range []struct {
		src  string
		want []string
	}{
		{"type w struct{}; type W struct{}; func New() *w { return nil }", []string{"New returns w"}},
		{"type w struct{}; type W struct{}; func (W) Get() (int, []w, error) { return 0, nil, nil }", []string{"Get returns w"}},
		{"type w struct{}; func (w) Get() w { return w{} }; func new() w { return w{} }", nil},
		{"type W struct{}; func New() (*W, io.Reader) { return nil, nil }", nil},
	} {
		f, err := parser.ParseFile(token.NewFileSet(), "x.go", "package x\n"+tt.src, 0)
		if err != nil {
			t.Fatal(err)
		}
		if got := unexportedResults(map[string]*ast.File{"x.go": f}); !slices.Equal(got, tt.want) {
			t.Errorf("%s: unexportedResults = %q, want %q", tt.src, got, tt.want)
		}
	}
}
