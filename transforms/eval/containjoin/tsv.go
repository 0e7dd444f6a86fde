package containjoin

import (
	"bufio"
	"fmt"
	"io"
	"os"
	"strconv"
	"strings"
)

// Header is the first line of a truth file, its columns tab-separated: the
// contained document A and the containing B (see Pair; A is not always the
// smaller id), then the columns of dev_pairs.tsv (jaccard inter union, so
// quality.ReadTruth reads the file as a list of pairs with their Jaccard),
// then the sizes of A and B in distinct shingles and the containment of A
// in B and of B in A. The three ratios are printed with 6 decimals; the
// counts give them exactly.
const Header = "id_a\tid_b\tjaccard\tinter\tunion\tsize_a\tsize_b\tcontain_a\tcontain_b"

// WriteTSV writes Header and one line per pair, in the order given (Join's
// order makes the file deterministic).
func WriteTSV(w io.Writer, pairs []Pair) error {
	bw := bufio.NewWriter(w)
	fmt.Fprintln(bw, Header)
	for _, p := range pairs {
		fmt.Fprintf(bw, "%s\t%s\t%.6f\t%d\t%d\t%d\t%d\t%.6f\t%.6f\n",
			p.A, p.B, p.Jaccard(), p.Inter, p.Union(), p.SizeA, p.SizeB, p.ContainA(), p.ContainB())
	}
	return bw.Flush()
}

// ReadTSV reads a truth file written by WriteTSV. The first error names the
// file and line: a missing header, a line without the nine columns, counts
// that are not numbers or do not fit together (inter above size_a, size_a
// above size_b, union not size_a + size_b - inter), or a pair given twice.
func ReadTSV(path string) ([]Pair, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	var out []Pair
	seen := map[[2]string]int{}
	sc := bufio.NewScanner(f)
	sc.Buffer(make([]byte, 64<<10), 1<<20)
	line := 0
	for sc.Scan() {
		line++
		if line == 1 {
			if sc.Text() != Header {
				return nil, fmt.Errorf("%s:1: want the header %q", path, Header)
			}
			continue
		}
		p, err := parseLine(sc.Text())
		if err == nil {
			k := [2]string{min(p.A, p.B), max(p.A, p.B)}
			if first, ok := seen[k]; ok {
				err = fmt.Errorf("the pair %s %s again (first at line %d)", p.A, p.B, first)
			}
			seen[k] = line
		}
		if err != nil {
			return nil, fmt.Errorf("%s:%d: %w", path, line, err)
		}
		out = append(out, p)
	}
	if err := sc.Err(); err != nil {
		return nil, fmt.Errorf("%s: %w", path, err)
	}
	if line == 0 {
		return nil, fmt.Errorf("%s: empty, want the header %q", path, Header)
	}
	return out, nil
}

// parseLine parses one line of a truth file after the header.
func parseLine(s string) (Pair, error) {
	f := strings.Split(s, "\t")
	if len(f) != 9 {
		return Pair{}, fmt.Errorf("want 9 columns, got %d", len(f))
	}
	var n [4]int // inter union size_a size_b
	for i, col := range []int{3, 4, 5, 6} {
		v, err := strconv.Atoi(f[col])
		if err != nil || v < 0 {
			return Pair{}, fmt.Errorf("column %d: %q is not a count", col+1, f[col])
		}
		n[i] = v
	}
	p := Pair{A: f[0], B: f[1], Inter: n[0], SizeA: n[2], SizeB: n[3]}
	switch {
	case p.A == "" || p.B == "" || p.A == p.B:
		return p, fmt.Errorf("ids %q and %q: want two different ids", p.A, p.B)
	case p.SizeA == 0 || p.SizeA > p.SizeB:
		return p, fmt.Errorf("size_a %d, size_b %d: want 0 < size_a <= size_b", p.SizeA, p.SizeB)
	case p.Inter > p.SizeA:
		return p, fmt.Errorf("inter %d above size_a %d", p.Inter, p.SizeA)
	case n[1] != p.Union():
		return p, fmt.Errorf("union %d, want size_a + size_b - inter = %d", n[1], p.Union())
	}
	return p, nil
}
