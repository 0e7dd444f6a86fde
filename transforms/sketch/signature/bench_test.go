package signature

import (
	"testing"

	"github.com/neardup/neardup/transforms/eval/devcorpus"
	"github.com/neardup/neardup/transforms/sketch/minhash"
	"github.com/neardup/neardup/transforms/sketch/simhash"
	"github.com/neardup/neardup/transforms/text/normalize"
	"github.com/neardup/neardup/transforms/text/tokenize"
)

// benchDocs returns up to maxBytes of real documents of one language from
// dev.jsonl, raw and normalized, and their total raw size.
func benchDocs(b *testing.B, lang string, maxBytes int) (raw, norm []string, size int64) {
	docs, err := devcorpus.Docs()
	if err != nil {
		b.Skip(err)
	}
	for _, d := range docs {
		if d.Lang != lang {
			continue
		}
		raw = append(raw, d.Text)
		norm = append(norm, normalize.Text(d.Text))
		size += int64(len(d.Text))
		if size >= int64(maxBytes) {
			break
		}
	}
	return raw, norm, size
}

const benchBytes = 4 << 20

// run measures fn over every document; throughput is in MB of raw text.
func run(b *testing.B, lang string, fn func(s *Signer, text string)) {
	_, norm, size := benchDocs(b, lang, benchBytes)
	s := mustSigner(b, DefaultConfig())
	b.SetBytes(size)
	b.ReportAllocs()
	for b.Loop() {
		for _, t := range norm {
			fn(s, t)
		}
	}
}

func benchAll(b *testing.B, lang string) {
	for _, stage := range []struct {
		name string
		fn   func(s *Signer, text string)
	}{
		{"TokenizeShingle", func(s *Signer, text string) {
			var sig Signature
			s.shingle(text, &sig)
		}},
		{"SimHash", func(s *Signer, text string) {
			var sig Signature
			s.shingle(text, &sig)
			simhash.Sum(s.shingles)
		}},
		{"MinHashClassic", func(s *Signer, text string) {
			var sig Signature
			s.shingle(text, &sig)
			s.mh.Sketch(scratch, s.shingles)
		}},
		{"MinHashOPH", func(s *Signer, text string) {
			var sig Signature
			s.shingle(text, &sig)
			ophHasher.Sketch(scratch, s.shingles)
		}},
		{"SignClassic", func(s *Signer, text string) {
			s.Sign(text, &benchSig)
		}},
	} {
		b.Run(stage.name, func(b *testing.B) { run(b, lang, stage.fn) })
	}
	b.Run("NormalizeAndSign", func(b *testing.B) {
		raw, _, size := benchDocs(b, lang, benchBytes)
		s := mustSigner(b, DefaultConfig())
		b.SetBytes(size)
		b.ReportAllocs()
		for b.Loop() {
			for _, t := range raw {
				s.Sign(normalize.Text(t), &benchSig)
			}
		}
	})
}

var ophHasher, _ = minhash.New(128, minhash.OnePermutation, minhash.DefaultSeed)

func BenchmarkEnglish(b *testing.B) { benchAll(b, "en") }
func BenchmarkChinese(b *testing.B) { benchAll(b, "zh") }

// BenchmarkChineseWord compares gse's Cut alone (once per document) with the
// whole Word-mode signature step on the same Chinese text.
func BenchmarkChineseWord(b *testing.B) {
	_, norm, size := benchDocs(b, "zh", 1<<20)
	seg, err := tokenize.Segmenter(tokenize.Auto)
	if err != nil {
		b.Fatal(err)
	}
	b.Run("GseCut", func(b *testing.B) {
		b.SetBytes(size)
		for b.Loop() {
			for _, t := range norm {
				seg.Cut(t, false)
			}
		}
	})
	b.Run("SignWord", func(b *testing.B) {
		cfg := DefaultConfig()
		cfg.Tokens = tokenize.Word
		s := mustSigner(b, cfg)
		var sig Signature
		b.SetBytes(size)
		for b.Loop() {
			for _, t := range norm {
				s.Sign(t, &sig)
			}
		}
	})
}

var (
	scratch  = make([]uint64, 128)
	benchSig Signature
)
