package main

import (
	"fmt"
	"go/ast"
	"go/token"
	"path"
	"path/filepath"
	"regexp"
	"strings"
)

// references collects the project's .go file names, its packages'
// identifiers and the comments that name them.
type references struct {
	files  map[string]bool            // base names of every .go file
	dirs   map[string]map[string]bool // base name of a .go file → the directories holding one
	paths  map[string]bool            // every .go file's path from the root
	idents map[string]map[string]bool // package name → top-level names, Type.Method and Type.Field
	types  map[string]map[string]bool // package name → type names
	uses   []use
}

// use is a name a comment gives, where.
type use struct {
	pos         string
	dir         string // the directory of the file the comment is in
	file        string // a .go file's base name, or ""
	pkg, ident  string // pkg.ident, or pkg.Type.Method as ident "Type.Method"
	identMethod string
}

var (
	fileRef  = regexp.MustCompile(`[A-Za-z0-9_./-]*\b[a-z][a-z0-9_]*\.go\b`)
	identRef = regexp.MustCompile(`\b([a-z][a-z0-9]*)\.([A-Z][A-Za-z0-9_]*)(\.[A-Z][A-Za-z0-9_]*)?\b`)
)

func newReferences() *references {
	return &references{files: map[string]bool{}, dirs: map[string]map[string]bool{}, paths: map[string]bool{}, idents: map[string]map[string]bool{}, types: map[string]map[string]bool{}}
}

// add records f's package identifiers and its comments' references.
func (r *references) add(fset *token.FileSet, f *ast.File, rel string) {
	pkg := f.Name.Name
	if r.idents[pkg] == nil {
		r.idents[pkg], r.types[pkg] = map[string]bool{}, map[string]bool{}
	}
	names := r.idents[pkg]
	for _, decl := range f.Decls {
		switch d := decl.(type) {
		case *ast.FuncDecl:
			if d.Recv == nil {
				names[d.Name.Name] = true
			} else {
				typ, _, _ := strings.Cut(funcName(d), ".")
				names[typ+"."+d.Name.Name] = true
			}
		case *ast.GenDecl:
			for _, spec := range d.Specs {
				switch s := spec.(type) {
				case *ast.TypeSpec:
					names[s.Name.Name] = true
					r.types[pkg][s.Name.Name] = true
					if st, ok := s.Type.(*ast.StructType); ok {
						for _, field := range st.Fields.List {
							for _, n := range field.Names {
								names[s.Name.Name+"."+n.Name] = true
							}
						}
					}
				case *ast.ValueSpec:
					for _, n := range s.Names {
						names[n.Name] = true
					}
				}
			}
		}
	}
	for _, g := range f.Comments {
		for _, c := range g.List {
			p := fset.Position(c.Pos())
			pos := fmt.Sprintf("%s:%d", filepath.ToSlash(rel), p.Line)
			for _, m := range fileRef.FindAllString(c.Text, -1) {
				r.uses = append(r.uses, use{pos: pos, dir: filepath.ToSlash(filepath.Dir(rel)), file: m})
			}
			for _, m := range identRef.FindAllStringSubmatch(c.Text, -1) {
				r.uses = append(r.uses, use{pos: pos, pkg: m[1], ident: m[2], identMethod: m[3]})
			}
		}
	}
}

// addFile records the .go file at rel (slash-separated, from the root).
func (r *references) addFile(rel string) {
	name := path.Base(rel)
	r.files[name] = true
	r.paths[rel] = true
	if r.dirs[name] == nil {
		r.dirs[name] = map[string]bool{}
	}
	r.dirs[name][path.Dir(rel)] = true
}

// check returns a problem for each use naming a missing file or a file of
// another package (a comment names another package's code by the package:
// pkg.Func), or a missing identifier of a package of the project (names of
// other packages, such as the standard library's, are not checked).
func (r *references) check() []string {
	var problems []string
	for _, u := range r.uses {
		switch {
		case u.file != "":
			switch {
			case strings.Contains(u.file, "/"): // a path from the root
				if !r.paths[u.file] {
					problems = append(problems, fmt.Sprintf("%s: comment names %s, which does not exist", u.pos, u.file))
				}
			case !r.files[u.file]:
				problems = append(problems, fmt.Sprintf("%s: comment names %s, which does not exist", u.pos, u.file))
			case !r.dirs[u.file][u.dir]:
				problems = append(problems, fmt.Sprintf("%s: comment names %s of another package; name its code by package (pkg.Name)", u.pos, u.file))
			}
		case r.missing(u.pkg, u.ident, u.identMethod):
			problems = append(problems, fmt.Sprintf("%s: comment names %s.%s%s, which does not exist", u.pos, u.pkg, u.ident, u.identMethod))
		}
	}
	return problems
}

// missing reports whether pkg is a package of the project that does not
// define ident (method: "" or ".Method", a method or field of type ident).
func (r *references) missing(pkg, ident, method string) bool {
	names := r.idents[pkg]
	if names == nil {
		return false
	}
	return !names[ident] || (method != "" && r.types[pkg][ident] && !names[ident+method])
}
