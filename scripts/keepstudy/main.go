// Command keepstudy measures, on a corpus with known (original, variant)
// pairs, what each document and each pair has that could tell the
// original from its edited copy. It writes PREFIX.docs.tsv (per document),
// PREFIX.pairs.tsv (per pair of the synthetic file) and, with -truth,
// PREFIX.truth.tsv (per true pair); orders.py scores candidate orders on
// them (docs/QUALITY.md, "Which copy is kept"). A pair's features are what
// each side has that the other lacks, from the exact sets and from a
// simulated 128-position MinHash sketch with the pipeline's permutations.
// The per-document counts are exact maps; the pair features' corpus counts
// are exact too unless -sample-mod, -cm-width or -argmin-df say how a
// pipeline would approximate them: a study of the signals, not a pipeline.
// slots.go and cost_test.go measure what the pipeline's share would cost.
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
	toks    []uint64 // token hashes in order
	runes   []rune   // per token: its rune when it is one Han character, else 0
	first   map[uint64]int32
	flags   []uint8 // per shingle index (pair.go)
	argmin  []int32 // per simulated MinHash slot: the index of the shingle giving the minimum
	mins    []uint64
}

// corpus is the documents and, for shingles, tokens and bigrams, how many
// documents hold each.
type corpus struct {
	docs              []*doc
	byID              map[string]*doc
	shDF, tokDF, bgDF map[uint64]int32
	dictBigram        map[[2]rune]bool // Han character pairs found inside a word of the Chinese dictionary
	sample            *sampleCounts    // the counts pair features use
}

func main() {
	in := flag.String("corpus", "", "JSONL corpus (id, text)")
	syn := flag.String("synthetic", "", "TSV of (original, variant, edit type, ...) with a header")
	out := flag.String("out", "/tmp/keepstudy", "prefix of the TSV files written")
	truth := flag.String("truth", "", "TSV of true pairs (id_a, id_b, jaccard, ...): also write PREFIX.truth.tsv, the pair features of those with jaccard >= -truth-j")
	truthJ := flag.Float64("truth-j", 0.8, "least Jaccard of the -truth pairs written")
	dict := flag.String("dict", "", "gse Chinese dictionary files, comma-separated (word freq pos lines): Han pairs inside a word are plausible")
	sampleMod := flag.Uint64("sample-mod", 1, "pair features count a document in the corpus counts when its id's hash is 0 modulo this (1: all)")
	cmWidth := flag.Int("cm-width", 0, "pair features use count-min sketches of this many counters a row (0: exact counts)")
	cmRows := flag.Int("cm-rows", 2, "rows of each count-min sketch")
	flag.IntVar(&dirBits, "dir-bits", 0, "keep this many bits (> 6) of each minimum to tell which side's is smaller (0: all 64)")
	argminDF := flag.Bool("argmin-df", false, "count a shingle in a document only where it gives one of the document's sketch minima")
	flag.Parse()
	c, err := load(*in)
	if err != nil {
		log.Fatal(err)
	}
	c.sketch()
	c.sample = newSampleCounts(*sampleMod, *cmWidth, *cmRows)
	c.sample.argmins = *argminDF
	for _, d := range c.docs {
		c.sample.add(d)
	}
	if c.dictBigram, err = loadDict(*dict); err != nil {
		log.Fatal(err)
	}
	c.prepare()
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
	if *truth != "" {
		lines, err := c.truthLines(*truth, *truthJ)
		if err != nil {
			log.Fatal(err)
		}
		if err := writeTSV(*out+".truth.tsv", lines); err != nil {
			log.Fatal(err)
		}
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
		toks := append([]uint64(nil), sg.TokenHashes(n)...)
		d.toks = toks
		d.runes = make([]rune, len(toks))
		if strs := sg.Tokenizer().Strings(n); len(strs) >= len(toks) {
			for i := range toks {
				if r := []rune(strs[i]); len(r) == 1 && unicode.Is(unicode.Han, r[0]) {
					d.runes[i] = r[0]
				}
			}
		}
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
	lines := []string{pairHeader}
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
		lines = append(lines, x[0]+"\t"+x[1]+"\t"+x[2]+"\t"+x[3]+"\t"+c.pairFeatures(a, b))
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
