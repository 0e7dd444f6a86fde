package report

import (
	"cmp"
	"fmt"
	"slices"
	"strings"

	"github.com/neardup/neardup/transforms/format/output"
	"github.com/neardup/neardup/transforms/format/record"
	"github.com/neardup/neardup/transforms/format/summary"
)

// view is the data the page template prints; every string in it is escaped
// by html/template.
type view struct {
	Dir           string
	Headline      []stat
	AllCounts     []stat
	Balanced      bool
	Wall          string
	Stages        *chart
	Sizes         *chart
	Clusters      string // how many, with separators
	Clustered     string
	Sims          *chart
	Legend        []legendItem
	Pairs         string
	Top           []topCluster
	Sample        []pairView
	TextNote      string
	MaxTextRunes  string
	MaxShownRunes string
	RejectSamples int
	Rejects       []rejectRow // by reason, most frequent first
}

// rejectRow is the number of rejected records with one reason, and the
// first few of them.
type rejectRow struct {
	Reason, Count, Share, Hint string
	Samples                    []rejectSample
}

// rejectSample is one rejected record: where it is, what failed, and the
// start of the record.
type rejectSample struct {
	Where, Detail, Sample string
}

// rejectRows lists the reasons, most frequent first, with their share of
// all rejected records and their samples.
func rejectRows(reasons map[string]int64, rejected int64, samples map[string][]output.RejectLine) []rejectRow {
	names := make([]string, 0, len(reasons))
	for r := range reasons {
		names = append(names, r)
	}
	slices.SortFunc(names, func(a, b string) int { return cmp.Or(cmp.Compare(reasons[b], reasons[a]), strings.Compare(a, b)) })
	rows := make([]rejectRow, 0, len(names))
	for _, r := range names {
		share := ""
		if rejected > 0 && record.IsRecord(r) {
			share = fmt.Sprintf("%.1f%%", 100*float64(reasons[r])/float64(rejected))
		}
		row := rejectRow{Reason: r, Count: commas(reasons[r]), Share: share, Hint: RejectHint(r)}
		for _, s := range samples[r] {
			where := s.File
			if s.Line > 0 {
				where = fmt.Sprintf("%s:%d", s.File, s.Line)
			}
			// The detail names the file and line first: they are shown apart.
			detail := strings.TrimPrefix(strings.TrimPrefix(s.Detail, where), ": ")
			row.Samples = append(row.Samples, rejectSample{Where: where, Detail: detail, Sample: s.Sample})
		}
		rows = append(rows, row)
	}
	return rows
}

// stat is one named count.
type stat struct {
	Name, Value, Note string
	Key               string // name in summary.json
	About             string // what it counts, when the name does not say it all
}

type legendItem struct{ Class, Name string }

type topCluster struct {
	Rank                    int
	Cluster, Representative string
	Size                    string
	Snippet                 string // the first line of the representative's text
	SnippetNote             string // why there is none, or that it is cut
	Members                 []member
	More                    string // "and N more", or ""
}

// member is a document listed in a cluster; Kept is the representative.
// Match says how a removed member was matched, Via the exact duplicate it
// was removed through ("" for none).
type member struct {
	ID, Via string
	Kept    bool
	Match   string
}

// pairView is one sampled pair with its texts diffed.
type pairView struct {
	N               int
	A, B            string
	KeptA, KeptB    string   // the badges: badgeKept, badgeRemoved or badgeRemovedOther
	Decision        sentence // which was removed for which, or why neither was
	Jaccard, Method string
	// JaccardName and ContainmentName name the similarities: "Jaccard"
	// and "containment", with "estimate" after them for the MinHash
	// estimates.
	JaccardName, ContainmentName string
	Containment                  string // with the contained side, for a containment pair
	Hamming                      int
	HasText                      bool
	Rows                         []row
	NoteA, NoteB                 string // text missing or cut
	DiffNote                     string // the diff reached its time bound
}

// headline lists the counts shown first, in this order, by summary key.
var headline = []string{
	summary.StatInput, summary.StatRejected, summary.StatExactDups, summary.StatCandidates,
	summary.StatVerified, summary.StatClusters, summary.StatKept, summary.StatRemoved,
}

// countNames names each count of summary.json as the page shows it: what
// it counts, and more about it where the name does not say it all.
var countNames = map[string]struct{ name, about string }{
	summary.StatInput:                         {"input records", "records read from the input files, rejected ones included"},
	summary.StatBytes:                         {"input bytes", "bytes of the input records as decoded"},
	summary.StatRejected:                      {"records rejected", "records that could not be used: see the rejects"},
	summary.StatDocuments:                     {"documents", "records not rejected"},
	summary.StatExactDups:                     {"exact duplicates", `documents whose normalized text another document has: a pairs line each, "jaccard": 1`},
	summary.StatSigned:                        {"documents signed", "MinHash and SimHash computed: the documents less their exact duplicates"},
	summary.StatNoShingles:                    {"documents without shingles", "too short to shingle: never near-duplicates"},
	summary.StatTruncated:                     {"documents cut to --max-tokens", "signed and compared on their first tokens"},
	summary.StatKeys:                          {"block keys (candidate buckets joined)", "LSH band and SimHash table keys of all documents"},
	summary.StatBuckets:                       {"buckets of two or more documents", "block keys shared by documents"},
	summary.StatHot:                           {"hot buckets", "buckets too large to compare every pair: each document is compared with a few"},
	summary.StatSkipped:                       {"comparisons skipped in hot buckets", ""},
	summary.StatFar:                           {"SimHash pairs too far apart", "pairs of a SimHash table bucket more than k bits apart, dropped"},
	summary.StatCandidates:                    {"candidate pairs checked", "pairs that share a block key"},
	summary.StatVerified:                      {"verified pairs", "candidate pairs found near-duplicates"},
	summary.StatByEstimate:                    {"verified by the MinHash estimate", `pairs lines with "jaccard_estimate"`},
	summary.StatByExact:                       {"verified by exact Jaccard", `of the pairs the estimate could not decide: pairs lines with "jaccard"`},
	summary.StatUnsure:                        {"pairs checked by exact Jaccard", "the estimate could not decide them at --confidence"},
	summary.StatClusters:                      {"clusters", "a kept document and the documents removed for it"},
	summary.StatClustered:                     {"documents in clusters", ""},
	summary.StatRemoved:                       {"removed", "documents left out of the deduplicated copy"},
	summary.StatRemainder:                     {"component edges left to the final union-find", "edges of components the star rounds did not settle (--cc-rounds)"},
	summary.StatComponents:                    {"connected components of the pairs", ""},
	summary.StatKept:                          {"kept", "documents written to the deduplicated copy"},
	summary.StatSegments:                      {"segments verified", "the Verify pass's units of work (its parallelism)"},
	summary.StatSignSegments:                  {"segments signed", "the Signatures pass's units of work (its parallelism)"},
	summary.StatReadUnits:                     {"read units", "the Read pass's units of work: a file, or a range of a large one"},
	summary.StatContainmentPairs:              {"containment pairs", "pairs of a document inside another (--containment)"},
	summary.StatRemovedContainment:            {"removed for a containment pair", ""},
	summary.StatContainSmall:                  {"documents too small for containment", "fewer distinct shingles than --containment-min-size"},
	output.KindPairs + summary.LinesSuffix:    {"lines in pairs-*.jsonl", "exact duplicates + verified exactly + verified by estimate"},
	output.KindClusters + summary.LinesSuffix: {"lines in clusters-*.jsonl", ""},
	output.KindRejects + summary.LinesSuffix:  {"lines in rejects-*.jsonl", ""},
}

// countStat is the count key of summary.json of value n, named for the
// page; a count the page has no name for is named by its key.
func countStat(key string, n int64) stat {
	s := stat{Name: strings.ReplaceAll(key, "_", " "), Value: commas(n), Key: key}
	if c, ok := countNames[key]; ok {
		s.Name, s.About = c.name, c.about
	}
	return s
}

// methodOrder is the order of match methods in the similarity chart.
var methodOrder = []string{"exact", "minhash", "simhash", "containment"}

// newView turns what build gathered into the page's data.
func newView(dir string, sum *summary.Summary, ps *pairStats, cs *clusterStats, sample []output.PairLine, texts map[string]text, note string) *view {
	v := &view{
		Dir:           dir,
		Balanced:      sum.Balanced,
		Wall:          fmt.Sprintf("%.1f s", sum.WallSeconds),
		Clusters:      commas(cs.Clusters),
		Clustered:     commas(cs.Documents),
		Pairs:         commas(ps.Total),
		TextNote:      note,
		MaxTextRunes:  commas(MaxTextRunes),
		MaxShownRunes: commas(MaxShownRunes),
		RejectSamples: RejectSamples,
	}
	v.Headline, v.AllCounts = counts(sum.Counts)
	v.Stages = stageChart(sum.StageSeconds)
	v.Sizes = sizeChart(cs.Buckets)
	v.Sims, v.Legend = simChart(ps.Hist)
	v.Top = topClusters(cs.Top, texts, note)
	v.Sample = pairViews(sample, cs.Fates, texts, note == "")
	return v
}

// counts returns the headline counts (with the share removed) and every
// count of the summary by name.
func counts(c map[string]int64) (head, all []stat) {
	for _, key := range headline {
		s := countStat(key, c[key])
		if key == summary.StatRemoved && c[summary.StatInput] > 0 {
			s.Note = fmt.Sprintf("%.1f%% of input", 100*float64(c["removed"])/float64(c["input_records"]))
		}
		head = append(head, s)
	}
	keys := make([]string, 0, len(c))
	for k := range c {
		keys = append(keys, k)
	}
	slices.Sort(keys)
	for _, k := range keys {
		all = append(all, countStat(k, c[k]))
	}
	return head, all
}

// stageChart draws busy seconds per stage, busiest first; nil when the
// runner reported none.
func stageChart(secs map[string]float64) *chart {
	if len(secs) == 0 {
		return nil
	}
	bars := make([]bar, 0, len(secs))
	for name, s := range secs {
		bars = append(bars, bar{Name: name, Value: s, Text: fmt.Sprintf("%.2f s", s)})
	}
	slices.SortFunc(bars, func(x, y bar) int {
		if x.Value != y.Value {
			if x.Value > y.Value {
				return -1
			}
			return 1
		}
		return strings.Compare(x.Name, y.Name)
	})
	c := hbarChart(bars, 560)
	return &c
}

// sizeChart draws the number of clusters per size bucket; nil for no
// clusters.
func sizeChart(buckets []int64) *chart {
	if len(buckets) == 0 {
		return nil
	}
	cols := make([]column, len(buckets))
	for i, n := range buckets {
		lo, hi := 1<<i+1, 1<<(i+1)
		name := fmt.Sprintf("%d–%d", lo, hi)
		if lo == hi {
			name = fmt.Sprint(lo)
		}
		cols[i] = column{Label: name, Segments: []segment{{Value: n, Class: "bar", Title: fmt.Sprintf("size %s: %s clusters", name, commas(n))}}}
	}
	c := vbarChart(cols, 560, 260, "documents per cluster")
	return &c
}

// simChart draws the pairs per Jaccard bin, stacked by method, and returns
// the legend; nil for no pairs. The bin below 0.5 appears only when it
// holds pairs.
func simChart(hist map[string]*[simBins]int64) (*chart, []legendItem) {
	if len(hist) == 0 {
		return nil, nil
	}
	methods := slices.Clone(methodOrder)
	var extra []string
	for m := range hist {
		if !slices.Contains(methods, m) {
			extra = append(extra, m)
		}
	}
	slices.Sort(extra)
	methods = append(methods, extra...)
	var legend []legendItem
	for _, m := range methods {
		if hist[m] != nil {
			legend = append(legend, legendItem{Class: methodClass(m), Name: m})
		}
	}
	var cols []column
	for bin := range simBins {
		col := column{Label: binLabel(bin)}
		for _, m := range methods {
			if h := hist[m]; h != nil {
				col.Segments = append(col.Segments, segment{Value: h[bin], Class: methodClass(m),
					Title: fmt.Sprintf("Jaccard %s, %s: %s pairs", binRange(bin), m, commas(h[bin]))})
			}
		}
		if bin == 0 && col.total() == 0 {
			continue
		}
		cols = append(cols, col)
	}
	c := vbarChart(cols, 760, 260, "Jaccard similarity, exact or estimated as each pair gives it (bins 0.05 wide; 1.0 in the last)")
	return &c, legend
}

func methodClass(m string) string {
	if slices.Contains(methodOrder, m) {
		return "m-" + m
	}
	return "m-other"
}

func binStart(bin int) float64 { return minJaccardBin + binWidth*float64(bin-1) }

func binLabel(bin int) string {
	if bin == 0 {
		return "<.50"
	}
	return strings.TrimPrefix(fmt.Sprintf("%.2f", binStart(bin)), "0")
}

func binRange(bin int) string {
	if bin == 0 {
		return "below 0.50"
	}
	hi := fmt.Sprintf("%.2f)", binStart(bin)+binWidth)
	if bin == simBins-1 {
		hi = "1.00]"
	}
	return fmt.Sprintf("[%.2f, %s", binStart(bin), hi)
}

// topClusters lists the largest clusters with their representative's
// first line; note says why there are no texts at all.
func topClusters(top []output.ClusterLine, texts map[string]text, note string) []topCluster {
	out := make([]topCluster, len(top))
	for i, c := range top {
		tc := topCluster{Rank: i + 1, Cluster: shortID(c.Cluster), Representative: shortID(c.Representative), Size: commas(int64(c.Size))}
		for _, m := range c.Members {
			mv := member{ID: shortID(m), Kept: m == c.Representative}
			if f := fateOf(m, &c); f.Match != nil {
				mv.Match, mv.Via = matchText(f.Match), shortID(f.Match.Via)
			}
			tc.Members = append(tc.Members, mv)
		}
		if more := c.Size - len(c.Members); more > 0 {
			tc.More = fmt.Sprintf("and %s more", commas(int64(more)))
		}
		if t, ok := texts[c.Representative]; ok {
			tc.Snippet = firstLine(t.Text)
		} else if note == "" {
			tc.SnippetNote = "text not found in the input files"
		}
		out[i] = tc
	}
	return out
}

// firstLine returns the first line of s with text in it, cut to
// snippetRunes with "…" standing for the rest of the line.
func firstLine(s string) string {
	for line := range strings.Lines(s) {
		if line = strings.TrimSpace(line); line != "" {
			if short := prefix(line, snippetRunes); short != line {
				return short + "…"
			}
			return line
		}
	}
	return ""
}

// shortID cuts an id to maxIDBytes for the page.
func shortID(id string) string { return cutBytes(id, maxIDBytes) }

// pairViews says what the run decided about each sampled pair (fates are
// those of its documents in clusters: a document in none is kept) and
// diffs their texts; withText is false when the texts could not be read
// at all.
func pairViews(sample []output.PairLine, fates map[string]fate, texts map[string]text, withText bool) []pairView {
	out := make([]pairView, len(sample))
	for i, p := range sample {
		pv := pairView{N: i + 1, A: shortID(p.A), B: shortID(p.B),
			Jaccard: fmt.Sprintf("%.4f", p.Jaccard), Hamming: p.Hamming, Method: p.Method,
			JaccardName: simName("Jaccard", p.Estimated), ContainmentName: simName("containment", p.Estimated)}
		pv.Decision, pv.KeptA, pv.KeptB = decision(p.A, p.B, fates[p.A], fates[p.B], p.Method)
		if p.Method == "containment" {
			pv.Containment = fmt.Sprintf("%.4f", p.Containment)
			switch p.Contained {
			case output.ContainedA:
				pv.Containment += " (left inside right)"
			case output.ContainedB:
				pv.Containment += " (right inside left)"
			}
		}
		ta, okA := texts[p.A]
		tb, okB := texts[p.B]
		pv.NoteA, pv.NoteB = textNote(okA, ta), textNote(okB, tb)
		if withText {
			pv.HasText = true
			chunks, timedOut := align(ta.Text, tb.Text)
			pv.Rows = sideBySide(chunks)
			if timedOut {
				pv.DiffNote = fmt.Sprintf("the diff reached its time bound (%v): some common words may be marked as changed", diffTimeout)
			}
		}
		out[i] = pv
	}
	return out
}

func textNote(found bool, t text) string {
	switch {
	case !found:
		return "text not found in the input files"
	case t.Dropped > 0:
		return fmt.Sprintf("first %s characters compared, %s more not compared", commas(MaxTextRunes), commas(int64(t.Dropped)))
	}
	return ""
}
