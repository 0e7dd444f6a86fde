// Command foldtable writes transforms/text/normalize/foldtable.go, the
// table with which normalization folds Chinese text to one script: every
// Traditional character of OpenCC's character table, and every regional
// variant form of OpenCC's Taiwan and Hong Kong variant tables, mapped to
// one character, its Simplified form.
//
// The data are OpenCC's dictionaries (Apache-2.0) as the Go module
// github.com/longbridgeapp/opencc ships them (Module, Version), fetched
// with 'go mod download' from the module proxy, or read from -dict DIR:
//
//   - TSCharacters.txt: Traditional to Simplified, one character to its
//     candidates; the first candidate is taken (乾 -> 干, 著 stays);
//   - TWVariants.txt, HKVariants.txt and their Rev tables: the standard
//     Traditional form and its Taiwan or Hong Kong variant forms
//     (着 and 著, 裏 and 裡, 衛 and 衞): one character;
//   - STCharacters.txt: Simplified to Traditional, one character to every
//     form s2t may write for it, by itself or in a phrase (复 -> 復 複 覆).
//
// The pairs are edges of a graph; each connected set of characters (a
// union-find class) folds to one of them, its representative: among the
// members that are no source of TSCharacters, one that STCharacters
// converts (a Simplified character), then one of the basic block
// (U+4E00 to U+9FFF), then the one that the most characters' first
// candidate names (ties: the smallest code point). So a
// character and every form OpenCC converts it to fold to the same
// character, and folding twice is folding once. Characters that NFKC changes never reach
// the fold and are left out; every target is NFKC-normal.
//
// It prints on stderr how many pairs it wrote and how many of OpenCC's
// Simplified-to-Traditional character pairs (STCharacters: what s2t, s2tw
// and s2hk write for one character) the table does not fold together,
// first candidate and any candidate.
//
//	go generate ./transforms/text/normalize  # the same, from the package
//	go run ./scripts/foldtable            # writes transforms/text/normalize/foldtable.go
//	go run ./scripts/foldtable -dict DIR  # OpenCC's dictionary directory
package main

import (
	"bufio"
	"bytes"
	"encoding/json"
	"flag"
	"fmt"
	"go/format"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"unicode/utf8"

	"golang.org/x/text/unicode/norm"
)

// Module and Version are the Go module whose dictionaries the table is made of.
const (
	Module  = "github.com/longbridgeapp/opencc"
	Version = "v0.3.13"
)

func main() {
	dict := flag.String("dict", "", "OpenCC's dictionary directory (default: the module's, downloaded with 'go mod download')")
	out := flag.String("out", "transforms/text/normalize/foldtable.go", "Go file to write")
	flag.Parse()
	if err := run(*dict, *out); err != nil {
		fmt.Fprintln(os.Stderr, "foldtable:", err)
		os.Exit(1)
	}
}

func run(dict, out string) error {
	if dict == "" {
		dir, err := moduleDir()
		if err != nil {
			return err
		}
		dict = filepath.Join(dir, "dictionary")
	}
	read := func(name string) ([][]rune, error) { return readDict(filepath.Join(dict, name)) }
	ts, err := read("TSCharacters.txt")
	if err != nil {
		return err
	}
	u := newUnion()
	isSource := map[rune]bool{}
	named := map[rune]int{} // how many sources name it first
	for _, e := range ts {
		if e[0] != e[1] { // a character whose first candidate is itself stays
			isSource[e[0]] = true
			named[e[1]]++
		}
		u.join(e[0], e[1])
	}
	st, err := read("STCharacters.txt")
	if err != nil {
		return err
	}
	simplified := map[rune]bool{}
	for _, e := range st {
		simplified[e[0]] = true
		for _, c := range e[1:] {
			u.join(e[0], c)
		}
	}
	variants := 0
	for _, name := range []string{"TWVariants.txt", "TWVariantsRev.txt", "HKVariants.txt", "HKVariantsRev.txt"} {
		es, err := read(name)
		if err != nil {
			return err
		}
		for _, e := range es {
			for _, v := range e[1:] {
				u.join(e[0], v)
				variants++
			}
		}
	}
	fold := u.fold(func(a, b rune) bool { // a is a better representative than b
		if isSource[a] != isSource[b] {
			return !isSource[a]
		}
		if simplified[a] != simplified[b] {
			return simplified[a]
		}
		if basic(a) != basic(b) {
			return basic(a)
		}
		if named[a] != named[b] {
			return named[a] > named[b]
		}
		return a < b
	})
	var pairs [][2]rune
	for src, dst := range fold {
		if src != dst && stable(src) {
			if !stable(dst) {
				return fmt.Errorf("%U folds to %U, which NFKC changes", src, dst)
			}
			pairs = append(pairs, [2]rune{src, dst})
		}
	}
	slices.SortFunc(pairs, func(a, b [2]rune) int { return int(a[0] - b[0]) })
	if err := write(out, pairs); err != nil {
		return err
	}
	firstApart, anyApart := apart(st, fold)
	fmt.Fprintf(os.Stderr, "foldtable: %d pairs (%d of TSCharacters, %d variant pairs) written to %s; of %d STCharacters entries, %d fold apart from their first candidate, %d from some candidate\n",
		len(pairs), len(ts), variants, out, len(st), firstApart, anyApart)
	return nil
}

// apart counts the entries of STCharacters whose character fold maps
// apart from its first candidate, and from some candidate.
func apart(st [][]rune, fold map[rune]rune) (first, any int) {
	f := func(r rune) rune {
		if d, ok := fold[r]; ok {
			return d
		}
		return r
	}
	for _, e := range st {
		if f(e[0]) != f(e[1]) {
			first++
		}
		for _, c := range e[1:] {
			if f(e[0]) != f(c) {
				any++
				break
			}
		}
	}
	return first, any
}

// moduleDir downloads Module@Version with the go command and returns its directory.
func moduleDir() (string, error) {
	cmd := exec.Command("go", "mod", "download", "-json", Module+"@"+Version)
	cmd.Stderr = os.Stderr
	b, err := cmd.Output()
	if err != nil {
		return "", fmt.Errorf("go mod download %s@%s: %w", Module, Version, err)
	}
	var m struct{ Dir, Error string }
	if err := json.Unmarshal(b, &m); err != nil || m.Dir == "" {
		return "", fmt.Errorf("go mod download %s@%s: no directory (%s%v)", Module, Version, m.Error, err)
	}
	return m.Dir, nil
}

// readDict reads an OpenCC text dictionary: lines "key<TAB>value value...".
// It keeps the entries whose key and values are single characters, each
// as key followed by the values.
func readDict(path string) ([][]rune, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	var out [][]rune
	sc := bufio.NewScanner(f)
	line := 0
	for sc.Scan() {
		line++
		k, v, ok := strings.Cut(sc.Text(), "\t")
		if !ok {
			return nil, fmt.Errorf("%s:%d: no tab", path, line)
		}
		e := []rune{single(k)}
		for _, c := range strings.Fields(v) {
			e = append(e, single(c))
		}
		if len(e) > 1 && !slices.Contains(e, utf8.RuneError) {
			out = append(out, e)
		}
	}
	return out, sc.Err()
}

// single returns the rune s is made of, or utf8.RuneError if it is not one.
func single(s string) rune {
	r, n := utf8.DecodeRuneInString(s)
	if n != len(s) || n == 0 {
		return utf8.RuneError
	}
	return r
}

// basic reports whether r is in the block of the CJK Unified Ideographs
// that most text is written in, U+4E00 to U+9FFF.
func basic(r rune) bool { return 0x4E00 <= r && r <= 0x9FFF }

// stable reports whether NFKC leaves r alone.
func stable(r rune) bool {
	return norm.NFKC.IsNormalString(string(r))
}

// union is a union-find over runes.
type union struct{ parent map[rune]rune }

func newUnion() *union { return &union{parent: map[rune]rune{}} }

func (u *union) find(r rune) rune {
	p, ok := u.parent[r]
	if !ok {
		u.parent[r] = r
		return r
	}
	if p != r {
		p = u.find(p)
		u.parent[r] = p
	}
	return p
}

func (u *union) join(a, b rune) { u.parent[u.find(a)] = u.find(b) }

// fold maps every rune of u to the best member of its class by better.
func (u *union) fold(better func(a, b rune) bool) map[rune]rune {
	best := map[rune]rune{}
	for r := range u.parent {
		root := u.find(r)
		if b, ok := best[root]; !ok || better(r, b) {
			best[root] = r
		}
	}
	out := map[rune]rune{}
	for r := range u.parent {
		out[r] = best[u.find(r)]
	}
	return out
}

// write writes the Go file of pairs.
func write(path string, pairs [][2]rune) error {
	var b bytes.Buffer
	fmt.Fprintf(&b, `// Code generated by scripts/foldtable from OpenCC's dictionaries (%s %s:
// TSCharacters, TWVariants, HKVariants and their Rev tables; Apache-2.0). DO NOT EDIT.

package normalize

// foldPairs maps Traditional Chinese characters and variant forms to their
// Simplified form: foldPairs[2i] folds to foldPairs[2i+1], sorted by
// foldPairs[2i]; %d pairs.
var foldPairs = [...]uint32{
`, Module, Version, len(pairs))
	for i, p := range pairs {
		if i%6 == 0 {
			b.WriteString("\t")
		}
		fmt.Fprintf(&b, "0x%04X, 0x%04X,", p[0], p[1])
		if i%6 == 5 || i == len(pairs)-1 {
			b.WriteString("\n")
		} else {
			b.WriteString(" ")
		}
	}
	b.WriteString("}\n")
	src, err := format.Source(b.Bytes())
	if err != nil {
		return err
	}
	return os.WriteFile(path, src, 0o644)
}
