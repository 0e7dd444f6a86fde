package blockkeys

import (
	"fmt"
	"slices"
	"testing"

	"github.com/neardup/neardup/transforms/format/wire"
	"github.com/neardup/neardup/transforms/match/blocking"
	"github.com/neardup/neardup/transforms/match/ensemble"
	"github.com/neardup/neardup/transforms/mix"
	"github.com/neardup/neardup/transforms/sketch/signature"
	"github.com/neardup/neardup/transforms/text/normalize"
)

func sign(t *testing.T, text string) *signature.Signature {
	t.Helper()
	s, err := signature.New(signature.DefaultConfig())
	if err != nil {
		t.Fatal(err)
	}
	var sig signature.Signature
	s.Sign(text, &sig)
	return &sig
}

func TestDerive(t *testing.T) {
	tables, err := blocking.NewTables(blocking.Design{K: 3, Blocks: 4})
	if err != nil {
		t.Fatal(err)
	}
	bands := blocking.Bands{B: 16, R: 8}
	text := "the quick brown fox jumps over the lazy dog near the river bank"
	sig := sign(t, text)
	doc := wire.DocNum(3, 17)
	tests := []struct {
		name               string
		k                  Keyer
		wantBands, wantTab int
	}{
		{"both", Keyer{Bands: bands, Tables: tables}, 16, tables.Len()},
		{"minhash", Keyer{Bands: bands}, 16, 0},
		{"simhash", Keyer{Tables: tables, NoBands: true}, 0, tables.Len()},
		{"index", Keyer{Bands: bands, Tables: tables, Index: true}, 16, tables.Len()},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			var d Doc
			d.Bands = []uint64{1, 2, 3} // reused, overwritten
			tc.k.Derive(&d, doc, "id-1", 99, text, sig)
			if d.Empty || d.Info.Doc != doc || d.Info.ID != "id-1" || d.Info.Len != 99 || d.Info.SimHash != sig.SimHash {
				t.Fatalf("info %+v", d.Info)
			}
			if len(d.Bands) != tc.wantBands || len(d.Tables) != tc.wantTab {
				t.Fatalf("%d bands, %d tables; want %d, %d", len(d.Bands), len(d.Tables), tc.wantBands, tc.wantTab)
			}
			if want := bands.AppendKeys(nil, sig.MinHash); tc.wantBands > 0 && !slices.Equal(d.Bands, want) {
				t.Errorf("bands %v, want %v", d.Bands, want)
			}
			if want := normalize.Key(text); tc.k.Index && d.Exact != want {
				t.Errorf("exact key %x, want %x", d.Exact, want)
			}
		})
	}
}

func TestDeriveEmpty(t *testing.T) {
	var d Doc
	(&Keyer{Bands: blocking.Bands{B: 16, R: 8}, Index: true}).Derive(&d, 5, "e", 3, "", sign(t, ""))
	if !d.Empty || len(d.Bands) != 0 || d.Exact != normalize.Key("") {
		t.Fatalf("empty document gave %+v", d)
	}
	if d.Info.Doc != 5 || d.Info.ID != "e" || d.Info.Len != 3 || d.Info.SimHash != 0 || len(d.Info.Sketch) != 0 {
		t.Fatalf("empty document's info %+v", d.Info)
	}
}

// TestSender: every entry comes back from the chunks of its partition.
func TestSender(t *testing.T) {
	tables, _ := blocking.NewTables(blocking.Design{K: 3, Blocks: 4})
	const P = 4
	got := map[int][][]byte{}
	s := NewSender(KeySpace{P: P}, func(p int64, c []byte) { got[int(p)] = append(got[int(p)], c) })
	var want []wire.Entry
	var wantSim []wire.SimEntry
	for i := range 50 {
		doc := wire.DocNum(1, int64(i))
		key := uint64(i) * 0x9e3779b97f4a7c15
		s.Band(key, doc)
		want = append(want, wire.Entry{Key: key, Doc: doc})
		fp := uint64(i) * 31
		for tb, k := range tables.AppendKeys(nil, fp) {
			s.Table(tb, k, doc, fp)
			wantSim = append(wantSim, wire.SimEntry{Key: k, Doc: doc, FP: fp, Table: tb})
		}
	}
	s.Flush()
	var es []wire.Entry
	var ss []wire.SimEntry
	for p, chunks := range got {
		for _, c := range chunks {
			var err error
			if p < P {
				es, err = wire.AppendEntries(es, c)
			} else {
				ss, err = wire.AppendSimEntries(ss, c, tables)
			}
			if err != nil {
				t.Fatalf("partition %d: %v", p, err)
			}
		}
	}
	if len(es) != len(want) || len(ss) != len(wantSim) {
		t.Fatalf("%d band and %d table entries back, want %d and %d", len(es), len(ss), len(want), len(wantSim))
	}
	for _, e := range want {
		found := slices.ContainsFunc(es, func(x wire.Entry) bool {
			return x.Doc == e.Doc && x.Key&(1<<wire.KeyBits-1) == e.Key&(1<<wire.KeyBits-1)
		})
		if !found {
			t.Fatalf("entry %+v lost", e)
		}
	}
}

// TestKeySpace: each kind's keys are a range of P keys (one for the stats),
// one after the other from 0, and Kind gives back the kind of each key.
func TestKeySpace(t *testing.T) {
	for _, P := range []int{1, 3, 256} {
		ks := KeySpace{P: P}
		next := 0
		for _, kind := range []Kind{BandEntries, TableEntries, ContainEntries, StatRecords} {
			lo, hi := ks.Range(kind)
			n := P
			if kind == StatRecords {
				n = 1
			}
			if lo != next || hi != next+n {
				t.Fatalf("P=%d: kind %d has keys [%d, %d), want [%d, %d)", P, kind, lo, hi, next, next+n)
			}
			for key := lo; key < hi; key++ {
				if got := ks.Kind(key); got != kind {
					t.Fatalf("P=%d: Kind(%d) = %d, want %d", P, key, got, kind)
				}
			}
			if kind == StatRecords && ks.StatsKey() != lo {
				t.Fatalf("P=%d: StatsKey %d, want %d", P, ks.StatsKey(), lo)
			}
			for _, k := range []uint64{0, 1, 0x9e3779b97f4a7c15, ^uint64(0)} {
				if key := ks.Key(kind, k); kind != StatRecords && (key < lo || key >= hi || key-lo != wire.Partition(k, P)) {
					t.Fatalf("P=%d: Key(%d, %#x) = %d, want %d + its partition %d", P, kind, k, key, lo, wire.Partition(k, P))
				}
			}
			next = hi
		}
		for _, key := range []int{-1, 3*P + 1} {
			if got := ks.Kind(key); got != NoKind || ks.Outside(key) == nil {
				t.Fatalf("P=%d: Kind(%d) = %d, want NoKind and an error", P, key, got)
			}
		}
	}
}

// TestSenderKeys: the Sender emits each kind's entries under its kind's
// keys only.
func TestSenderKeys(t *testing.T) {
	tables, _ := blocking.NewTables(blocking.Design{K: 3, Blocks: 4})
	ks := KeySpace{P: 5}
	seen := map[Kind]int{}
	var err error
	s := NewSender(ks, func(key int64, c []byte) {
		kind := ks.Kind(int(key))
		seen[kind]++
		switch kind {
		case BandEntries:
			_, err = wire.AppendEntries(nil, c)
		case TableEntries:
			_, err = wire.AppendSimEntries(nil, c, tables)
		case ContainEntries:
			_, err = wire.AppendSizedEntries(nil, c)
		default:
			t.Fatalf("chunk under key %d, outside the entries' keys", key)
		}
		if err != nil {
			t.Fatalf("key %d (kind %d): %v", key, kind, err)
		}
	})
	for i := range 40 {
		doc, key := wire.DocNum(2, int64(i)), uint64(i)*0x9e3779b97f4a7c15
		s.Band(key, doc)
		s.Table(0, tables.AppendKeys(nil, key)[0], doc, key)
		s.Contained(ensemble.Key{Hash: key, Band: 1}, doc, 100)
	}
	s.Flush()
	for _, kind := range []Kind{BandEntries, TableEntries, ContainEntries} {
		if seen[kind] == 0 {
			t.Errorf("no chunk of kind %d", kind)
		}
	}
}

// BenchmarkSender sends the 18 band and 4 table entries of each of a file's
// documents, in line order, over the partitions a run of SCALE (1.37M
// documents: 256) and of ten times SCALE (2048) picks, and flushes them
// every segment of 65,536 documents: the signature pass's scatter on one
// machine. The time per document should not grow with the partitions.
func BenchmarkSender(b *testing.B) {
	tables, _ := blocking.NewTables(blocking.Design{K: 3, Blocks: 4})
	for _, P := range []int{256, 2048} {
		b.Run(fmt.Sprintf("P=%d", P), func(b *testing.B) {
			var chunks int
			s := NewSender(KeySpace{P: P}, func(int64, []byte) { chunks++ })
			d := Doc{Bands: make([]uint64, 18)}
			line := int64(0)
			b.ReportAllocs()
			for b.Loop() {
				line++
				x := uint64(line) * 0x9e3779b97f4a7c15
				for i := range d.Bands {
					x = mix.Fmix64(x + uint64(i))
					d.Bands[i] = x
				}
				d.Info.Doc, d.Info.SimHash = wire.DocNum(1, line), x
				d.Tables = tables.AppendKeys(d.Tables[:0], x)
				s.Send(&d)
				if line%(1<<16) == 0 {
					s.Flush()
				}
			}
			s.Flush()
		})
	}
}
