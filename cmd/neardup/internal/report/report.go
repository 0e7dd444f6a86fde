// Package report writes report.html, a self-contained page that shows what a
// neardup run did: the summary counts, the busy time of each stage, a
// histogram of cluster sizes and one of pair similarities by method, the
// largest clusters, and a sample of pairs with their two texts side by side
// and the differing words highlighted.
//
// Write reads only the run's output directory (summary.json, pairs-*.jsonl,
// clusters-*.jsonl) and, for the sampled pairs' texts, the JSONL input files.
// The page needs no network: CSS is inline, charts are inline SVG, there is
// no script. The pairs and clusters files are streamed: memory holds the
// histogram counts, the largest clusters and the sample, not the files.
// The same directory always gives the same page, byte for byte.
//
// The package does not import Beam.
package report

import (
	"bufio"
	"bytes"
	"cmp"
	_ "embed"
	"encoding/json"
	"errors"
	"fmt"
	"hash/fnv"
	"html/template"
	"io"
	"math"
	"math/bits"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"unicode/utf8"

	"github.com/neardup/neardup/transforms/format/record"
)

// FileName is the name of the report in the output directory.
const FileName = "report.html"

// Limits of what the report shows.
const (
	SamplePairs   = 20   // pairs shown side by side
	TopClusters   = 20   // largest clusters listed
	ShownMembers  = 8    // members listed per cluster
	MaxTextRunes  = 3000 // characters of each text shown
	minJaccardBin = 0.5  // the similarity histogram covers [0.5, 1]
	binWidth      = 0.05
)

//go:embed report.html
var pageText string

var page = template.Must(template.New("report").Parse(pageText))

// Write reads the run's outputs in dir and writes dir/report.html.
//
// inputs are the run's JSONL input files (gzip by a .gz name), read only to
// find the texts of the sampled pairs by idField and textField; with no
// inputs the report shows the pairs without texts and says so.
func Write(dir string, inputs []string, idField, textField string) error {
	return WriteNamed(dir, dir, inputs, idField, textField)
}

// WriteNamed is Write for outputs that are written in dir and will be
// moved to the directory name, which the page shows.
func WriteNamed(dir, name string, inputs []string, idField, textField string) error {
	r, err := build(dir, inputs, idField, textField)
	if err != nil {
		return err
	}
	r.Dir = name
	var buf bytes.Buffer
	if err := page.Execute(&buf, r); err != nil {
		return fmt.Errorf("report: %w", err)
	}
	return writeFile(filepath.Join(dir, FileName), buf.Bytes())
}

// build gathers everything the page shows.
func build(dir string, inputs []string, idField, textField string) (*view, error) {
	sum, err := readSummary(filepath.Join(dir, "summary.json"))
	if err != nil {
		return nil, err
	}
	ps, err := scanPairs(dir)
	if err != nil {
		return nil, err
	}
	cs, err := scanClusters(dir)
	if err != nil {
		return nil, err
	}
	sample := ps.sample()
	texts, note, err := sampleTexts(sample, inputs, idField, textField)
	if err != nil {
		return nil, err
	}
	reasons := map[string]int64{}
	for _, in := range sum.Inputs {
		for r, n := range in.Reasons {
			reasons[r] += n
		}
	}
	if len(sum.Inputs) == 0 && sum.Counts["rejected"] > 0 {
		if reasons, err = RejectReasons(dir); err != nil {
			return nil, err
		}
	}
	v := newView(dir, sum, ps, cs, sample, texts, note)
	v.Rejects = rejectRows(reasons, sum.Counts["rejected"])
	return v, nil
}

// writeFile writes data through a temporary file in the same directory and a
// rename, so that a reader never sees half a report.
func writeFile(path string, data []byte) error {
	f, err := os.CreateTemp(filepath.Dir(path), ".tmp-"+filepath.Base(path)+"-*")
	if err != nil {
		return fmt.Errorf("report: %w", err)
	}
	_, err = f.Write(data)
	if cerr := f.Close(); err == nil {
		err = cerr
	}
	if err == nil {
		err = os.Chmod(f.Name(), 0o644)
	}
	if err == nil {
		err = os.Rename(f.Name(), path)
	}
	if err != nil {
		os.Remove(f.Name())
		return fmt.Errorf("report: writing %s: %w", path, err)
	}
	return nil
}

// summary is the part of summary.json the report reads.
type summary struct {
	Counts       map[string]int64   `json:"counts"`
	Balanced     bool               `json:"balanced"`
	WallSeconds  float64            `json:"wall_seconds"`
	StageSeconds map[string]float64 `json:"stage_busy_seconds"`
	Inputs       []struct {
		Reasons map[string]int64 `json:"reject_reasons"`
	} `json:"inputs"`
}

// RejectReasons counts the rejected records of the rejects-*.jsonl files in
// dir by reason.
func RejectReasons(dir string) (map[string]int64, error) {
	counts := map[string]int64{}
	err := eachLine(dir, "rejects-*.jsonl", func(r *struct {
		Reason string `json:"reason"`
	}) {
		counts[r.Reason]++
	})
	return counts, err
}

// rejectHints say what a reject reason most often means when most records
// of an input have it: the input is not what the flags say.
var rejectHints = map[string]string{
	record.ReasonBadJSON:        "is it JSONL? see --format",
	record.ReasonMissingID:      "see --id-field",
	record.ReasonIDNotString:    "see --id-field",
	record.ReasonMissingText:    "see --text-field",
	record.ReasonTextNotString:  "see --text-field",
	record.ReasonEmptyText:      "see --text-field",
	record.ReasonCorruptGzip:    "the file is not gzip (or is damaged), though its name ends in .gz",
	record.ReasonCorruptParquet: "the file is not Parquet (or is damaged), though its name ends in .parquet or --format parquet says so",
	record.ReasonTooFewColumns:  "is it TSV (url, title, content)? see --format",
	record.ReasonInvalidUTF8:    "is it UTF-8 text, not compressed or binary?",
	record.ReasonTooLarge:       "see --max-doc-bytes; is it one record per line?",
	record.ReasonNotAFile:       "not a regular file (a directory, a named pipe, a dangling symlink...): check --input",
	record.ReasonUnreadable:     "check the file's permissions",
}

// RejectHint is what a reject reason most often means when most records
// have it, or "".
func RejectHint(reason string) string { return rejectHints[reason] }

func readSummary(path string) (*summary, error) {
	b, err := os.ReadFile(path)
	if err != nil {
		return nil, fmt.Errorf("report: %w", err)
	}
	var s summary
	if err := json.Unmarshal(b, &s); err != nil {
		return nil, fmt.Errorf("report: reading %s: %w", path, err)
	}
	return &s, nil
}

// pairLine is one line of pairs-*.jsonl.
type pairLine struct {
	A       string  `json:"a"`
	B       string  `json:"b"`
	Jaccard float64 `json:"jaccard"`
	Hamming int     `json:"hamming"`
	Method  string  `json:"method"`
}

// clusterLine is one line of clusters-*.jsonl.
type clusterLine struct {
	Cluster        string   `json:"cluster"`
	Size           int      `json:"size"`
	Representative string   `json:"representative"`
	Members        []string `json:"members"`
}

// eachLine decodes every JSON value of the files matching dir/pattern, in
// sorted order, into a fresh T and calls fn with it.
func eachLine[T any](dir, pattern string, fn func(*T)) error {
	files, err := filepath.Glob(filepath.Join(dir, pattern))
	if err != nil {
		return fmt.Errorf("report: %w", err)
	}
	slices.Sort(files)
	for _, path := range files {
		if err := decodeFile(path, fn); err != nil {
			return err
		}
	}
	return nil
}

func decodeFile[T any](path string, fn func(*T)) error {
	f, err := os.Open(path)
	if err != nil {
		return fmt.Errorf("report: %w", err)
	}
	defer f.Close()
	dec := json.NewDecoder(bufio.NewReaderSize(f, 1<<16))
	for n := 1; ; n++ {
		var v T
		err := dec.Decode(&v)
		if err == io.EOF {
			return nil
		}
		if err != nil {
			return fmt.Errorf("report: %s: record %d: %w", path, n, err)
		}
		fn(&v)
	}
}

// Similarity bins: bin 0 holds Jaccard below 0.5, bins 1..10 the 0.05-wide
// bins from 0.5 to 1 (1 itself in the last).
const simBins = 11

func simBin(j float64) int {
	if j < minJaccardBin {
		return 0
	}
	return min(1+int(math.Floor((j-minJaccardBin)/binWidth+1e-9)), simBins-1)
}

// pairStats is what the report keeps of the pairs files: the histogram by
// method and a bounded, deterministic sample.
type pairStats struct {
	Total  int64
	Hist   map[string]*[simBins]int64 // method -> counts per bin
	strata [simBins + 1][]sampled     // per bin, and exact pairs last
}

// sampled is a pair kept for the sample with its sort key.
type sampled struct {
	pairLine
	key uint64
}

// scanPairs streams dir's pairs files into a pairStats.
func scanPairs(dir string) (*pairStats, error) {
	ps := &pairStats{Hist: map[string]*[simBins]int64{}}
	err := eachLine(dir, "pairs-*.jsonl", ps.add)
	return ps, err
}

func (ps *pairStats) add(p *pairLine) {
	ps.Total++
	h := ps.Hist[p.Method]
	if h == nil {
		h = new([simBins]int64)
		ps.Hist[p.Method] = h
	}
	bin := simBin(p.Jaccard)
	h[bin]++
	stratum := bin
	if p.Method == "exact" {
		stratum = simBins
	}
	ps.strata[stratum] = keepSmallest(ps.strata[stratum], sampled{*p, pairKey(p.A, p.B)}, SamplePairs)
}

// pairKey is a hash of the pair's ids: the sample takes the smallest keys,
// which does not depend on the order of the files or their lines.
func pairKey(a, b string) uint64 {
	h := fnv.New64a()
	io.WriteString(h, a)
	h.Write([]byte{0})
	io.WriteString(h, b)
	return h.Sum64()
}

// keepSmallest adds s to the list, sorted by key, keeping at most n.
func keepSmallest(list []sampled, s sampled, n int) []sampled {
	i, _ := slices.BinarySearchFunc(list, s, cmpSampled)
	if i >= n {
		return list
	}
	list = slices.Insert(list, i, s)
	return list[:min(len(list), n)]
}

func cmpSampled(x, y sampled) int {
	if x.key != y.key {
		if x.key < y.key {
			return -1
		}
		return 1
	}
	return strings.Compare(x.A+"\x00"+x.B, y.A+"\x00"+y.B)
}

// maxExactSample is how many exact duplicates the sample shows at most: their
// texts differ only in case and white space.
const maxExactSample = 2

// sample picks up to SamplePairs pairs spread over the similarity range: one
// from each non-empty bin in turn, from the lowest Jaccard up, and at most
// maxExactSample exact duplicates, then sorts them by Jaccard.
func (ps *pairStats) sample() []pairLine {
	var out []pairLine
	for round := 0; len(out) < SamplePairs; round++ {
		took := false
		for i, st := range ps.strata {
			if i == simBins && round >= maxExactSample {
				continue
			}
			if round < len(st) && len(out) < SamplePairs {
				out = append(out, st[round].pairLine)
				took = true
			}
		}
		if !took {
			break
		}
	}
	slices.SortFunc(out, func(x, y pairLine) int {
		if x.Jaccard != y.Jaccard {
			if x.Jaccard < y.Jaccard {
				return -1
			}
			return 1
		}
		return strings.Compare(x.A+"\x00"+x.B, y.A+"\x00"+y.B)
	})
	return out
}

// Cluster size buckets: bucket i holds sizes 2^i+1 .. 2^(i+1): 2, 3-4, 5-8...
func sizeBucket(size int) int {
	if size < 2 {
		return 0
	}
	return bits.Len(uint(size-1)) - 1
}

// clusterStats is what the report keeps of the clusters files.
type clusterStats struct {
	Clusters  int64
	Documents int64
	Buckets   []int64       // clusters per size bucket
	Top       []clusterLine // largest first, members cut to ShownMembers
}

// scanClusters streams dir's clusters files into a clusterStats.
func scanClusters(dir string) (*clusterStats, error) {
	cs := &clusterStats{}
	err := eachLine(dir, "clusters-*.jsonl", cs.add)
	return cs, err
}

func (cs *clusterStats) add(c *clusterLine) {
	cs.Clusters++
	cs.Documents += int64(c.Size)
	b := sizeBucket(c.Size)
	for len(cs.Buckets) <= b {
		cs.Buckets = append(cs.Buckets, 0)
	}
	cs.Buckets[b]++
	i, _ := slices.BinarySearchFunc(cs.Top, *c, cmpClusters)
	if i >= TopClusters {
		return
	}
	kept := *c
	kept.Members = slices.Clone(c.Members[:min(len(c.Members), ShownMembers)])
	cs.Top = slices.Insert(cs.Top, i, kept)
	cs.Top = cs.Top[:min(len(cs.Top), TopClusters)]
}

// cmpClusters orders clusters by size, largest first, then by id.
func cmpClusters(x, y clusterLine) int {
	if x.Size != y.Size {
		return y.Size - x.Size
	}
	return strings.Compare(x.Cluster, y.Cluster)
}

// errAllFound stops reading the inputs once every wanted text is found.
var errAllFound = errors.New("all texts found")

// text is a document's text cut to MaxTextRunes, and how many runes were cut.
type text struct {
	Text    string
	Dropped int
}

// sampleTexts reads the texts of the sampled pairs' documents from the JSONL
// inputs. It returns them by id and a note for the page when texts cannot be
// shown.
func sampleTexts(sample []pairLine, inputs []string, idField, textField string) (map[string]text, string, error) {
	if len(sample) == 0 {
		return nil, "", nil
	}
	if len(inputs) == 0 {
		return nil, "Texts are not shown: the report was written without the run's JSONL input files.", nil
	}
	want := map[string]bool{}
	for _, p := range sample {
		want[p.A], want[p.B] = true, true
	}
	texts := map[string]text{}
	opt := record.Options{Format: record.JSONL, IDField: idField, TextField: textField}
	for _, path := range inputs {
		err := readTexts(path, opt, want, texts)
		if errors.Is(err, errAllFound) {
			break
		}
		if err != nil {
			return nil, "", err
		}
	}
	return texts, "", nil
}

// readTexts adds to texts the text of every wanted id in one input file that
// is not there yet, and returns errAllFound when none is missing any more.
func readTexts(path string, opt record.Options, want map[string]bool, texts map[string]text) error {
	if fi, err := os.Stat(path); err != nil || !fi.Mode().IsRegular() {
		// Not a regular file (the run rejected it whole: a FIFO, which
		// opening blocks on, a dangling symlink, a directory): no texts.
		return nil
	}
	f, err := os.Open(path)
	if err != nil {
		return fmt.Errorf("report: reading texts: %w", err)
	}
	defer f.Close()
	r, err := record.Decompress(path, f)
	if err != nil {
		return fmt.Errorf("report: reading texts: %w", err)
	}
	opt.Format = record.FormatFor(path, opt.Format) // a .parquet input
	parsed := func(d record.Doc) error {
		if _, done := texts[d.ID]; want[d.ID] && !done {
			t, dropped := cut(d.Text, MaxTextRunes)
			texts[d.ID] = text{strings.Clone(t), dropped}
			if len(texts) == len(want) {
				return errAllFound
			}
		}
		return nil
	}
	ignore := func(record.Reject) error { return nil }
	raw := opt
	raw.Raw = true
	key := []byte(`"` + cmp.Or(opt.IDField, "id") + `"`)
	// Lines come raw; only a line whose id is wanted, or cannot be read
	// quickly, is parsed (most of the run's input is not).
	skim := func(d record.Doc) error {
		if id, ok := quickID(d.Raw, key); ok && !want[id] {
			return nil
		}
		return record.Read(bytes.NewReader(d.Raw), path, opt, parsed, ignore)
	}
	if opt.Format == record.Parquet { // rows, not lines: read the columns
		raw, skim = opt, parsed
	}
	err = record.Read(r, path, raw, skim, ignore)
	if err != nil && !errors.Is(err, errAllFound) {
		return fmt.Errorf("report: reading texts: %w", err)
	}
	return err
}

// quickID returns the value of the JSON object key key (quoted) in line when
// it can tell it without parsing: the key, right after "{" or "," and
// followed by ":", appears once, and its value is a string without escapes.
// Otherwise ok is false. An unescaped quote always delimits a JSON string,
// so a key found so is never inside another value.
func quickID(line, key []byte) (id string, ok bool) {
	v := findKey(line, key)
	if v < 0 || line[v] != '"' {
		return "", false // absent, or not a string: let the parser say
	}
	end := bytes.IndexAny(line[v+1:], "\"\\")
	if end < 0 || line[v+1+end] != '"' {
		return "", false // escapes: let the parser read it
	}
	if findKey(line[v+2+end:], key) >= 0 {
		return "", false // the key twice: let the parser decide
	}
	return string(line[v+1 : v+1+end]), true
}

// findKey returns the index in line of the value of the first object key
// key (see quickID), or -1.
func findKey(line, key []byte) int {
	const space = " \t\r\n"
	for off := 0; ; {
		i := bytes.Index(line[off:], key)
		if i < 0 {
			return -1
		}
		i += off
		off = i + len(key)
		before := bytes.TrimRight(line[:i], space)
		if len(before) == 0 || (before[len(before)-1] != '{' && before[len(before)-1] != ',') {
			continue
		}
		rest := bytes.TrimLeft(line[off:], space)
		if len(rest) == 0 || rest[0] != ':' {
			continue
		}
		rest = bytes.TrimLeft(rest[1:], space)
		if len(rest) == 0 {
			return -1
		}
		return len(line) - len(rest)
	}
}

// cut returns the first max runes of s and how many runes it dropped.
func cut(s string, max int) (string, int) {
	n := 0
	for i := range s {
		if n == max {
			return s[:i], utf8.RuneCountInString(s[i:])
		}
		n++
	}
	return s, 0
}
