package main

import (
	"bufio"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
)

// TestDocSamples runs the sessions the docs show (a fenced block of
// "$ neardup ..." or "$ go run ./cmd/neardup ..." lines and what they
// print, and "$ head -1 FILE") and checks that the commands print what
// the docs say, in a directory of their own where testdata is the
// project's: a line "..." stands for any lines, and "..." in a line for
// any text; times, and the numbers of the lines about stages, may differ;
// the docs' /work/main/ is that directory.
func TestDocSamples(t *testing.T) {
	if testing.Short() {
		t.Skip("runs the docs' sessions")
	}
	root := repoRoot(t)
	for _, doc := range []string{"README.md", "docs/AUDIT.md"} {
		sessions := docSessions(t, filepath.Join(root, doc))
		if len(sessions) == 0 {
			t.Fatalf("%s: no session", doc)
		}
		for i, s := range sessions {
			t.Run(strings.ReplaceAll(doc, "/", "_")+"_"+string(rune('0'+i)), func(t *testing.T) {
				t.Parallel()
				dir := t.TempDir()
				if err := os.Symlink(filepath.Join(root, "testdata"), filepath.Join(dir, "testdata")); err != nil {
					t.Fatal(err)
				}
				for _, step := range s {
					got := runDocCommand(t, dir, step.command)
					want := strings.ReplaceAll(strings.Join(step.output, "\n"), "/work/main/", dir+"/")
					if err := matchDocOutput(strings.Split(want, "\n"), strings.Split(strings.TrimRight(got, "\n"), "\n")); err != "" {
						t.Errorf("%s: $ %s\n%s\ngot:\n%s", doc, step.command, err, got)
					}
				}
			})
		}
	}
}

// A docStep is one command of a session and the lines the docs show it
// printing.
type docStep struct {
	command string
	output  []string
}

// docSessions returns the sessions of the markdown file at path: the
// fenced blocks whose first line is "$ " and a neardup command.
func docSessions(t *testing.T, path string) [][]docStep {
	t.Helper()
	f, err := os.Open(path)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	var sessions [][]docStep
	var cur []docStep
	fenced, in := false, false // in a fenced block; in a plain one ("```")
	sc := bufio.NewScanner(f)
	sc.Buffer(nil, 1<<20)
	for sc.Scan() {
		line := sc.Text()
		switch {
		case strings.HasPrefix(line, "```"):
			if in && len(cur) > 0 && isNeardup(cur[0].command) {
				sessions = append(sessions, cur)
			}
			fenced = !fenced
			in, cur = fenced && line == "```", nil
		case !in:
		case strings.HasPrefix(line, "$ "):
			cur = append(cur, docStep{command: strings.TrimPrefix(line, "$ ")})
		case len(cur) > 0 && strings.HasSuffix(cur[len(cur)-1].command, `\`) && len(cur[len(cur)-1].output) == 0:
			c := &cur[len(cur)-1]
			c.command = strings.TrimSuffix(c.command, `\`) + " " + strings.TrimSpace(line)
		case len(cur) > 0:
			cur[len(cur)-1].output = append(cur[len(cur)-1].output, line)
		}
	}
	return sessions
}

func isNeardup(command string) bool {
	return strings.HasPrefix(command, "neardup ") || strings.HasPrefix(command, "go run ./cmd/neardup ")
}

// runDocCommand runs command, a neardup command or "head -1 FILE", in dir
// and returns what it printed on stdout and stderr.
func runDocCommand(t *testing.T, dir, command string) string {
	t.Helper()
	args := shellWords(t, command)
	switch {
	case len(args) == 3 && args[0] == "head" && args[1] == "-1":
		b, err := os.ReadFile(filepath.Join(dir, args[2]))
		if err != nil {
			t.Fatal(err)
		}
		first, _, _ := strings.Cut(string(b), "\n")
		return first
	case args[0] == "neardup":
		args = args[1:]
	case len(args) > 2 && args[0] == "go" && args[1] == "run" && args[2] == "./cmd/neardup":
		args = args[3:]
	default:
		t.Fatalf("a docs session runs %q: only neardup and head -1", command)
	}
	var out strings.Builder
	cmd := exec.Command(os.Args[0], args...)
	cmd.Env = append(os.Environ(), "NEARDUP_TEST_MAIN=1")
	cmd.Dir = dir
	cmd.Stdout, cmd.Stderr = &out, &out
	if err := cmd.Run(); err != nil {
		t.Fatalf("$ %s: %v\n%s", command, err, out.String())
	}
	return out.String()
}

// shellWords splits command as a shell does words in single or double
// quotes, without expansions.
func shellWords(t *testing.T, command string) []string {
	var words []string
	var w strings.Builder
	inWord := false
	quote := rune(0)
	for _, r := range command {
		switch {
		case quote != 0 && r == quote:
			quote = 0
		case quote != 0:
			w.WriteRune(r)
		case r == '\'' || r == '"':
			quote, inWord = r, true
		case r == ' ' || r == '\t':
			if inWord {
				words = append(words, w.String())
				w.Reset()
				inWord = false
			}
		default:
			w.WriteRune(r)
			inWord = true
		}
	}
	if quote != 0 {
		t.Fatalf("unbalanced quote in %q", command)
	}
	if inWord {
		words = append(words, w.String())
	}
	return words
}

var (
	docTime    = regexp.MustCompile(`\d+(\\\.\d+)?(ms|s)\b`)
	docNumber  = regexp.MustCompile(`\d+(\\\.\d+)?`)
	stageLines = regexp.MustCompile(`^(neardup: \S+ in all|  busy seconds|  stage spans|  work files written)`)
)

// docLine turns a line the docs show into a pattern of the lines it
// stands for.
func docLine(want string) *regexp.Regexp {
	parts := strings.Split(want, "...")
	for i, p := range parts {
		p = regexp.QuoteMeta(p)
		if stageLines.MatchString(want) {
			p = docNumber.ReplaceAllString(p, `\d+(\.\d+)?`)
		} else {
			p = docTime.ReplaceAllString(p, `\d+(\.\d+)?(ms|s|m)`)
		}
		parts[i] = p
	}
	return regexp.MustCompile("^" + strings.Join(parts, ".*") + "$")
}

// matchDocOutput matches the lines got against the lines want shows, and
// says where they part, or "".
func matchDocOutput(want, got []string) string {
	var match func(w, g int) bool
	match = func(w, g int) bool {
		if w == len(want) {
			return g == len(got)
		}
		if want[w] == "..." {
			for k := g; k <= len(got); k++ {
				if match(w+1, k) {
					return true
				}
			}
			return false
		}
		return g < len(got) && docLine(want[w]).MatchString(got[g]) && match(w+1, g+1)
	}
	if match(0, 0) {
		return ""
	}
	// Say the first line that no line matches.
	g := 0
	for _, w := range want {
		if w == "..." {
			continue
		}
		re := docLine(w)
		for g < len(got) && !re.MatchString(got[g]) {
			g++
		}
		if g == len(got) {
			return "the docs show a line the command did not print: " + w
		}
		g++
	}
	return "the command printed lines the docs do not show"
}
