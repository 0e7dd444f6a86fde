package quality

import (
	"bytes"
	"encoding/json"
	"path/filepath"
	"reflect"
	"strings"
	"testing"
)

// kept builds the Kept of pairs from how many are of each kind, in this
// order: original kept, variant kept, both kept, original removed for
// another document, variant removed for another, both for others.
func kept(counts ...int) Kept {
	k := Kept{OriginalKept: counts[0], VariantKept: counts[1], BothKept: counts[2],
		OriginalForOther: counts[3], VariantForOther: counts[4], BothForOthers: counts[5]}
	for _, n := range counts {
		k.Pairs += n
	}
	k.Decided = k.OriginalKept + k.VariantKept
	k.finish()
	return k
}

// TestKept pins which copy of the pair (o the original, v the variant) each
// set of clusters keeps, and whether the pair is decided.
func TestKept(t *testing.T) {
	tests := []struct {
		name     string
		clusters []Cluster
		want     Kept
	}{
		{"original kept", []Cluster{{"o", "o", []string{"o", "v"}}}, kept(1, 0, 0, 0, 0, 0)},
		{"original kept, a third removed too", []Cluster{{"x", "o", []string{"x", "o", "v"}}}, kept(1, 0, 0, 0, 0, 0)},
		{"variant kept", []Cluster{{"o", "v", []string{"o", "v"}}}, kept(0, 1, 0, 0, 0, 0)},
		{"both kept, in no cluster", nil, kept(0, 0, 1, 0, 0, 0)},
		{"both kept, each a representative", []Cluster{{"o", "o", []string{"o", "x"}}, {"v", "v", []string{"v", "y"}}}, kept(0, 0, 1, 0, 0, 0)},
		{"original removed for a third", []Cluster{{"o", "x", []string{"o", "x"}}}, kept(0, 0, 0, 1, 0, 0)},
		{"original removed for a third, variant its representative", []Cluster{{"o", "x", []string{"o", "x"}}, {"v", "v", []string{"v", "y"}}}, kept(0, 0, 0, 1, 0, 0)},
		{"variant removed for a third", []Cluster{{"v", "x", []string{"v", "x"}}}, kept(0, 0, 0, 0, 1, 0)},
		{"both removed for one third", []Cluster{{"o", "x", []string{"o", "v", "x"}}}, kept(0, 0, 0, 0, 0, 1)},
		{"both removed for two others", []Cluster{{"o", "x", []string{"o", "x"}}, {"v", "y", []string{"v", "y"}}}, kept(0, 0, 0, 0, 0, 1)},
		// A document is removed for the representative of the first
		// cluster that lists it.
		{"variant listed twice, first for a third", []Cluster{{"v", "x", []string{"v", "x"}}, {"o", "o", []string{"o", "v"}}}, kept(0, 0, 0, 0, 1, 0)},
	}
	for _, tt := range tests {
		all, byEdit := keptBy([]Synthetic{{"o", "v", "typos", "en", 9, 10}}, tt.clusters)
		if all != tt.want {
			t.Errorf("%s: Kept = %+v, want %+v", tt.name, all, tt.want)
		}
		if want := map[string]Kept{"typos": tt.want}; !reflect.DeepEqual(byEdit, want) {
			t.Errorf("%s: by edit %+v, want %+v", tt.name, byEdit, want)
		}
	}
}

// TestKeptShares: the share is the original's over the decided pairs only,
// per edit type and over all of them.
func TestKeptShares(t *testing.T) {
	synthetic := []Synthetic{
		{"o1", "v1", "typos", "en", 9, 10},
		{"o2", "v2", "typos", "en", 9, 10},
		{"o3", "v3", "typos", "zh", 9, 10},
		{"o4", "v4", "typos", "en", 9, 10},
		{"o5", "v5", "boilerplate", "en", 5, 10},
		{"o6", "v6", "truncate", "en", 0, 0},
	}
	clusters := []Cluster{
		{"o1", "o1", []string{"o1", "v1"}},
		{"o2", "o2", []string{"o2", "v2"}},
		{"o3", "v3", []string{"o3", "v3"}},
		{"o5", "v5", []string{"o5", "v5"}},
	}
	all, byEdit := keptBy(synthetic, clusters)
	want := map[string]Kept{"typos": kept(2, 1, 1, 0, 0, 0), "boilerplate": kept(0, 1, 0, 0, 0, 0), "truncate": kept(0, 0, 1, 0, 0, 0)}
	if !reflect.DeepEqual(byEdit, want) {
		t.Errorf("by edit %+v, want %+v", byEdit, want)
	}
	if want := kept(2, 2, 2, 0, 0, 0); all != want || all.OriginalShare != 0.5 {
		t.Errorf("all %+v, want %+v (share 0.5)", all, want)
	}
	if s := byEdit["typos"].OriginalShare; s != 2.0/3 {
		t.Errorf("typos share %v, want 2/3 (of 3 decided, not of 4 pairs)", s)
	}
	if s := byEdit["truncate"].OriginalShare; s != 0 {
		t.Errorf("truncate share %v with no pair decided, want 0", s)
	}
}

// TestLoadKept reads the original from id_a and the variant from id_b of
// a synthetic pairs file: two originals kept and one variant, so reading
// the columns the other way round gives one and two.
func TestLoadKept(t *testing.T) {
	dir := t.TempDir()
	writeFile(t, dir, "pairs-00000.jsonl", `{"a":"o1","b":"v1","jaccard":0.9,"method":"minhash"}`+"\n"+
		`{"a":"o2","b":"v2","jaccard":0.9,"method":"minhash"}`+"\n"+`{"a":"o3","b":"v3","jaccard":0.9,"method":"minhash"}`+"\n")
	writeFile(t, dir, "clusters-00000.jsonl", `{"cluster":"o1","representative":"o1","members":["o1","v1"]}`+"\n"+
		`{"cluster":"o2","representative":"o2","members":["o2","v2"]}`+"\n"+
		`{"cluster":"o3","representative":"v3","members":["o3","v3"]}`+"\n")
	truth := writeFile(t, dir, "truth.tsv", "id_a\tid_b\tjaccard\tinter\tunion\n"+
		"o1\tv1\t0.9\t9\t10\no2\tv2\t0.9\t9\t10\no3\tv3\t0.9\t9\t10\n")
	synthetic := writeFile(t, dir, "synthetic.tsv", "id_a\tid_b\tedit_type\tlang\tjaccard\tinter\tunion\tparams\n"+
		"o1\tv1\ttypos\ten\t0.9\t9\t10\trate=0.01\n"+
		"o2\tv2\tboilerplate\ten\t0.9\t9\t10\tadded=footer\n"+
		"o3\tv3\ttypos\ten\t0.9\t9\t10\trate=0.02\n"+
		"o4\tv4\ttypos\ten\t0.4\t4\t10\trate=0.08\n")
	p, err := Load(Files{Pairs: filepath.Join(dir, "pairs-*.jsonl"), Truth: truth, Synthetic: synthetic}, 0.8, 0, 0, nil)
	if err != nil {
		t.Fatal(err)
	}
	r := p.(Report)
	if want := kept(2, 1, 1, 0, 0, 0); r.SyntheticKept != want {
		t.Errorf("SyntheticKept = %+v, want %+v", r.SyntheticKept, want)
	}
	want := map[string]Kept{"typos": kept(1, 1, 1, 0, 0, 0), "boilerplate": kept(1, 0, 0, 0, 0, 0)}
	if !reflect.DeepEqual(r.SyntheticKeptByEdit, want) {
		t.Errorf("SyntheticKeptByEdit = %+v, want %+v", r.SyntheticKeptByEdit, want)
	}

	// --json names the figures; without synthetic pairs they are absent.
	var buf bytes.Buffer
	if err := Write(&buf, r, true); err != nil {
		t.Fatal(err)
	}
	var got struct {
		Kept   map[string]float64            `json:"synthetic_kept"`
		ByEdit map[string]map[string]float64 `json:"synthetic_kept_by_edit"`
	}
	if err := json.Unmarshal(buf.Bytes(), &got); err != nil {
		t.Fatal(err)
	}
	wantJSON := map[string]float64{"pairs": 4, "decided": 3, "original_kept": 2, "variant_kept": 1, "original_kept_share": 2.0 / 3,
		"undecided": 1, "both_kept": 1, "original_removed_for_other": 0, "variant_removed_for_other": 0, "both_removed_for_others": 0}
	if !reflect.DeepEqual(got.Kept, wantJSON) {
		t.Errorf("JSON synthetic_kept = %v, want %v", got.Kept, wantJSON)
	}
	if b := got.ByEdit["boilerplate"]; b["original_kept_share"] != 1 || b["decided"] != 1 {
		t.Errorf("JSON synthetic_kept_by_edit boilerplate = %v, want 1 decided, share 1", b)
	}
	buf.Reset()
	Write(&buf, Evaluate(nil, nil, Truth{}, 0.8), true)
	if strings.Contains(buf.String(), "synthetic_kept") {
		t.Errorf("JSON without synthetic pairs has synthetic_kept:\n%s", buf.String())
	}
}
