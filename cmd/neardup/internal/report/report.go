// Package report writes report.html, a self-contained page that shows what a
// neardup run did: the summary counts, each named in words beside its key
// in summary.json, the rejected records by reason with a few samples
// each, the busy time of each stage, a histogram of cluster sizes and one
// of pair similarities by method, the largest clusters with their
// representative's first line and each removed member's match (method and
// similarity), and a sample of pairs with their two texts side by side,
// the differing words highlighted, each with the pair's own decision: which
// document was removed for which, or why neither was removed for the other
// (both kept, or removed for a third document).
//
// Write reads only the run's output directory (summary.json, pairs-*.jsonl,
// clusters-*.jsonl, rejects-*.jsonl) and, for the texts, the JSONL input
// files. The page needs no network: CSS is inline, charts are inline SVG,
// there is no script. The pairs and clusters files are streamed, up to one
// file a core at once: memory holds, for each file being read, the
// histogram counts, the largest clusters and the sample, not the files;
// the rejects files are read only until every reason has its
// samples. Whatever the input, the page stays small: every text, sample and
// id it shows is bounded. The same directory gives the same page, byte for
// byte, but for a pair whose diff reaches its time bound (diffTimeout).
//
// The package does not import Beam.
package report

import (
	"bytes"
	"cmp"
	_ "embed"
	"errors"
	"fmt"
	"hash/fnv"
	"html/template"
	"io"
	"math"
	"math/bits"
	"os"
	"path/filepath"
	"runtime"
	"slices"
	"strings"
	"sync"
	"unicode/utf8"

	"github.com/neardup/neardup/transforms/format/output"
	"github.com/neardup/neardup/transforms/format/record"
	"github.com/neardup/neardup/transforms/format/summary"
)

// FileName is the name of the report in the output directory.
const FileName = "report.html"

// Limits of what the report shows.
const (
	SamplePairs    = 20      // pairs shown side by side
	TopClusters    = 20      // largest clusters listed
	ShownMembers   = 8       // members listed per cluster
	MaxTextRunes   = 1 << 18 // characters of each text read and compared
	RejectSamples  = 3       // samples shown per reject reason
	maxSampleBytes = record.SampleBytes
	maxDetailBytes = 300 // of a reject's detail
	maxIDBytes     = 120 // of an id shown
	snippetRunes   = 160 // of a representative's first line
	minJaccardBin  = 0.5 // the similarity histogram covers [0.5, 1]
	binWidth       = 0.05
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
	in := make([]Input, len(inputs))
	for i, p := range inputs {
		in[i] = Input{Name: p, Path: p}
	}
	return WriteNamed(dir, dir, in, idField, textField)
}

// Input is an input file of the run: Name is its path as the run named it
// (in FILE:LINE ids), Path where its records are read, Name itself or a
// copy of it with the same lines (the run's spool copy).
type Input struct {
	Name, Path string
}

// WriteNamed is Write for outputs that are written in dir and will be
// moved to the directory name, which the page shows.
func WriteNamed(dir, name string, inputs []Input, idField, textField string) error {
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
func build(dir string, inputs []Input, idField, textField string) (*view, error) {
	sum, err := summary.ReadSummary(dir)
	if err != nil {
		return nil, wrap(err)
	}
	ps, err := scanPairs(dir)
	if err != nil {
		return nil, err
	}
	sample := ps.sample()
	want := map[string]bool{}
	for _, p := range sample {
		want[p.A], want[p.B] = true, true
	}
	cs, err := scanClusters(dir, want)
	if err != nil {
		return nil, err
	}
	for _, c := range cs.Top {
		want[c.Representative] = true
	}
	texts, note, err := readAllTexts(want, inputs, idField, textField)
	if err != nil {
		return nil, err
	}
	reasons := map[string]int64{}
	for _, in := range sum.Inputs {
		for r, n := range in.Reasons {
			reasons[r] += n
		}
	}
	var samples map[string][]output.RejectLine
	if sum.Counts[summary.StatRejected] > 0 || len(reasons) > 0 { // a reject that is no record counts in no total
		var counted map[string]int64
		counted, samples, err = scanRejects(dir, reasons)
		if err != nil {
			return nil, err
		}
		if len(sum.Inputs) == 0 {
			reasons = counted
		}
	}
	v := newView(dir, &sum, ps, cs, sample, texts, note)
	v.Rejects = rejectRows(reasons, sum.Counts[summary.StatRejected], samples)
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

// RejectReasons counts the rejected records of the rejects-*.jsonl files in
// dir by reason.
func RejectReasons(dir string) (map[string]int64, error) {
	counts := map[string]int64{}
	err := output.Each(dir, output.KindRejects, func(r *output.RejectLine) bool {
		counts[r.Reason]++
		return true
	})
	return counts, wrap(err)
}

// maxRejectReasons bounds the reasons scanRejects keeps samples of.
const maxRejectReasons = 64

// scanRejects reads the rejects files of dir, in order, for the first
// RejectSamples records of each reason, their strings cut to the page's
// bounds. With known, the counts of every reason, it stops as soon as each
// of them has its samples, and returns no counts; without, it reads every
// file and counts the records by reason.
func scanRejects(dir string, known map[string]int64) (map[string]int64, map[string][]output.RejectLine, error) {
	var counts map[string]int64
	if len(known) == 0 {
		counts = map[string]int64{}
	}
	samples := map[string][]output.RejectLine{}
	target := func(reason string) int { return int(min(known[reason], RejectSamples)) }
	missing := 0 // known reasons short of their samples
	for r := range known {
		if target(r) > 0 {
			missing++
		}
	}
	err := output.Each(dir, output.KindRejects, func(r *output.RejectLine) bool {
		if counts != nil {
			counts[r.Reason]++
		}
		list, ok := samples[r.Reason]
		if len(list) >= RejectSamples || (!ok && len(samples) >= maxRejectReasons) {
			return true
		}
		r.File = cutBytes(r.File, maxDetailBytes)
		r.Detail = cutBytes(r.Detail, maxDetailBytes)
		r.Sample = cutBytes(r.Sample, maxSampleBytes)
		samples[r.Reason] = append(list, *r)
		if len(list)+1 == target(r.Reason) {
			missing--
		}
		return counts != nil || missing > 0
	})
	return counts, samples, wrap(err)
}

// cutBytes returns s cut to at most n bytes on a rune boundary, with "…"
// standing for what was cut.
func cutBytes(s string, n int) string {
	if len(s) <= n {
		return s
	}
	i := n - len("…")
	for i > 0 && !utf8.RuneStart(s[i]) {
		i--
	}
	return s[:i] + "…"
}

// rejectHints say what a reject reason most often means when most records
// of an input have it: the input is not what the flags say.
var rejectHints = map[string]string{
	record.ReasonBadJSON:         "is it JSONL? see --format",
	record.ReasonMissingID:       "see --id-field",
	record.ReasonIDNotString:     "see --id-field",
	record.ReasonMissingText:     "see --text-field",
	record.ReasonTextNotString:   "see --text-field",
	record.ReasonEmptyText:       "see --text-field",
	record.ReasonCorruptGzip:     "damaged gzip data, or a file named .gz that is not gzip",
	record.ReasonCorruptZstd:     "damaged zstd data, or a file named .zst that is not zstd",
	record.ReasonCorruptParquet:  "the file is not Parquet (or is damaged), though its name ends in .parquet or --format parquet says so",
	record.ReasonTooFewColumns:   "is it TSV (url, title, content)? see --format",
	record.ReasonInvalidUTF8:     "is it UTF-8 text, not compressed or binary?",
	record.ReasonTooLarge:        "see --max-doc-bytes; is it one record per line?",
	record.ReasonNotAFile:        "not a regular file (a directory, a named pipe, a dangling symlink...): check --input",
	record.ReasonUnreadable:      "check the file's permissions",
	record.ReasonTrailingGarbage: "bytes after the compressed data (no record; the records before them are all read)",
}

// RejectHint is what a reject reason most often means when most records
// have it, or "".
func RejectHint(reason string) string { return rejectHints[reason] }

// wrap says that err, if any, is the report's.
func wrap(err error) error {
	if err != nil {
		return fmt.Errorf("report: %w", err)
	}
	return nil
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
	output.PairLine
	key uint64
}

// scanPairs streams dir's pairs files into a pairStats, the files in
// parallel (scanShards).
func scanPairs(dir string) (*pairStats, error) {
	parts, err := scanShards(dir, output.KindPairs, func(path string) (*pairStats, error) {
		ps := newPairStats()
		_, err := output.EachIn(path, func(p *output.PairLine) bool { ps.add(p); return true })
		return ps, err
	})
	if err != nil {
		return nil, err
	}
	ps := newPairStats()
	for _, part := range parts {
		ps.merge(part)
	}
	return ps, nil
}

func newPairStats() *pairStats { return &pairStats{Hist: map[string]*[simBins]int64{}} }

// merge adds the counts and the sample of q to ps: the same as if ps had
// read q's pairs after its own.
func (ps *pairStats) merge(q *pairStats) {
	ps.Total += q.Total
	for m, qh := range q.Hist {
		h := ps.Hist[m]
		if h == nil {
			h = new([simBins]int64)
			ps.Hist[m] = h
		}
		for i, n := range qh {
			h[i] += n
		}
	}
	for i, st := range q.strata {
		for _, s := range st {
			ps.strata[i] = keepSmallest(ps.strata[i], s, SamplePairs)
		}
	}
}

// scanShards calls scan on each of dir's output files of kind, on up to
// GOMAXPROCS goroutines at once, and returns the results in the files'
// order, or the error of the first file (in that order) that failed.
func scanShards[S any](dir, kind string, scan func(path string) (S, error)) ([]S, error) {
	files, err := output.Shards(dir, kind)
	if err != nil {
		return nil, wrap(err)
	}
	out := make([]S, len(files))
	errs := make([]error, len(files))
	next := make(chan int)
	var wg sync.WaitGroup
	for range min(runtime.GOMAXPROCS(0), len(files)) {
		wg.Go(func() {
			for i := range next {
				out[i], errs[i] = scan(files[i])
			}
		})
	}
	for i := range files {
		next <- i
	}
	close(next)
	wg.Wait()
	for _, err := range errs {
		if err != nil {
			return nil, wrap(err)
		}
	}
	return out, nil
}

func (ps *pairStats) add(p *output.PairLine) {
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
func (ps *pairStats) sample() []output.PairLine {
	var out []output.PairLine
	for round := 0; len(out) < SamplePairs; round++ {
		took := false
		for i, st := range ps.strata {
			if i == simBins && round >= maxExactSample {
				continue
			}
			if round < len(st) && len(out) < SamplePairs {
				out = append(out, st[round].PairLine)
				took = true
			}
		}
		if !took {
			break
		}
	}
	slices.SortFunc(out, func(x, y output.PairLine) int {
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
	Buckets   []int64              // clusters per size bucket
	Top       []output.ClusterLine // largest first, members cut to ShownMembers
	// Fates is what the run did with each wanted document that is in a
	// cluster (the first cluster that holds it); a wanted document in no
	// cluster is kept.
	Fates map[string]fate
	want  map[string]bool
}

// scanClusters streams dir's clusters files into a clusterStats, noting the
// fates of the wanted documents, the files in parallel (scanShards).
func scanClusters(dir string, want map[string]bool) (*clusterStats, error) {
	parts, err := scanShards(dir, output.KindClusters, func(path string) (*clusterStats, error) {
		cs := &clusterStats{Fates: map[string]fate{}, want: want}
		_, err := output.EachIn(path, func(c *output.ClusterLine) bool { cs.add(c); return true })
		return cs, err
	})
	if err != nil {
		return nil, err
	}
	cs := &clusterStats{Fates: map[string]fate{}, want: want}
	for _, part := range parts {
		cs.merge(part)
	}
	return cs, nil
}

// merge adds what q read to cs: the same as if cs had read q's clusters
// after its own.
func (cs *clusterStats) merge(q *clusterStats) {
	for id, f := range q.Fates {
		if _, seen := cs.Fates[id]; !seen {
			cs.Fates[id] = f
		}
	}
	cs.Clusters += q.Clusters
	cs.Documents += q.Documents
	for len(cs.Buckets) < len(q.Buckets) {
		cs.Buckets = append(cs.Buckets, 0)
	}
	for i, n := range q.Buckets {
		cs.Buckets[i] += n
	}
	for _, c := range q.Top {
		i, _ := slices.BinarySearchFunc(cs.Top, c, cmpClusters)
		if i < TopClusters {
			cs.Top = slices.Insert(cs.Top, i, c)
			cs.Top = cs.Top[:min(len(cs.Top), TopClusters)]
		}
	}
}

func (cs *clusterStats) add(c *output.ClusterLine) {
	if len(cs.want) > 0 {
		for _, m := range c.Members {
			if _, seen := cs.Fates[m]; cs.want[m] && !seen {
				cs.Fates[m] = fateOf(m, c)
			}
		}
	}
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
	if !slices.Contains(kept.Members, c.Representative) && len(kept.Members) > 0 {
		// Members come in order: the representative, later, takes the
		// last place shown.
		kept.Members[len(kept.Members)-1] = c.Representative
	}
	kept.Removed = nil // those of the members shown
	for _, r := range c.Removed {
		if slices.Contains(kept.Members, r.ID) {
			kept.Removed = append(kept.Removed, r)
		}
	}
	kept.Locations = nil
	cs.Top = slices.Insert(cs.Top, i, kept)
	cs.Top = cs.Top[:min(len(cs.Top), TopClusters)]
}

// cmpClusters orders clusters by size, largest first, then by id.
func cmpClusters(x, y output.ClusterLine) int {
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

// readAllTexts reads the texts of the wanted documents from the JSONL
// inputs. It returns them by id and a note for the page when texts cannot be
// shown.
func readAllTexts(want map[string]bool, inputs []Input, idField, textField string) (map[string]text, string, error) {
	if len(want) == 0 {
		return nil, "", nil
	}
	if len(inputs) == 0 {
		return nil, "Texts are not shown: the report was written without the run's JSONL input files.", nil
	}
	texts := map[string]text{}
	opt := record.Options{Format: record.JSONL, IDField: idField, TextField: textField}
	for _, in := range inputs {
		err := readTexts(in, opt, want, texts)
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
func readTexts(in Input, opt record.Options, want map[string]bool, texts map[string]text) error {
	path, name := in.Path, in.Name
	if fi, err := os.Stat(path); err != nil || !fi.Mode().IsRegular() {
		// Not a regular file (the run rejected it whole: a FIFO, which
		// opening blocks on, a dangling symlink, a directory): no texts.
		return nil
	}
	opt.Format = record.FormatFor(name, opt.Format) // a .parquet input
	lineIDs, err := hasLineIDs(path, opt)
	if err != nil {
		return fmt.Errorf("report: reading texts: %w", err)
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
	if lineIDs { // FILE:LINE ids: parse the wanted lines only
		opt.IDs = record.IDFromLine
		opt.Only = func(i int64) bool { return want[record.LineID(name, i+1)] }
		err = record.Read(r, name, opt, parsed, ignore)
		if err != nil && !errors.Is(err, errAllFound) {
			return fmt.Errorf("report: reading texts: %w", err)
		}
		return err
	}
	opt.IDs = record.IDFromField // one line at a time below
	raw := opt
	raw.Raw = true
	key := []byte(`"` + cmp.Or(opt.IDField, "id") + `"`)
	// Lines come raw; only a line whose id is wanted, or cannot be read
	// quickly, is parsed (most of the run's input is not).
	skim := func(d record.Doc) error {
		if id, ok := quickID(d.Raw, key); ok && !want[id] {
			return nil
		}
		return record.Read(bytes.NewReader(d.Raw), name, opt, parsed, ignore) // a CRLF line's "\r" is JSON white space
	}
	if opt.Format == record.Parquet { // rows, not lines: read the columns
		raw, skim = opt, parsed
	}
	err = record.Read(r, name, raw, skim, ignore)
	if err != nil && !errors.Is(err, errAllFound) {
		return fmt.Errorf("report: reading texts: %w", err)
	}
	return err
}

// errStop stops a read early.
var errStop = errors.New("stop")

// hasLineIDs reports whether the run identified the documents of the JSONL
// file at path as FILE:LINE: with --id-field ”, or when the file's first
// record has no id field (record.IDAuto decides on it).
func hasLineIDs(path string, opt record.Options) (bool, error) {
	if opt.IDField == "" {
		return true, nil
	}
	f, err := os.Open(path)
	if err != nil {
		return false, err
	}
	defer f.Close()
	r, err := record.Decompress(path, f)
	if err != nil {
		return false, err
	}
	lineIDs := false
	opt.IDs, opt.OnLineIDs = record.IDAuto, func() { lineIDs = true }
	// The decision is made by the first parsable record, at or before
	// the first good one.
	err = record.Read(r, path, opt, func(record.Doc) error { return errStop }, func(record.Reject) error { return nil })
	if err != nil && !errors.Is(err, errStop) {
		return false, err
	}
	return lineIDs, nil
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
