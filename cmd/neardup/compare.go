package main

import (
	"errors"
	"flag"
	"fmt"
	"io"
	"os"
	"strings"
	"text/tabwriter"

	"github.com/neardup/neardup/transforms/format/record"
	"github.com/neardup/neardup/transforms/match/similarity"
	"github.com/neardup/neardup/transforms/sketch/minhash"
	"github.com/neardup/neardup/transforms/sketch/signature"
	"github.com/neardup/neardup/transforms/sketch/simhash"
	"github.com/neardup/neardup/transforms/sketch/weight"
	"github.com/neardup/neardup/transforms/text/normalize"
	"github.com/neardup/neardup/transforms/text/tokenize"
)

const compareUsage = `usage: neardup compare [flags] FILE_A FILE_B
       neardup compare --text [flags] 'text a' 'text b'
       neardup compare --jsonl FILE.jsonl [flags] ID_A ID_B

Compare prints every similarity measure neardup knows for two documents, side
by side, computed by the same code as 'neardup run': the SimHash of each and
their Hamming distance, the Jaccard similarity estimated from MinHash sketches
and the exact Jaccard of the shingle sets, the cosine similarity of TF and of
TF-IDF token vectors, the tokens only one of them has, and the verdict at
--threshold and --hamming. For Chinese text it also shows gse's segmentation.

A document is a whole file (FILE_A, FILE_B; .gz is decompressed), a string
(--text), or a record of a JSONL file found by its id (--jsonl, with
--id-field and --text-field).

Examples:

	neardup compare a.txt b.txt
	neardup compare --text 'the quick brown fox jumps' 'the quick brown fox jumped'
	neardup compare --jsonl ../shared/corpus/dev.jsonl d000140 d009907
	neardup compare --shingle word:5 --text '我们今天去公园散步' '我们明天去公园散步'

Flags:
`

// maxShownTokens is how many differing tokens (and gse words) compare prints
// per document.
const maxShownTokens = 20

// compareOptions are the settings of one comparison.
type compareOptions struct {
	Shingle   string  // char:N or word:N
	Threshold float64 // Jaccard of near-duplicates
	Hamming   int     // SimHash distance bound
	Perms     int     // MinHash permutations
}

func defaultCompareOptions() compareOptions {
	sc := signature.DefaultConfig()
	return compareOptions{Shingle: fmt.Sprintf("char:%d", sc.N), Threshold: 0.8, Hamming: 3, Perms: sc.Perms}
}

// side is what compare computes for one document.
type side struct {
	Name       string // file name, "text A", or id
	Bytes      int    // raw length
	Tokens     int
	Shingles   int // distinct shingles
	SimHash    uint64
	Only       []string // distinct tokens the other document lacks, in order of first use
	OnlyTotal  int      // how many there are in all
	Words      []string // gse words, for text with CJK; nil otherwise
	WordsTotal int
}

// comparison is the result of compareTexts.
type comparison struct {
	Opt          compareOptions
	A, B         side
	Hamming      int
	Estimate     float64 // MinHash estimate of the Jaccard similarity
	Jaccard      float64 // exact Jaccard of the shingle sets
	Inter, Union int     // shingle set sizes behind Jaccard
	CosineTF     float64 // over token vectors
	CosineTFIDF  float64
	IDFSource    string // which IDF table CosineTFIDF used
	CJK          bool   // either text has CJK runes
}

// NearDup reports the Jaccard verdict: exact Jaccard at or above the threshold.
func (c *comparison) NearDup() bool { return c.Union > 0 && c.Jaccard >= c.Opt.Threshold }

// SimHashNearDup reports the SimHash verdict: Hamming distance within the bound.
func (c *comparison) SimHashNearDup() bool {
	return c.A.Tokens > 0 && c.B.Tokens > 0 && c.Hamming <= c.Opt.Hamming
}

// compareFlags are the flags of 'neardup compare'.
type compareFlags struct {
	opt                       compareOptions
	text                      bool
	jsonl, idField, textField string
}

func newCompareFlags() (*flag.FlagSet, *compareFlags) {
	fs := flag.NewFlagSet("compare", flag.ContinueOnError)
	f := &compareFlags{opt: defaultCompareOptions()}
	fs.BoolVar(&f.text, "text", false, "the two arguments are the texts themselves, not file names")
	fs.StringVar(&f.jsonl, "jsonl", "", "the two arguments are ids of records in this JSONL file (.gz is decompressed)")
	fs.StringVar(&f.idField, "id-field", record.DefaultIDField, "--jsonl: field holding the document id")
	fs.StringVar(&f.textField, "text-field", record.DefaultTextField, "--jsonl: field holding the document text")
	fs.StringVar(&f.opt.Shingle, "shingle", f.opt.Shingle, "shingles: char:N (CJK characters, words elsewhere) or word:N (gse words for CJK)")
	fs.Float64Var(&f.opt.Threshold, "threshold", f.opt.Threshold, "Jaccard similarity at or above which two documents are near-duplicates")
	fs.IntVar(&f.opt.Hamming, "hamming", f.opt.Hamming, "SimHash: largest Hamming distance of near-duplicates (bits of 64)")
	fs.IntVar(&f.opt.Perms, "perms", f.opt.Perms, "MinHash permutations")
	fs.Usage = func() { fmt.Fprint(fs.Output(), compareUsage); fs.PrintDefaults() }
	return fs, f
}

// compareMain runs 'neardup compare': two documents in, the comparison on
// stdout.
func compareMain(args []string) error {
	fs, f := newCompareFlags()
	pos, err := parseInterspersed(fs, args)
	if errors.Is(err, flag.ErrHelp) {
		return nil
	}
	if err != nil {
		return err
	}
	if len(pos) != 2 {
		return fmt.Errorf("want two documents, got %d argument(s) (see 'neardup help compare')", len(pos))
	}
	if f.text && f.jsonl != "" {
		return errors.New("--text and --jsonl exclude each other")
	}
	var a, b document
	switch {
	case f.text:
		a, b = document{"text A", pos[0]}, document{"text B", pos[1]}
	case f.jsonl != "":
		a, b, err = readRecords(f.jsonl, f.idField, f.textField, pos[0], pos[1])
	default:
		a, b, err = readFiles(pos[0], pos[1])
	}
	if err != nil {
		return err
	}
	c, err := compareTexts(a, b, f.opt)
	if err != nil {
		return err
	}
	c.print(os.Stdout)
	return nil
}

// parseInterspersed parses args with fs, allowing flags after positional
// arguments ("compare a b --threshold 0.9"), and returns the positional ones.
// A "--" ends the flags.
func parseInterspersed(fs *flag.FlagSet, args []string) ([]string, error) {
	var pos []string
	for {
		if err := fs.Parse(args); err != nil {
			return nil, err
		}
		rest := fs.Args()
		if len(rest) == 0 {
			return pos, nil
		}
		if stop := len(args) - len(rest) - 1; stop >= 0 && args[stop] == "--" {
			return append(pos, rest...), nil
		}
		pos = append(pos, rest[0])
		args = rest[1:]
	}
}

// document is one side of a comparison: a name and its raw text.
type document struct {
	Name, Text string
}

// readFiles reads two whole files as documents; a .gz file is decompressed.
func readFiles(pa, pb string) (document, document, error) {
	var docs [2]document
	for i, p := range []string{pa, pb} {
		text, err := readWhole(p)
		if err != nil {
			return document{}, document{}, fmt.Errorf("reading document %c: %w", 'A'+i, err)
		}
		docs[i] = document{p, text}
	}
	return docs[0], docs[1], nil
}

func readWhole(path string) (string, error) {
	f, err := os.Open(path)
	if err != nil {
		return "", err
	}
	defer f.Close()
	r, err := record.Decompress(path, f)
	if err != nil {
		return "", err
	}
	b, err := io.ReadAll(r)
	if err != nil {
		return "", fmt.Errorf("%s: %w", path, err)
	}
	return string(b), nil
}

// errFound stops record.Read once both records are found.
var errFound = errors.New("found")

// readRecords finds the records with ids ia and ib in a JSONL file.
func readRecords(path, idField, textField, ia, ib string) (document, document, error) {
	f, err := os.Open(path)
	if err != nil {
		return document{}, document{}, err
	}
	defer f.Close()
	r, err := record.Decompress(path, f)
	if err != nil {
		return document{}, document{}, err
	}
	found := map[string]string{}
	opt := record.Options{Format: record.JSONL, IDField: idField, TextField: textField}
	err = record.Read(r, path, opt, func(d record.Doc) error {
		if (d.ID == ia || d.ID == ib) && found[d.ID] == "" {
			found[d.ID] = d.Text
		}
		if found[ia] != "" && found[ib] != "" {
			return errFound
		}
		return nil
	}, func(record.Reject) error { return nil })
	if err != nil && !errors.Is(err, errFound) {
		return document{}, document{}, err
	}
	for _, id := range []string{ia, ib} {
		if found[id] == "" {
			return document{}, document{}, fmt.Errorf("%s: no record with %s %q", path, idField, id)
		}
	}
	return document{ia, found[ia]}, document{ib, found[ib]}, nil
}

// signatureConfig maps compare's options to a signature.Config, starting
// from signature.DefaultConfig as the pipeline does.
func (o compareOptions) signatureConfig() (signature.Config, error) {
	sc := signature.DefaultConfig()
	mode, n, ok := strings.Cut(o.Shingle, ":")
	if !ok {
		return sc, fmt.Errorf("--shingle %q: want char:N or word:N", o.Shingle)
	}
	var err error
	if sc.Tokens, err = tokenize.ParseMode(mode); err != nil {
		return sc, fmt.Errorf("--shingle %q: %w", o.Shingle, err)
	}
	if _, err := fmt.Sscanf(n, "%d", &sc.N); err != nil || sc.N < 1 {
		return sc, fmt.Errorf("--shingle %q: shingle size must be a positive number", o.Shingle)
	}
	switch {
	case o.Perms < 1:
		return sc, fmt.Errorf("--perms %d: want at least 1", o.Perms)
	case o.Threshold <= 0 || o.Threshold > 1:
		return sc, fmt.Errorf("--threshold %v out of (0, 1]", o.Threshold)
	case o.Hamming < 0 || o.Hamming > 64:
		return sc, fmt.Errorf("--hamming %d out of [0, 64]", o.Hamming)
	}
	sc.Perms = o.Perms
	return sc, nil
}

// compareTexts computes every measure for documents a and b under opt.
func compareTexts(a, b document, opt compareOptions) (*comparison, error) {
	sc, err := opt.signatureConfig()
	if err != nil {
		return nil, err
	}
	s, err := signature.New(sc)
	if err != nil {
		return nil, err
	}
	na, nb := normalize.Text(a.Text), normalize.Text(b.Text)
	c := &comparison{Opt: opt, A: side{Name: a.Name, Bytes: len(a.Text)}, B: side{Name: b.Name, Bytes: len(b.Text)}}

	var sa, sb signature.Signature
	s.Sign(na, &sa)
	s.Sign(nb, &sb)
	c.A.SimHash, c.B.SimHash = sa.SimHash, sb.SimHash
	c.A.Tokens, c.B.Tokens = sa.Tokens, sb.Tokens
	c.Hamming = simhash.Distance(sa.SimHash, sb.SimHash)
	c.Estimate = minhash.Estimate(sa.MinHash, sb.MinHash)

	setA := append([]uint64(nil), s.ShingleSet(na)...)
	setB := s.ShingleSet(nb)
	c.A.Shingles, c.B.Shingles = len(setA), len(setB)
	c.Jaccard = similarity.Jaccard(setA, setB)
	c.Inter, c.Union = similarity.Overlap(setA, setB)

	if err := c.cosines(s, na, nb); err != nil {
		return nil, err
	}
	ta, tb := s.Tokenizer().Strings(na), s.Tokenizer().Strings(nb)
	c.A.Only, c.A.OnlyTotal = onlyIn(ta, tb, maxShownTokens)
	c.B.Only, c.B.OnlyTotal = onlyIn(tb, ta, maxShownTokens)

	c.CJK = hasCJK(na) || hasCJK(nb)
	if c.CJK {
		seg, err := tokenize.New(tokenize.Word)
		if err != nil {
			return nil, err
		}
		wa, wb := seg.Strings(na), seg.Strings(nb)
		c.A.Words, c.A.WordsTotal = firstN(wa, 2*maxShownTokens), len(wa)
		c.B.Words, c.B.WordsTotal = firstN(wb, 2*maxShownTokens), len(wb)
	}
	return c, nil
}

// cosines sets the TF and TF-IDF cosine similarities of the token vectors of
// normalized texts na and nb. Word mode weighs by gse's Chinese IDF table
// (keyed by word, like Word-mode tokens); Char mode by the document
// frequencies of the two documents themselves.
func (c *comparison) cosines(s *signature.Signer, na, nb string) error {
	ha := append([]uint64(nil), s.TokenHashes(na)...)
	hb := s.TokenHashes(nb)
	c.CosineTF = similarity.Cosine(weight.Vector(ha, weight.TF, nil), weight.Vector(hb, weight.TF, nil))

	var idf *weight.Table
	if s.Config().Tokens == tokenize.Word {
		t, err := weight.GseIDF()
		if err != nil {
			return err
		}
		idf, c.IDFSource = t, "gse's Chinese IDF table"
	} else {
		df := map[uint64]int{}
		for _, set := range [][]uint64{similarity.Set(append([]uint64(nil), ha...)), similarity.Set(append([]uint64(nil), hb...))} {
			for _, h := range set {
				df[h]++
			}
		}
		idf, c.IDFSource = weight.FromDocFreq(df, 2), "document frequencies of A and B"
	}
	c.CosineTFIDF = similarity.Cosine(weight.Vector(ha, weight.TFIDF, idf), weight.Vector(hb, weight.TFIDF, idf))
	return nil
}

// onlyIn returns the distinct tokens of a that b lacks, in order of first
// occurrence, at most max of them, and how many there are in all.
func onlyIn(a, b []string, max int) ([]string, int) {
	inB := make(map[string]bool, len(b))
	for _, t := range b {
		inB[t] = true
	}
	seen := map[string]bool{}
	var out []string
	total := 0
	for _, t := range a {
		if inB[t] || seen[t] {
			continue
		}
		seen[t] = true
		total++
		if len(out) < max {
			out = append(out, t)
		}
	}
	return out, total
}

func firstN(s []string, n int) []string { return s[:min(len(s), n)] }

func hasCJK(s string) bool {
	for _, r := range s {
		if tokenize.IsCJK(r) {
			return true
		}
	}
	return false
}

// print writes the comparison as aligned "measure  A  B" rows, then the
// verdicts.
func (c *comparison) print(w io.Writer) {
	tw := tabwriter.NewWriter(w, 0, 0, 2, ' ', 0)
	row := func(name, a, b string) { fmt.Fprintf(tw, "%s\t%s\t%s\n", name, a, b) }
	row("", "A", "B")
	row("document", c.A.Name, c.B.Name)
	row("bytes", fmt.Sprint(c.A.Bytes), fmt.Sprint(c.B.Bytes))
	row("tokens", fmt.Sprint(c.A.Tokens), fmt.Sprint(c.B.Tokens))
	row("shingles", fmt.Sprintf("%d distinct", c.A.Shingles), fmt.Sprintf("%d distinct", c.B.Shingles))
	row("simhash", fmt.Sprintf("%016x", c.A.SimHash), fmt.Sprintf("%016x", c.B.SimHash))
	tw.Flush()

	fmt.Fprintln(w)
	tw = tabwriter.NewWriter(w, 0, 0, 2, ' ', 0)
	kv := func(k, format string, args ...any) { fmt.Fprintf(tw, "%s\t%s\n", k, fmt.Sprintf(format, args...)) }
	kv("shingling", "%s", c.Opt.Shingle)
	kv("hamming distance", "%d of 64 bits", c.Hamming)
	kv("jaccard (minhash)", "%.4f  estimate from %d permutations", c.Estimate, c.Opt.Perms)
	kv("jaccard (exact)", "%.4f  %d shared of %d distinct shingles", c.Jaccard, c.Inter, c.Union)
	kv("cosine tf", "%.4f  token vectors", c.CosineTF)
	kv("cosine tf-idf", "%.4f  token vectors, IDF from %s", c.CosineTFIDF, c.IDFSource)
	kv("only in A", "%s", tokenList(c.A.Only, c.A.OnlyTotal, " "))
	kv("only in B", "%s", tokenList(c.B.Only, c.B.OnlyTotal, " "))
	if c.CJK {
		kv("gse words A", "%s", tokenList(c.A.Words, c.A.WordsTotal, " / "))
		kv("gse words B", "%s", tokenList(c.B.Words, c.B.WordsTotal, " / "))
	}
	kv("verdict (jaccard)", "%s", c.jaccardVerdict())
	kv("verdict (simhash)", "%s", c.simhashVerdict())
	tw.Flush()
}

func (c *comparison) jaccardVerdict() string {
	if c.Union == 0 {
		return "near-duplicate: no (no shingles: a document has no tokens)"
	}
	op := "<"
	if c.NearDup() {
		op = ">="
	}
	return fmt.Sprintf("near-duplicate: %s (Jaccard %.4f %s %.2f)", yesNo(c.NearDup()), c.Jaccard, op, c.Opt.Threshold)
}

func (c *comparison) simhashVerdict() string {
	if c.A.Tokens == 0 || c.B.Tokens == 0 {
		return "near-duplicate: no (a document has no tokens)"
	}
	op := ">"
	if c.SimHashNearDup() {
		op = "<="
	}
	return fmt.Sprintf("near-duplicate: %s (Hamming %d %s %d)", yesNo(c.SimHashNearDup()), c.Hamming, op, c.Opt.Hamming)
}

func yesNo(b bool) string {
	if b {
		return "yes"
	}
	return "no"
}

// tokenList joins tokens with sep, quoting none, and says how many more
// there are; "(none)" for no tokens.
func tokenList(toks []string, total int, sep string) string {
	if total == 0 {
		return "(none)"
	}
	s := strings.Join(toks, sep)
	if more := total - len(toks); more > 0 {
		s += fmt.Sprintf(" … (%d more)", more)
	}
	return s
}
