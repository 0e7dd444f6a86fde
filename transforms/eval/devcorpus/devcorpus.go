// Package devcorpus loads the shared development corpus (../shared/corpus
// beside the repository: dev.jsonl, dev_pairs.tsv) for tests and benchmarks.
// Tests skip when it is absent, so the repository builds and tests without it.
package devcorpus

import (
	"bufio"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"sync"

	"github.com/neardup/neardup/transforms/eval/quality"
)

// Doc is one corpus document.
type Doc struct {
	ID     string `json:"id"`
	Text   string `json:"text"`
	Source string `json:"source"`
	Lang   string `json:"lang"`
}

// Pair is one ground-truth pair with its exact Jaccard as inter/union.
type Pair struct {
	A, B         string
	Jaccard      float64
	Inter, Union int
}

// ErrMissing is returned when the corpus cannot be found.
var ErrMissing = errors.New("devcorpus: shared corpus not found (set NEARDUP_CORPUS or place it at ../shared/corpus)")

// Dir returns the corpus directory: $NEARDUP_CORPUS, or the first
// shared/corpus found walking up from the working directory.
func Dir() (string, error) {
	if d := os.Getenv("NEARDUP_CORPUS"); d != "" {
		return d, nil
	}
	wd, err := os.Getwd()
	if err != nil {
		return "", err
	}
	for d := wd; ; d = filepath.Dir(d) {
		c := filepath.Join(d, "shared", "corpus")
		if _, err := os.Stat(filepath.Join(c, "dev.jsonl")); err == nil {
			return c, nil
		}
		if c := filepath.Join(d, "..", "shared", "corpus"); fileExists(filepath.Join(c, "dev.jsonl")) {
			return filepath.Clean(c), nil
		}
		if filepath.Dir(d) == d {
			return "", ErrMissing
		}
	}
}

func fileExists(p string) bool { _, err := os.Stat(p); return err == nil }

var (
	docsOnce sync.Once
	docs     []Doc
	docsErr  error
)

// Docs returns every document of dev.jsonl, read once per process.
func Docs() ([]Doc, error) {
	docsOnce.Do(func() {
		dir, err := Dir()
		if err != nil {
			docsErr = err
			return
		}
		docs, docsErr = ReadDocs(filepath.Join(dir, "dev.jsonl"))
	})
	return docs, docsErr
}

// ReadDocs reads a JSONL file of documents.
func ReadDocs(path string) ([]Doc, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	var out []Doc
	sc := bufio.NewScanner(f)
	sc.Buffer(make([]byte, 1<<20), 1<<28)
	line := 0
	for sc.Scan() {
		line++
		var d Doc
		if err := json.Unmarshal(sc.Bytes(), &d); err != nil {
			return nil, fmt.Errorf("%s:%d: %w", path, line, err)
		}
		out = append(out, d)
	}
	return out, sc.Err()
}

// Pairs reads dev_pairs.tsv.
func Pairs() ([]Pair, error) {
	dir, err := Dir()
	if err != nil {
		return nil, err
	}
	return ReadPairs(filepath.Join(dir, "dev_pairs.tsv"))
}

// ReadPairs reads a ground-truth TSV: id_a id_b jaccard inter union, with a
// header line.
func ReadPairs(path string) ([]Pair, error) {
	truth, err := quality.ReadTruth(path)
	if err != nil {
		return nil, err
	}
	out := make([]Pair, len(truth))
	for i, p := range truth {
		out[i] = Pair{A: p.A, B: p.B, Jaccard: p.Jaccard(), Inter: p.Inter, Union: p.Union}
	}
	return out, nil
}

// ByID indexes docs by id.
func ByID(docs []Doc) map[string]*Doc {
	m := make(map[string]*Doc, len(docs))
	for i := range docs {
		m[docs[i].ID] = &docs[i]
	}
	return m
}
