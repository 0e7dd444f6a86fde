package verify

import (
	"math"
	"math/rand/v2"
	"slices"
	"strings"
	"testing"

	"github.com/neardup/neardup/transforms/format/wire"
)

func TestParseBlocking(t *testing.T) {
	tests := []struct {
		in      string
		want    Blocking
		wantErr bool
	}{
		{"both", Both, false},
		{"minhash", MinHash, false},
		{"simhash", SimHash, false},
		{"", 0, true},
		{"Both", Both, false}, // names are read in any case, spaces around them ignored
		{"exact", 0, true},
		{" minhash", MinHash, false},
	}
	for _, tt := range tests {
		got, err := ParseBlocking(tt.in)
		if (err != nil) != tt.wantErr || got != tt.want {
			t.Errorf("ParseBlocking(%q) = %v, %v; want %v, error %v", tt.in, got, err, tt.want, tt.wantErr)
		}
		if err == nil && got.String() != strings.ToLower(strings.TrimSpace(tt.in)) {
			t.Errorf("ParseBlocking(%q).String() = %q", tt.in, got.String())
		}
	}
	if got := Blocking(9).String(); got != "Blocking(9)" {
		t.Errorf("Blocking(9).String() = %q, want %q", got, "Blocking(9)")
	}
}

func TestParseMode(t *testing.T) {
	tests := []struct {
		in      string
		want    Mode
		wantErr bool
	}{
		{"auto", Auto, false},
		{"estimate", Estimate, false},
		{"exact", Exact, false},
		{"", 0, true},
		{"Auto", Auto, false},
		{"both", 0, true},
	}
	for _, tt := range tests {
		got, err := ParseMode(tt.in)
		if (err != nil) != tt.wantErr || got != tt.want {
			t.Errorf("ParseMode(%q) = %v, %v; want %v, error %v", tt.in, got, err, tt.want, tt.wantErr)
		}
		if err == nil && got.String() != strings.ToLower(tt.in) {
			t.Errorf("ParseMode(%q).String() = %q", tt.in, got.String())
		}
	}
	if got := Mode(-1).String(); got != "Mode(-1)" {
		t.Errorf("Mode(-1).String() = %q, want %q", got, "Mode(-1)")
	}
}

// boundsRef is the interval of the Config doc comment, computed with the
// standard normal quantile z given as a constant and the b-bit estimator's
// variance written out: positions agree with probability p = t + (1-t)/256,
// and the estimate (p^ - 1/256) / (255/256) has standard error
// sqrt(p(1-p)/k) * 256/255.
func boundsRef(t float64, k int, z float64) (lo, hi float64) {
	p := t + (1-t)/256
	se := math.Sqrt(p*(1-p)/float64(k)) * 256 / 255
	return t - z*se, t + z*se
}

func TestBounds(t *testing.T) {
	const (
		z95 = 1.6448536269514722 // Φ⁻¹(0.95)
		z99 = 2.3263478740408408 // Φ⁻¹(0.99)
		z90 = 1.2815515655446004 // Φ⁻¹(0.90)
	)
	tests := []struct {
		t, conf float64
		k       int
		z       float64
	}{
		{0.8, 0.95, 128, z95},
		{0.8, 0.99, 128, z99},
		{0.8, 0.90, 128, z90},
		{0.5, 0.95, 256, z95},
		{0.9, 0.95, 64, z95},
		{0.8, 0.95, 512, z95},
	}
	for _, tt := range tests {
		lo, hi := Config{Threshold: tt.t, Confidence: tt.conf}.Bounds(tt.k)
		wlo, whi := boundsRef(tt.t, tt.k, tt.z)
		if math.Abs(lo-wlo) > 1e-9 || math.Abs(hi-whi) > 1e-9 {
			t.Errorf("t=%v c=%v k=%d: Bounds = [%v, %v], want [%v, %v]", tt.t, tt.conf, tt.k, lo, hi, wlo, whi)
		}
	}

	// The documented example: t = 0.8, K = 128, confidence 0.95.
	lo, hi := Config{Threshold: 0.8, Confidence: 0.95}.Bounds(128)
	if r := math.Round(lo*1000) / 1000; r != 0.742 {
		t.Errorf("Bounds(128) lo = %v, want about 0.742", lo)
	}
	if r := math.Round(hi*1000) / 1000; r != 0.858 {
		t.Errorf("Bounds(128) hi = %v, want about 0.858", hi)
	}
	// Four times the positions halve the interval.
	lo4, hi4 := Config{Threshold: 0.8, Confidence: 0.95}.Bounds(512)
	if got, want := hi4-lo4, (hi-lo)/2; math.Abs(got-want) > 1e-12 {
		t.Errorf("Bounds(512) width %v, want half of Bounds(128) width, %v", got, want)
	}
}

func TestBoundsUndecided(t *testing.T) {
	// No confidence (or one at most 0.5) or no positions: the interval is
	// the threshold alone.
	tests := []struct {
		conf float64
		k    int
	}{
		{0, 128}, {0.5, 128}, {-1, 128}, {0.95, 0}, {0.95, -3},
	}
	for _, tt := range tests {
		lo, hi := Config{Threshold: 0.8, Confidence: tt.conf}.Bounds(tt.k)
		if lo != 0.8 || hi != 0.8 {
			t.Errorf("c=%v k=%d: Bounds = [%v, %v], want [0.8, 0.8]", tt.conf, tt.k, lo, hi)
		}
	}
}

func TestLowBits(t *testing.T) {
	sig := []uint64{0, 1, 0xff, 0x100, 0x1ff, 0xabcdef12, math.MaxUint64}
	want := []uint8{0, 1, 0xff, 0, 0xff, 0x12, 0xff}
	buf := make([]uint8, 3, 16)
	got := LowBits(buf, sig)
	if !slices.Equal(got, want) {
		t.Errorf("LowBits = %v, want %v", got, want)
	}
	if &got[0] != &buf[0] {
		t.Error("LowBits did not reuse dst")
	}
	if got := LowBits(nil, nil); len(got) != 0 {
		t.Errorf("LowBits(nil, nil) = %v, want empty", got)
	}
}

// sketches returns two sketches of k positions that agree in exactly eq.
func sketches(k, eq int) (a, b []uint8) {
	a, b = make([]uint8, k), make([]uint8, k)
	for i := range a {
		a[i] = uint8(i * 37)
		b[i] = a[i]
		if i >= eq {
			b[i] = a[i] + 1
		}
	}
	return a, b
}

func TestEstimateJaccard(t *testing.T) {
	tests := []struct {
		name string
		k    int
		eq   int
		want float64
	}{
		// (eq/k - 1/256) / (255/256) = (256 eq/k - 1) / 255
		{"identical", 128, 128, 1},
		{"no equal positions clamps to 0", 128, 0, 0},
		{"one equal of 256: chance level", 256, 1, 0},
		{"half", 128, 64, 127.0 / 255},
		{"95 of 128", 128, 95, 189.0 / 255},
		{"110 of 128", 128, 110, 219.0 / 255},
		{"single position equal", 1, 1, 1},
	}
	for _, tt := range tests {
		a, b := sketches(tt.k, tt.eq)
		got := EstimateJaccard(a, b)
		if math.Abs(got-tt.want) > 1e-12 {
			t.Errorf("%s: EstimateJaccard = %v, want %v", tt.name, got, tt.want)
		}
		if rev := EstimateJaccard(b, a); rev != got {
			t.Errorf("%s: EstimateJaccard not symmetric: %v and %v", tt.name, got, rev)
		}
	}
	// Different lengths and empty sketches estimate 0.
	a, _ := sketches(128, 128)
	if got := EstimateJaccard(a, a[:64]); got != 0 {
		t.Errorf("EstimateJaccard of lengths 128 and 64 = %v, want 0", got)
	}
	if got := EstimateJaccard(nil, nil); got != 0 {
		t.Errorf("EstimateJaccard(nil, nil) = %v, want 0", got)
	}
}

func info(doc wire.Doc, id string, sketch []uint8, simhash uint64) *wire.Info {
	return &wire.Info{Doc: doc, ID: id, Len: int64(10 * len(id)), SimHash: simhash, Sketch: sketch}
}

func TestCheck(t *testing.T) {
	// With t = 0.8, K = 128, confidence 0.95 the undecided interval is
	// [0.7417, 0.8583): 95 equal positions estimate 189/255 = 0.7412
	// (below), 96 give 191/255 = 0.7490 (inside), 109 give 217/255 =
	// 0.8510 (inside), 110 give 219/255 = 0.8588 (above).
	cfg := func(m Blocking, mode Mode) Config {
		return Config{Blocking: m, Mode: mode, Threshold: 0.8, Hamming: 3, Confidence: 0.95}
	}
	tests := []struct {
		method Blocking
		mode   Mode
		eq     int
		want   Decision
	}{
		{Both, Auto, 128, Accept},
		{Both, Auto, 110, Accept},
		{Both, Auto, 109, CheckExactly},
		{Both, Auto, 96, CheckExactly},
		{Both, Auto, 95, Reject},
		{Both, Auto, 0, Reject},
		{MinHash, Auto, 110, Accept},
		{MinHash, Auto, 100, CheckExactly},
		{MinHash, Auto, 95, Reject},
		{Both, Estimate, 110, Accept},
		{Both, Estimate, 109, Accept},
		{Both, Estimate, 96, Accept},
		{Both, Estimate, 95, Reject},
		{MinHash, Estimate, 96, Accept},
		{MinHash, Estimate, 50, Reject},
		{Both, Exact, 128, CheckExactly},
		{Both, Exact, 100, CheckExactly},
		{Both, Exact, 0, CheckExactly},
		{MinHash, Exact, 128, CheckExactly},
		{MinHash, Exact, 3, CheckExactly},
	}
	for _, tt := range tests {
		sa, sb := sketches(128, tt.eq)
		a, b := info(1, "a", sa, 0), info(2, "bb", sb, 0b1111)
		m, d := Check(a, b, cfg(tt.method, tt.mode))
		if d != tt.want {
			t.Errorf("%v/%v, %d of 128 equal: decision %v, want %v", tt.method, tt.mode, tt.eq, d, tt.want)
		}
		if m.Method != wire.MinHash {
			t.Errorf("%v/%v: match method %v, want minhash", tt.method, tt.mode, m.Method)
		}
		if want := float32((256*float64(tt.eq)/128 - 1) / 255); tt.eq > 0 && m.Jaccard != want {
			t.Errorf("%v/%v, %d equal: match Jaccard %v, want %v", tt.method, tt.mode, tt.eq, m.Jaccard, want)
		}
		if m.Hamming != 4 {
			t.Errorf("%v/%v: match Hamming %d, want 4", tt.method, tt.mode, m.Hamming)
		}
		if !m.Estimated {
			t.Errorf("%v/%v, %d equal: match not marked Estimated, its Jaccard is the estimate", tt.method, tt.mode, tt.eq)
		}
	}
}

func TestCheckSimHash(t *testing.T) {
	// The SimHash method decides by Hamming distance alone, whatever the
	// sketches say and in every mode.
	tests := []struct {
		simhash uint64 // of b; a's is 0
		limit   int
		eq      int
		want    Decision
	}{
		{0, 0, 0, Accept},
		{0b1, 0, 128, Reject},
		{0b111, 3, 0, Accept},
		{0b1111, 3, 128, Reject},
		{math.MaxUint64, 63, 128, Reject},
		{math.MaxUint64, 64, 10, Accept},
	}
	for _, mode := range []Mode{Auto, Estimate, Exact} {
		for _, tt := range tests {
			sa, sb := sketches(128, tt.eq)
			cfg := Config{Blocking: SimHash, Mode: mode, Threshold: 0.8, Hamming: tt.limit, Confidence: 0.95}
			m, d := Check(info(1, "a", sa, 0), info(2, "b", sb, tt.simhash), cfg)
			if d != tt.want {
				t.Errorf("%v, simhash %#x, k=%d: decision %v, want %v", mode, tt.simhash, tt.limit, d, tt.want)
			}
			if m.Method != wire.SimHash {
				t.Errorf("%v: match method %v, want simhash", mode, m.Method)
			}
			if want := uint8(popcount(tt.simhash)); m.Hamming != want {
				t.Errorf("%v, simhash %#x: match Hamming %d, want %d", mode, tt.simhash, m.Hamming, want)
			}
		}
	}
}

func popcount(x uint64) int {
	n := 0
	for ; x != 0; x >>= 1 {
		n += int(x & 1)
	}
	return n
}

func TestCheckEmptySketch(t *testing.T) {
	// Documents without shingles never match, in any method or mode, even
	// with identical SimHashes.
	full, _ := sketches(128, 128)
	for _, method := range []Blocking{Both, MinHash, SimHash} {
		for _, mode := range []Mode{Auto, Estimate, Exact} {
			cfg := Config{Blocking: method, Mode: mode, Threshold: 0.8, Hamming: 64, Confidence: 0.95}
			for _, sk := range [][2][]uint8{{nil, nil}, {full, nil}, {nil, full}, {{}, {}}} {
				_, d := Check(info(1, "a", sk[0], 7), info(2, "b", sk[1], 7), cfg)
				if d != Reject {
					t.Errorf("%v/%v, sketch lengths %d and %d: decision %v, want Reject", method, mode, len(sk[0]), len(sk[1]), d)
				}
			}
		}
	}
}

func TestCheckOrder(t *testing.T) {
	// The match has A < B whatever the order of the arguments, and its ids
	// and lengths follow the documents.
	sa, sb := sketches(128, 128)
	x := &wire.Info{Doc: wire.DocNum(0, 5), ID: "x", Len: 100, SimHash: 1, Sketch: sa}
	y := &wire.Info{Doc: wire.DocNum(1, 2), ID: "y", Len: 200, SimHash: 3, Sketch: sb}
	want := wire.Match{A: x.Doc, B: y.Doc, IDA: "x", IDB: "y", LenA: 100, LenB: 200, Jaccard: 1, Hamming: 1, Method: wire.MinHash, Estimated: true}
	cfg := Config{Blocking: Both, Mode: Auto, Threshold: 0.8, Confidence: 0.95}
	for _, args := range [][2]*wire.Info{{x, y}, {y, x}} {
		m, d := Check(args[0], args[1], cfg)
		if m != want || d != Accept {
			t.Errorf("Check(%s, %s) = %+v, %v; want %+v, Accept", args[0].ID, args[1].ID, m, d, want)
		}
	}
}

func TestAgree(t *testing.T) {
	r := rand.New(rand.NewPCG(1, 2))
	for n := range 40 {
		a, b := make([]uint8, n), make([]uint8, n)
		for i := range a {
			a[i] = uint8(r.IntN(4) * 85) // 0, 85, 170, 255: high and low bits
			b[i] = uint8(r.IntN(4) * 85)
		}
		want := 0
		for i := range a {
			if a[i] == b[i] {
				want++
			}
		}
		if got := agree(a, b); got != want {
			t.Errorf("agree(%v, %v) = %d, want %d", a, b, got, want)
		}
	}
}

func BenchmarkEstimateJaccard(b *testing.B) {
	r := rand.New(rand.NewPCG(1, 2))
	x, y := make([]uint8, 128), make([]uint8, 128)
	for i := range x {
		x[i], y[i] = uint8(r.Uint32()), uint8(r.Uint32())
	}
	for b.Loop() {
		EstimateJaccard(x, y)
	}
}
