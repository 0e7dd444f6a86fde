package main

import (
	"bufio"
	"encoding/json"
	"os"
	"strconv"
	"testing"

	"github.com/neardup/neardup/transforms/sketch/minhash"
	"github.com/neardup/neardup/transforms/sketch/signature"
	"github.com/neardup/neardup/transforms/text/normalize"
)

// costDoc is one document as the signature pass has it.
type costDoc struct {
	raw      string
	tokens   []uint64
	shingles []uint64
	mins     []uint64
}

// costDocs reads the first n documents of the dev corpus
// (KEEPSTUDY_CORPUS, default ../../../shared/corpus/dev.jsonl) and signs
// them; it skips the test when the corpus is absent.
func costDocs(tb testing.TB, n int) []costDoc {
	path := os.Getenv("KEEPSTUDY_CORPUS")
	if path == "" {
		path = "../../../shared/corpus/dev.jsonl"
	}
	f, err := os.Open(path)
	if err != nil {
		tb.Skipf("no corpus: %v", err)
	}
	defer f.Close()
	sg, err := signature.New(signature.DefaultConfig())
	if err != nil {
		tb.Fatal(err)
	}
	var out []costDoc
	sc := bufio.NewScanner(f)
	sc.Buffer(nil, 1<<28)
	for sc.Scan() && len(out) < n {
		var r struct{ Text string }
		if err := json.Unmarshal(sc.Bytes(), &r); err != nil {
			tb.Fatalf("%s: document %d: %v", path, len(out)+1, err)
		}
		norm := normalize.Text(r.Text)
		var sig signature.Signature
		sg.Sign(norm, &sig)
		out = append(out, costDoc{raw: r.Text,
			tokens:   append([]uint64(nil), sg.TokenHashes(norm)...),
			shingles: append([]uint64(nil), sg.Shingles(norm)...),
			mins:     sig.MinHash})
	}
	return out
}

func TestArgmins(t *testing.T) {
	docs := costDocs(t, 2000)
	inv := newSlotInverse(slots, minhash.DefaultSeed)
	pos := make([]int32, slots)
	for d, doc := range docs {
		inv.argmins(doc.mins, doc.shingles, pos)
		for k, i := range pos {
			if len(doc.shingles) == 0 {
				if i != -1 {
					t.Fatalf("document %d (no shingle), position %d: argmin %d, want -1", d, k, i)
				}
				continue
			}
			if i < 0 || inv.a[k]*doc.shingles[i]+inv.b[k] != doc.mins[k] {
				t.Fatalf("document %d, position %d: argmin %d does not give the minimum %x", d, k, i, doc.mins[k])
			}
			for _, h := range doc.shingles[:i] {
				if h == doc.shingles[i] {
					t.Fatalf("document %d, position %d: argmin %d is not the shingle's first index", d, k, i)
				}
			}
		}
	}
}

func TestMarks(t *testing.T) {
	sum := func(r string) int {
		n := 0
		for _, v := range formatting(r) {
			n += v
		}
		return n
	}
	for _, r := range []string{"", "a  b", "a   b", "a    b", "\tx\r\ny", " x\n  y\n\u3000z", "“q” — …", "中,文", "中 a", "a 中", "中  a", "x\n\ty"} {
		if got, want := marks(r), sum(r); got != want {
			t.Errorf("marks(%q) = %d, want %d", r, got, want)
		}
		if got, want := marksLoop(r), sum(r); got != want {
			t.Errorf("marksLoop(%q) = %d, want %d", r, got, want)
		}
	}
	for d, doc := range costDocs(t, 5000) {
		if got, want := marks(doc.raw), sum(doc.raw); got != want {
			t.Fatalf("document %d: marks %d, formatting %d", d, got, want)
		}
		if got, want := marksLoop(doc.raw), sum(doc.raw); got != want {
			t.Fatalf("document %d: marksLoop %d, formatting %d", d, got, want)
		}
	}
}

// cm is a count-min sketch of 16-bit saturating counters.
type cm struct{ rows [2][]uint16 }

func newCM(width int) *cm {
	return &cm{rows: [2][]uint16{make([]uint16, width), make([]uint16, width)}}
}

func (c *cm) add(h uint64) {
	for r := range c.rows {
		i := cmSlot(h, r, len(c.rows[r]))
		if c.rows[r][i] < 1<<16-1 {
			c.rows[r][i]++
		}
	}
}

func (c *cm) get(h uint64) uint16 {
	return min(c.rows[0][cmSlot(h, 0, len(c.rows[0]))], c.rows[1][cmSlot(h, 1, len(c.rows[1]))])
}

// BenchmarkSign is the reference: what the signature pass does per
// document now (tokenize, shingle, MinHash, SimHash), per document.
func BenchmarkSign(b *testing.B) {
	docs := costDocs(b, 2000)
	sg, _ := signature.New(signature.DefaultConfig())
	norms := make([]string, len(docs))
	for i, d := range docs {
		norms[i] = normalize.Text(d.raw)
	}
	var sig signature.Signature
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		sg.Sign(norms[i%len(norms)], &sig)
	}
}

// BenchmarkMarks is the formatting count per document.
func BenchmarkMarks(b *testing.B) {
	docs := costDocs(b, 2000)
	for _, f := range []struct {
		name string
		fn   func(string) int
	}{{"counts", marks}, {"loop", marksLoop}} {
		b.Run(f.name, func(b *testing.B) {
			for i := 0; i < b.N; i++ {
				f.fn(docs[i%len(docs)].raw)
			}
		})
	}
}

// BenchmarkArgmins is finding the shingle of each of the 128 minima.
func BenchmarkArgmins(b *testing.B) {
	docs := costDocs(b, 2000)
	inv := newSlotInverse(slots, minhash.DefaultSeed)
	pos := make([]int32, slots)
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		d := &docs[i%len(docs)]
		inv.argmins(d.mins, d.shingles, pos)
	}
}

// slotBits is the per-position byte the rule needs from the signature
// pass: 2 bits of place (first tenth, last tenth) and 1 bit for a token or
// bigram of the argmin shingle found in no other sampled document.
func slotBits(d *costDoc, pos []int32, bits []uint8, tok, bg *cm) {
	n := len(d.shingles)
	for k, i := range pos {
		var f uint8
		if i < 0 {
			bits[k] = 0
			continue
		}
		if k > 0 && pos[k-1] == i { // short documents repeat argmins
			bits[k] = bits[k-1]
			continue
		}
		if int(i)*10 < n {
			f |= 1
		}
		if int(i)*10 >= 9*n {
			f |= 2
		}
		end := min(int(i)+5, len(d.tokens))
		for j := int(i); j < end; j++ {
			if tok.get(d.tokens[j]) <= 1 {
				f |= 4
				break
			}
			if j > int(i) && bg.get(d.tokens[j-1]*0x9E3779B97F4A7C15^d.tokens[j]) <= 1 {
				f |= 4
				break
			}
		}
		bits[k] = f
	}
}

// BenchmarkSlotBits is the per-position bits, given the argmins, with
// token and bigram count-min sketches of 2 x 2^20 and 2 x 2^22 counters
// (4 and 16 MiB each).
func BenchmarkSlotBits(b *testing.B) {
	for _, w := range []int{20, 22} {
		b.Run(strconv.Itoa(w), func(b *testing.B) { benchSlotBits(b, 1<<w) })
	}
	b.Run("twice-bitset", benchSlotBitsBitset)
}

// twice is a set of hashes seen in at least two sampled documents: two
// bitsets of 2^24 bits (2 MiB each), one probe each; tokens and bigrams
// share them.
type twice struct{ once, more []uint64 }

func newTwice() *twice { return &twice{make([]uint64, 1<<18), make([]uint64, 1<<18)} }

func (t *twice) add(h uint64) {
	i := (h * 0x9E3779B97F4A7C15) >> 40
	w, bit := i>>6, uint64(1)<<(i&63)
	if t.once[w]&bit != 0 {
		t.more[w] |= bit
	}
	t.once[w] |= bit
}

func (t *twice) has(h uint64) bool {
	i := (h * 0x9E3779B97F4A7C15) >> 40
	return t.more[i>>6]&(1<<(i&63)) != 0
}

func benchSlotBitsBitset(b *testing.B) {
	docs := costDocs(b, 2000)
	tw := newTwice()
	for _, d := range docs {
		seen := map[uint64]bool{}
		for j, t := range d.tokens {
			seen[t] = true
			if j > 0 {
				seen[d.tokens[j-1]*0x9E3779B97F4A7C15^t^0x5555] = true
			}
		}
		for h := range seen {
			tw.add(h)
		}
	}
	inv := newSlotInverse(slots, minhash.DefaultSeed)
	pos := make([][]int32, len(docs))
	for i := range docs {
		pos[i] = make([]int32, slots)
		inv.argmins(docs[i].mins, docs[i].shingles, pos[i])
	}
	bits := make([]uint8, slots)
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		d, p := &docs[i%len(docs)], pos[i%len(docs)]
		for k, x := range p {
			if x < 0 {
				bits[k] = 0
				continue
			}
			if k > 0 && p[k-1] == x {
				bits[k] = bits[k-1]
				continue
			}
			var f uint8
			end := min(int(x)+5, len(d.tokens))
			for j := int(x); j < end; j++ {
				if !tw.has(d.tokens[j]) || j > int(x) && !tw.has(d.tokens[j-1]*0x9E3779B97F4A7C15^d.tokens[j]^0x5555) {
					f |= 4
					break
				}
			}
			bits[k] = f
		}
	}
}

func benchSlotBits(b *testing.B, width int) {
	docs := costDocs(b, 2000)
	tok, bg := newCM(width), newCM(width)
	for _, d := range docs {
		for j, t := range d.tokens {
			tok.add(t)
			if j > 0 {
				bg.add(d.tokens[j-1]*0x9E3779B97F4A7C15 ^ t)
			}
		}
	}
	inv := newSlotInverse(slots, minhash.DefaultSeed)
	pos := make([][]int32, len(docs))
	for i := range docs {
		pos[i] = make([]int32, slots)
		inv.argmins(docs[i].mins, docs[i].shingles, pos[i])
	}
	bits := make([]uint8, slots)
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		slotBits(&docs[i%len(docs)], pos[i%len(docs)], bits, tok, bg)
	}
}

// BenchmarkSlotFreq is looking up the corpus frequency of the 128 argmin
// shingles in a shingle count-min sketch of 2 x 2^23 counters (32 MiB),
// per document (or per verified pair, both documents' positions).
func BenchmarkSlotFreq(b *testing.B) {
	docs := costDocs(b, 2000)
	sh := newCM(1 << 23)
	for _, d := range docs {
		for _, h := range d.shingles {
			sh.add(h)
		}
	}
	inv := newSlotInverse(slots, minhash.DefaultSeed)
	hs := make([][]uint64, len(docs))
	for i, d := range docs {
		for k, m := range d.mins {
			hs[i] = append(hs[i], (m-inv.b[k])*inv.inv[k])
		}
	}
	b.ResetTimer()
	var s uint64
	for i := 0; i < b.N; i++ {
		for _, h := range hs[i%len(docs)] {
			s += uint64(sh.get(h))
		}
	}
	_ = s
}

// BenchmarkSampleAdd is counting one sampled document's shingles, tokens
// and bigrams into the three count-min sketches (the extra pass).
func BenchmarkSampleAdd(b *testing.B) {
	docs := costDocs(b, 2000)
	sh, tok, bg := newCM(1<<23), newCM(1<<22), newCM(1<<22)
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		d := &docs[i%len(docs)]
		for _, h := range d.shingles {
			sh.add(h)
		}
		for j, t := range d.tokens {
			tok.add(t)
			if j > 0 {
				bg.add(d.tokens[j-1]*0x9E3779B97F4A7C15 ^ t)
			}
		}
	}
}
