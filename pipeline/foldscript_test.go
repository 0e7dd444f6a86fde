package pipeline

import (
	"bufio"
	"encoding/json"
	"fmt"
	"math/rand/v2"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"unicode"

	"github.com/neardup/neardup/transforms/format/summary"
	"github.com/neardup/neardup/transforms/job"
)

// simplifiedTraditional pairs Simplified characters with the Traditional
// form OpenCC's s2t writes for each; the rest of scriptPool is the same in
// both scripts.
var simplifiedTraditional = [][2]rune{
	{'这', '這'}, {'个', '個'}, {'们', '們'}, {'说', '說'}, {'发', '發'}, {'国', '國'},
	{'学', '學'}, {'时', '時'}, {'会', '會'}, {'为', '為'}, {'来', '來'}, {'后', '後'},
	{'经', '經'}, {'开', '開'}, {'东', '東'}, {'车', '車'}, {'长', '長'}, {'门', '門'},
	{'问', '問'}, {'间', '間'}, {'听', '聽'}, {'书', '書'}, {'见', '見'}, {'话', '話'},
	{'语', '語'}, {'读', '讀'}, {'写', '寫'}, {'让', '讓'}, {'么', '麼'}, {'里', '裡'},
}

// scriptPool is the characters of the test's Chinese documents.
var scriptPool = func() []rune {
	pool := []rune("的一是不了人我在有他上中大到地出年就子也天下自于可能而得行家方多")
	for _, p := range simplifiedTraditional {
		pool = append(pool, p[0])
	}
	return pool
}()

// chineseDoc returns n random characters of scriptPool (seeded), with a
// full stop after every 20.
func chineseDoc(seed uint64, n int) string {
	rng := rand.New(rand.NewPCG(seed, 7))
	var b strings.Builder
	for i := range n {
		b.WriteRune(scriptPool[rng.IntN(len(scriptPool))])
		if i%20 == 19 {
			b.WriteString("。")
		}
	}
	return b.String()
}

// toTraditional writes s in Traditional script, character by character.
func toTraditional(s string) string {
	return strings.Map(func(r rune) rune {
		for _, p := range simplifiedTraditional {
			if p[0] == r {
				return p[1]
			}
		}
		return r
	}, s)
}

// TestFoldScript: a Traditional copy of a Simplified document is its
// exact duplicate with script folding (the default), and a Traditional
// copy with a sentence added its near-duplicate; one document of the three
// is kept. Without folding, neither copy is paired with the original.
func TestFoldScript(t *testing.T) {
	orig := chineseDoc(1, 400)
	exact := toTraditional(orig)
	near := toTraditional(orig + chineseDoc(2, 20))
	for _, p := range simplifiedTraditional {
		if strings.ContainsRune(exact, p[0]) {
			t.Fatalf("the Traditional copy has the Simplified %c", p[0])
		}
	}
	in := filepath.Join(t.TempDir(), "zh.jsonl")
	writeJSONL(t, in, "orig", orig, "exact", exact, "near", near,
		"other1", chineseDoc(3, 400), "other2", toTraditional(chineseDoc(4, 400)))
	for _, fold := range []bool{true, false} {
		cfg := job.DefaultConfig()
		cfg.FoldScript = fold
		dir := runJob(t, "", cfg, []string{in})
		found := map[string]bool{}
		for _, p := range runPairs(t, dir) {
			found[min(p.A, p.B)+" "+max(p.A, p.B)] = true // "exact orig"
		}
		kept := keptIDs(t, dir)["dedup-00000.jsonl"]
		keptOfThree := 0
		for _, id := range kept {
			if id == "orig" || id == "exact" || id == "near" {
				keptOfThree++
			}
		}
		switch {
		case fold && (!found["exact orig"] || !(found["near orig"] || found["exact near"])):
			t.Errorf("folded: pairs %v, want exact with orig and near with one of them", found)
		case fold && (keptOfThree != 1 || !slices.Contains(kept, "other1") || !slices.Contains(kept, "other2")):
			t.Errorf("folded: kept %v, want one of orig, exact, near and both others", kept)
		case !fold && (found["exact orig"] || found["near orig"] || !slices.Contains(kept, "orig")):
			t.Errorf("--fold-script=false: pairs %v, kept %v; want the original in no pair, kept", found, kept)
		}
	}
}

// TestFoldScriptEnglish: folding changes nothing in a corpus without
// Chinese characters: the sample's English documents give byte-identical
// outputs with and without it (the pipeline's summary.json holds no
// settings; the command adds them).
func TestFoldScriptEnglish(t *testing.T) {
	f, err := os.Open(sampleFiles[0])
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	var docs []string
	sc := bufio.NewScanner(f)
	sc.Buffer(nil, 1<<24)
	for sc.Scan() {
		var d struct{ ID, Text string }
		if err := json.Unmarshal(sc.Bytes(), &d); err != nil {
			t.Fatal(err)
		}
		if !strings.ContainsFunc(d.Text, func(r rune) bool {
			return r > unicode.MaxASCII && unicode.In(r, unicode.Han, unicode.Hiragana, unicode.Katakana)
		}) {
			docs = append(docs, d.ID, d.Text)
		}
	}
	if err := sc.Err(); err != nil {
		t.Fatal(err)
	}
	in := filepath.Join(t.TempDir(), "en.jsonl")
	writeJSONL(t, in, docs...)
	var want map[string][]byte
	for _, fold := range []bool{true, false} {
		cfg := job.DefaultConfig()
		cfg.FoldScript = fold
		dir := runJob(t, "", cfg, []string{in})
		got := outputs(t, dir)
		if fold {
			if n, s := len(runPairs(t, dir)), readSummary(t, dir); n == 0 || s.Counts[summary.StatRemoved] == 0 {
				t.Fatalf("%d English documents: %d pairs, %d removed; want some of each", len(docs)/2, n, s.Counts[summary.StatRemoved])
			}
			want = got
			continue
		}
		sameOutputs(t, fmt.Sprintf("%d English documents, --fold-script=false", len(docs)/2), want, got)
	}
}
