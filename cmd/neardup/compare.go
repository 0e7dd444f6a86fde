package main

import (
	"bytes"
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"os"
	"strings"
	"text/tabwriter"

	"github.com/neardup/neardup/cmd/neardup/internal/inputs"
	"github.com/neardup/neardup/transforms/format/rank"
	"github.com/neardup/neardup/transforms/format/record"
	"github.com/neardup/neardup/transforms/graph/greedy"
	"github.com/neardup/neardup/transforms/job"
	"github.com/neardup/neardup/transforms/match/compare"
)

const compareUsage = `usage: neardup compare [flags] FILE_A FILE_B
       neardup compare --text [flags] 'text a' 'text b'
       neardup compare --jsonl FILE.jsonl [flags] ID_A ID_B

Compare prints every similarity measure neardup knows for two documents, side
by side, computed by the same code as 'neardup run': the SimHash of each and
their Hamming distance, the Jaccard similarity estimated from MinHash sketches
and the exact Jaccard of the shingle sets, the containment of each shingle
set in the other (how much of one document lies inside the other), the
cosine similarity of TF and of
TF-IDF token vectors, the tokens only one of them has, and the verdict at
--threshold and --hamming. For Chinese text it also shows gse's segmentation.

A document is a whole file (FILE_A, FILE_B; .gz is decompressed; a file
that is not UTF-8 text, such as a binary file, is refused), a string
(--text), or a record of a JSONL file found by its id (--jsonl, with
--id-field and --text-field).

Examples:

	neardup compare a.txt b.txt
	neardup compare --text 'the quick brown fox jumps' 'the quick brown fox jumped'
	neardup compare --jsonl ../shared/corpus/dev.jsonl d000140 d009907
	neardup compare --shingle word:5 --text '我们今天去公园散步' '我们明天去公园散步'

Flags:
`

// compareFlags are the flags of 'neardup compare'.
type compareFlags struct {
	opt                             compare.Options
	text                            bool
	jsonl, idField, textField, keep string
}

func newCompareFlags() (*flag.FlagSet, *compareFlags) {
	fs := flag.NewFlagSet("compare", flag.ContinueOnError)
	f := &compareFlags{opt: compare.DefaultOptions()}
	fs.BoolVar(&f.text, "text", false, "the two arguments are the texts themselves, not file names")
	fs.StringVar(&f.jsonl, "jsonl", "", "the two arguments are ids of records in this JSONL file (.gz is decompressed)")
	fs.StringVar(&f.idField, "id-field", record.DefaultIDField, "--jsonl: field holding the document id")
	fs.StringVar(&f.textField, "text-field", record.DefaultTextField, "--jsonl: field holding the document text")
	fs.StringVar(&f.opt.Shingle, "shingle", f.opt.Shingle, "shingles: char:N (CJK characters, words elsewhere) or word:N (gse words for CJK)")
	fs.Float64Var(&f.opt.Threshold, "threshold", f.opt.Threshold, "Jaccard similarity at or above which two documents are near-duplicates")
	fs.IntVar(&f.opt.Hamming, "hamming", f.opt.Hamming, "SimHash: largest Hamming distance of near-duplicates (bits of 64)")
	fs.IntVar(&f.opt.Perms, "perms", f.opt.Perms, "MinHash permutations")
	fs.StringVar(&f.keep, "keep", "longest", "which of the two a run keeps, with each one's key: longest, first, field:NAME or\nfield:-NAME (with --jsonl)")
	fs.BoolVar(&f.opt.FoldScript, "fold-script", f.opt.FoldScript, "fold Chinese text to one script (Traditional to Simplified) before comparing, as 'neardup run' does")
	fs.Usage = func() { fmt.Fprint(fs.Output(), compareUsage); printGrouped(fs.Output(), fs, nil) }
	return fs, f
}

// compareMain runs 'neardup compare': two documents in, the comparison on stdout.
func compareMain(args []string) error {
	fs, f := newCompareFlags()
	usage := fs.Usage // parseInterspersed prints nothing
	pos, err := parseInterspersed(fs, args)
	if errors.Is(err, flag.ErrHelp) {
		fs.SetOutput(os.Stdout)
		usage()
		return nil
	}
	if err != nil {
		return err
	}
	if len(pos) != 2 {
		return usagef("want two documents, got %d argument(s) (see 'neardup help compare')", len(pos))
	}
	if f.text && f.jsonl != "" {
		return usagef("--text and --jsonl exclude each other")
	}
	keep, err := job.ParseKeep(f.keep)
	if err == nil && keep.Order == job.KeepField && f.jsonl == "" {
		err = fmt.Errorf("--keep %v: a field needs records: --jsonl", keep)
	}
	if err != nil {
		return usageError{err}
	}
	var a, b document
	switch {
	case f.text:
		a, b = document{Name: "text A", Text: pos[0]}, document{Name: "text B", Text: pos[1], Index: 1}
	case f.jsonl != "":
		cfg := job.Config{Format: record.JSONL, IDField: f.idField, TextField: f.textField, Keep: keep}
		if err := inputs.CheckFields(context.Background(), &cfg, map[string]bool{"id-field": true}, []string{f.jsonl}); err != nil {
			return usageError{err}
		}
		keep = cfg.Keep
		a, b, err = readRecords(f.jsonl, f.idField, f.textField, keepField(keep), pos[0], pos[1])
	default:
		a, b, err = readFiles(pos[0], pos[1])
	}
	if err != nil {
		return err
	}
	r, err := compare.Texts(a.Text, b.Text, f.opt)
	if err != nil {
		return err
	}
	printComparison(os.Stdout, a.Name, b.Name, r, keepVerdict(keep, a, b))
	return nil
}

// keepField is the field that ranks documents under keep, if any.
func keepField(keep job.Keep) rank.Field {
	if keep.Order != job.KeepField {
		return rank.Field{}
	}
	return rank.Field{Name: keep.Field, Type: keep.Type, Desc: keep.Desc}
}

// keepVerdict says each document's key under keep and which of the two a
// run keeps (greedy.Compare), should they be near-duplicates.
func keepVerdict(keep job.Keep, a, b document) string {
	key := func(d document) string {
		switch keep.Order {
		case job.KeepLongest:
			return fmt.Sprintf("%d bytes", len(d.Text))
		case job.KeepField:
			if v, ok := keepField(keep).Value(d.Rank); ok {
				return fmt.Sprint(v)
			}
			return "none (ranks last)"
		}
		return fmt.Sprintf("input position %d", d.Index+1)
	}
	node := func(d document) greedy.Node {
		return greedy.Node{Doc: uint64(d.Index), Rank: d.Rank, Len: int64(len(d.Text))}
	}
	kept := a.Name
	if greedy.Compare(node(b), node(a), keep.Order != job.KeepFirst) < 0 {
		kept = b.Name
	}
	return fmt.Sprintf("--keep %v: A %s, B %s; %s is kept", keep, key(a), key(b), kept)
}

// parseInterspersed parses args with fs, allowing flags after positional
// arguments ("compare a b --threshold 0.9"), and returns the positional ones.
// A "--" ends the flags.
func parseInterspersed(fs *flag.FlagSet, args []string) ([]string, error) {
	var pos []string
	for {
		if err := parseQuiet(fs, args); err != nil {
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

// document is one side of a comparison: a name and its raw text, its
// position among the inputs and its rank under a field (--keep).
type document struct {
	Name, Text string
	Index      int64
	Rank       rank.Key
}

// readFiles reads two whole files as documents; a .gz file is decompressed.
func readFiles(pa, pb string) (document, document, error) {
	var docs [2]document
	for i, p := range []string{pa, pb} {
		text, err := readWhole(p)
		if err != nil {
			return document{}, document{}, fmt.Errorf("reading document %c: %w", 'A'+i, err)
		}
		docs[i] = document{Name: p, Text: text, Index: int64(i)}
	}
	return docs[0], docs[1], nil
}

// readWhole reads a whole file as one document; a compressed file is
// decompressed. A file that 'neardup run --format text' rejects for what
// it holds (not UTF-8: a binary file) is refused with the reason; an
// empty or blank one is a document without tokens.
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
	var bad *record.Reject
	opt := record.Options{Format: record.Text, MaxDocBytes: max(len(b), 1)}
	err = record.Read(bytes.NewReader(b), path, opt, func(record.Doc) error { return nil }, func(rj record.Reject) error {
		if rj.Reason != record.ReasonEmptyText && bad == nil {
			bad = &rj
		}
		return nil
	})
	switch {
	case err != nil:
		return "", err
	case bad != nil:
		return "", fmt.Errorf("%s: not a text document ('neardup run' rejects it as %s)", bad.Detail, bad.Reason)
	}
	return string(b), nil
}

// errFound stops record.Read once both records are found.
// readRecords finds the records with ids ia and ib in a JSONL file. Each
// id must name one record: an id that occurs more than once is an error
// naming it.
func readRecords(path, idField, textField string, keep rank.Field, ia, ib string) (document, document, error) {
	f, err := os.Open(path)
	if err != nil {
		return document{}, document{}, err
	}
	defer f.Close()
	r, err := record.Decompress(path, f)
	if err != nil {
		return document{}, document{}, err
	}
	found := map[string]document{}
	seen := map[string]int{}
	opt := record.Options{Format: record.JSONL, IDField: idField, TextField: textField, Keep: keep}
	err = record.Read(r, path, opt, func(d record.Doc) error {
		if d.ID == ia || d.ID == ib {
			if seen[d.ID]++; seen[d.ID] == 1 {
				found[d.ID] = document{Name: d.ID, Text: d.Text, Index: d.Index, Rank: d.Rank}
			}
		}
		return nil
	}, func(record.Reject) error { return nil })
	if err != nil {
		return document{}, document{}, err
	}
	for _, id := range []string{ia, ib} {
		switch seen[id] {
		case 0:
			return document{}, document{}, fmt.Errorf("%s: no record with %s %q%s", path, idField, id, inputs.LacksField(path, idField, textField))
		case 1:
		default:
			return document{}, document{}, fmt.Errorf("%s: %d records with %s %q: an id must name one record", path, seen[id], idField, id)
		}
	}
	return found[ia], found[ib], nil
}

// printComparison writes the comparison of documents named a and b as
// aligned "measure  A  B" rows, then the verdicts and which is kept.
func printComparison(w io.Writer, a, b string, c *compare.Result, kept string) {
	tw := tabwriter.NewWriter(w, 0, 0, 2, ' ', 0)
	row := func(name, a, b string) { fmt.Fprintf(tw, "%s\t%s\t%s\n", name, a, b) }
	row("", "A", "B")
	row("document", a, b)
	row("bytes", fmt.Sprint(c.A.Bytes), fmt.Sprint(c.B.Bytes))
	row("tokens", fmt.Sprint(c.A.Tokens), fmt.Sprint(c.B.Tokens))
	row("shingles", fmt.Sprintf("%d distinct", c.A.Shingles), fmt.Sprintf("%d distinct", c.B.Shingles))
	row("simhash", fmt.Sprintf("%016x", c.A.SimHash), fmt.Sprintf("%016x", c.B.SimHash))
	tw.Flush()
	fmt.Fprintln(w)
	tw = tabwriter.NewWriter(w, 0, 0, 2, ' ', 0)
	kv := func(k, format string, args ...any) { fmt.Fprintf(tw, "%s\t%s\n", k, fmt.Sprintf(format, args...)) }
	kv("shingling", "%s", c.Options.Shingle)
	kv("script", "%s", scriptNote(c.Options.FoldScript))
	kv("hamming distance", "%d of 64 bits", c.Hamming)
	kv("jaccard (minhash)", "%.4f  estimate from %d permutations", c.Estimate, c.Options.Perms)
	kv("jaccard (exact)", "%.4f  %d shared of %d distinct shingles", c.Jaccard, c.Inter, c.Union)
	kv("containment", "A in B %.4f (%d of %d shingles), B in A %.4f (%d of %d)", c.ContainAB, c.Inter, c.A.Shingles, c.ContainBA, c.Inter, c.B.Shingles)
	kv("cosine tf", "%.4f  token vectors", c.CosineTF)
	kv("cosine tf-idf", "%.4f  token vectors, IDF from %s", c.CosineTFIDF, c.IDFSource)
	kv("only in A", "%s", tokenList(c.A.Only, c.A.OnlyTotal, " "))
	kv("only in B", "%s", tokenList(c.B.Only, c.B.OnlyTotal, " "))
	if c.CJK {
		kv("gse words A", "%s", tokenList(c.A.Words, c.A.WordsTotal, " / "))
		kv("gse words B", "%s", tokenList(c.B.Words, c.B.WordsTotal, " / "))
	}
	kv("verdict (jaccard)", "%s", jaccardVerdict(c))
	kv("verdict (simhash)", "%s", simhashVerdict(c))
	kv("kept", "%s", kept)
	tw.Flush()
}

// scriptNote says whether the texts were compared folded to one script.
func scriptNote(fold bool) string {
	if fold {
		return "folded: Traditional characters compared as Simplified (--fold-script)"
	}
	return "as written (--fold-script=false)"
}

// jaccardVerdict says whether c is a near-duplicate by Jaccard, and why.
func jaccardVerdict(c *compare.Result) string {
	if c.Union == 0 {
		return "near-duplicate: no (no shingles: a document has no tokens)"
	}
	op := "<"
	if c.NearDup() {
		op = ">="
	}
	return fmt.Sprintf("near-duplicate: %s (Jaccard %.4f %s %.2f)", yesNo(c.NearDup()), c.Jaccard, op, c.Options.Threshold)
}

// simhashVerdict says whether c is a near-duplicate by SimHash, and why.
func simhashVerdict(c *compare.Result) string {
	if c.A.Tokens == 0 || c.B.Tokens == 0 {
		return "near-duplicate: no (a document has no tokens)"
	}
	op := ">"
	if c.SimHashNearDup() {
		op = "<="
	}
	return fmt.Sprintf("near-duplicate: %s (Hamming %d %s %d)", yesNo(c.SimHashNearDup()), c.Hamming, op, c.Options.Hamming)
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
