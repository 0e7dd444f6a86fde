package verify

import (
	"math/rand/v2"
	"testing"

	"github.com/neardup/neardup/transforms/format/wire"
	"github.com/neardup/neardup/transforms/sketch/similarity"
)

func TestCheckContained(t *testing.T) {
	// C = 0.8 between 100 and 400 shingles is Jaccard 80/420 = 0.1905; at
	// confidence 0.95 and K = 128 the estimate decides outside about
	// [0.133, 0.248]: 39 equal positions estimate 0.302 (contained), 25
	// give 0.192 (unsure), 7 give 0.051 (not). 110 equal positions pass
	// the Jaccard test itself, 100 are unsure for it.
	cfg := Config{Blocking: Both, Mode: Auto, Threshold: 0.8, Confidence: 0.95, Containment: 0.8, ContainMinSize: 10}
	tests := []struct {
		name         string
		docA, docB   wire.Doc
		sizeA, sizeB int64
		eq           int
		cfg          Config
		want         Decision
		method       wire.Method
		inside       wire.Side
		passes       bool // PassesContained, after Check
	}{
		{"contained", 1, 2, 100, 400, 39, cfg, Accept, wire.Containment, wire.SideA, true},
		{"contains", 1, 2, 400, 100, 39, cfg, Accept, wire.Containment, wire.SideB, true},
		{"order of the infos", 2, 1, 100, 400, 39, cfg, Accept, wire.Containment, wire.SideB, true},
		{"unsure", 1, 2, 100, 400, 25, cfg, CheckExactly, wire.MinHash, wire.SideA, true},
		{"not contained", 1, 2, 100, 400, 7, cfg, Reject, wire.MinHash, wire.NoSide, false},
		{"below the minimum size", 1, 2, 9, 36, 39, cfg, Reject, wire.MinHash, wire.NoSide, false},
		{"sizes unknown", 1, 2, 0, 0, 39, cfg, Reject, wire.MinHash, wire.NoSide, false},
		{"a Jaccard match", 1, 2, 100, 110, 110, cfg, Accept, wire.MinHash, wire.NoSide, false},
		{"unsure for the Jaccard", 1, 2, 100, 110, 100, cfg, CheckExactly, wire.MinHash, wire.SideA, true},
		{"containment off", 1, 2, 100, 400, 39, Config{Blocking: Both, Mode: Auto, Threshold: 0.8, Confidence: 0.95}, Reject, wire.MinHash, wire.NoSide, false},
		{"estimate mode, unsure", 1, 2, 100, 400, 25, func() Config { c := cfg; c.Mode = Estimate; return c }(), Accept, wire.Containment, wire.SideA, true},
		// 15 inside 661 is Jaccard 0.018 at C = 0.8: 6 equal positions,
		// as likely from unrelated sketches, estimate 0.043, above the
		// bounds, below ContainEstimateFloor.
		{"below the estimate floor", 1, 2, 15, 661, 6, cfg, CheckExactly, wire.MinHash, wire.NoSide, false},
		{"below the floor, estimate mode", 1, 2, 15, 661, 6, func() Config { c := cfg; c.Mode = Estimate; return c }(), CheckExactly, wire.MinHash, wire.NoSide, false},
		// ... nor can it reject: 0 is within the bounds of 0.018.
		{"below the floor, no position equal", 1, 2, 15, 661, 0, cfg, CheckExactly, wire.MinHash, wire.NoSide, false},
	}
	for _, tt := range tests {
		sa, sb := sketches(128, tt.eq)
		a, b := info(tt.docA, "a", sa, 0), info(tt.docB, "b", sb, 0)
		a.Shingles, b.Shingles = tt.sizeA, tt.sizeB
		m, d := Check(a, b, tt.cfg)
		if d != tt.want || m.Method != tt.method || m.Inside != tt.inside {
			t.Errorf("%s: %v, method %v, inside %v; want %v, %v, %v", tt.name, d, m.Method, m.Inside, tt.want, tt.method, tt.inside)
		}
		if got := tt.cfg.PassesContained(&m); got != tt.passes || got && m.Method != wire.Containment {
			t.Errorf("%s: PassesContained %v (method %v), want %v", tt.name, got, m.Method, tt.passes)
		}
		if m.Method == wire.Containment && (m.Containment < 0.8 || m.Containment > 1) {
			t.Errorf("%s: estimated containment %v, want in [0.8, 1]", tt.name, m.Containment)
		}
	}
}

// set returns the sorted set {from, ..., from+n-1}.
func set(from, n uint32) []uint32 {
	s := make([]uint32, n)
	for i := range s {
		s[i] = from + uint32(i)
	}
	return s
}

func TestExact(t *testing.T) {
	cfg := Config{Threshold: 0.8, Containment: 0.8, ContainMinSize: 10}
	tests := []struct {
		name        string
		a, b        []uint32
		cfg         Config
		want        bool
		method      wire.Method
		inside      wire.Side
		containment float32
	}{
		{"85 of 100 inside 400", set(0, 100), set(15, 400), cfg, true, wire.Containment, wire.SideA, 0.85},
		{"the larger first", set(15, 400), set(0, 100), cfg, true, wire.Containment, wire.SideB, 0.85},
		{"75 of 100 inside 400", set(0, 100), set(25, 400), cfg, false, 0, 0, 0},
		{"exactly C", set(0, 100), set(20, 400), cfg, true, wire.Containment, wire.SideA, 0.8},
		{"a Jaccard match", set(0, 100), set(5, 100), cfg, true, wire.MinHash, wire.NoSide, 0},
		{"equal sizes: the second inside", set(0, 50), set(8, 50), cfg, true, wire.Containment, wire.SideB, 0.84},
		{"below the minimum size", set(0, 9), set(0, 40), cfg, false, 0, 0, 0},
		{"containment off", set(0, 100), set(15, 400), Config{Threshold: 0.8}, false, 0, 0, 0},
	}
	for _, tt := range tests {
		m := wire.Match{Method: wire.MinHash, Estimated: true}
		got := tt.cfg.Exact(&m, tt.a, tt.b)
		if got != tt.want {
			t.Errorf("%s: Exact = %v, want %v", tt.name, got, tt.want)
			continue
		}
		if got && (m.Method != tt.method || m.Inside != tt.inside || m.Containment != tt.containment) {
			t.Errorf("%s: method %v, inside %v, containment %v; want %v, %v, %v", tt.name, m.Method, m.Inside, m.Containment, tt.method, tt.inside, tt.containment)
		}
		if got && m.Estimated {
			t.Errorf("%s: match still marked Estimated after Exact computed its Jaccard", tt.name)
		}
	}
}

func TestContainJaccard(t *testing.T) {
	for _, tc := range []struct {
		c    float64
		q, u int64
	}{{0.8, 100, 400}, {0.9, 10, 10}, {1, 50, 5000}, {0.5, 1000, 1001}} {
		j := ContainJaccard(tc.c, tc.q, tc.u)
		if back := containOf(j, tc.q, tc.u); back < tc.c-1e-12 || back > tc.c+1e-12 {
			t.Errorf("containOf(ContainJaccard(%v, %d, %d)) = %v", tc.c, tc.q, tc.u, back)
		}
	}
}

// TestExactBruteForce compares Exact, which stops counting once a pair
// cannot pass, with both tests on the full intersection, at thresholds
// where the boundary falls on whole counts and between them.
func TestExactBruteForce(t *testing.T) {
	r := rand.New(rand.NewPCG(7, 8))
	set := func(n, universe int) []uint32 {
		var s []uint32
		for v := range universe {
			if r.IntN(universe) < n {
				s = append(s, uint32(v))
			}
		}
		return s
	}
	for trial := range 20000 {
		universe := 2 + r.IntN(200)
		a, b := set(r.IntN(universe), universe), set(r.IntN(universe), universe)
		if trial%4 == 0 {
			b = set(universe, universe*40) // skewed sizes
		}
		cfg := Config{Threshold: []float64{0.5, 0.8, 0.9, 0.75}[trial%4]}
		if trial%3 != 0 {
			cfg.Containment, cfg.ContainMinSize = []float64{0.8, 0.9, 0.5, 1}[trial%4], 1+r.IntN(5)
		}
		inter, union := similarity.Overlap(a, b)
		j := 0.0
		if union > 0 {
			j = float64(inter) / float64(union)
		}
		q := min(len(a), len(b))
		want := j >= cfg.Threshold || cfg.Containment > 0 && q >= cfg.ContainMinSize && float64(inter)/float64(q) >= cfg.Containment
		var m wire.Match
		if got := cfg.Exact(&m, a, b); got != want {
			t.Fatalf("%+v on sets of %d and %d sharing %d: Exact = %v, want %v", cfg, len(a), len(b), inter, got, want)
		}
		if want && m.Jaccard != float32(j) {
			t.Fatalf("%+v: Jaccard %v, want %v", cfg, m.Jaccard, j)
		}
	}
}
