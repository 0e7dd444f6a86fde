// Command boilerplate makes and checks the hot-key stress corpus: many
// documents that share one boilerplate text exactly, as many that differ
// from it only in a short footer, and unrelated documents.
//
//	go run ./scripts/boilerplate -make DIR  [-copies N -variants N -other N -shards N]
//	go run ./scripts/boilerplate -check OUT [-copies N -variants N -other N]
//
// The right answer: one cluster holding every copy and every variant (a
// variant's Jaccard with the boilerplate is above 0.9), and no unrelated
// document in any cluster.
package main

import (
	"bufio"
	"encoding/json"
	"flag"
	"fmt"
	"math/rand/v2"
	"os"
	"path/filepath"
	"strings"
)

var (
	makeDir  = flag.String("make", "", "write the corpus into this directory")
	checkDir = flag.String("check", "", "check the clusters of a neardup output directory")
	copies   = flag.Int("copies", 100000, "identical copies of the boilerplate")
	variants = flag.Int("variants", 100000, "boilerplate + a distinct footer")
	other    = flag.Int("other", 10000, "unrelated documents")
	shards   = flag.Int("shards", 4, "output shards")
)

func main() {
	flag.Parse()
	var err error
	switch {
	case *makeDir != "":
		err = write(*makeDir)
	case *checkDir != "":
		err = check(*checkDir)
	default:
		flag.Usage()
		os.Exit(2)
	}
	if err != nil {
		fmt.Fprintln(os.Stderr, "boilerplate:", err)
		os.Exit(1)
	}
}

// words returns n words drawn from a fixed vocabulary with r.
func words(r *rand.Rand, n int) string {
	var b strings.Builder
	for i := 0; i < n; i++ {
		if i > 0 {
			b.WriteByte(' ')
		}
		// A vocabulary of 5000 made-up words: w0 .. w4999 spelled out.
		fmt.Fprintf(&b, "w%dx%c", r.IntN(5000), 'a'+rune(r.IntN(26)))
	}
	return b.String()
}

type doc struct {
	ID   string `json:"id"`
	Text string `json:"text"`
}

func write(dir string) error {
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return err
	}
	r := rand.New(rand.NewPCG(1, 2))
	base := words(r, 400)
	var docs []doc
	for i := 0; i < *copies; i++ {
		docs = append(docs, doc{fmt.Sprintf("copy-%07d", i), base})
	}
	for i := 0; i < *variants; i++ {
		docs = append(docs, doc{fmt.Sprintf("var-%07d", i), base + fmt.Sprintf("\n\n-- sent by node %d, ticket %d", i, 7*i+3)})
	}
	for i := 0; i < *other; i++ {
		docs = append(docs, doc{fmt.Sprintf("other-%07d", i), words(r, 150)})
	}
	r.Shuffle(len(docs), func(i, j int) { docs[i], docs[j] = docs[j], docs[i] })
	for s := 0; s < *shards; s++ {
		f, err := os.Create(filepath.Join(dir, fmt.Sprintf("boiler-%03d.jsonl", s)))
		if err != nil {
			return err
		}
		w := bufio.NewWriter(f)
		enc := json.NewEncoder(w)
		for i := s; i < len(docs); i += *shards {
			if err := enc.Encode(docs[i]); err != nil {
				return err
			}
		}
		if err := w.Flush(); err != nil {
			return err
		}
		if err := f.Close(); err != nil {
			return err
		}
	}
	return nil
}

func check(out string) error {
	files, err := filepath.Glob(filepath.Join(out, "clusters-*.jsonl"))
	if err != nil {
		return err
	}
	var clusters, bad int
	var biggest int
	for _, f := range files {
		fh, err := os.Open(f)
		if err != nil {
			return err
		}
		sc := bufio.NewScanner(fh)
		sc.Buffer(make([]byte, 1<<20), 1<<30)
		for sc.Scan() {
			var c struct {
				Size    int      `json:"size"`
				Members []string `json:"members"`
			}
			if err := json.Unmarshal(sc.Bytes(), &c); err != nil {
				return fmt.Errorf("%s: %w", f, err)
			}
			clusters++
			biggest = max(biggest, c.Size)
			for _, m := range c.Members {
				if strings.HasPrefix(m, "other-") {
					bad++
				}
			}
		}
		fh.Close()
		if err := sc.Err(); err != nil {
			return err
		}
	}
	want := *copies + *variants
	fmt.Printf("clusters %d, largest %d (want 1 of %d), unrelated documents in clusters %d (want 0)\n", clusters, biggest, want, bad)
	if clusters != 1 || biggest != want || bad != 0 {
		return fmt.Errorf("wrong clusters")
	}
	return nil
}
