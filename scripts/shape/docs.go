package main

import (
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"strings"
)

// goPath matches a .go file named in prose: a path from the repository's
// root or a base name.
var goPath = regexp.MustCompile(`[A-Za-z0-9_./-]*[A-Za-z0-9_]\.go\b`)

// checkDocs returns a problem for each .go file that README.md or a page
// of docs/ names and the tree does not hold (a path must exist from root,
// a base name somewhere), and for each pkg.Name of a package of the project
// they name that the package does not define (refs: the tree's files and
// identifiers).
func checkDocs(root string, refs *references) ([]string, error) {
	files := refs.files
	pages, err := filepath.Glob(filepath.Join(root, "docs", "*.md"))
	if err != nil {
		return nil, err
	}
	pages = append(pages, filepath.Join(root, "README.md"))
	var problems []string
	for _, page := range pages {
		data, err := os.ReadFile(page)
		if os.IsNotExist(err) {
			continue
		} else if err != nil {
			return nil, err
		}
		rel, _ := filepath.Rel(root, page)
		for i, line := range strings.Split(string(data), "\n") {
			for _, m := range goPath.FindAllString(line, -1) {
				if strings.HasPrefix(m, "/") || strings.HasPrefix(m, ".") { // a URL's path, an absolute or relative path
					continue
				}
				exists := files[m]
				if strings.Contains(m, "/") {
					_, err := os.Stat(filepath.Join(root, m))
					exists = err == nil
				}
				if !exists {
					problems = append(problems, fmt.Sprintf("%s:%d: names %s, which does not exist", filepath.ToSlash(rel), i+1, m))
				}
			}
			for _, m := range identRef.FindAllStringSubmatch(line, -1) {
				if refs.missing(m[1], m[2], m[3]) {
					problems = append(problems, fmt.Sprintf("%s:%d: names %s, which does not exist", filepath.ToSlash(rel), i+1, m[0]))
				}
			}
		}
	}
	return problems, nil
}
