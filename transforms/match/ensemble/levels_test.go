package ensemble

import (
	"math"
	"slices"
	"testing"

	"github.com/neardup/neardup/transforms/match/blocking"
)

func testLevels(t testing.TB, c float64, maxLevel int) *Levels {
	t.Helper()
	cfg := DefaultConfig(c)
	cfg.MaxLevel = maxLevel
	l, err := NewLevels(cfg)
	if err != nil {
		t.Fatal(err)
	}
	return l
}

func TestNewLevelsErrors(t *testing.T) {
	for _, c := range []struct {
		name string
		cfg  Config
	}{
		{"threshold 0", Config{Threshold: 0, NumPerm: 128, MinSize: 10, MaxLevel: 4}},
		{"no perms", Config{Threshold: 0.8, NumPerm: 0, MinSize: 10, MaxLevel: 4}},
		{"min size 0", Config{Threshold: 0.8, NumPerm: 128, MinSize: 0, MaxLevel: 4}},
		{"max level 0", Config{Threshold: 0.8, NumPerm: 128, MinSize: 10, MaxLevel: 0}},
		{"more than 255 bands", Config{Threshold: 0.1, NumPerm: 300, MinSize: 10, MaxLevel: 1,
			Weights: blocking.Weights{FalsePositive: 0, FalseNegative: 1}}},
	} {
		if _, err := NewLevels(c.cfg); err == nil {
			t.Errorf("%s: NewLevels(%+v): no error", c.name, c.cfg)
		}
	}
}

// refBands returns the (R, j) of each band id as the definition orders
// them: the distinct R of bandings, increasing, each with j from 0 to the
// most bands of that R.
func refBands(bandings []blocking.Bands) [][2]int {
	most := map[int]int{}
	for _, b := range bandings {
		most[b.R] = max(most[b.R], b.B)
	}
	var rs []int
	for r := range most {
		rs = append(rs, r)
	}
	slices.Sort(rs)
	var ids [][2]int
	for _, r := range rs {
		for j := range most[r] {
			ids = append(ids, [2]int{r, j})
		}
	}
	return ids
}

// TestLevelsBandings logs the bandings and keys per document of C = 0.8
// and 0.9 at MaxLevel 4, 5 and 6, and checks them against Choose and the
// band ids against refBands.
func TestLevelsBandings(t *testing.T) {
	sig := make([]uint64, 128)
	for _, c := range []float64{0.8, 0.9} {
		for _, ml := range []int{4, 5, 6} {
			l := testLevels(t, c, ml)
			for k, b := range l.Bandings() {
				if want := Choose(c, 128, ratioOf(k), blocking.DefaultWeights); b != want {
					t.Errorf("C=%v level %d: banding %v, Choose says %v", c, k, b, want)
				}
			}
			ids := refBands(l.Bandings())
			keys := l.AppendKeys(nil, sig, 10)
			if l.KeysPerDoc() != len(ids) || len(keys) != len(ids) {
				t.Errorf("C=%v MaxLevel %d: KeysPerDoc %d, %d keys, want %d", c, ml, l.KeysPerDoc(), len(keys), len(ids))
			}
			for i, k := range keys {
				if int(k.Band) != i {
					t.Errorf("C=%v MaxLevel %d: key %d has band id %d", c, ml, i, k.Band)
				}
			}
			t.Logf("C=%v MaxLevel=%d: bandings by level %v, %d keys per document", c, ml, l.Bandings(), l.KeysPerDoc())
		}
	}
}

// refPairs is the definition of Levels.Pairs from the bandings.
func refPairs(bandings []blocking.Bands, ids [][2]int, band uint8, q, u int) bool {
	k := 0
	for float64(q)*float64(q)*math.Pow(2, float64(k)) < float64(u)*float64(u) {
		k++
	}
	b := bandings[min(k, len(bandings)-1)]
	return b.R == ids[band][0] && ids[band][1] < b.B
}

// TestLevelsPairsAndSizeRange checks Pairs against refPairs and that
// SizeRange bounds exactly the sizes Pairs accepts, for queries from
// MinSize to large ones (every size up to 8q for q < 100).
func TestLevelsPairsAndSizeRange(t *testing.T) {
	for _, c := range []float64{0.5, 0.8, 0.9} {
		l := testLevels(t, c, 5)
		ids := refBands(l.Bandings())
		for _, q := range []int{10, 11, 17, 99, 100, 1000, 12345} {
			for band := range uint8(len(ids)) {
				lo, hi := l.SizeRange(band, q)
				// Every u for small queries; for large ones, a stride and
				// the bounds.
				us := []int{lo - 1, lo, hi, hi + 1}
				for u := q; u <= 8*q; u += 1 + q/100 {
					us = append(us, u)
				}
				for _, u := range us {
					if u < q || u > 1<<40 {
						continue
					}
					got := l.Pairs(band, q, u)
					if want := refPairs(l.Bandings(), ids, band, q, u); got != want {
						t.Fatalf("C=%v Pairs(%d, %d, %d) = %v, want %v", c, band, q, u, got, want)
					}
					if in := lo <= u && u <= hi; in != got {
						t.Fatalf("C=%v SizeRange(%d, %d) = [%d, %d], Pairs(.., %d) = %v", c, band, q, lo, hi, u, got)
					}
				}
			}
		}
	}
	l := testLevels(t, 0.8, 5)
	for _, c := range []struct {
		name    string
		band    uint8
		q, u    int
		present bool
	}{
		{"below MinSize", 0, 9, 9, false},
		{"u below q", 0, 20, 19, false},
		{"band out of range", 255, 20, 20, false},
	} {
		if got := l.Pairs(c.band, c.q, c.u); got != c.present {
			t.Errorf("%s: Pairs = %v", c.name, got)
		}
		if lo, hi := l.SizeRange(c.band, c.q); c.q < 10 || c.band == 255 {
			if lo <= hi {
				t.Errorf("%s: SizeRange = [%d, %d], want empty", c.name, lo, hi)
			}
		}
	}
}

// TestMaxSize checks maxSize against level on every u near the bound, up
// to sizes whose squares pass 2^64.
func TestMaxSize(t *testing.T) {
	for _, q := range []int{1, 2, 3, 10, 99, 1 << 20, 3_000_000_017} {
		for k := range 13 {
			u := maxSize(q, k)
			if k == 0 && u != q {
				t.Errorf("maxSize(%d, 0) = %d", q, u)
			}
			if q < 1<<31 && (level(q, u) > k || level(q, u+1) <= k) {
				t.Errorf("maxSize(%d, %d) = %d: levels %d and %d", q, k, u, level(q, u), level(q, u+1))
			}
			if want := float64(q) * math.Pow(2, float64(k)/2); math.Abs(float64(u)-want) > 1+want*1e-12 {
				t.Errorf("maxSize(%d, %d) = %d, want about %v", q, k, u, want)
			}
		}
	}
	if got := maxSize(1<<40, 60); got != math.MaxInt/4 {
		t.Errorf("maxSize(2^40, 60) = %d, want the saturation %d", got, math.MaxInt/4)
	}
}

// TestLevelsKeys checks that keys depend on the signature, not the size,
// and only on the band's own values.
func TestLevelsKeys(t *testing.T) {
	l := testLevels(t, 0.8, 5)
	sig := make([]uint64, 128)
	for i := range sig {
		sig[i] = uint64(i) * 0x9E3779B97F4A7C15
	}
	a, b := l.AppendKeys(nil, sig, 10), l.AppendKeys(nil, sig, 5000)
	if !slices.Equal(a, b) {
		t.Error("sizes 10 and 5000: different keys for one signature")
	}
	if got := l.AppendKeys(nil, sig, 9); len(got) != 0 {
		t.Errorf("a document below MinSize has %d keys", len(got))
	}
	sig[127]++ // in no band of fewer than 128 rows... unless one uses it
	c := l.AppendKeys(nil, sig, 10)
	ids := refBands(l.Bandings())
	for i, k := range c {
		r, j := ids[i][0], ids[i][1]
		uses := (j+1)*r > 127
		if (k != a[i]) != uses {
			t.Errorf("band %d (%d rows, j=%d): key changed %v, band holds value 127 %v", i, r, j, k != a[i], uses)
		}
	}
}

func BenchmarkLevelsAppendKeys(b *testing.B) {
	l := testLevels(b, 0.8, 5)
	sig := make([]uint64, 128)
	var keys []Key
	b.ReportAllocs()
	for b.Loop() {
		keys = l.AppendKeys(keys[:0], sig, 100)
	}
	b.ReportMetric(float64(len(keys)), "keys/op")
}

func BenchmarkLevelsPairs(b *testing.B) {
	l := testLevels(b, 0.8, 5)
	n := 0
	for i := 0; b.Loop(); i++ {
		if l.Pairs(uint8(i%l.KeysPerDoc()), 100, 100+i%1000) {
			n++
		}
	}
	b.ReportMetric(float64(n)/float64(b.N), "true/op")
}
