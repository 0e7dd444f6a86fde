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

// The house rules of the Beam layer (issue 22): a small exported surface,
// short stage files, every record format in package format/wire (or the
// index's own file format), and no Beam below this package.
const (
	maxExported  = 60
	maxFileLines = 400
)

// exported returns the exported identifiers of the package's non-test
// files: top-level names and the methods of exported types.
func exported(t *testing.T, fset *token.FileSet, files map[string]*ast.File) []string {
	t.Helper()
	var names []string
	for _, f := range files {
		for _, d := range f.Decls {
			switch d := d.(type) {
			case *ast.FuncDecl:
				if !d.Name.IsExported() {
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
	fset := token.NewFileSet()
	files := map[string]*ast.File{}
	paths, _ := filepath.Glob("*.go")
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
	if names := exported(t, fset, files); len(names) > maxExported {
		t.Errorf("package transforms exports %d identifiers, more than %d: %v", len(names), maxExported, names)
	}
	// No package below this one imports Beam: the algorithms are plain Go.
	// The Beam layer's own internal packages (internal/...) are part of
	// it, and so is beamtest, which runs the Beam tests of this package
	// and of pipeline.
	err := filepath.WalkDir(".", func(path string, d fs.DirEntry, err error) error {
		if err == nil && d.IsDir() && (path == "internal" || path == "beamtest") {
			return filepath.SkipDir
		}
		if err != nil || d.IsDir() || !strings.HasSuffix(path, ".go") || filepath.Dir(path) == "." {
			return err
		}
		f, err := parser.ParseFile(fset, path, nil, parser.ImportsOnly)
		if err != nil {
			return err
		}
		for _, imp := range f.Imports {
			if strings.Contains(imp.Path.Value, "github.com/apache/beam") {
				t.Errorf("%s imports %s: only package transforms wraps the algorithms in Beam", path, imp.Path.Value)
			}
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
}
