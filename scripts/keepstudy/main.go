// Command keepstudy measures, on a corpus with known (original, variant)
// pairs, what each document and each pair has that could tell the
// original from its edited copy. It writes PREFIX.docs.tsv (per document)
// and PREFIX.pairs.tsv (per pair of the synthetic file); orders.py scores
// candidate orders on them (docs/QUALITY.md, "Which copy is kept").
// Corpus counts are exact maps: a study of the signals, not a pipeline.
package main

import (
	"bufio"
	"encoding/json"
	"flag"
	"fmt"
	"log"
	"os"
	"strings"
	"unicode"

	"github.com/neardup/neardup/transforms/sketch/signature"
	"github.com/neardup/neardup/transforms/text/normalize"
)

// doc is one document: its raw text, its shingles in order and as a set,
// its tokens and token bigrams.
type doc struct {
	id      string
	raw     string
	sh      []uint64
	set     map[uint64]bool
	tokens  map[uint64]bool
	bigrams map[uint64]bool
}

// corpus is the documents and, for shingles, tokens and bigrams, how many
// documents hold each.
type corpus struct {
	docs              []*doc
	byID              map[string]*doc
	shDF, tokDF, bgDF map[uint64]int32
}

func main() {
	in := flag.String("corpus", "", "JSONL corpus (id, text)")
	syn := flag.String("synthetic", "", "TSV of (original, variant, edit type, ...) with a header")
	out := flag.String("out", "/tmp/keepstudy", "prefix of the two TSV files written")
	flag.Parse()
	c, err := load(*in)
	if err != nil {
		log.Fatal(err)
	}
	if err := writeTSV(*out+".docs.tsv", c.docLines()); err != nil {
		log.Fatal(err)
	}
	lines, err := c.pairLines(*syn)
	if err != nil {
		log.Fatal(err)
	}
	if err := writeTSV(*out+".pairs.tsv", lines); err != nil {
		log.Fatal(err)
	}
}

func load(path string) (*corpus, error) {
	sg, err := signature.New(signature.DefaultConfig())
	if err != nil {
		return nil, err
	}
	f, err := os.Open(path)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	c := &corpus{byID: map[string]*doc{}, shDF: map[uint64]int32{}, tokDF: map[uint64]int32{}, bgDF: map[uint64]int32{}}
	sc := bufio.NewScanner(f)
	sc.Buffer(nil, 1<<28)
	for line := 1; sc.Scan(); line++ {
		var r struct{ ID, Text string }
		if err := json.Unmarshal(sc.Bytes(), &r); err != nil {
			return nil, fmt.Errorf("%s:%d: %w", path, line, err)
		}
		n := normalize.Text(r.Text)
		d := &doc{id: r.ID, raw: r.Text, set: map[uint64]bool{}, tokens: map[uint64]bool{}, bigrams: map[uint64]bool{}}
		d.sh = append([]uint64(nil), sg.Shingles(n)...)
		toks := sg.TokenHashes(n)
		for i, t := range toks {
			d.tokens[t] = true
			if i > 0 {
				d.bigrams[toks[i-1]*0x9E3779B97F4A7C15^t] = true
			}
		}
		for _, h := range d.sh {
			d.set[h] = true
		}
		addAll(c.shDF, d.set)
		addAll(c.tokDF, d.tokens)
		addAll(c.bgDF, d.bigrams)
		c.docs = append(c.docs, d)
		c.byID[r.ID] = d
	}
	return c, sc.Err()
}

func addAll(df map[uint64]int32, set map[uint64]bool) {
	for h := range set {
		df[h]++
	}
}

func countIf(set map[uint64]bool, ok func(uint64) bool) int {
	n := 0
	for h := range set {
		if ok(h) {
			n++
		}
	}
	return n
}

func (c *corpus) docLines() []string {
	lines := []string{"id\traw\tnorm\tS\tS2\tS3\tS5\tS10\tS20\tS50\tinruns\tutok\tubig\tcr\ttab\tdbl\tindent\tsmart\thalfcjk\tcjklat"}
	for _, d := range c.docs {
		f := []int{len(d.raw), len(normalize.Text(d.raw)), len(d.set)}
		for _, t := range []int32{2, 3, 5, 10, 20, 50} {
			f = append(f, countIf(d.set, func(h uint64) bool { return c.shDF[h] >= t }))
		}
		f = append(f, innerRuns(d.sh, func(h uint64) bool { return c.shDF[h] == 1 }),
			countIf(d.tokens, func(h uint64) bool { return c.tokDF[h] == 1 }),
			countIf(d.bigrams, func(h uint64) bool { return c.bgDF[h] == 1 }))
		f = append(f, formatting(d.raw)...)
		lines = append(lines, d.id+"\t"+join(f))
	}
	return lines
}

// innerRuns counts the runs of shingles for which in holds that touch
// neither end of the document.
func innerRuns(sh []uint64, in func(uint64) bool) int {
	runs, start := 0, -1
	for i, h := range sh {
		switch {
		case in(h) && start < 0:
			start = i
		case !in(h) && start >= 0:
			if start > 0 {
				runs++
			}
			start = -1
		}
	}
	return runs
}

// formatting counts what a careful copy lacks: CR, tabs, double spaces,
// indented lines, typographic quotes and dashes, half-width punctuation
// after a Chinese character, a space between Chinese and Latin.
func formatting(r string) []int {
	indent := 0
	for _, l := range strings.Split(r, "\n") {
		if strings.HasPrefix(l, " ") || strings.HasPrefix(l, "\t") || strings.HasPrefix(l, "　") {
			indent++
		}
	}
	smart := 0
	for _, q := range []string{"“", "”", "’", "—", "…"} {
		smart += strings.Count(r, q)
	}
	han := func(x rune) bool { return unicode.Is(unicode.Han, x) }
	latin := func(x rune) bool { return x < 128 && (unicode.IsLetter(x) || unicode.IsDigit(x)) }
	halfcjk, cjklat := 0, 0
	rs := []rune(r)
	for i := 1; i < len(rs); i++ {
		p, x := rs[i-1], rs[i]
		if han(p) && strings.ContainsRune(",.:;!?()\"", x) {
			halfcjk++
		}
		if x == ' ' && i+1 < len(rs) && (han(p) && latin(rs[i+1]) || latin(p) && han(rs[i+1])) {
			cjklat++
		}
	}
	return []int{strings.Count(r, "\r"), strings.Count(r, "\t"), strings.Count(r, "  "), indent, smart, halfcjk, cjklat}
}

func (c *corpus) pairLines(path string) ([]string, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	lines := []string{"a\tb\tedit\tlang\tJ\taonly\tbonly\taruns\tbruns\taedge\tbedge\tafreq\tbfreq"}
	sc := bufio.NewScanner(f)
	sc.Scan() // the header
	for sc.Scan() {
		x := strings.Split(sc.Text(), "\t")
		if len(x) < 4 {
			return nil, fmt.Errorf("%s: %q: want id_a, id_b, edit_type, lang, ...", path, sc.Text())
		}
		a, b := c.byID[x[0]], c.byID[x[1]]
		if a == nil || b == nil {
			continue
		}
		inter := countIf(a.set, func(h uint64) bool { return b.set[h] })
		j := 0.0
		if u := len(a.set) + len(b.set) - inter; u > 0 {
			j = float64(inter) / float64(u)
		}
		ar, ae := onlyRuns(a, b)
		br, be := onlyRuns(b, a)
		freq := func(d, o *doc) int {
			return countIf(d.set, func(h uint64) bool { return !o.set[h] && c.shDF[h] >= 5 })
		}
		lines = append(lines, fmt.Sprintf("%s\t%s\t%s\t%s\t%.4f\t", x[0], x[1], x[2], x[3], j)+
			join([]int{len(a.set) - inter, len(b.set) - inter, ar, br, ae, be, freq(a, b), freq(b, a)}))
	}
	return lines, sc.Err()
}

// onlyRuns counts the runs of d's shingles that o lacks, and how many of
// them touch an end of d.
func onlyRuns(d, o *doc) (runs, ends int) {
	prev := false
	for i, h := range d.sh {
		not := !o.set[h]
		if not && !prev {
			runs++
			if i == 0 {
				ends++
			}
		}
		prev = not
	}
	if prev {
		ends++
	}
	return runs, ends
}

func join(f []int) string {
	s := make([]string, len(f))
	for i, v := range f {
		s[i] = fmt.Sprint(v)
	}
	return strings.Join(s, "\t")
}

func writeTSV(path string, lines []string) error {
	return os.WriteFile(path, []byte(strings.Join(lines, "\n")+"\n"), 0o644)
}
