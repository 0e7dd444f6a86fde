package report

import (
	"bytes"
	"compress/gzip"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"reflect"
	"runtime"
	"slices"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/neardup/neardup/transforms/format/output"
	"github.com/neardup/neardup/transforms/format/record"
)

// writeFiles writes name -> content into dir; names ending in .gz are
// gzip-compressed.
func writeFiles(t *testing.T, dir string, files map[string]string) {
	t.Helper()
	for name, content := range files {
		data := []byte(content)
		if strings.HasSuffix(name, ".gz") {
			var buf bytes.Buffer
			zw := gzip.NewWriter(&buf)
			zw.Write(data)
			zw.Close()
			data = buf.Bytes()
		}
		if err := os.WriteFile(filepath.Join(dir, name), data, 0o644); err != nil {
			t.Fatal(err)
		}
	}
}

func jsonLines(t *testing.T, vs ...any) string {
	t.Helper()
	var b strings.Builder
	for _, v := range vs {
		line, err := json.Marshal(v)
		if err != nil {
			t.Fatal(err)
		}
		b.Write(line)
		b.WriteByte('\n')
	}
	return b.String()
}

// makeRun writes a small hand-made output directory and its two input
// files (one gzipped) and returns their paths.
func makeRun(t *testing.T) (dir string, inputs []string) {
	t.Helper()
	dir, in := t.TempDir(), t.TempDir()
	writeFiles(t, dir, map[string]string{
		"summary.json": `{"counts": {"input_records": 12345, "rejected": 7, "exact_duplicates": 3, "candidate_pairs": 40,
			"verified_pairs": 5, "clusters": 4, "kept": 12000, "removed": 338}, "balanced": true, "wall_seconds": 12.25,
			"stage_busy_seconds": {"Signatures": 8.5, "Read": 2, "Verify": 0.25}}`,
		"pairs-00000.jsonl": jsonLines(t,
			output.PairLine{A: "d1", B: "d2", Jaccard: 0.8123, Hamming: 5, Method: "minhash"},
			output.PairLine{A: "d3", B: "d4", Jaccard: 1, Hamming: 0, Method: "exact"},
			output.PairLine{A: "d5", B: "d6", Jaccard: 0.83, Hamming: 9, Method: "minhash"},
		),
		"pairs-00001.jsonl": jsonLines(t,
			output.PairLine{A: "d7", B: "d8", Jaccard: 0.9712, Hamming: 2, Method: "minhash"},
			output.PairLine{A: "d9", B: "d10", Jaccard: 0.66, Estimated: true, Hamming: 3, Method: "simhash"},
			output.PairLine{A: "d12", B: "d11", Jaccard: 1, Hamming: 0, Method: "exact"},
		),
		"clusters-00000.jsonl": jsonLines(t,
			output.ClusterLine{Cluster: "d1", Size: 2, Representative: "d1", Members: []string{"d1", "d2"},
				Removed: []output.RemovedMember{{ID: "d2", Method: "minhash", Jaccard: 0.8123, Hamming: 5}}},
			// d11 and d12 are exact duplicates: d12 is removed through d11.
			output.ClusterLine{Cluster: "d3", Size: 4, Representative: "d4", Members: []string{"d3", "d4", "d11", "d12"},
				Removed: []output.RemovedMember{{ID: "d3", Method: "exact", Jaccard: 1}, {ID: "d11", Method: "minhash", Jaccard: 0.91, Hamming: 3},
					{ID: "d12", Method: "minhash", Jaccard: 0.91, Hamming: 3, Via: "d11"}}},
			// d5 is removed for d50, not for d6, its pair in the sample.
			output.ClusterLine{Cluster: "d5", Size: 2, Representative: "d50", Members: []string{"d5", "d50"},
				Removed: []output.RemovedMember{{ID: "d5", Method: "minhash", Jaccard: 0.85, Hamming: 4}}},
		),
		"clusters-00001.jsonl": jsonLines(t,
			output.ClusterLine{Cluster: "d20", Size: 12, Representative: "d25", Members: []string{"d20", "d21", "d22", "d23", "d24", "d25", "d26", "d27", "d28", "d29", "d30", "d31"},
				Removed: []output.RemovedMember{{ID: "d20", Method: "minhash", Jaccard: 0.9, Hamming: 2}, {ID: "d21", Method: "minhash", Jaccard: 0.9, Hamming: 2},
					{ID: "d22", Method: "minhash", Jaccard: 0.9, Hamming: 2}, {ID: "d23", Method: "minhash", Jaccard: 0.9, Hamming: 2},
					{ID: "d24", Method: "minhash", Jaccard: 0.9, Hamming: 2}, {ID: "d26", Method: "containment", Containment: 0.95, Jaccard: 0.41, Hamming: 20},
					{ID: "d27", Method: "exact", Jaccard: 1}, {ID: "d28", Method: "minhash", Jaccard: 0.9, Hamming: 2},
					{ID: "d29", Method: "minhash", Jaccard: 0.9, Hamming: 2}, {ID: "d30", Method: "minhash", Jaccard: 0.9, Hamming: 2},
					{ID: "d31", Method: "minhash", Jaccard: 0.9, Hamming: 2}}},
			output.ClusterLine{Cluster: "d7", Size: 2, Representative: "d7", Members: []string{"d7", "d8"},
				Removed: []output.RemovedMember{{ID: "d8", Method: "minhash", Jaccard: 0.9712, Hamming: 2}}},
			output.ClusterLine{Cluster: "d40", Size: 2, Representative: "d41", Members: []string{"d40", "d41"},
				Removed: []output.RemovedMember{{ID: "d40", Method: "minhash", Jaccard: 0.88, Hamming: 6}}},
		),
	})
	writeFiles(t, in, map[string]string{
		"a.jsonl": jsonLines(t,
			map[string]string{"id": "d1", "text": "the quick brown fox jumps over the lazy dog"},
			map[string]string{"id": "d3", "text": "Same text"},
			map[string]string{"id": "d5", "text": "x <script>alert(1)</script> & more"},
			map[string]string{"id": "d7", "text": "pack my box with five dozen liquor jugs"},
			map[string]string{"id": "d25", "text": "\n  First <b>line</b> here\nsecond line"},
		),
		"b.jsonl.gz": jsonLines(t,
			map[string]string{"id": "d2", "text": "the quick brown cat jumps over the lazy dog"},
			map[string]string{"id": "d4", "text": "same   text"},
			map[string]string{"id": "d6", "text": "x <script>alert(2)</script> & more"},
			map[string]string{"id": "d8", "text": "pack my box with five dozen liquor jugs!"},
		),
	})
	return dir, []string{filepath.Join(in, "a.jsonl"), filepath.Join(in, "b.jsonl.gz")}
}

func readReport(t *testing.T, dir string) string {
	t.Helper()
	b, err := os.ReadFile(filepath.Join(dir, FileName))
	if err != nil {
		t.Fatal(err)
	}
	return string(b)
}

func TestWrite(t *testing.T) {
	dir, inputs := makeRun(t)
	if err := Write(dir, inputs, "id", "text"); err != nil {
		t.Fatal(err)
	}
	html := readReport(t, dir)
	for _, want := range []string{
		// counts
		`<div class="v">12,345</div><div class="n">input records</div>`,
		`<div class="v">338</div><div class="n">removed · 2.7% of input</div>`,
		`<div class="v">7</div><div class="n">records rejected</div>`,
		`<div class="card" title="candidate_pairs in summary.json: pairs that share a block key"><div class="v">40</div><div class="n">candidate pairs checked</div>`,
		// every count by its name, its key beside it
		`<tr><td>candidate pairs checked <span class="about">· pairs that share a block key</span></td><td class="num">40</td><td><code class="key" title="candidate_pairs in summary.json">candidate_pairs</code></td></tr>`,
		`<div class="v">yes</div><div class="n">balanced</div>`,
		"wall time 12.2 s",
		"6 clusters covering 24 documents",
		"6 pairs in pairs-*.jsonl",
		// bars: stages, cluster sizes (2, 3-4, 5-8, 9-16), similarity by method
		"<title>Signatures: 8.50 s</title>",
		"<title>size 2: 4 clusters</title>",
		"<title>size 3–4: 1 clusters</title>",
		"<title>size 9–16: 1 clusters</title>",
		"<title>Jaccard [0.80, 0.85), minhash: 2 pairs</title>",
		"<title>Jaccard [0.95, 1.00], exact: 2 pairs</title>",
		"<title>Jaccard [0.65, 0.70), simhash: 1 pairs</title>",
		`class="m-simhash"`,
		// largest cluster first, its representative kept with its first
		// line (escaped), members cut, the kept one marked, each removed
		// one with the pair that removed it
		`<td class="num">1</td><td class="num">12</td><td><code>d25</code><span class="kept">kept</span><div class="snippet">First &lt;b&gt;line&lt;/b&gt; here</div></td>`,
		`<div class="member"><code>d24</code> <span class="how">minhash, Jaccard 0.9000, Hamming 2</span></div>
<div class="member"><code class="k">d25</code> kept</div>
<div class="member"><code>d26</code> <span class="how">containment 0.9500, Jaccard 0.4100, Hamming 20</span></div>
<div class="member"><code>d27</code> <span class="how">exact duplicate</span></div>
<div class="member">and 4 more</div>`,
		`<div class="member"><code>d12</code> <span class="how">through its exact duplicate <code>d11</code>: minhash, Jaccard 0.9100, Hamming 3</span></div>`,
		// the representative of a cluster whose text is not in the inputs
		`<code>d41</code><span class="kept">kept</span><div class="note">text not found in the input files</div>`,
		// what the run decided about each sample pair, and the badges of
		// its sides: d2 is removed for d1, d3 for d4, d5 for d50 (not d6),
		// d11 and d12 for d4; d9 and d10 are in no cluster: kept, as every
		// document of a pair that nothing was removed for.
		`<div class="decision"><code>d2</code> removed for <code>d1</code> by this pair; <code>d1</code> kept</div>`,
		`<code>d1</code><span class="kept">kept</span></div><div class="side b id"><code>d2</code><span class="removed">removed</span>`,
		`<div class="decision"><code>d3</code> removed for <code>d4</code> by this pair; <code>d4</code> kept</div>`,
		`<code>d3</code><span class="removed">removed</span></div><div class="side b id"><code>d4</code><span class="kept">kept</span>`,
		`<div class="decision">neither was removed for the other: <code>d5</code> removed for <code>d50</code> (minhash, Jaccard 0.8500, Hamming 4); <code>d6</code> kept</div>`,
		`<code>d5</code><span class="removed other">removed for another</span></div><div class="side b id"><code>d6</code><span class="kept">kept</span></div>`,
		`<div class="decision">neither was removed for the other: both were removed for <code>d4</code>: <code>d12</code> through its exact duplicate <code>d11</code> (minhash, Jaccard 0.9100, Hamming 3); <code>d11</code> (minhash, Jaccard 0.9100, Hamming 3)</div>`,
		`<code>d12</code><span class="removed other">removed for another</span></div><div class="side b id"><code>d11</code><span class="removed other">removed for another</span></div>`,
		`<div class="decision">both kept: neither was removed for the other</div>`,
		`<code>d9</code><span class="kept">kept</span></div><div class="side b id"><code>d10</code><span class="kept">kept</span></div>`,
		// texts escaped, the difference highlighted
		"x &lt;script&gt;alert(<mark>1</mark>)&lt;/script&gt; &amp; more",
		"x &lt;script&gt;alert(<mark>2</mark>)&lt;/script&gt; &amp; more",
		"the quick brown <mark>fox</mark> jumps over the lazy dog",
		"the quick brown <mark>cat</mark> jumps over the lazy dog",
		"liquor jugs<mark>!</mark>",
	} {
		if !strings.Contains(html, want) {
			t.Errorf("report lacks %q", want)
		}
	}
	for _, bad := range []string{"<script>", "http://", "https://", "<link", "@import"} {
		if strings.Contains(html, bad) {
			t.Errorf("report contains %q", bad)
		}
	}
	// The sample runs from the lowest Jaccard up, each named exact or
	// estimated as its line has it.
	if i, j := strings.Index(html, "Jaccard estimate <b>0.6600"), strings.Index(html, "<span>Jaccard <b>0.9712"); i < 0 || j < i {
		t.Errorf("sample not sorted by Jaccard (0.66 at %d, 0.9712 at %d)", i, j)
	}
}

func TestWriteDeterministic(t *testing.T) {
	dir, inputs := makeRun(t)
	if err := Write(dir, inputs, "id", "text"); err != nil {
		t.Fatal(err)
	}
	first := readReport(t, dir)
	if err := Write(dir, inputs, "id", "text"); err != nil {
		t.Fatal(err)
	}
	if readReport(t, dir) != first {
		t.Error("two reports of the same directory differ")
	}
	entries, _ := os.ReadDir(dir)
	for _, e := range entries {
		if strings.HasPrefix(e.Name(), ".tmp-") {
			t.Errorf("temporary file %s left behind", e.Name())
		}
	}
}

func TestWriteWithoutTexts(t *testing.T) {
	tests := []struct {
		name   string
		inputs func([]string) []string
		want   string
	}{
		{"no inputs", func([]string) []string { return nil }, "Texts are not shown"},
		{"ids not in inputs", func(in []string) []string { return in[:1] }, "text not found in the input files"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			dir, inputs := makeRun(t)
			if err := Write(dir, tt.inputs(inputs), "id", "text"); err != nil {
				t.Fatal(err)
			}
			if html := readReport(t, dir); !strings.Contains(html, tt.want) {
				t.Errorf("report lacks %q", tt.want)
			}
		})
	}
}

func TestWriteEmptyRun(t *testing.T) {
	dir := t.TempDir()
	writeFiles(t, dir, map[string]string{"summary.json": `{"counts": {"input_records": 3, "kept": 3}, "balanced": true}`})
	if err := Write(dir, nil, "id", "text"); err != nil {
		t.Fatal(err)
	}
	html := readReport(t, dir)
	for _, want := range []string{"No clusters.", "No pairs.", "The runner reported no stage times."} {
		if !strings.Contains(html, want) {
			t.Errorf("report lacks %q", want)
		}
	}
}

func TestWriteErrors(t *testing.T) {
	tests := []struct {
		name  string
		files map[string]string
		want  string
	}{
		{"no summary", map[string]string{}, "summary.json"},
		{"bad summary", map[string]string{"summary.json": "{"}, "summary.json"},
		{"bad pairs", map[string]string{"summary.json": "{}", "pairs-00000.jsonl": "{\"a\":\"x\"}\nnot json\n"}, "pairs-00000.jsonl: record 2"},
		{"bad clusters", map[string]string{"summary.json": "{}", "clusters-00000.jsonl": "[1]\n"}, "clusters-00000.jsonl: record 1"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			dir := t.TempDir()
			writeFiles(t, dir, tt.files)
			err := Write(dir, nil, "id", "text")
			if err == nil || !strings.Contains(err.Error(), tt.want) {
				t.Errorf("Write error %v, want one containing %q", err, tt.want)
			}
		})
	}
}

// marked renders spans with [brackets] around changes and {n} for elided
// runes.
func marked(ss []span) string {
	var b strings.Builder
	for _, s := range ss {
		switch {
		case s.Elided > 0:
			fmt.Fprintf(&b, "{%d}", s.Elided)
		case s.Changed:
			b.WriteString("[" + s.Text + "]")
		default:
			b.WriteString(s.Text)
		}
	}
	return b.String()
}

func TestDiff(t *testing.T) {
	tests := []struct {
		name, a, b string
		wantA      string
		wantB      string
	}{
		{"equal", "same text", "same text", "same text", "same text"},
		{"one word", "the quick brown fox", "the quick red fox", "the quick [brown] fox", "the quick [red] fox"},
		{"phrase is one mark", "a b c d", "a x y d", "a [b c] d", "a [x y] d"},
		{"insertion", "a d", "a b c d", "a d", "a [b c] d"},
		{"white space differs only", "a  b\nc", "a b c", "a  b\nc", "a b c"},
		{"punctuation", "end.", "end!", "end[.]", "end[!]"},
		{"cjk characters", "寒雨连江夜入吴", "寒风连江夜入吴", "寒[雨]连江夜入吴", "寒[风]连江夜入吴"},
		{"empty side", "", "new words", "", "[new words]"},
		{"case counts", "Hello world", "hello world", "[Hello] world", "[hello] world"},
		{"no highlight across lines", "a b\n  c d", "a x\n  y d", "a [b]\n  [c] d", "a [x]\n  [y] d"},
		{"a comma between two different sentences", "one two three four, five six seven eight", "nine ten eleven twelve, thirteen fourteen fifteen sixteen",
			"[one two three four, five six seven eight]", "[nine ten eleven twelve, thirteen fourteen fifteen sixteen]"},
		{"a common word between one-word changes stays", "a b c d e", "a x c y e", "a [b] c [d] e", "a [x] c [y] e"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			sa, sb := diff(tt.a, tt.b)
			if got := marked(sa); got != tt.wantA {
				t.Errorf("A = %q, want %q", got, tt.wantA)
			}
			if got := marked(sb); got != tt.wantB {
				t.Errorf("B = %q, want %q", got, tt.wantB)
			}
			if joined(sa) != tt.a || joined(sb) != tt.b {
				t.Errorf("spans do not give back the texts: %q, %q", joined(sa), joined(sb))
			}
		})
	}
}

func joined(ss []span) string {
	var b strings.Builder
	for _, s := range ss {
		b.WriteString(s.Text)
	}
	return b.String()
}

func TestBins(t *testing.T) {
	sims := []struct {
		j    float64
		want int
	}{{0, 0}, {0.4999, 0}, {0.5, 1}, {0.5499, 1}, {0.55, 2}, {0.8, 7}, {0.85, 8}, {0.9499, 9}, {0.95, 10}, {1, 10}}
	for _, tt := range sims {
		if got := simBin(tt.j); got != tt.want {
			t.Errorf("simBin(%v) = %d, want %d", tt.j, got, tt.want)
		}
	}
	sizes := []struct{ size, want int }{{2, 0}, {3, 1}, {4, 1}, {5, 2}, {8, 2}, {9, 3}, {16, 3}, {17, 4}, {1024, 9}, {1025, 10}}
	for _, tt := range sizes {
		if got := sizeBucket(tt.size); got != tt.want {
			t.Errorf("sizeBucket(%d) = %d, want %d", tt.size, got, tt.want)
		}
	}
}

func TestSample(t *testing.T) {
	var pairs []output.PairLine
	for i := range 500 {
		j := 0.5 + float64(i%50)/100
		m := "minhash"
		if i%5 == 0 {
			j, m = 1, "exact"
		}
		pairs = append(pairs, output.PairLine{A: fmt.Sprintf("a%d", i), B: fmt.Sprintf("b%d", i), Jaccard: j, Method: m})
	}
	sampleOf := func(ps []output.PairLine) []output.PairLine {
		st := &pairStats{Hist: map[string]*[simBins]int64{}}
		for i := range ps {
			st.add(&ps[i])
		}
		return st.sample()
	}
	got := sampleOf(pairs)
	reversed := slices.Clone(pairs)
	slices.Reverse(reversed)
	if !slices.Equal(got, sampleOf(reversed)) {
		t.Error("sample depends on the order of the pairs")
	}
	if len(got) != SamplePairs {
		t.Fatalf("sample has %d pairs, want %d", len(got), SamplePairs)
	}
	bins, exact := map[int]bool{}, 0
	for i, p := range got {
		bins[simBin(p.Jaccard)] = true
		if p.Method == "exact" {
			exact++
		}
		if i > 0 && got[i-1].Jaccard > p.Jaccard {
			t.Errorf("sample not sorted at %d", i)
		}
	}
	if exact > maxExactSample {
		t.Errorf("%d exact pairs in the sample, want at most %d", exact, maxExactSample)
	}
	if len(bins) < 10 {
		t.Errorf("sample covers %d similarity bins, want all 10", len(bins))
	}
}

func TestTopClusters(t *testing.T) {
	cs := &clusterStats{}
	for i := range 30 {
		members := make([]string, 2+i%13)
		for k := range members {
			members[k] = fmt.Sprintf("c%d-%d", i, k)
		}
		// The representative is the last member: shown even when the
		// members are cut.
		cs.add(&output.ClusterLine{Cluster: fmt.Sprintf("c%02d", i), Size: len(members), Representative: members[len(members)-1], Members: members})
	}
	if len(cs.Top) != TopClusters || cs.Clusters != 30 {
		t.Fatalf("kept %d of %d clusters, want %d of 30", len(cs.Top), cs.Clusters, TopClusters)
	}
	for i, c := range cs.Top {
		if len(c.Members) > ShownMembers {
			t.Errorf("cluster %s keeps %d members", c.Cluster, len(c.Members))
		}
		if !slices.Contains(c.Members, c.Representative) {
			t.Errorf("cluster %s: representative %s not among the members shown %q", c.Cluster, c.Representative, c.Members)
		}
		if i > 0 && cmpClusters(cs.Top[i-1], c) > 0 {
			t.Errorf("clusters out of order at %d: %s (%d) before %s (%d)", i, cs.Top[i-1].Cluster, cs.Top[i-1].Size, c.Cluster, c.Size)
		}
	}
	if cs.Top[0].Cluster != "c12" || cs.Top[1].Cluster != "c25" || cs.Top[0].Size != 14 {
		t.Errorf("largest cluster %s of size %d, then %s; want c12 of size 14, then c25", cs.Top[0].Cluster, cs.Top[0].Size, cs.Top[1].Cluster)
	}
}

func TestFormatting(t *testing.T) {
	commasTests := []struct {
		n    int64
		want string
	}{{0, "0"}, {999, "999"}, {1000, "1,000"}, {1234567, "1,234,567"}, {-12345, "-12,345"}}
	for _, tt := range commasTests {
		if got := commas(tt.n); got != tt.want {
			t.Errorf("commas(%d) = %q, want %q", tt.n, got, tt.want)
		}
	}
	stepTests := []struct{ x, want float64 }{{0, 1}, {0.3, 1}, {3, 5}, {12, 20}, {250, 500}, {1000, 1000}}
	for _, tt := range stepTests {
		if got := niceStep(tt.x); got != tt.want {
			t.Errorf("niceStep(%v) = %v, want %v", tt.x, got, tt.want)
		}
	}
}

// TestQuickID: where quickID reads an id, the record parser reads the same
// one, on the lines of the sample and on tricky lines; where it cannot
// tell, it says so.
func TestQuickID(t *testing.T) {
	key := []byte(`"id"`)
	tricky := map[string]struct {
		id string
		ok bool
	}{
		`{"id": "a", "text": "x"}`:                        {"a", true},
		`{"text": "say \"id\": \"b\"", "id":"c"}`:         {"c", true},
		`{"text": "a,", "id" : "d"}`:                      {"d", true},
		`{"kind": "id", "id": "e"}`:                       {"e", true},
		`{"list": ["id", "x"], "id": "f"}`:                {"f", true},
		`{"id": "g\"h", "text": "x"}`:                     {"", false},
		`{"id": 7, "text": "x"}`:                          {"", false},
		`{"id": "i", "id": "j", "text": "x"}`:             {"", false},
		`{"text": "no key"}`:                              {"", false},
		`{"nested": {"id": "k"}, "id": "l", "text": "x"}`: {"", false},
	}
	for line, want := range tricky {
		id, ok := quickID([]byte(line), key)
		if id != want.id || ok != want.ok {
			t.Errorf("quickID(%s) = %q, %v; want %q, %v", line, id, ok, want.id, want.ok)
		}
	}
	for _, path := range []string{"../../../../testdata/sample/sample-0.jsonl", "../../../../testdata/bad/bad.jsonl"} {
		b, err := os.ReadFile(path)
		if err != nil {
			t.Fatal(err)
		}
		n := 0
		err = record.Read(bytes.NewReader(b), path, record.Options{Format: record.JSONL}, func(d record.Doc) error {
			if id, ok := quickID(d.Raw, key); ok {
				n++
				if id != d.ID {
					t.Errorf("%s line %d: quickID %q, parser %q", path, d.Index+1, id, d.ID)
				}
			}
			return nil
		}, func(record.Reject) error { return nil })
		if err != nil {
			t.Fatal(err)
		}
		if path == "../../../../testdata/sample/sample-0.jsonl" && n == 0 {
			t.Errorf("%s: quickID read no id", path)
		}
	}
}

// TestWriteRejects: the page lists the rejects by reason, most frequent
// first, with a hint: from summary.json's per-file counts when it has them,
// else from the rejects files.
func TestWriteRejects(t *testing.T) {
	rejects := `{"file":"a","line":1,"reason":"missing_id"}` + "\n" + `{"file":"a","line":2,"reason":"bad_json"}` + "\n" +
		`{"file":"a","line":3,"reason":"bad_json"}` + "\n"
	for name, files := range map[string]map[string]string{
		"rejects files": {"summary.json": `{"counts": {"input_records": 5, "rejected": 3, "kept": 2}, "balanced": true}`,
			"rejects-00000.jsonl": rejects},
		"summary inputs": {"summary.json": `{"counts": {"input_records": 5, "rejected": 3, "kept": 2}, "balanced": true,
			"inputs": [{"index": 0, "path": "a", "records": 5, "rejected": 3, "bytes": 9, "reject_reasons": {"bad_json": 2, "missing_id": 1}}]}`},
	} {
		dir := t.TempDir()
		writeFiles(t, dir, files)
		if err := WriteNamed(dir, "/final/out", nil, "id", "text"); err != nil {
			t.Fatal(err)
		}
		html := readReport(t, dir)
		bad := strings.Index(html, `<tr><td><code>bad_json</code></td><td class="num">2</td><td class="num">66.7%</td><td>is it JSONL? see --format</td></tr>`)
		missing := strings.Index(html, `<tr><td><code>missing_id</code></td><td class="num">1</td><td class="num">33.3%</td><td>see --id-field</td></tr>`)
		if bad < 0 || missing < bad || !strings.Contains(html, "<title>neardup report: /final/out</title>") {
			t.Errorf("%s: rejects by reason missing or out of order (%d, %d), or the page does not name /final/out", name, bad, missing)
		}
	}
}

// TestReadTextsNotAFile (issue 19, D8): inputs the run rejected whole (a
// named pipe, which opening blocks on, a dangling symlink) give no texts
// and no error.
func TestReadTextsNotAFile(t *testing.T) {
	dir := t.TempDir()
	fifo, dangling := filepath.Join(dir, "fifo.jsonl"), filepath.Join(dir, "dangling.jsonl")
	if err := syscall.Mkfifo(fifo, 0o644); err != nil {
		t.Skipf("no FIFO here: %v", err)
	}
	if err := os.Symlink(filepath.Join(dir, "nowhere"), dangling); err != nil {
		t.Fatal(err)
	}
	done := make(chan error, 2)
	go func() {
		for _, path := range []string{fifo, dangling} {
			done <- readTexts(Input{Name: path, Path: path}, record.Options{}, map[string]bool{"x": true}, map[string]text{})
		}
	}()
	for range 2 {
		select {
		case err := <-done:
			if err != nil {
				t.Errorf("readTexts: %v", err)
			}
		case <-time.After(10 * time.Second):
			if f, err := os.OpenFile(fifo, os.O_WRONLY, 0); err == nil {
				f.Close() // let the blocked open go
			}
			t.Fatal("readTexts hangs on a named pipe")
		}
	}
}

// TestRejectSamples: the rejects section shows the first RejectSamples
// records of each reason with their place, detail and sample, escaped and
// cut to their bounds; with the counts in summary.json, the rejects files
// are read only until every reason has its samples (the damaged second
// file is never reached).
func TestRejectSamples(t *testing.T) {
	long := strings.Repeat("x", 5000)
	var rejects []any
	for i := range 5 {
		rejects = append(rejects, output.RejectLine{File: "in.jsonl", Line: int64(i + 1), Reason: "bad_json",
			Detail: fmt.Sprintf("in.jsonl:%d: bad <b>JSON</b> %d", i+1, i), Sample: fmt.Sprintf(`{"id": "<script>alert(%d)</script>`, i)})
	}
	rejects = append(rejects, output.RejectLine{File: "in.jsonl", Line: 6, Reason: "too_large", Detail: "in.jsonl:6: too large", Sample: long})
	dir := t.TempDir()
	writeFiles(t, dir, map[string]string{
		"summary.json": `{"counts": {"input_records": 16, "rejected": 6, "kept": 10}, "balanced": true,
			"inputs": [{"index": 0, "path": "in.jsonl", "records": 16, "rejected": 6, "bytes": 9, "reject_reasons": {"bad_json": 5, "too_large": 1}}]}`,
		"rejects-00000.jsonl": jsonLines(t, rejects...),
		"rejects-00001.jsonl": "not json\n",
	})
	if err := Write(dir, nil, "id", "text"); err != nil {
		t.Fatal(err)
	}
	html := readReport(t, dir)
	for i := range 5 {
		want := fmt.Sprintf(`<div class="rs"><code class="where">in.jsonl:%d</code> bad &lt;b&gt;JSON&lt;/b&gt; %d<pre>{&#34;id&#34;: &#34;&lt;script&gt;alert(%d)&lt;/script&gt;</pre></div>`, i+1, i, i)
		if got := strings.Contains(html, want); got != (i < RejectSamples) {
			t.Errorf("sample %d shown: %v, want %v (%s)", i, got, i < RejectSamples, want)
		}
	}
	cutSample := strings.Repeat("x", maxSampleBytes-len("…")) + "…"
	if !strings.Contains(html, `<code class="where">in.jsonl:6</code> too large<pre>`+cutSample+`</pre>`) {
		t.Errorf("the long sample is not shown cut to %d bytes", maxSampleBytes)
	}
	if strings.Contains(html, "<script>") || strings.Contains(html, long[:maxSampleBytes+1]) {
		t.Error("a sample is shown unescaped or uncut")
	}

	// Without the counts the files are read whole, and the damaged line
	// is named.
	writeFiles(t, dir, map[string]string{"summary.json": `{"counts": {"input_records": 16, "rejected": 6, "kept": 10}, "balanced": true}`})
	if err := Write(dir, nil, "id", "text"); err == nil || !strings.Contains(err.Error(), "rejects-00001.jsonl: record 1") {
		t.Errorf("Write error %v, want one naming rejects-00001.jsonl", err)
	}
}

// TestOutputFiles: the page reads the output shards of a kind compressed
// or not, in order, and nothing else.
func TestOutputFiles(t *testing.T) {
	dir := t.TempDir()
	writeFiles(t, dir, map[string]string{
		"pairs-00001.jsonl.gz":  jsonLines(t, output.PairLine{A: "a", B: "b", Jaccard: 0.9, Hamming: 1, Method: "minhash"}),
		"pairs-00000.jsonl":     jsonLines(t, output.PairLine{A: "c", B: "d", Jaccard: 0.8, Hamming: 2, Method: "minhash"}),
		"pairs-00002.jsonl.bak": "junk",
		"pairs.txt":             "junk",
		"summary.json":          `{"counts": {}}`,
	})
	files, err := output.Shards(dir, output.KindPairs)
	if err != nil {
		t.Fatal(err)
	}
	want := []string{filepath.Join(dir, "pairs-00000.jsonl"), filepath.Join(dir, "pairs-00001.jsonl.gz")}
	if !slices.Equal(files, want) {
		t.Errorf("output.Shards = %q, want %q", files, want)
	}
	ps, err := scanPairs(dir)
	if err != nil || ps.Total != 2 {
		t.Errorf("scanPairs read %d pairs (%v), want 2", ps.Total, err)
	}
}

// TestWriteBounded: however large the texts, ids and reject samples, the
// page stays small: 20 pairs of 50 kB near duplicates with long ids, and
// long rejects.
func TestWriteBounded(t *testing.T) {
	dir, in := t.TempDir(), t.TempDir()
	longID := func(i int) string { return fmt.Sprintf("%s-%d", strings.Repeat("id", 500), i) }
	var pairs, docs, rejects []any
	for i := range SamplePairs {
		ws := randomWords(uint64(i), 8000)
		ws2, _ := edited(ws, 20)
		a, b := longID(2*i), longID(2*i+1)
		pairs = append(pairs, output.PairLine{A: a, B: b, Jaccard: 0.5 + float64(i)/40, Hamming: 3, Method: "minhash"})
		docs = append(docs, map[string]string{"id": a, "text": strings.Join(ws, " ")}, map[string]string{"id": b, "text": strings.Join(ws2, " ")})
	}
	for i := range 100 {
		rejects = append(rejects, output.RejectLine{File: strings.Repeat("f", 1000), Line: int64(i), Reason: fmt.Sprintf("reason_%d", i%10),
			Detail: strings.Repeat("d", 5000), Sample: strings.Repeat("s", 5000)})
	}
	writeFiles(t, dir, map[string]string{
		"summary.json":         `{"counts": {"input_records": 140, "rejected": 100, "kept": 40}, "balanced": true}`,
		"pairs-00000.jsonl":    jsonLines(t, pairs...),
		"clusters-00000.jsonl": jsonLines(t, output.ClusterLine{Cluster: longID(0), Size: 2, Representative: longID(0), Members: []string{longID(0), longID(1)}}),
		"rejects-00000.jsonl":  jsonLines(t, rejects...),
	})
	writeFiles(t, in, map[string]string{"in.jsonl": jsonLines(t, docs...)})
	if err := Write(dir, []string{filepath.Join(in, "in.jsonl")}, "id", "text"); err != nil {
		t.Fatal(err)
	}
	html := readReport(t, dir)
	// 20 pairs × 2 sides × MaxShownRunes (120 kB) and their marks, ten
	// reasons × 3 samples of about 700 bytes: a bound of 400 kB leaves room.
	t.Logf("report of %d bytes for %.1f MB of texts", len(html), float64(2*SamplePairs*50_000)/1e6)
	if len(html) > 400_000 {
		t.Errorf("report of %d bytes, want at most 400 kB", len(html))
	}
	if n := strings.Count(html, "more characters not shown"); n != 2*SamplePairs {
		t.Errorf("%d sides say their rest is not shown, want %d", n, 2*SamplePairs)
	}
}

// TestWriteRejectsNoRecord: a reject that is no record (trailing garbage
// after a file's compressed data) is listed with its hint and no share of
// the rejected records, even when no record was rejected.
func TestWriteRejectsNoRecord(t *testing.T) {
	dir := t.TempDir()
	writeFiles(t, dir, map[string]string{
		"summary.json": `{"counts": {"input_records": 2, "rejected": 0, "kept": 2}, "balanced": true,
			"inputs": [{"index": 0, "path": "a.gz", "records": 2, "rejected": 0, "bytes": 9, "reject_reasons": {"trailing_garbage": 1}}]}`,
		"rejects-00000.jsonl": `{"file":"a.gz","line":0,"offset":20,"reason":"trailing_garbage","detail":"a.gz: trailing garbage"}` + "\n",
	})
	if err := WriteNamed(dir, "/final/out", nil, "id", "text"); err != nil {
		t.Fatal(err)
	}
	html := readReport(t, dir)
	row := `<tr><td><code>trailing_garbage</code></td><td class="num">1</td><td class="num"></td><td>` + RejectHint(record.ReasonTrailingGarbage) + `</td></tr>`
	if RejectHint(record.ReasonTrailingGarbage) == "" || !strings.Contains(html, row) {
		t.Errorf("the report does not list the trailing_garbage reject as %s", row)
	}
}

// TestReadTextsCRLF: the texts of CRLF lines, which come raw with their
// CR before the wanted ones are parsed, are those of a full read.
func TestReadTextsCRLF(t *testing.T) {
	path := filepath.Join(t.TempDir(), "in.jsonl")
	data := "{\"id\":\"u1\",\"text\":\"first\"}\r\n{\"id\":\"u2\",\"text\":\"second\"}\r\n"
	if err := os.WriteFile(path, []byte(data), 0o644); err != nil {
		t.Fatal(err)
	}
	texts, _, err := readAllTexts(map[string]bool{"u2": true}, []Input{{Name: path, Path: path}}, "id", "text")
	if err != nil {
		t.Fatal(err)
	}
	if got := texts["u2"].Text; got != "second" {
		t.Errorf("text of u2 %q, want \"second\"", got)
	}
}

// TestScanShardsInParallel: the pairs and clusters files read in parallel
// give what reading them one after the other gives: the counts, the sample,
// the largest clusters and, for a wanted document in two clusters, the
// fate of the first; a damaged file is an error naming the first one.
func TestScanShardsInParallel(t *testing.T) {
	defer runtime.GOMAXPROCS(runtime.GOMAXPROCS(4))
	dir := t.TempDir()
	files := map[string]string{}
	methods := []string{"minhash", "simhash", "exact"}
	want := map[string]bool{"d3-1": true, "d12-2": true, "d40-0": true}
	for f := range 9 {
		var pairs, clusters []any
		for i := range 40 + 7*f {
			n := f*1000 + i
			pairs = append(pairs, output.PairLine{A: fmt.Sprintf("a%d", n), B: fmt.Sprintf("b%d", n), Jaccard: 0.4 + float64(n%61)/100, Method: methods[n%3]})
		}
		for i := range 5 + f {
			c := f*10 + i
			members := []string{fmt.Sprintf("d%d-0", c), fmt.Sprintf("d%d-1", c), fmt.Sprintf("d%d-2", c)}
			members = append(members, make([]string, (c*7)%11)...)
			for k := 3; k < len(members); k++ {
				members[k] = fmt.Sprintf("d%d-%d", c, k)
			}
			if f == 8 && i == 0 {
				members = append(members, "d3-1") // also in cluster d3-0, in an earlier file
			}
			rep := members[c%len(members)]
			var removed []output.RemovedMember
			for _, m := range members {
				if m != rep {
					removed = append(removed, output.RemovedMember{ID: m, Jaccard: 0.9, Method: "minhash"})
				}
			}
			clusters = append(clusters, output.ClusterLine{Cluster: members[0], Size: len(members), Representative: rep, Members: members, Removed: removed})
		}
		files[fmt.Sprintf("pairs-%05d.jsonl", f)] = jsonLines(t, pairs...)
		files[fmt.Sprintf("clusters-%05d.jsonl", f)] = jsonLines(t, clusters...)
	}
	writeFiles(t, dir, files)

	seqPairs := newPairStats()
	if err := output.Each(dir, output.KindPairs, func(p *output.PairLine) bool { seqPairs.add(p); return true }); err != nil {
		t.Fatal(err)
	}
	ps, err := scanPairs(dir)
	if err != nil {
		t.Fatal(err)
	}
	if !reflect.DeepEqual(ps, seqPairs) || !slices.Equal(ps.sample(), seqPairs.sample()) {
		t.Errorf("pairs read in parallel: %d pairs, sample %v; one after the other: %d, %v", ps.Total, ps.sample(), seqPairs.Total, seqPairs.sample())
	}
	seqClusters := &clusterStats{Fates: map[string]fate{}, want: want}
	if err := output.Each(dir, output.KindClusters, func(c *output.ClusterLine) bool { seqClusters.add(c); return true }); err != nil {
		t.Fatal(err)
	}
	cs, err := scanClusters(dir, want)
	if err != nil {
		t.Fatal(err)
	}
	if !reflect.DeepEqual(cs, seqClusters) {
		t.Errorf("clusters read in parallel: %+v\none after the other: %+v", cs, seqClusters)
	}
	if f := cs.Fates["d3-1"]; f.Rep != "d3-3" || len(cs.Fates) != 3 {
		t.Errorf("fates %+v, want d3-1 removed for d3-3 (in its first cluster) and 3 fates", cs.Fates)
	}

	writeFiles(t, dir, map[string]string{"pairs-00004.jsonl": "{not json\n", "pairs-00006.jsonl": "junk\n"})
	if _, err := scanPairs(dir); err == nil || !strings.Contains(err.Error(), "pairs-00004.jsonl: record 1") {
		t.Errorf("scanPairs error %v, want one naming pairs-00004.jsonl", err)
	}
}
